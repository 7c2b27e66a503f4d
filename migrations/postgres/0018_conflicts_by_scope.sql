-- A conflict records the scopes of its memories (`scopes`: one scope, or two sorted and
-- newline-separated for a conflict queued by hand across scopes), so that a key of one scope
-- reads its queue, its wake feed and its stats from an index that leads with scope, however
-- many conflicts the other tenants hold. Before, every such read filtered each conflict by
-- looking up the scopes of both its memories. The scopes are set when the conflict is queued
-- and follow a memory that `PATCH` moves to another scope; a memory deleted later leaves its
-- scope on the resolved conflicts that keep its history.
alter table conflict_queue add column scopes text;

create function concord_conflict_scopes(old_id uuid, new_id uuid) returns text
language sql stable as $$
    select case when o.scope is null then n.scope
                when n.scope is null or n.scope = o.scope then o.scope
                when o.scope < n.scope then o.scope || chr(10) || n.scope
                else n.scope || chr(10) || o.scope end
    from (select (select scope from nodes where node_id = old_id) as scope) o,
         (select (select scope from nodes where node_id = new_id) as scope) n
$$;

update conflict_queue set scopes = concord_conflict_scopes(old_node_id, new_node_id);

create function conflict_scopes_insert() returns trigger language plpgsql as $$
begin
    if new.scopes is null then
        new.scopes := concord_conflict_scopes(new.old_node_id, new.new_node_id);
    end if;
    return new;
end
$$;

create trigger conflict_scopes_insert before insert on conflict_queue
for each row execute function conflict_scopes_insert();

create function conflict_scopes_follow_node() returns trigger language plpgsql as $$
begin
    update conflict_queue set scopes = concord_conflict_scopes(old_node_id, new_node_id)
    where old_node_id = new.node_id or new_node_id = new.node_id;
    return null;
end
$$;

create trigger conflict_scopes_follow_node after update of scope on nodes
for each row when (old.scope is distinct from new.scope)
execute function conflict_scopes_follow_node();

-- A tenant's queue in either order, and its wake feed (pending, after a sequence number).
create index conflicts_in_scope on conflict_queue (scopes, status, created_at, conflict_id);
create index conflicts_in_scope_seq on conflict_queue (scopes, status, seq);
