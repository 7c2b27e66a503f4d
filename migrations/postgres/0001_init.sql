-- The whole product's schema, same shape as the SQLite one with native types.

create table nodes (
    node_id       uuid primary key,
    title         text not null,
    body          text not null default '',
    memory_type   text not null default 'fact',
    labels        jsonb not null default '[]',
    scope         text not null default 'default',
    source        text,
    confidence    double precision not null default 0.8,
    state         text not null default 'active' check (state in ('active', 'dormant', 'archived')),
    observed_at   timestamptz not null,
    created_at    timestamptz not null,
    updated_at    timestamptz not null,
    embedding     bytea,
    embedding_dim integer,
    -- concord's own tokens of title and body (CJK as bigrams): what detection and `q` match on.
    search_tokens text not null default '',
    search_tsv    tsvector generated always as (to_tsvector('simple', search_tokens)) stored
);
create index nodes_newest on nodes (state, created_at desc, node_id desc);
create index nodes_kind on nodes (scope, memory_type, state);
create index nodes_with_embedding on nodes (embedding_dim) where embedding_dim is not null;
create index nodes_source on nodes (source) where source is not null;
create index nodes_search on nodes using gin (search_tsv);

create table node_labels (
    label   text not null,
    node_id uuid not null references nodes (node_id) on delete cascade,
    primary key (label, node_id)
);
create index node_labels_node on node_labels (node_id);

create table edges (
    edge_id       uuid primary key,
    source_id     uuid not null references nodes (node_id) on delete cascade,
    target_id     uuid not null references nodes (node_id) on delete cascade,
    kind          text not null,
    neural_weight double precision not null,
    strength      double precision not null,
    confidence    double precision not null,
    valid_from    timestamptz not null,
    created_at    timestamptz not null,
    updated_at    timestamptz not null
);
create index edges_source on edges (source_id, kind);
create index edges_target on edges (target_id, kind);

create sequence conflict_seq;
create table conflict_queue (
    conflict_id    uuid primary key,
    -- Monotonic: the wake cursor and the SSE event id.
    seq            bigint not null unique default nextval('conflict_seq'),
    -- Pending conflicts of a deleted old node are deleted with it (by the store, in the same
    -- transaction); resolved ones stay as history with a null old node.
    old_node_id    uuid references nodes (node_id) on delete set null,
    new_node_id    uuid references nodes (node_id) on delete set null,
    new_content    text,
    -- The new node's id or a digest of new_content: one pending conflict per (old, new) pair.
    new_key        text not null,
    conflict_type  text not null,
    detection      jsonb not null,
    recommendation jsonb not null,
    status         text not null default 'pending' check (status in ('pending', 'resolved')),
    resolution     text,
    merged_content text,
    resolved_at    timestamptz,
    resolved_by    text,
    note           text,
    actions        jsonb,
    -- the stored reply of the resolution, replayed verbatim on a retry
    outcome        jsonb,
    created_at     timestamptz not null,
    updated_at     timestamptz not null
);
create unique index conflict_pending_pair on conflict_queue (old_node_id, new_key) where status = 'pending';
create index conflict_status_created on conflict_queue (status, created_at, conflict_id);
create index conflict_old on conflict_queue (old_node_id);
create index conflict_new on conflict_queue (new_node_id);
create index conflict_pair on conflict_queue (new_key, old_node_id);

create table sources (
    source       text primary key,
    upheld       bigint not null default 0,
    contradicted bigint not null default 0,
    created_at   timestamptz not null,
    updated_at   timestamptz not null
);

create table idempotency_keys (
    scope         text not null,
    idem_key      text not null,
    fingerprint   text not null,
    -- null while the first request is still running
    status_code   integer,
    response_body bytea,
    content_type  text,
    location      text,
    created_at    timestamptz not null,
    updated_at    timestamptz not null,
    expires_at    timestamptz not null,
    primary key (scope, idem_key)
);
create index idempotency_expiry on idempotency_keys (expires_at);

create table conflict_reports (
    report_id  uuid primary key,
    topic      text not null,
    report     jsonb not null,
    created_at timestamptz not null,
    updated_at timestamptz not null
);
create index conflict_reports_newest on conflict_reports (created_at desc, report_id desc);

create table events (
    event_id    bigserial primary key,
    kind        text not null,
    conflict_id uuid not null,
    created_at  timestamptz not null
);
