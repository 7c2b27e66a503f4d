//! The use cases both front doors call: detection on write and check, manual queueing, topic
//! reports, and the optional LLM judge they consult. Each use case takes the store and the
//! detector and returns domain types; REST handlers and MCP tools only parse and shape.

pub mod detect;
pub mod llm;
pub mod queue;
pub mod report;
