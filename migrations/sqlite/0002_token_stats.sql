-- Document frequency of every index token, read by the candidate search of detection to
-- query the full-text index with a new node's rarest tokens only (a query with common
-- tokens ranks most of the store on every write).
create virtual table nodes_fts_vocab using fts5vocab ('nodes_fts', 'row');
