-- The whole product's schema. Ids are UUID text, timestamps RFC 3339 text with milliseconds
-- and `Z` (lexical order = time order), JSON columns are text.

create table nodes (
    node_id       text primary key,
    title         text not null,
    body          text not null default '',
    memory_type   text not null default 'fact',
    labels        text not null default '[]',
    scope         text not null default 'default',
    source        text,
    confidence    real not null default 0.8,
    state         text not null default 'active' check (state in ('active', 'dormant', 'archived')),
    observed_at   text not null,
    created_at    text not null,
    updated_at    text not null,
    embedding     blob,
    embedding_dim integer,
    -- concord's own tokens of title and body (CJK as bigrams): what detection and `q` match on.
    search_tokens text not null default ''
);
create index nodes_newest on nodes (state, created_at desc, node_id desc);
create index nodes_kind on nodes (scope, memory_type, state);
create index nodes_with_embedding on nodes (embedding_dim) where embedding_dim is not null;
create index nodes_source on nodes (source) where source is not null;

create table node_labels (
    label   text not null,
    node_id text not null references nodes (node_id) on delete cascade,
    primary key (label, node_id)
);
create index node_labels_node on node_labels (node_id);

create virtual table nodes_fts using fts5 (
    search_tokens, content = 'nodes', content_rowid = 'rowid', tokenize = 'unicode61'
);
create trigger nodes_fts_insert after insert on nodes begin
    insert into nodes_fts (rowid, search_tokens) values (new.rowid, new.search_tokens);
end;
create trigger nodes_fts_delete after delete on nodes begin
    insert into nodes_fts (nodes_fts, rowid, search_tokens) values ('delete', old.rowid, old.search_tokens);
end;
create trigger nodes_fts_update after update of search_tokens on nodes begin
    insert into nodes_fts (nodes_fts, rowid, search_tokens) values ('delete', old.rowid, old.search_tokens);
    insert into nodes_fts (rowid, search_tokens) values (new.rowid, new.search_tokens);
end;

create table edges (
    edge_id       text primary key,
    source_id     text not null references nodes (node_id) on delete cascade,
    target_id     text not null references nodes (node_id) on delete cascade,
    kind          text not null,
    neural_weight real not null,
    strength      real not null,
    confidence    real not null,
    valid_from    text not null,
    created_at    text not null,
    updated_at    text not null
);
create index edges_source on edges (source_id, kind);
create index edges_target on edges (target_id, kind);

create table conflict_queue (
    conflict_id    text primary key,
    -- Monotonic: the wake cursor and the SSE event id.
    seq            integer not null unique,
    -- Pending conflicts of a deleted old node are deleted with it (by the store, in the same
    -- transaction); resolved ones stay as history with a null old node.
    old_node_id    text references nodes (node_id) on delete set null,
    new_node_id    text references nodes (node_id) on delete set null,
    new_content    text,
    -- The new node's id or a digest of new_content: one pending conflict per (old, new) pair.
    new_key        text not null,
    conflict_type  text not null,
    detection      text not null,
    recommendation text not null,
    status         text not null default 'pending' check (status in ('pending', 'resolved')),
    resolution     text,
    merged_content text,
    resolved_at    text,
    resolved_by    text,
    note           text,
    actions        text,
    -- the stored reply of the resolution, replayed verbatim on a retry
    outcome        text,
    created_at     text not null,
    updated_at     text not null
);
create unique index conflict_pending_pair on conflict_queue (old_node_id, new_key) where status = 'pending';
create index conflict_status_created on conflict_queue (status, created_at, conflict_id);
create index conflict_old on conflict_queue (old_node_id);
create index conflict_new on conflict_queue (new_node_id);
create index conflict_pair on conflict_queue (new_key, old_node_id);

create table sources (
    source       text primary key,
    upheld       integer not null default 0,
    contradicted integer not null default 0,
    created_at   text not null,
    updated_at   text not null
);

create table idempotency_keys (
    scope         text not null,
    idem_key      text not null,
    fingerprint   text not null,
    -- null while the first request is still running
    status_code   integer,
    response_body blob,
    content_type  text,
    location      text,
    created_at    text not null,
    updated_at    text not null,
    expires_at    text not null,
    primary key (scope, idem_key)
);
create index idempotency_expiry on idempotency_keys (expires_at);

create table conflict_reports (
    report_id  text primary key,
    topic      text not null,
    report     text not null,
    created_at text not null,
    updated_at text not null
);
create index conflict_reports_newest on conflict_reports (created_at desc, report_id desc);

create table events (
    event_id    integer primary key autoincrement,
    kind        text not null,
    conflict_id text not null,
    created_at  text not null
);
