-- Document frequency of every index token, kept exact by triggers in the transaction that
-- changes a node's tokens. The candidate search of detection reads it to query the
-- full-text index with a new node's rarest tokens only. `nodes_fts_vocab` answers the same
-- question but counts a term's postings on every read, so looking up one write's tokens
-- grew with the store (about 3 ms at 100k nodes); a primary-key read does not.
--
-- `search_tokens` holds concord's index tokens separated by single spaces, each made of
-- letters, digits and `_` only (see `index_tokens`), so it splits into a JSON array without
-- escaping.
create table token_docs (
    term text primary key,
    docs integer not null check (docs > 0)
) without rowid;

insert into token_docs (term, docs)
select value, count(*)
from nodes, json_each('["' || replace(nodes.search_tokens, ' ', '","') || '"]')
where value <> ''
group by value;

create trigger token_docs_insert after insert on nodes begin
    insert into token_docs (term, docs)
    select value, 1 from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> ''
    on conflict (term) do update set docs = docs + 1;
end;

create trigger token_docs_delete after delete on nodes begin
    delete from token_docs
    where docs = 1
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    update token_docs set docs = docs - 1
    where term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
end;

create trigger token_docs_update after update of search_tokens on nodes
when old.search_tokens is not new.search_tokens begin
    delete from token_docs
    where docs = 1
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    update token_docs set docs = docs - 1
    where term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    insert into token_docs (term, docs)
    select value, 1 from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> ''
    on conflict (term) do update set docs = docs + 1;
end;
