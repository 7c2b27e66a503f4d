-- A count of the changes to detection's postings other than a new node's: a node deleted, or
-- its tokens or scope changed. A bulk import may rank its batches' candidate searches from
-- postings it keeps in memory (`store::sqlite::batch_postings`); in each batch's write
-- transaction it reads this count and the largest node rowid: with the count as it left it,
-- the store's postings are its own plus those of the nodes stored after its last, which it
-- reads. New nodes do not count here, so a write pays nothing for it; the rarer changes pay
-- one row's update.
create table postings_reshapes (
    one     integer primary key check (one = 1),
    changes integer not null
);

insert into postings_reshapes (one, changes) values (1, 0);

create trigger postings_reshapes_delete after delete on nodes begin
    update postings_reshapes set changes = changes + 1 where one = 1;
end;

create trigger postings_reshapes_update after update of search_tokens, scope on nodes
when old.search_tokens is not new.search_tokens or old.scope is not new.scope begin
    update postings_reshapes set changes = changes + 1 where one = 1;
end;
