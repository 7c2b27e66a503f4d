-- A new node's postings wait in `recent_tokens`, one row per node, and move into
-- `node_tokens` 128 nodes at a time. Written one node at a time, a node's ~20 terms each dirty
-- their own `node_tokens` leaf: about half the pages a write adds to the WAL, and an eighth of its CPU.
-- Merged together, the newest nodes' postings of a common term share a leaf. The candidate
-- search reads both tables, so it finds exactly what one table would hold.
--
-- `terms` is the node's `search_tokens`: distinct tokens of letters, digits and `_`,
-- separated by single spaces. A node's postings are in exactly one of the two tables.
create table recent_tokens (
    node integer primary key,
    terms text not null
);

drop trigger node_tokens_insert;

create trigger recent_tokens_insert after insert on nodes begin
    insert into recent_tokens (node, terms) values (new.rowid, new.search_tokens);
end;

-- Merging rewrites every leaf the buffered postings fall on, once per 128 writes.
create trigger recent_tokens_merge after insert on recent_tokens
when (select count(*) from recent_tokens) >= 128 begin
    insert or ignore into node_tokens (term, node)
    select value, recent_tokens.node
    from recent_tokens, json_each('["' || replace(recent_tokens.terms, ' ', '","') || '"]')
    where value <> '';
    delete from recent_tokens;
end;

create trigger recent_tokens_delete after delete on nodes begin
    delete from recent_tokens where node = old.rowid;
end;

-- A node whose tokens change gets its new postings in `node_tokens` directly (the update
-- trigger of 0006), so it leaves the buffer.
create trigger recent_tokens_update after update of search_tokens on nodes
when old.search_tokens is not new.search_tokens begin
    delete from recent_tokens where node = old.rowid;
end;
