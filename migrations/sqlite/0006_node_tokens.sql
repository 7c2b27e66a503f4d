-- Which nodes hold each index token: the postings the candidate search of detection walks,
-- newest first and a bounded number per token. A b-tree range read costs about a third of
-- walking the same postings through the FTS5 virtual table (which stays for ranked search),
-- and PostgreSQL keeps the same table, so both databases retrieve candidates the same way.
-- `node` is the node's rowid, as in the FTS5 index: ascending rowid is insertion order.
--
-- `search_tokens` holds distinct index tokens separated by single spaces, made of letters,
-- digits and `_` only (see `index_tokens`), so it splits into a JSON array without escaping.
create table node_tokens (
    term text not null,
    node integer not null,
    primary key (term, node)
) without rowid;

insert into node_tokens (term, node)
select distinct value, nodes.rowid
from nodes, json_each('["' || replace(nodes.search_tokens, ' ', '","') || '"]')
where value <> '';

create trigger node_tokens_insert after insert on nodes begin
    insert or ignore into node_tokens (term, node)
    select value, new.rowid from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> '';
end;

create trigger node_tokens_delete after delete on nodes begin
    delete from node_tokens
    where node = old.rowid
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
end;

create trigger node_tokens_update after update of search_tokens on nodes
when old.search_tokens is not new.search_tokens begin
    delete from node_tokens
    where node = old.rowid
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    insert or ignore into node_tokens (term, node)
    select value, new.rowid from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> '';
end;
