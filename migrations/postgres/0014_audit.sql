-- Who did what (`GET /audit`): every write records the name of the key that made it
-- (`key_name`; null without keys), beside `by_whom`, which is whatever the writer calls itself
-- (`resolved_by`, an MCP client's name). A memory's versions and a conflict's history already
-- keep each change: they gain the key. A node row carries the key of its last change in
-- `changed_key`, as it carries `changed_by`, for the version trigger to copy. Keys record the
-- admin that made and revoked them; sweeps have `created_by`. Edges keep no history: an edge
-- an agent writes joins memories whose versions name their writers, and the edges a
-- resolution writes are in its history's actions.
alter table nodes add column changed_key text;
alter table node_versions add column key_name text;
alter table conflict_history add column key_name text;
alter table api_keys add column created_key text;
alter table api_keys add column revoked_key text;

-- `GET /audit?key=` reads one key's entries, newest first.
create index node_versions_by_key on node_versions (key_name, recorded_at);
create index conflict_history_by_key on conflict_history (key_name, at);

create or replace function node_versions_record() returns trigger language plpgsql as $$
declare
    n nodes;
    next_version integer;
    standing boolean;
begin
    if tg_op = 'DELETE' then n := old; else n := new; end if;
    select coalesce(max(version), 0) + 1 into next_version
    from node_versions where node_id = n.node_id;
    if tg_op = 'INSERT' then
        insert into node_versions (node_id, version, kind, recorded_at, by_whom, key_name,
            conflict_id)
        values (n.node_id, next_version, 'created', now(), n.changed_by, n.changed_key,
            n.changed_in);
        return null;
    end if;
    standing := tg_op = 'DELETE' or old.memory_type is distinct from new.memory_type
        or old.labels is distinct from new.labels or old.scope is distinct from new.scope
        or old.source is distinct from new.source or old.state is distinct from new.state
        or old.observed_at is distinct from new.observed_at
        or old.valid_until is distinct from new.valid_until
        or old.corrected is distinct from new.corrected;
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, key_name, conflict_id,
        prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels, prev_scope,
        prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    values (n.node_id, next_version,
        case tg_op when 'UPDATE' then 'changed' else 'deleted' end,
        now(), n.changed_by, n.changed_key, n.changed_in,
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
