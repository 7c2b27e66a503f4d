//! What both front doors put on the wire: the reply shapes REST returns and MCP tools carry as
//! structured content ([`dto`]), and the catalogue of problem types every failure is reported
//! as ([`error`]: type, title, status, detail and extension members). REST renders a problem as
//! `application/problem+json`, MCP as a tool result with `isError: true`; both read the same
//! entry here, so neither door imports the other.

pub mod dto;
pub mod error;
