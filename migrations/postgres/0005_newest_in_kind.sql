-- The newest active nodes of one scope and memory type, read in index order: detection
-- judges a short new memory against them as well, since it may share no indexed word with
-- the stored memory it updates.
create index nodes_newest_in_kind on nodes (scope, memory_type, state, created_at desc, node_id desc);
