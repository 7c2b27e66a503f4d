//! MCP: the second front door beside REST, for agents. Tools, a resource and a prompt over
//! Streamable HTTP at `/mcp` (same server, API keys and body limit as REST) and over stdio
//! (`concord mcp`). Like the REST handlers, every tool only parses, calls one use case of
//! `service/` and shapes the reply, so both doors behave the same.

pub mod access;
mod args;
pub mod http;
mod render;
mod reply;
mod tools;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    GetPromptResult, Implementation, ListResourcesResult, PaginatedRequestParams, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt, prompt, prompt_handler, prompt_router,
    schemars, tool_handler,
};
use serde::Deserialize;

use crate::domain::access::Caller;
use crate::service::conflicts::{self, ListConflicts};
use crate::state::AppState;
use crate::wire::dto::ConflictDto;

/// The pending-conflicts resource.
pub const PENDING_URI: &str = "concord://conflicts/pending";
/// How many pending conflicts the resource and the prompt show at once.
const PENDING_SHOWN: usize = 20;

const INSTRUCTIONS: &str = "concord is a contradiction-aware long-term memory. Use `remember` to \
store facts and `recall` to read them back. When memories disagree, recall and remember say so \
in `conflicts`: do not pick one silently; tell the user, or settle it with `resolve_conflict` \
(ask the user first when the recommendation is `escalate-to-user`). `check_contradictions` \
checks a fact without storing it; `list_conflicts` shows the review queue; `conflict_report` \
examines a whole topic.";

/// One MCP server over one application state.
#[derive(Clone)]
pub struct Concord {
    state: AppState,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl Concord {
    pub fn new(state: AppState) -> Self {
        Self {
            state,
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    /// The first pending conflicts, oldest first, and how many are pending in all.
    async fn pending(&self, caller: &Caller) -> Result<(Vec<ConflictDto>, i64), ErrorData> {
        let query = ListConflicts {
            limit: PENDING_SHOWN,
            ..Default::default()
        };
        let (page, total) = conflicts::list(&self.state.services, caller, query)
            .await
            .map_err(|e| {
                tracing::error!(error = ?e, "listing pending conflicts failed");
                ErrorData::internal_error("the pending conflicts could not be read", None)
            })?;
        let items = page
            .items
            .into_iter()
            .map(|c| ConflictDto::from_domain(c, None))
            .collect();
        Ok((items, total))
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReviewArgs {
    /// Only conflicts where either memory has this label.
    pub label: Option<String>,
}

#[prompt_router(vis = "pub(super)")]
impl Concord {
    /// Walks an agent through the pending conflicts, one decision at a time.
    #[prompt(
        name = "review_conflicts",
        description = "Review the pending memory conflicts one by one: read both sides, decide (or ask the user), and resolve each with `resolve_conflict`."
    )]
    async fn review_conflicts(
        &self,
        Parameters(a): Parameters<ReviewArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        let caller = resource_caller(&context)?;
        let query = ListConflicts {
            label: a.label.clone(),
            limit: PENDING_SHOWN,
            ..Default::default()
        };
        let (page, total) = conflicts::list(&self.state.services, &caller, query)
            .await
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let items: Vec<ConflictDto> = page
            .items
            .into_iter()
            .map(|c| ConflictDto::from_domain(c, None))
            .collect();
        let queue = render::conflicts(&items, total);
        let scope = a
            .label
            .map(|l| format!(" labelled `{l}`"))
            .unwrap_or_default();
        let text = format!(
            "Review the pending memory conflicts{scope}. For each conflict below, oldest first:\n\
             1. Read both sides (OLD is the stored memory, NEW the one that contradicts it) and \
             the recommendation.\n\
             2. Decide which holds: `new_is_current` (the new fact replaced the old), \
             `old_is_current` (the new one is wrong), `keep_both` (both hold, e.g. in different \
             contexts) or `merge` (combine them; give `merged_content` for a rewritten text).\n\
             3. When the recommendation is `escalate-to-user`, or you are not sure, ask the user \
             and wait for the answer.\n\
             4. Call `resolve_conflict` with the conflict id, the resolution and a short `note` \
             saying why. Retrying is safe.\n\
             When these are done, call `list_conflicts` for any that remain.\n\n{queue}"
        );
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Review the pending memory conflicts"),
        )
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Concord {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("concord", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// Every tool call passes MCP's one permission check first ([`access::check_tool`]).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let mut context = context;
        let caller = access::caller(&context);
        if let Err(refused) = access::check_tool(caller.as_ref(), &request.name) {
            return reply::failed(refused).map(Into::into);
        }
        // A tool that records who changed something reads it back with `access::caller`.
        if let Some(caller) = caller {
            context.extensions.insert(caller);
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let pending = Resource::new(PENDING_URI, "pending-conflicts")
            .with_title("Pending conflicts")
            .with_description(
                "The review queue: the oldest pending conflicts with both memories in full and \
                 the recommended resolution (JSON), and how many are pending in all.",
            )
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![pending]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != PENDING_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let (items, pending_total) = self.pending(&resource_caller(&context)?).await?;
        let json = serde_json::json!({"pending_total": pending_total, "items": items});
        let contents = ResourceContents::text(json.to_string(), PENDING_URI)
            .with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Who reads a resource or a prompt: every role may, but only in its scopes.
fn resource_caller(context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
    access::caller(context)
        .ok_or_else(|| ErrorData::internal_error("an MCP request without a caller", None))
}

/// Serves MCP over stdin and stdout until the client closes them.
pub async fn serve_stdio(state: AppState) -> anyhow::Result<()> {
    let running = Concord::new(state).serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
