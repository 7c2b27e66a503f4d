//! The use cases both front doors call: writing and checking memories with detection, manual
//! queueing, listing and resolving the queue, resolution policies, recall, topic reports, and
//! the optional LLM judge they consult; and filling detection's memo when the process starts.
//! Each use case takes the application state (store, detector, notifier) or the store alone
//! and returns domain types; REST handlers and MCP tools only parse and shape.

pub mod conflicts;
pub mod detect;
pub mod judging;
pub mod llm;
pub mod memo;
pub mod nodes;
pub mod policy;
pub mod queue;
pub mod recall;
pub mod report;
pub mod warmup;
