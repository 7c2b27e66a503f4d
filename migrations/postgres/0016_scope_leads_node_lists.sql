-- A key of one scope (most agents' keys, and any read narrowed by `?scope=`) lists its
-- memories newest first from an index that leads with scope, so a tenant's page reads its own
-- rows, however many the other tenants hold. `nodes_kind` (scope, type, state) is a prefix of
-- `nodes_newest_in_kind` and goes, so a write maintains as many indexes as before.
drop index nodes_kind;
create index nodes_in_scope_newest on nodes (scope, state, created_at desc, node_id desc);
