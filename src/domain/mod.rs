//! Pure types and rules of concord. Nothing here imports axum or sqlx: the domain is what the
//! HTTP layer and both storage backends agree on, and it is unit-tested without either.

pub mod access;
pub mod api_key;
pub mod audit;
pub mod batch;
pub mod conflict;
pub mod contradiction;
pub mod credibility;
pub mod cursor;
pub mod edge;
pub mod evidence;
pub mod history;
pub mod node;
pub mod plan;
pub mod policy;
pub mod pre_image;
pub mod provenance;
pub mod recommend;
pub mod report;
pub mod resolution;
pub mod restatement;
pub mod retrieval;
pub mod revert;
pub mod stamp;
pub mod sweep;
pub mod time;
pub mod timeline;
pub mod valid_time;
pub mod validate;
pub mod version;
pub mod wake;

pub use validate::FieldError;
