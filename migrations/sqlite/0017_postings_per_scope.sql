-- Detection's postings and token statistics are kept per scope. A write's candidate search
-- walks the newest postings of its own scope (a bounded number per token), however many the
-- other scopes add, and a token's rarity is its rarity there. Before, the walk took the
-- newest postings of every scope and dropped the other scopes' after: with a hundred tenants
-- a write's own older facts fell outside it and their contradictions went unseen. A node
-- moved to another scope (`PATCH`) takes its postings along.
--
-- `search_tokens` holds distinct index tokens of letters, digits and `_` separated by single
-- spaces (see `index_tokens`), so it splits into a JSON array without escaping.
drop trigger token_docs_insert;
drop trigger token_docs_delete;
drop trigger token_docs_update;
drop trigger node_tokens_delete;
drop trigger node_tokens_update;
drop trigger recent_tokens_insert;
drop trigger recent_tokens_merge;
drop trigger recent_tokens_delete;
drop trigger recent_tokens_update;
drop table token_docs;
drop table node_tokens;
drop table recent_tokens;

create table token_docs (
    scope text not null,
    term  text not null,
    docs  integer not null check (docs > 0),
    primary key (scope, term)
) without rowid;

insert into token_docs (scope, term, docs)
select nodes.scope, value, count(*)
from nodes, json_each('["' || replace(nodes.search_tokens, ' ', '","') || '"]')
where value <> ''
group by nodes.scope, value;

-- `node` is the node's rowid, as in the FTS5 index: ascending rowid is insertion order.
create table node_tokens (
    scope text not null,
    term  text not null,
    node  integer not null,
    primary key (scope, term, node)
) without rowid;

insert into node_tokens (scope, term, node)
select distinct nodes.scope, value, nodes.rowid
from nodes, json_each('["' || replace(nodes.search_tokens, ' ', '","') || '"]')
where value <> '';

-- A new node's postings wait here, one row per node, and move into `node_tokens` 128 nodes at
-- a time, so that the newest postings of a common term share a leaf (see 0008).
create table recent_tokens (
    node  integer primary key,
    scope text not null,
    terms text not null
);

create trigger token_docs_insert after insert on nodes begin
    insert into token_docs (scope, term, docs)
    select new.scope, value, 1
    from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> ''
    on conflict (scope, term) do update set docs = docs + 1;
end;

create trigger token_docs_delete after delete on nodes begin
    delete from token_docs
    where scope = old.scope and docs = 1
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    update token_docs set docs = docs - 1
    where scope = old.scope
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
end;

create trigger token_docs_update after update of search_tokens, scope on nodes
when old.search_tokens is not new.search_tokens or old.scope is not new.scope begin
    delete from token_docs
    where scope = old.scope and docs = 1
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    update token_docs set docs = docs - 1
    where scope = old.scope
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    insert into token_docs (scope, term, docs)
    select new.scope, value, 1
    from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> ''
    on conflict (scope, term) do update set docs = docs + 1;
end;

create trigger recent_tokens_insert after insert on nodes begin
    insert into recent_tokens (node, scope, terms)
    values (new.rowid, new.scope, new.search_tokens);
end;

create trigger recent_tokens_merge after insert on recent_tokens
when (select count(*) from recent_tokens) >= 128 begin
    insert or ignore into node_tokens (scope, term, node)
    select recent_tokens.scope, value, recent_tokens.node
    from recent_tokens, json_each('["' || replace(recent_tokens.terms, ' ', '","') || '"]')
    where value <> '';
    delete from recent_tokens;
end;

create trigger node_tokens_delete after delete on nodes begin
    delete from node_tokens
    where scope = old.scope and node = old.rowid
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    delete from recent_tokens where node = old.rowid;
end;

-- A node whose tokens or scope change gets its new postings in `node_tokens` directly, so it
-- leaves the buffer.
create trigger node_tokens_update after update of search_tokens, scope on nodes
when old.search_tokens is not new.search_tokens or old.scope is not new.scope begin
    delete from node_tokens
    where scope = old.scope and node = old.rowid
      and term in (select value from json_each('["' || replace(old.search_tokens, ' ', '","') || '"]'));
    delete from recent_tokens where node = old.rowid;
    insert or ignore into node_tokens (scope, term, node)
    select new.scope, value, new.rowid
    from json_each('["' || replace(new.search_tokens, ' ', '","') || '"]')
    where value <> '';
end;
