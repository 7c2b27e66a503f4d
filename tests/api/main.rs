//! API tests: the real router in process, every storage-touching case on SQLite and on
//! PostgreSQL.

mod support;

mod auth;
mod conflicts;
mod detection;
mod edges;
mod errors;
mod events;
mod hostile;
mod idempotency;
mod limits;
mod nodes;
mod reports;
mod resolve;
mod review;
mod sources;
mod wake;
