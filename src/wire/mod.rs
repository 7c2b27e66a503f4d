//! What both front doors put on the wire: the reply shapes REST returns and MCP tools carry as
//! structured content, those the service renders a keyed write's reply with
//! (`service::replies`), and the members both doors attach to a failure's problem details
//! ([`dto`]). Plain mappings of domain types to JSON shapes, with no behaviour and no HTTP or
//! MCP type; it sits below the service, which may use it.
//! How a failure is reported is each door's own: problem+json in `api/error.rs`, tool results
//! in `mcp/reply.rs`, both reading the code, title and status of `service::Kind`.

pub mod dto;
