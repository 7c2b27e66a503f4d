//! What both front doors put on the wire: the reply shapes REST returns and MCP tools carry as
//! structured content, and the members both attach to a failure's problem details ([`dto`]).
//! Plain mappings of domain types to JSON shapes, with no behaviour and no HTTP or MCP type.
//! How a failure is reported is each door's own: problem+json in `api/error.rs`, tool results
//! in `mcp/reply.rs`, both reading the code, title and status of `service::Kind`.

pub mod dto;
