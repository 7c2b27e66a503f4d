-- Quarantine (contract section 14): a policy may store a new memory without making it
-- current. Such a memory is `quarantined` until a reviewer promotes or rejects it; every read
-- of current memories already asks for `state = 'active'`, so none of them sees it.
alter table nodes drop constraint nodes_state_check;
alter table nodes add constraint nodes_state_check
    check (state in ('active', 'dormant', 'archived', 'quarantined'));
-- The quarantine queue of the console and `GET /nodes?state=quarantined` stay small reads.
create index nodes_quarantined on nodes (scope, created_at desc, node_id desc)
    where state = 'quarantined';
