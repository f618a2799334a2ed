//! Authorization inside the server (feature `auth`): which tools a caller's token may call,
//! decided by the scopes their hints imply (or name); the HTTP edge is told the same rule, so
//! that a refused call gets its 403 before it reaches rmcp, and the handler checks it again.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{ListToolsResult, Tool};

use super::Server;
use super::call::Pipeline;
use super::front::Front;
use super::tool_search::CALL_TOOL;
use crate::transport::http::guard::{GuardConfig, ItemRef, TaskAccess};
use crate::{
    Error, Registry, auth::Auth, context::Caller, tool::RequiredScopes, tool::ScopeNames,
    tool::ToolInfo,
};

#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
impl Server {
    /// Requires an OAuth bearer token on every request to the MCP endpoint (HTTP only;
    /// feature `auth`): a JWT signed by `auth`'s issuer, for this server. A tool call then
    /// needs the scope its hints imply ([`ScopeNames`]), and `tools/list` shows each caller
    /// only the tools it may call. The Protected Resource Metadata (RFC 9728) is served at
    /// `/.well-known/oauth-protected-resource`.
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// let auth = toolsmith::auth::Auth::new("https://login.example.com", "https://login.example.com/jwks");
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .auth(auth)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Signs users in itself (HTTP only; feature `signin`): an OAuth 2.1 authorization
    /// server in front of `sign_in`'s identity provider, at the public URL's origin
    /// (metadata at `/.well-known/oauth-authorization-server`, endpoints under `/oauth/`),
    /// whose consent page offers each scope by what its tools do. Every request to the MCP
    /// endpoint then needs one of its access tokens, as with [`auth`](Self::auth). Its
    /// clients, codes, consents, refresh tokens and signing keys are kept in the
    /// [task store](Self::task_store): replicas that share one (Redis) share them.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT.
    /// use toolsmith::signin::{Provider, SignIn};
    ///
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// let provider = Provider::oidc("https://accounts.google.com", "client-id", "secret");
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .sign_in(SignIn::new(provider))
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    #[cfg(feature = "signin")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
    pub fn sign_in(mut self, sign_in: crate::signin::SignIn) -> Self {
        self.sign_in = Some(sign_in);
        // Its tools mint tokens for the servers behind it once it serves.
        self.states.insert(self.issuing.clone());
        self
    }

    /// Whether the endpoint is guarded: an issuer is trusted, or the server signs users in.
    pub(super) fn guarded(&self) -> bool {
        #[cfg(feature = "signin")]
        if self.sign_in.is_some() {
            return true;
        }
        self.auth.is_some()
    }

    /// With authorization, the names of the scopes the server's calls are decided by
    /// (checked): what its pipeline is made with, before the edge's guard.
    pub(super) fn guarded_scopes(&self) -> Result<Option<Arc<ScopeNames>>, Error> {
        if !self.guarded() {
            return Ok(None);
        }
        #[cfg(feature = "signin")]
        if self.sign_in.is_some() && self.auth.is_some() {
            return Err(Error::config(
                "authorization",
                "sign-in and a trusted issuer exclude each other: the server's own authorization server issues the tokens it accepts; drop --auth-issuer or --signin-*",
            ));
        }
        let names = Arc::new(self.scope_names.clone());
        check_names(&names)?;
        Ok(Some(names))
    }

