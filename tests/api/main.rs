//! API tests: the real router in process, every storage-touching case on SQLite and on
//! PostgreSQL.

mod support;

mod as_of;
mod as_of_model;
mod auth;
mod conflicts;
mod degraded;
mod detection;
mod disk_full;
mod edges;
mod errors;
mod events;
mod history;
mod hostile;
mod idempotency;
mod input_rules;
mod keys;
mod limits;
mod list_limits;
mod mcp_sessions;
mod nodes;
mod policies;
mod properties;
mod races;
mod recall;
mod reports;
mod resolve;
mod revert;
mod review;
mod sources;
mod templated;
mod valid_time;
mod versions;
mod wake;
mod warmup;
