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
            "corrected, ",
            $t,
            ".provenance as ",
            $p,
            "provenance"
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

/// Whether a verdict between the candidate `n` and node `$node` already exists: a conflict
/// of the pair (whatever its status; `new_key` is text, so PostgreSQL compares ids cast by
/// `$text`), or an edge recording a verdict.
macro_rules! verdict_exists {
    ($node:literal, $text:literal) => {
        concat!(
            "(exists (select 1 from conflict_queue q where (q.old_node_id = n.node_id and \
               q.new_key = ",
            $node,
            $text,
            ") or (q.old_node_id = ",
            $node,
            " and q.new_key = n.node_id",
            $text,
            ")) or ",
            $crate::store::sql::verdict_edge_exists!($node),
            ")"
        )
    };
}
pub(crate) use verdict_exists;

/// Whether an edge recording a verdict links the candidate `n` and node `$node`.
macro_rules! verdict_edge_exists {
    ($node:literal) => {
        concat!(
            "exists (select 1 from edges e where e.kind in ('supersedes', 'relates_to') \
               and ((e.source_id = n.node_id and e.target_id = ",
            $node,
            ") or (e.source_id = ",
            $node,
            " and e.target_id = n.node_id)))"
        )
    };
}
pub(crate) use verdict_edge_exists;

