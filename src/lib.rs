//! concord: contradiction-aware long-term memory for AI agents.
//!
//! Layers point one way: `api` (HTTP) and `mcp` (agents' tools) → `service` (the use cases:
//! write with detection, check, list, resolve, recall, report) → `store` (one trait, two
//! databases) → `domain` (pure types and rules).
//! `state` holds what both front doors are given (the services and the settings), `wire` the
//! reply shapes and problem catalogue they share, and `server::app` composes the REST and MCP
//! routers side by side (`docs/architecture.md`);
//! `import` reads memories from files for `concord import` (pure, like `domain`);
//! `verdicts` records the rules' verdicts on labelled pairs, to pin them down across changes.

pub mod api;
pub mod config;
pub mod domain;
pub mod import;
pub mod mcp;
pub mod memory;
pub mod server;
pub mod service;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod verdicts;
pub mod wire;

pub use server::app;
pub use state::AppState;
