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
            "has_embedding, ",
            $t,
            ".valid_until as ",
            $p,
            "valid_until, ",
            $t,
            ".corrected as ",
            $p,
            "corrected"
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

/// Whether an edge recording a verdict links the candidate `n` and node `$4`.
macro_rules! verdict_edge_exists {
    () => {
        "exists (select 1 from edges e where e.kind in ('supersedes', 'relates_to') \
            and ((e.source_id = n.node_id and e.target_id = $4) \
              or (e.source_id = $4 and e.target_id = n.node_id)))"
    };
}
pub(crate) use verdict_edge_exists;

/// Vector-tier candidates: the newest nodes sharing a label (UUID v7 ids sort by time), found
/// through the label index first; the cosine is computed in Rust on what this returns. The
/// dialect supplies the label-list test (`$1`) and its `remembered` column.
macro_rules! candidates_by_labels {
    ($label_in_list:literal, $($remembered:tt)+) => {
        concat!(
            "with tagged as materialized (select distinct node_id from node_labels where ",
            $label_in_list,
            " order by node_id desc limit $6) select ",
            $crate::store::sql::node_columns!("n", ""),
            ", n.embedding, ",
            $($remembered)+,
            " from tagged join nodes n on n.node_id = tagged.node_id \
             where n.embedding is not null \
               and n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
               and ($4 is null or n.node_id <> $4) \
             order by n.node_id desc limit $5"
        )
    };
}
pub(crate) use candidates_by_labels;

/// The versions known at system time `$1` of the memories that held at valid time `$2`, one
/// per memory, newest memory first (UUID v7 ids sort by time): for each, the latest version
/// recorded by `$1` (found through the `(node_id, version)` key), unless it is a tombstone,
/// then filtered as `GET /nodes` filters (`$3` state, `$4` memory type, `$5` label, keyset
/// `$6`, limit `$7`), read as node rows: `updated_at` is when concord recorded the version,
/// `created_at` its first. A version's title and body are those the next version that
/// replaced them kept, else the live node's. The dialect supplies the label test on
/// `v.labels`.
macro_rules! list_known {
    ($label_in_labels:literal) => {
        concat!(
            "select v.node_id, \
               coalesce((select x.prev_title from node_versions x where x.node_id = v.node_id \
                   and x.version > v.version and x.prev_title is not null \
                   order by x.version limit 1), n.title) as title, \
               coalesce((select x.prev_body from node_versions x where x.node_id = v.node_id \
                   and x.version > v.version and x.prev_body is not null \
                   order by x.version limit 1), n.body) as body, \
               v.memory_type, v.labels, v.scope, v.source, v.confidence, v.state, \
               v.observed_at, \
               (select f.recorded_at from node_versions f where f.node_id = v.node_id \
                   order by f.version limit 1) as created_at, \
               v.recorded_at as updated_at, n.embedding_dim is not null as has_embedding, \
               v.valid_until, v.corrected \
             from node_versions v left join nodes n on n.node_id = v.node_id \
             where v.recorded_at <= $1 \
               and v.version = (select max(w.version) from node_versions w \
                   where w.node_id = v.node_id and w.recorded_at <= $1) \
               and v.kind <> 'deleted' and not v.corrected \
               and v.observed_at <= $2 and (v.valid_until is null or $2 < v.valid_until) \
               and ($3 is null or v.state = $3) \
               and ($4 is null or v.memory_type = $4) \
               and ($5 is null or ",
            $label_in_labels,
            ") and ($6 is null or v.node_id < $6) \
             order by v.node_id desc, v.version desc limit $7"
        )
    };
}
pub(crate) use list_known;

/// A scope's newest active nodes of one memory type (`$1` of them), through the index on
/// `(scope, memory_type, state, created_at)`: the candidates of a short new memory that may
/// share no indexed word with the stored one it updates ("I moved to Lisbon" / "Lives in
/// Berlin"). The dialect supplies its `remembered` column.
macro_rules! candidates_newest {
    ($($remembered:tt)+) => {
        concat!(
            "select ",
            $crate::store::sql::node_columns!("n", ""),
            ", n.embedding, ",
            $($remembered)+,
            " from nodes n \
             where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
               and ($4 is null or n.node_id <> $4) \
             order by n.created_at desc, n.node_id desc limit $1"
        )
    };
}
pub(crate) use candidates_newest;

/// How a dialect reads the JSON columns, for the placeholders of `check::CHECKS`.
pub struct JsonSql {
    /// `{each}`: joins every action of conflict `c` as `a`, after `from conflict_queue c`.
    pub each: &'static str,
    /// `{actions}`: the actions of conflict `c` as a table `a`.
    pub actions: &'static str,
    /// `{labels}`: the labels of node `n` as a table `j`; `{label}`: one of them.
    pub labels: &'static str,
    pub label: &'static str,
    /// `{a.name}`: field `name` of action `a` as text, written `field.0 name field.1`;
    /// `{a.name:id}`: the same field compared with an id column (`field.2` appended).
    pub field: (&'static str, &'static str, &'static str),
}

impl JsonSql {
    pub(crate) fn render(&self, template: &str) -> String {
        let mut sql = template
            .replace("{each}", self.each)
            .replace("{actions}", self.actions)
            .replace("{labels}", self.labels)
            .replace("{label}", self.label);
        let (open, close, as_id) = self.field;
        while let Some(start) = sql.find("{a.") {
            let end = start + sql[start..].find('}').expect("placeholders close");
            let (name, cast) = match sql[start + 3..end].split_once(':') {
                Some((name, _)) => (name.to_owned(), as_id),
                None => (sql[start + 3..end].to_owned(), ""),
            };
            sql.replace_range(start..=end, &format!("{open}{name}{close}{cast}"));
        }
        sql
    }
}
