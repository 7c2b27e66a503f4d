//! The store's upper floor: units of work, each one transaction (with its deadlock retries and
//! write-health record applied by `store::unit_of_work`). They call the table helpers of the
//! floor below (`store::{nodes, edges, conflicts, history, pre_image, locks, rows, …}`) and
//! one another (a write runs a policy, which runs a resolution); nothing below calls them.

pub mod conflicts;
pub mod edges;
pub mod nodes;
pub mod policy;
pub mod resolution;
pub mod revert;
