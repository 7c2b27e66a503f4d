//! `/policies`: the resolution policies in force, as the policy file lists them.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use crate::domain::policy::{Match, Rule};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_policies))
}

/// The conditions of a rule; all must hold, and an absent one matches anything.
#[derive(Debug, Serialize, ToSchema)]
pub struct PolicyMatchDto {
    /// The conflict type is one of these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_types: Option<Vec<String>>,
    /// Either node carries one of these labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,
    /// The nodes' memory type is one of these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_types: Option<Vec<String>>,
    /// `true`: both nodes name the same source; `false`: they do not (or one names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_source: Option<bool>,
    /// `recommendation.resolution` is one of these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<Vec<String>>,
    /// The detection probability is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_probability: Option<f64>,
    /// The source of the side the action keeps current is at least this much more credible
    /// (either side for `keep_both` and `merge`); no source or no verdicts counts as 0.5.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_credibility_gap: Option<f64>,
}

impl From<Match> for PolicyMatchDto {
    fn from(m: Match) -> Self {
        Self {
            conflict_types: m.conflict_types,
            labels: m.labels,
            memory_types: m.memory_types,
            same_source: m.same_source,
            recommendation: m.recommendation,
            min_probability: m.min_probability,
            min_credibility_gap: m.min_credibility_gap,
        }
    }
}

/// One rule.
#[derive(Debug, Serialize, ToSchema)]
pub struct PolicyRuleDto {
    /// Unique name; its resolutions have `resolved_by` = `policy:<name>`.
    #[schema(example = "newer-sensor-wins")]
    pub name: String,
    /// The strategy it resolves with: `new_is_current`, `old_is_current`, `keep_both` or
    /// `merge` (merge appends the new text to the old node under a dated separator).
    #[schema(example = "new_is_current")]
    pub action: String,
    /// The conditions (empty when `match_all`).
    #[serde(rename = "match")]
    pub when: PolicyMatchDto,
    /// The rule matches every conflict (the explicit opt-in for a rule without conditions).
    pub match_all: bool,
}

impl From<Rule> for PolicyRuleDto {
    fn from(r: Rule) -> Self {
        Self {
            name: r.name,
            action: r.action.as_str().to_owned(),
            when: r.when.into(),
            match_all: r.match_all,
        }
    }
}

/// The rules in force.
#[derive(Debug, Serialize, ToSchema)]
pub struct PolicyListResponse {
    /// True when rules only record what they would do (`--policies-dry-run`).
    pub dry_run: bool,
    /// The rules in file order (the first match wins); empty when no policy file is set.
    pub rules: Vec<PolicyRuleDto>,
}

/// The resolution policies in force: rules that resolve a detected conflict at write time.
/// Conflicts labelled `security`, `data-integrity` or `breaking-change` are never resolved
/// by a rule.
#[utoipa::path(
    get, path = "/policies", tag = "conflicts",
    responses(
        (status = 200, body = PolicyListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_policies(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<PolicyListResponse>, ApiError> {
    // The policies act on every scope: an admin of some scopes does not read them.
    crate::service::scopes::may_use_all(&caller)?;
    let settings = &state.settings;
    let rules = settings
        .detection
        .policies
        .clone()
        .unwrap_or_default()
        .rules;
    Ok(Json(PolicyListResponse {
        dry_run: settings.detection.policies_dry_run,
        rules: rules.into_iter().map(Into::into).collect(),
    }))
}
