-- API keys kept in the database (`concord keys`, `/keys`): a unique name, the SHA-256 digest
-- of the key (hex; the key itself is never stored), a role, the scopes it may use (a JSON
-- array of exact names and `prefix*` patterns). A revoked key keeps its row and its name.
create table api_keys (
    key_name     text primary key,
    key_digest   text not null unique,
    role         text not null,
    scopes       text not null,
    created_at   text not null,
    updated_at   text not null,
    last_used_at text,
    revoked_at   text
);
