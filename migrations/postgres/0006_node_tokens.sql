-- Which nodes hold each index token: the postings the candidate search of detection walks,
-- newest first (node ids are UUIDv7, so id order is creation order) and a bounded number per
-- token, so the search costs the same at 1k nodes as at 100k. The GIN index over
-- `search_tsv` (kept for ranked search) cannot be read in any order, and ranking every match
-- of a token with `ts_rank` grew with the store. SQLite keeps the same table.
--
-- `search_tokens` holds distinct index tokens separated by single spaces (see
-- `index_tokens`).
create table node_tokens (
    term    text not null,
    node_id uuid not null,
    primary key (term, node_id)
);

insert into node_tokens (term, node_id)
select distinct t, n.node_id
from nodes n, unnest(string_to_array(n.search_tokens, ' ')) as t
where t <> '';

create function node_tokens_sync() returns trigger language plpgsql as $$
begin
    if tg_op in ('UPDATE', 'DELETE') then
        delete from node_tokens
        where node_id = old.node_id and term = any(string_to_array(old.search_tokens, ' '));
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
        insert into node_tokens (term, node_id)
        select distinct t, new.node_id from unnest(string_to_array(new.search_tokens, ' ')) as t
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

create trigger node_tokens_update after update of search_tokens on nodes
for each row when (old.search_tokens is distinct from new.search_tokens)
execute function node_tokens_sync();
analyze node_tokens;
