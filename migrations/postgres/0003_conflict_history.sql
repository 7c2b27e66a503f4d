-- Every change of a conflict (queued, resolved, reverted, auto-resolved) as one row, oldest
-- first by entry_id. `pre_image` keeps, for a resolution, what it overwrote (node states,
-- bodies, labels, deleted rows, credibility counters), so a revert restores it exactly.
create table conflict_history (
    entry_id    bigserial primary key,
    conflict_id uuid not null references conflict_queue (conflict_id) on delete cascade,
    at          timestamptz not null,
    kind        text not null,
    by_whom     text,
    resolution  text,
    note        text,
    actions     jsonb not null default '[]',
    pre_image   jsonb
);
create index conflict_history_conflict on conflict_history (conflict_id, entry_id);
create index conflict_resolved_by on conflict_queue (resolved_by) where resolved_by is not null;

-- Conflicts queued or resolved before history existed get their entries from the queue row.
insert into conflict_history (conflict_id, at, kind, by_whom, actions)
select conflict_id, created_at, 'queued', null, '[]' from conflict_queue order by seq;
insert into conflict_history (conflict_id, at, kind, by_whom, resolution, note, actions)
select conflict_id, resolved_at, 'resolved', resolved_by, resolution, note, coalesce(actions, '[]')
from conflict_queue where status = 'resolved' order by seq;
