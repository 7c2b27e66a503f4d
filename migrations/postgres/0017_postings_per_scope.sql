-- Detection's postings are kept per scope. A write's candidate search walks the newest
-- postings of its own scope (a bounded number per token), however many the other scopes
-- add. Before, the walk took the newest postings of every scope and dropped the other
-- scopes' after: with a hundred tenants a write's own older facts fell outside it and their
-- contradictions went unseen. A node moved to another scope (`PATCH`) takes its postings
-- along. (Token rarity still comes from the planner's statistics over every scope: a rough
-- rarity is all the choice of search words needs.)
drop trigger node_tokens_insert on nodes;
drop trigger node_tokens_delete on nodes;
drop trigger node_tokens_update on nodes;
drop function node_tokens_sync();
drop table node_tokens;

create table node_tokens (
    scope   text not null,
    term    text not null,
    node_id uuid not null,
    primary key (scope, term, node_id)
);

insert into node_tokens (scope, term, node_id)
select distinct n.scope, t, n.node_id
from nodes n, unnest(string_to_array(n.search_tokens, ' ')) as t
where t <> '';

create function node_tokens_sync() returns trigger language plpgsql as $$
begin
    if tg_op in ('UPDATE', 'DELETE') then
        delete from node_tokens
        where scope = old.scope and node_id = old.node_id
          and term = any(string_to_array(old.search_tokens, ' '));
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
        insert into node_tokens (scope, term, node_id)
        select distinct new.scope, t, new.node_id
        from unnest(string_to_array(new.search_tokens, ' ')) as t
        where t <> ''
        on conflict do nothing;
    end if;
    return null;
end
$$;

create trigger node_tokens_insert after insert on nodes
for each row execute function node_tokens_sync();

create trigger node_tokens_delete after delete on nodes
for each row execute function node_tokens_sync();

create trigger node_tokens_update after update of search_tokens, scope on nodes
for each row when (old.search_tokens is distinct from new.search_tokens
                   or old.scope is distinct from new.scope)
execute function node_tokens_sync();

analyze node_tokens;