/// Vector-tier candidates: the newest nodes sharing a label (UUID v7 ids sort by time), found
/// through the label index first; the cosine is computed in Rust on what this returns. The
/// dialect supplies the label-list test (`$1`) and its `remembered` column.
macro_rules! candidates_by_labels {
    ($label_in_list:literal, [$($bound:tt)*], $($remembered:tt)+) => {
        concat!(
            "with tagged as materialized (select distinct node_id from node_labels where ",
            $label_in_list,
            $($bound)*,
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
/// per memory, newest memory first (UUID v7 ids sort by time), filtered as `GET /nodes`
/// filters (`$3` state, `$4` memory type, `$5` label, keyset `$6`, limit `$7`) and read as
/// node rows: `updated_at` is when concord recorded the version, `created_at` its first.
///
/// The walk goes over each memory's first version `f` in key order, so it stops at the page's
/// end; `v` is the latest version recorded by `$1` (a key lookup walking back from the newest).
/// A version's values are those the next version that replaced them kept (`prev_*`), else the
/// live node's `n`: the standing comes whole from the first later version `s` that replaced
/// it, the title, body and confidence each from the first later one that replaced that value.
/// The dialect supplies the label test on `labels`, how a system time reads as a timestamp
/// (`$sys_open` column `$sys_close`), and which index each look-up for a later replacement
/// takes (`$by_*`: SQLite's planner, without statistics, would walk the primary key through
/// every later version instead of the partial index of the few that replaced the value).
macro_rules! list_known {
    (
        $label_in_labels:literal,
        $sys_open:literal,
        $sys_close:literal,
        $by_title:literal,
        $by_body:literal,
        $by_standing:literal
    ) => {
        concat!(
            "select * from (select f.node_id, \
               coalesce((select x.prev_title from node_versions x ",
            $by_title,
            " where x.node_id = f.node_id \
                   and x.version > v.version and x.prev_title is not null \
                   order by x.version limit 1), n.title) as title, \
               coalesce((select x.prev_body from node_versions x ",
            $by_body,
            " where x.node_id = f.node_id \
                   and x.version > v.version and x.prev_body is not null \
                   order by x.version limit 1), n.body) as body, \
               case when s.node_id is null then n.memory_type else s.prev_memory_type end \
                   as memory_type, \
               case when s.node_id is null then n.labels else s.prev_labels end as labels, \
               case when s.node_id is null then n.scope else s.prev_scope end as scope, \
               case when s.node_id is null then n.source else s.prev_source end as source, \
               coalesce((select x.prev_confidence from node_versions x \
                   where x.node_id = f.node_id and x.version > v.version \
                   and x.prev_confidence is not null order by x.version limit 1), \
                   n.confidence) as confidence, \
               case when s.node_id is null then n.state else s.prev_state end as state, \
               case when s.node_id is null then n.observed_at else s.prev_observed_at end \
                   as observed_at, ",
            $sys_open,
            "f.recorded_at",
            $sys_close,
            " as created_at, ",
            $sys_open,
            "v.recorded_at",
            $sys_close,
            " as updated_at, n.embedding_dim is not null as has_embedding, \
               case when s.node_id is null then n.valid_until else s.prev_valid_until end \
                   as valid_until, \
               case when s.node_id is null then n.corrected else s.prev_corrected end \
                   as corrected, n.provenance as provenance \
             from node_versions f \
             join node_versions v on v.node_id = f.node_id and v.version = \
                 (select x.version from node_versions x where x.node_id = f.node_id \
                     and x.recorded_at <= $1 order by x.version desc limit 1) \
             left join node_versions s on s.node_id = f.node_id and s.version = \
                 (select min(x.version) from node_versions x ",
            $by_standing,
            " where x.node_id = f.node_id \
                     and x.version > v.version and x.prev_state is not null) \
             left join nodes n on n.node_id = f.node_id \
             where f.version = 1 and f.recorded_at <= $1 and v.kind <> 'deleted' \
               and ($6 is null or f.node_id < $6) \
             order by f.node_id desc) known \
             where not corrected \
               and observed_at <= $2 and (valid_until is null or $2 < valid_until) \
               and ($3 is null or state = $3) \
               and ($4 is null or memory_type = $4) \
               and ($5 is null or ",
            $label_in_labels,
            ") and ",
            $crate::store::sql::in_scopes!("scope", "$8"),
            " order by node_id desc limit $7"
        )
    };
}
pub(crate) use list_known;

/// The scope filter of a read (`domain::access::in_scopes`): `$param` holds the caller's
/// scope patterns (`Caller::visible`), null for a caller that holds every scope, and `$col`
/// the scope (or newline-separated scopes) of the row.
macro_rules! in_scopes {
    ($col:literal, $param:literal) => {
        concat!(
            "(",
            $param,
            " is null or concord_in_scopes(",
            $col,
            ", ",
            $param,
            "))"
        )
    };
}
pub(crate) use in_scopes;

/// The scope filter of a conflict row `$c`: every scope its memories had is in the caller's
/// scopes (`$param`, as for [`in_scopes`]). `conflict_queue.scopes` is kept by the database
/// (migration 0018); a conflict without scopes (none is written so) is shown to callers of
/// every scope only.
macro_rules! conflict_in_scopes {
    ($c:literal, $param:literal) => {
        concat!(
            "(",
            $param,
            " is null or (",
            $c,
            ".scopes is not null and concord_in_scopes(",
            $c,
            ".scopes, ",
            $param,
            ")))"
        )
    };
}
pub(crate) use conflict_in_scopes;

/// The scope filter of a conflict row `$c` for a caller of one exact scope (`$param`, see
/// [`one_scope`]): an equality on the column that leads the conflict indexes, so the read
/// touches that scope's conflicts only. A conflict across scopes never equals one scope.
macro_rules! conflict_in_scope {
    ($c:literal, $param:literal) => {
        concat!($c, ".scopes = ", $param)
    };
}
pub(crate) use conflict_in_scope;

/// The caller's scope patterns (`Caller::visible`) when they are one exact scope: the reads
/// of such a caller (most agents' keys) filter with an equality an index leading with scope
/// serves, instead of the general pattern match.
pub(crate) fn one_scope(patterns: Option<&str>) -> Option<&str> {
    patterns.filter(|p| !p.contains('\n') && !p.ends_with('*'))
}

/// A scope's newest active nodes of one memory type (`$1` of them), through the index on
/// `(scope, memory_type, state, created_at)`: the candidates of a short new memory that may
/// share no indexed word with the stored one it updates ("I moved to Lisbon" / "Lives in
/// Berlin"). The dialect supplies its `remembered` column.
macro_rules! candidates_newest {
    ([$($bound:tt)*], $($remembered:tt)+) => {
        concat!(
            "select ",
            $crate::store::sql::node_columns!("n", ""),
            ", n.embedding, ",
            $($remembered)+,
            " from nodes n \
             where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
               and ($4 is null or n.node_id <> $4) ",
            $($bound)*,
            " order by n.created_at desc, n.node_id desc limit $1"
        )
    };
}
pub(crate) use candidates_newest;

/// A sweep's read of the nodes it passes (`Backend::TOKENS_BETWEEN`); the dialect supplies
/// the row's own key (`$key`), by which the candidates among its hits are read.
macro_rules! tokens_between {
    ($key:literal) => {
        concat!(
            "select node_id, ",
            $key,
            " as key, scope, search_tokens from nodes where node_id > $1 and node_id <= $2 \
             order by node_id"
        )
    };
}
pub(crate) use tokens_between;

/// The bound of [`candidates_by_labels`] for a sweep's search: nodes stored before `$7`. A
/// separate statement, not `($7 is null or …)`: with the `or`, a search for an old memory
/// walked the label's postings from the newest down to it.
macro_rules! labels_before {
    () => {
        " and node_id < $7"
    };
}
pub(crate) use labels_before;

/// The bound of [`candidates_newest`] for a sweep's search: nodes stored before `$5`, in the
/// index's order. `created_at <=` lets the index start there; the row comparison settles ties.
/// With `($5 is null or node_id < $5)` instead, a search for an old memory of a 100k store
/// walked every newer memory of its kind first (36 ms).
macro_rules! newest_before {
    () => {
        " and n.created_at <= (select b.created_at from nodes b where b.node_id = $5) \
          and (n.created_at, n.node_id) < (select b.created_at, b.node_id from nodes b where b.node_id = $5)"
    };
}
pub(crate) use newest_before;

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
