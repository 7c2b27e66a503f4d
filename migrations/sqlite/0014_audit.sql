-- Who did what (`GET /audit`): every write records the name of the key that made it
-- (`key_name`; null without keys), beside `by_whom`, which is whatever the writer calls itself
-- (`resolved_by`, an MCP client's name). A memory's versions and a conflict's history already
-- keep each change: they gain the key. A node row carries the key of its last change in
-- `changed_key`, as it carries `changed_by`, for the version triggers to copy. Keys record the
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

drop trigger node_versions_insert;
drop trigger node_versions_update;
drop trigger node_versions_delete;

create trigger node_versions_insert after insert on nodes begin
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, key_name,
        conflict_id)
    values (new.node_id,
        coalesce((select max(version) from node_versions where node_id = new.node_id), 0) + 1,
        'created', cast(round(unixepoch('subsec') * 1000) as integer), new.changed_by,
        new.changed_key, new.changed_in);
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
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, key_name,
        conflict_id, prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels,
        prev_scope, prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    select new.node_id,
        (select max(version) from node_versions where node_id = new.node_id) + 1,
        'changed', cast(round(unixepoch('subsec') * 1000) as integer), new.changed_by,
        new.changed_key, new.changed_in,
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
    insert into node_versions (node_id, version, kind, recorded_at, by_whom, key_name,
        conflict_id, prev_title, prev_body, prev_confidence, prev_memory_type, prev_labels,
        prev_scope, prev_source, prev_state, prev_observed_at, prev_valid_until, prev_corrected)
    values (old.node_id,
        (select max(version) from node_versions where node_id = old.node_id) + 1,
        'deleted', cast(round(unixepoch('subsec') * 1000) as integer), old.changed_by,
        old.changed_key, old.changed_in, old.title, old.body, old.confidence, old.memory_type,
        old.labels, old.scope, old.source, old.state, old.observed_at, old.valid_until,
        old.corrected);
end;