    /// What the HTTP edge needs to enforce authorization for `handler`'s tools, by `names`
    /// (the scopes its pipeline was made with: [`Server::guarded_scopes`]).
    pub(super) fn guard(
        &self,
        handler: &Front,
        names: Option<Arc<ScopeNames>>,
    ) -> Result<Option<GuardConfig>, Error> {
        let Some(names) = names else {
            return Ok(None);
        };
        let auth = self.auth.clone();
        // What a challenge and the metadata name: the set as serving starts.
        let handle = handler.pipeline.registry.clone();
        let registry = handle.current();
        // The tools the policy offers (in search mode, those `search_tools` finds).
        let policy = handler.pipeline.policy.clone();
        let offered: Vec<&ToolInfo> = registry
            .tools()
            .iter()
            .map(|tool| &**tool)
            .filter(|tool| policy.allows(tool).is_ok())
            .collect();
        let challenge = offered
            .iter()
            .filter(|tool| tool.header().scopes().is_empty())
            .map(|tool| names.required(tool).to_string())
            .min_by_key(|scope| level_rank(&names, scope))
            .unwrap_or_else(|| names.read().to_owned());
        let mut scopes_supported = names.supported(offered.iter().copied());
        let item_scopes = registry.resources().iter().map(|r| r.header().scopes());
        for scope in item_scopes
            .chain(registry.prompts().iter().map(|p| p.header().scopes()))
            .flatten()
        {
            if !scopes_supported.iter().any(|s| s == scope) {
                scopes_supported.push((*scope).to_owned());
            }
        }
        #[cfg(feature = "signin")]
        let signin =
            self.sign_in
                .clone()
                .map(|sign_in| crate::transport::http::guard::SignInSetup {
                    sign_in,
                    store: handler.pipeline.tasks.store.clone(),
                    offers: offers(handler, names.clone()),
                    issuing: self.issuing.clone(),
                });
        let policy = handler.pipeline.policy.clone();
        let task_names = names.clone();
        let task_registry = handle.clone();
        // Search mode: a `call_tool` needs what the tool it names needs.
        let searching = handler.pipeline.tool_search.is_some();
        let access = Arc::new(move |caller: &Caller, target: ItemRef<'_>| {
            let registry = handle.load();
            let target = match target {
                ItemRef::ToolNaming(name, named) => match searching && name == CALL_TOOL {
                    true => ItemRef::Tool(named),
                    false => ItemRef::Tool(name),
                },
                other => other,
            };
            let needed = match target {
                ItemRef::ToolNaming(..) => return None,
                ItemRef::Tool(name) => {
                    let tool = registry
                        .get(name)
                        .filter(|tool| policy.allows(tool).is_ok() && tool.admits(caller))?;
                    names.required(tool)
                }
                ItemRef::Resource(uri) => {
                    // A URI, or (completing a variable) the template as declared.
                    let resource = registry.resource_for(uri);
                    names.required_for(
                        resource
                            .or_else(|| registry.resource_declared(uri))?
                            .header()
                            .scopes(),
                    )
                }
                ItemRef::Prompt(name) => {
                    names.required_for(registry.prompt(name)?.header().scopes())
                }
            };
            (!needed.granted_by(caller.scopes())).then(|| needed.to_string())
        });
        let tasks = handler.pipeline.tasks.clone();
        let policy = handler.pipeline.policy.clone();
        let task_access: TaskAccess = Arc::new(move |caller: Caller, id: String| {
            let (tasks, policy, names) = (tasks.clone(), policy.clone(), task_names.clone());
            let registry = task_registry.clone();
            Box::pin(async move {
                // Not the caller's task: the handler says "not found", as to anyone.
                let record = tasks.owned(&id, &caller).await.ok()?;
                let needed = task_needs(&names, &registry.current(), &policy, &record.tool);
                (!needed.granted_by(caller.scopes())).then(|| needed.to_string())
            })
        });
        Ok(Some(GuardConfig {
            auth,
            #[cfg(feature = "signin")]
            signin,
            scopes_supported,
            challenge,
            access,
            task_access,
        }))
    }
}

/// What each scope opens, for the consent page: the titles of the tools offered now that
/// need it, by their hints' level (a scope tools name themselves: its own group).
#[cfg(feature = "signin")]
fn offers(handler: &Front, names: Arc<ScopeNames>) -> crate::signin::Offers {
    use crate::signin::{Level, Offer};
    let registry = handler.pipeline.registry.clone();
    let policy = handler.pipeline.policy.clone();
    Arc::new(move || {
        let registry = registry.load();
        let mut offers: Vec<Offer> = [
            (names.read(), Level::Read),
            (names.write(), Level::Change),
            (names.destructive(), Level::Destructive),
        ]
        .into_iter()
        .map(|(scope, level)| Offer {
            scope: scope.to_owned(),
            level,
            tools: Vec::new(),
        })
        .collect();
        // A tool for some callers only (an audience) is not shown to everyone signing in.
        let shown =
            |t: &&std::sync::Arc<ToolInfo>| policy.allows(t).is_ok() && t.audience().is_none();
        for tool in registry.tools().iter().filter(shown) {
            let title = tool.header().title().unwrap_or(tool.name()).to_owned();
            for scope in names.required(tool).scopes() {
                match offers.iter_mut().find(|o| o.scope == scope) {
                    Some(offer) => offer.tools.push(title.clone()),
                    None => offers.push(Offer {
                        scope: scope.to_owned(),
                        level: Level::Other,
                        tools: vec![title.clone()],
                    }),
                }
            }
        }
        offers
    })
}

/// The setting [`check_names`] checks, as its errors name it.
const SCOPE_NAMES: &str = "scope names";

