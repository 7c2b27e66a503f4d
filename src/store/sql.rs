//! SQL text shared by both backends: the column lists are the same in both dialects, so they
//! are written once. Only values and types differ, and those stay in each backend.

/// The columns of a node, aliased with a prefix so a conflict can join both of its nodes.
macro_rules! node_columns {
    ($t:literal, $p:literal) => {
        concat!(
            $t,
            ".node_id as ",
            $p,
            "node_id, ",
            $t,
            ".title as ",
            $p,
            "title, ",
            $t,
            ".body as ",
            $p,
            "body, ",
            $t,
            ".memory_type as ",
            $p,
            "memory_type, ",
            $t,
            ".labels as ",
            $p,
            "labels, ",
            $t,
            ".scope as ",
            $p,
            "scope, ",
            $t,
            ".source as ",
            $p,
            "source, ",
            $t,
            ".confidence as ",
            $p,
            "confidence, ",
            $t,
            ".state as ",
            $p,
            "state, ",
            $t,
            ".observed_at as ",
            $p,
            "observed_at, ",
            $t,
            ".created_at as ",
            $p,
            "created_at, ",
            $t,
            ".updated_at as ",
            $p,
            "updated_at, ",
            $t,
            ".embedding_dim is not null as ",
            $p,
            "has_embedding"
        )
    };
}
pub(crate) use node_columns;

macro_rules! conflict_columns {
    () => {
        concat!(
            "c.conflict_id, c.seq, c.old_node_id, c.new_node_id, c.new_content, c.conflict_type, ",
            "c.detection, c.recommendation, c.status, c.resolution, c.resolved_at, c.resolved_by, ",
            "c.note, c.actions, c.created_at, ",
            $crate::store::sql::node_columns!("o", "o_"),
            ", ",
            $crate::store::sql::node_columns!("n", "n_")
        )
    };
}
pub(crate) use conflict_columns;
