-- Restatements (contract section 14): a write whose text equals an active memory of its scope
-- and title returns that memory instead of storing a copy. The write finds the memories of
-- its title through this index (`lower` folds ASCII case here; the service compares the
-- texts exactly, whitespace and case normalised). The sources that restated a memory are
-- kept as its corroborations.
create index nodes_by_title on nodes (scope, lower(title)) where state = 'active';

create table node_corroborations (
    node_id    text not null references nodes (node_id) on delete cascade,
    source     text not null,
    key_name   text,
    created_at text not null,
    primary key (node_id, source)
);
