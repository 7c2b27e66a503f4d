-- Every change to a memory is kept as a version, written by triggers in the statement that
-- changes the node, so that no code path can forget one (the label index works the same way).
-- A write says who made it and in which conflict through the node's `changed_by` and
-- `changed_in`, which every write sets. A version keeps the title and body it replaced
-- (`prev_title`, `prev_body`), never a copy of an unchanged text: the live text is in `nodes`,
-- each replaced text once here, and a deletion's tombstone keeps the last one.
--
-- Valid time: a memory holds from `observed_at` until `valid_until` (null: still holds);
-- `corrected` marks one that never held (a resolution said it was wrong).
alter table nodes add column valid_until timestamptz;
alter table nodes add column corrected boolean not null default false;
alter table nodes add column changed_by text;
alter table nodes add column changed_in uuid;

create table node_versions (
    node_id     uuid not null,
    -- 1, 2, … per node; a node deleted and restored by a revert goes on counting.
    version     integer not null,
    kind        text not null check (kind in ('created', 'changed', 'deleted')),
    -- System time: when concord held this version (the transaction's time).
    recorded_at timestamptz not null,
    by_whom     text,
    conflict_id uuid,
    prev_title  text,
    prev_body   text,
    memory_type text not null,
    labels      jsonb not null,
    scope       text not null,
    source      text,
    confidence  double precision not null,
    state       text not null,
    observed_at timestamptz not null,
    valid_until timestamptz,
    corrected   boolean not null,
    primary key (node_id, version)
);

create function node_versions_record() returns trigger language plpgsql as $$
declare
    n nodes;
    next_version integer;
begin
    if tg_op = 'DELETE' then n := old; else n := new; end if;
    select coalesce(max(version), 0) + 1 into next_version
    from node_versions where node_id = n.node_id;
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        prev_title, prev_body, memory_type, labels, scope, source, confidence, state,
        observed_at, valid_until, corrected)
    values (n.node_id, next_version,
        case tg_op when 'INSERT' then 'created' when 'UPDATE' then 'changed' else 'deleted' end,
        now(), n.changed_by, n.changed_in,
        case when tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.title is distinct from new.title)
             then old.title end,
        case when tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.body is distinct from new.body)
             then old.body end,
        n.memory_type, n.labels, n.scope, n.source, n.confidence, n.state, n.observed_at,
        n.valid_until, n.corrected);
    return null;
end
$$;

create trigger node_versions_insert after insert on nodes
for each row execute function node_versions_record();

-- Only a change of what a memory says or how it stands is a version; index columns,
-- timestamps and the change context alone are not.
create trigger node_versions_update after update on nodes
for each row when (
    old.title is distinct from new.title or old.body is distinct from new.body
    or old.memory_type is distinct from new.memory_type or old.labels is distinct from new.labels
    or old.scope is distinct from new.scope or old.source is distinct from new.source
    or old.confidence is distinct from new.confidence or old.state is distinct from new.state
    or old.observed_at is distinct from new.observed_at
    or old.valid_until is distinct from new.valid_until or old.corrected is distinct from new.corrected)
execute function node_versions_record();

create trigger node_versions_delete after delete on nodes
for each row execute function node_versions_record();

-- Every existing memory starts with one version: as it is now, recorded when it was written.
insert into node_versions (node_id, version, kind, recorded_at, memory_type, labels, scope,
    source, confidence, state, observed_at, valid_until, corrected)
select node_id, 1, 'created', created_at, memory_type, labels, scope, source, confidence,
    state, observed_at, valid_until, corrected
from nodes;
