-- A version keeps what its change replaced and nothing that stayed, so that a memory's history
-- costs about what changed in it. Each `prev_*` column holds the value the change replaced:
-- `prev_title`, `prev_body` and `prev_confidence` each on its own; the standing columns (type,
-- labels, scope, source, state and valid time) all together whenever a change replaced any of
-- them, so `prev_state` is set exactly when a change replaced the standing. A version's values
-- are those that the next version replacing them kept, else the live node's; a deletion's
-- tombstone keeps all of them.
drop trigger node_versions_insert on nodes;
drop trigger node_versions_update on nodes;
drop trigger node_versions_delete on nodes;
drop function node_versions_record();

create table node_versions_kept (
    node_id          uuid not null,
    version          integer not null,
    kind             text not null check (kind in ('created', 'changed', 'deleted')),
    recorded_at      timestamptz not null,
    by_whom          text,
    conflict_id      uuid,
    prev_title       text,
    prev_body        text,
    prev_confidence  double precision,
    prev_memory_type text,
    prev_labels      jsonb,
    prev_scope       text,
    prev_source      text,
    prev_state       text,
    prev_observed_at timestamptz,
    prev_valid_until timestamptz,
    prev_corrected   boolean,
    primary key (node_id, version)
);

-- The stored versions kept whole until now: each row's replaced values are the row before it
-- (a tombstone's are its own).
insert into node_versions_kept (node_id, version, kind, recorded_at, by_whom, conflict_id,
    prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
    prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
select node_id, version, kind, recorded_at, by_whom, conflict_id, prev_title, prev_body,
    case when kind = 'deleted' then confidence
         when kind = 'changed' and p_confidence is distinct from confidence then p_confidence end,
    case when kind = 'deleted' then memory_type when standing_changed then p_memory_type end,
    case when kind = 'deleted' then labels when standing_changed then p_labels end,
    case when kind = 'deleted' then scope when standing_changed then p_scope end,
    case when kind = 'deleted' then source when standing_changed then p_source end,
    case when kind = 'deleted' then state when standing_changed then p_state end,
    case when kind = 'deleted' then observed_at when standing_changed then p_observed_at end,
    case when kind = 'deleted' then valid_until when standing_changed then p_valid_until end,
    case when kind = 'deleted' then corrected when standing_changed then p_corrected end
from (
    select *, kind = 'changed' and (p_memory_type is distinct from memory_type
            or p_labels is distinct from labels or p_scope is distinct from scope
            or p_source is distinct from source or p_state is distinct from state
            or p_observed_at is distinct from observed_at
            or p_valid_until is distinct from valid_until
            or p_corrected is distinct from corrected) as standing_changed
    from (
        select *, lag(confidence) over w as p_confidence, lag(memory_type) over w as p_memory_type,
            lag(labels) over w as p_labels, lag(scope) over w as p_scope,
            lag(source) over w as p_source, lag(state) over w as p_state,
            lag(observed_at) over w as p_observed_at, lag(valid_until) over w as p_valid_until,
            lag(corrected) over w as p_corrected
        from node_versions
        window w as (partition by node_id order by version)
    ) with_previous
) with_change;

drop table node_versions;
alter table node_versions_kept rename to node_versions;
alter index node_versions_kept_pkey rename to node_versions_pkey;

-- Reading a past version looks for the next version that replaced its texts or its standing:
-- those few rows are indexed on their own, so the look-up skips the many versions that only
-- changed the confidence.
create index node_versions_replaced_title on node_versions (node_id, version)
    where prev_title is not null;
create index node_versions_replaced_body on node_versions (node_id, version)
    where prev_body is not null;
create index node_versions_replaced_standing on node_versions (node_id, version)
    where prev_state is not null;

create function node_versions_record() returns trigger language plpgsql as $$
declare
    n nodes;
    next_version integer;
    standing boolean;
begin
    if tg_op = 'DELETE' then n := old; else n := new; end if;
    select coalesce(max(version), 0) + 1 into next_version
    from node_versions where node_id = n.node_id;
    if tg_op = 'INSERT' then
        insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id)
        values (n.node_id, next_version, 'created', now(), n.changed_by, n.changed_in);
        return null;
    end if;
    standing := tg_op = 'DELETE' or old.memory_type is distinct from new.memory_type
        or old.labels is distinct from new.labels or old.scope is distinct from new.scope
        or old.source is distinct from new.source or old.state is distinct from new.state
        or old.observed_at is distinct from new.observed_at
        or old.valid_until is distinct from new.valid_until
        or old.corrected is distinct from new.corrected;
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, conflict_id,
        prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
        prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    values (n.node_id, next_version,
        case tg_op when 'UPDATE' then 'changed' else 'deleted' end,
        now(), n.changed_by, n.changed_in,
        case when tg_op = 'DELETE' or old.title is distinct from new.title then old.title end,
        case when tg_op = 'DELETE' or old.body is distinct from new.body then old.body end,
        case when tg_op = 'DELETE' or old.confidence is distinct from new.confidence
             then old.confidence end,
        case when standing then old.memory_type end,
        case when standing then old.labels end,
        case when standing then old.scope end,
        case when standing then old.source end,
        case when standing then old.state end,
        case when standing then old.observed_at end,
        case when standing then old.valid_until end,
        case when standing then old.corrected end);
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