/// The three scope names must be scope tokens, and distinct.
fn check_names(names: &ScopeNames) -> Result<(), Error> {
    let all = [names.read(), names.write(), names.destructive()];
    for name in all {
        // RFC 6749's scope-token, as `#[tool(scopes = [...])]` checks it.
        let token = |c: char| matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e');
        if name.is_empty() || !name.chars().all(token) {
            return Err(Error::config(
                SCOPE_NAMES,
                format!(
                    "the scope name {name:?} is not one OAuth scope token: use printable ASCII without spaces, `\"` or `\\`"
                ),
            ));
        }
    }
    if all[0] == all[1] || all[1] == all[2] || all[0] == all[2] {
        return Err(Error::config(
            SCOPE_NAMES,
            format!("the read, write and destructive scopes must differ: {all:?}"),
        ));
    }
    Ok(())
}

/// The rank of a hint scope (read, write, destructive).
fn level_rank(names: &ScopeNames, scope: &str) -> usize {
    [names.read(), names.write(), names.destructive()]
        .iter()
        .position(|s| *s == scope)
        .unwrap_or(usize::MAX)
}

/// What using a task of the tool named `tool` needs: what calling the tool needs (a tool no
/// longer offered: the destructive scope, the most any tool of hints needs).
fn task_needs<'a>(
    names: &'a ScopeNames,
    registry: &Registry,
    policy: &crate::server::Policy,
    tool: &str,
) -> RequiredScopes<'a> {
    match registry
        .get(tool)
        .filter(|tool| policy.allows(tool).is_ok())
    {
        Some(tool) => names.required(tool),
        None => RequiredScopes::level(names, 2),
    }
}

impl Pipeline {
    /// The error that answers `tasks/get`, `tasks/cancel` or `tasks/update` of task `id`,
    /// made by a call of `tool`, when `caller`'s token lacks what the tool needs.
    pub(crate) fn refuse_task(&self, tool: &str, id: &str, caller: &Caller) -> Option<ErrorData> {
        let names = self.scopes.as_ref()?;
        let needed = task_needs(names, &self.registry.load(), &self.policy, tool);
        if needed.granted_by(caller.scopes()) {
            return None;
        }
        Some(ErrorData::new(
            rmcp::model::ErrorCode(-32003),
            format!(
                "Forbidden: using task {id} needs scope \"{needed}\" (of tool {tool}), which the access token does not grant"
            ),
            None,
        ))
    }
}

impl Front {
    /// The `tools/list` page of the tools `caller` may call.
    pub(crate) fn list_for(
        &self,
        names: &ScopeNames,
        caller: &Caller,
        cursor: Option<&str>,
    ) -> Result<ListToolsResult, ErrorData> {
        let catalog = self.catalog();
        // Search mode lists its two tools to everyone: `search_tools` finds what the caller
        // may call.
        let searching = self.pipeline.tool_search.is_some();
        let allowed: Vec<&Tool> = catalog
            .offered
            .iter()
            .filter(|tool| {
                searching
                    || catalog.registry.get(&tool.name).is_some_and(|info| {
                        names.permits(info, caller.scopes()) && info.admits(caller)
                    })
            })
            .collect();
        self.page(&catalog, allowed, cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::check_names;
    use crate::tool::ScopeNames;

    #[test]
    fn scope_names_are_scope_tokens_and_distinct() {
        let ok = |r: &str, w: &str, d: &str| check_names(&ScopeNames::new(r, w, d)).is_ok();
        assert!(ok("tools:read", "tools:write", "tools:destructive"));
        assert!(ok("https://api.example.com/read", "notes.write", "admin!"));
        // What the macro also refuses in `scopes = [...]`: not printable ASCII, or `"`/`\`.
        for bad in [
            "",
            "a b",
            "café",
            "tab\there",
            "q\"uote",
            "back\\slash",
            "nul\0",
        ] {
            assert!(!ok(bad, "w", "d"), "{bad:?} was accepted");
        }
        assert!(!ok("same", "same", "d"));
        assert!(!ok("r", "w", "r"));
    }

    #[test]
    fn a_bad_scope_name_is_a_configuration_error_about_scope_names() {
        let err = check_names(&ScopeNames::new("a b", "w", "d")).unwrap_err();
        assert!(
            matches!(
                err,
                crate::Error::Config {
                    setting: "scope names",
                    ..
                }
            ),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with(
                "invalid scope names: the scope name \"a b\" is not one OAuth scope token"
            ),
            "{text}"
        );
        assert!(!text.contains("transport I/O"), "{text}");
    }
}
