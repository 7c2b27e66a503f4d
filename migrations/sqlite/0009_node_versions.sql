-- Every change to a memory is kept as a version, written by triggers in the statement that
-- changes the node, so that no code path can forget one (the label index works the same way).
-- A write says who made it and in which conflict through the node's `changed_by` and
-- `changed_in`, which every write sets. A version keeps the title and body it replaced
-- (`prev_title`, `prev_body`), never a copy of an unchanged text: the live text is in `nodes`,
-- each replaced text once here, and a deletion's tombstone keeps the last one.
--
-- Valid time: a memory holds from `observed_at` until `valid_until` (null: still holds);
-- `corrected` marks one that never held (a resolution said it was wrong).
alter table nodes add column valid_until text;
alter table nodes add column corrected integer not null default 0;
alter table nodes add column changed_by text;
alter table nodes add column changed_in text;

create table node_versions (
    node_id     text not null,
    -- 1, 2, … per node; a node deleted and restored by a revert goes on counting.
    version     integer not null,
    kind        text not null check (kind in ('created', 'changed', 'deleted')),
    -- System time: when concord held this version (RFC 3339, milliseconds, `Z`).
    recorded_at text not null,
    by_whom     text,
    conflict_id text,
    prev_title  text,
    prev_body   text,
    memory_type text not null,
    labels      text not null,
    scope       text not null,
    source      text,
    confidence  real not null,
    state       text not null,
    observed_at text not null,
    valid_until text,
    corrected   integer not null,
    primary key (node_id, version)
) without rowid;

create trigger node_versions_insert after insert on nodes begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        memory_type, labels, scope, source, confidence, state, observed_at, valid_until,
        corrected)
    values (new.node_id,
        coalesce((select max(version) from node_versions where node_id = new.node_id), 0) + 1,
        'created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), new.changed_by, new.changed_in,
        new.memory_type, new.labels, new.scope, new.source, new.confidence, new.state,
        new.observed_at, new.valid_until, new.corrected);
end;

-- Only a change of what a memory says or how it stands is a version; index columns,
-- timestamps and the change context alone are not.
create trigger node_versions_update after update on nodes
when old.title is not new.title or old.body is not new.body
  or old.memory_type is not new.memory_type or old.labels is not new.labels
  or old.scope is not new.scope or old.source is not new.source
  or old.confidence is not new.confidence or old.state is not new.state
  or old.observed_at is not new.observed_at or old.valid_until is not new.valid_until
  or old.corrected is not new.corrected
begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        prev_title, prev_body, memory_type, labels, scope, source, confidence, state,
        observed_at, valid_until, corrected)
    values (new.node_id,
        (select max(version) from node_versions where node_id = new.node_id) + 1,
        'changed', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), new.changed_by, new.changed_in,
        case when old.title is not new.title then old.title end,
        case when old.body is not new.body then old.body end,
        new.memory_type, new.labels, new.scope, new.source, new.confidence, new.state,
        new.observed_at, new.valid_until, new.corrected);
end;

create trigger node_versions_delete after delete on nodes begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        prev_title, prev_body, memory_type, labels, scope, source, confidence, state,
        observed_at, valid_until, corrected)
    values (old.node_id,
        (select max(version) from node_versions where node_id = old.node_id) + 1,
        'deleted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), old.changed_by, old.changed_in,
        old.title, old.body, old.memory_type, old.labels, old.scope, old.source,
        old.confidence, old.state, old.observed_at, old.valid_until, old.corrected);
end;

-- Every existing memory starts with one version: as it is now, recorded when it was written.
insert into node_versions (node_id, version, kind, recorded_at, memory_type, labels, scope,
    source, confidence, state, observed_at, valid_until, corrected)
select node_id, 1, 'created', created_at, memory_type, labels, scope, source, confidence,
    state, observed_at, valid_until, corrected
from nodes;
