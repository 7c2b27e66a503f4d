-- Quarantine (contract section 14): a policy may store a new memory without making it
-- current. Such a memory is `quarantined` until a reviewer promotes or rejects it; every read
-- of current memories already asks for `state = 'active'`, so none of them sees it.
--
-- SQLite cannot alter a CHECK constraint. Rebuilding `nodes` would copy every memory and
-- recreate its full-text index, triggers and foreign keys; SQLite's documented alternative
-- for loosening a constraint (https://sqlite.org/lang_altertable.html, "making other kinds
-- of table schema changes") rewrites the table's stored definition instead. A value added to
-- the list cannot make a stored row invalid. `writable_schema = reset` reloads the schema on
-- this connection, and the `create index` below changes the schema cookie, so every other
-- connection reloads it too before its next statement.
pragma writable_schema = on;
update sqlite_schema
   set sql = replace(sql,
                     'check (state in (''active'', ''dormant'', ''archived''))',
                     'check (state in (''active'', ''dormant'', ''archived'', ''quarantined''))')
 where type = 'table' and name = 'nodes';
pragma writable_schema = reset;
-- The quarantine queue of the console and `GET /nodes?state=quarantined` stay small reads.
create index nodes_quarantined on nodes (scope, created_at desc, node_id desc)
    where state = 'quarantined';
