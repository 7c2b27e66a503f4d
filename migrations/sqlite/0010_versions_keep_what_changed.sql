-- A version keeps what its change replaced and nothing that stayed, so that a memory's history
-- costs about what changed in it. Each `prev_*` column holds the value the change replaced:
-- `prev_title`, `prev_body` and `prev_confidence` each on its own; the standing columns (type,
-- labels, scope, source, state and valid time) all together whenever a change replaced any of
-- them, so `prev_state` is set exactly when a change replaced the standing. A version's values
-- are those that the next version replacing them kept, else the live node's; a deletion's
-- tombstone keeps all of them. System time (`recorded_at`) is milliseconds since the Unix epoch.
drop trigger node_versions_insert;
drop trigger node_versions_update;
drop trigger node_versions_delete;

create table node_versions_kept (
    node_id          text not null,
    version          integer not null,
    kind             text not null check (kind in ('created', 'changed', 'deleted')),
    recorded_at      integer not null,
    by_whom          text,
    conflict_id      text,
    prev_title       text,
    prev_body        text,
    prev_confidence  real,
    prev_memory_type text,
    prev_labels      text,
    prev_scope       text,
    prev_source      text,
    prev_state       text,
    prev_observed_at text,
    prev_valid_until text,
    prev_corrected   integer,
    primary key (node_id, version)
) without rowid;

-- The stored versions kept whole until now: each row's replaced values are the row before it
-- (a tombstone's are its own).
insert into node_versions_kept (node_id, version, kind, recorded_at, by_whom, conflict_id,
    prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
    prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
select node_id, version, kind, cast(round(unixepoch(recorded_at, 'subsec') * 1000) as integer),
    by_whom, conflict_id, prev_title, prev_body,
    case when kind = 'deleted' then confidence
         when kind = 'changed' and p_confidence is not confidence then p_confidence end,
    case when kind = 'deleted' then memory_type when standing_changed then p_memory_type end,
    case when kind = 'deleted' then labels when standing_changed then p_labels end,
    case when kind = 'deleted' then scope when standing_changed then p_scope end,
    case when kind = 'deleted' then source when standing_changed then p_source end,
    case when kind = 'deleted' then state when standing_changed then p_state end,
    case when kind = 'deleted' then observed_at when standing_changed then p_observed_at end,
    case when kind = 'deleted' then valid_until when standing_changed then p_valid_until end,
    case when kind = 'deleted' then corrected when standing_changed then p_corrected end
from (
    select *, kind = 'changed' and (p_memory_type is not memory_type or p_labels is not labels
            or p_scope is not scope or p_source is not source or p_state is not state
            or p_observed_at is not observed_at or p_valid_until is not valid_until
            or p_corrected is not corrected) as standing_changed
    from (
        select *, lag(confidence) over w as p_confidence, lag(memory_type) over w as p_memory_type,
            lag(labels) over w as p_labels, lag(scope) over w as p_scope,
            lag(source) over w as p_source, lag(state) over w as p_state,
            lag(observed_at) over w as p_observed_at, lag(valid_until) over w as p_valid_until,
            lag(corrected) over w as p_corrected
        from node_versions
        window w as (partition by node_id order by version)
    )
);

drop table node_versions;
alter table node_versions_kept rename to node_versions;

-- Reading a past version looks for the next version that replaced its texts or its standing:
-- those few rows are indexed on their own, so the look-up skips the many versions that only
-- changed the confidence.
create index node_versions_replaced_title on node_versions (node_id, version)
    where prev_title is not null;
create index node_versions_replaced_body on node_versions (node_id, version)
    where prev_body is not null;
create index node_versions_replaced_standing on node_versions (node_id, version)
    where prev_state is not null;

create trigger node_versions_insert after insert on nodes begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id)
    values (new.node_id,
        coalesce((select max(version) from node_versions where node_id = new.node_id), 0) + 1,
        'created', cast(round(unixepoch('subsec') * 1000) as integer), new.changed_by,
        new.changed_in);
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
        prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
        prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    select new.node_id,
        (select max(version) from node_versions where node_id = new.node_id) + 1,
        'changed', cast(round(unixepoch('subsec') * 1000) as integer), new.changed_by,
        new.changed_in,
        case when old.title is not new.title then old.title end,
        case when old.body is not new.body then old.body end,
        case when old.confidence is not new.confidence then old.confidence end,
        case when s.changed then old.memory_type end,
        case when s.changed then old.labels end,
        case when s.changed then old.scope end,
        case when s.changed then old.source end,
        case when s.changed then old.state end,
        case when s.changed then old.observed_at end,
        case when s.changed then old.valid_until end,
        case when s.changed then old.corrected end
    from (select old.memory_type is not new.memory_type or old.labels is not new.labels
            or old.scope is not new.scope or old.source is not new.source
            or old.state is not new.state or old.observed_at is not new.observed_at
            or old.valid_until is not new.valid_until
            or old.corrected is not new.corrected as changed) as s;
end;

create trigger node_versions_delete after delete on nodes begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
        prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    values (old.node_id,
        (select max(version) from node_versions where node_id = old.node_id) + 1,
        'deleted', cast(round(unixepoch('subsec') * 1000) as integer), old.changed_by,
        old.changed_in, old.title, old.body, old.confidence, old.memory_type, old.labels,
        old.scope, old.source, old.state, old.observed_at, old.valid_until, old.corrected);
end;
