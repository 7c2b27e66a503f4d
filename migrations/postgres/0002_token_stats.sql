-- SQLite's 0002 adds an fts5vocab table of token document frequencies. PostgreSQL has no
-- cheap equivalent (ts_stat reads the whole column), so its candidate search uses every
-- token; this file keeps the two folders' migrations in step.
select 1;
