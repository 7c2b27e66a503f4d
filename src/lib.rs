//! concord: contradiction-aware long-term memory for AI agents.
//!
//! Layers point one way: `api` (HTTP only) → `store` (one trait, two databases) → `domain`
//! (pure types and rules). `detect` and `queue` orchestrate a store and the domain rules for
//! the handlers that need more than one store call.

pub mod api;
pub mod config;
pub mod detect;
pub mod domain;
pub mod error;
pub mod failpoints;
pub mod llm;
pub mod notify;
pub mod queue;
pub mod report;
pub mod state;
pub mod store;
pub mod telemetry;

pub use api::app;
pub use state::AppState;
