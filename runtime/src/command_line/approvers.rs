//! `serve --approve`: the approvers named on the command line (`rules=FILE`, `webhook=URL`,
//! `page=ADDR`, `client`), each made from its value when the flags are read, put on the
//! server in their order, and, over HTTP builds, the listeners of their own that the
//! approvals page and the webhook's callbacks are served on.

use super::tasks::TaskArgs;
use crate::Server;

/// An approver named on the command line.
#[derive(Clone, Debug)]
pub(super) enum Approve {
    Rules(crate::approve::Rules),
    /// The page, and the address it listens on.
    #[cfg(feature = "http")]
    Page(crate::approve::Page, String),
    /// The webhook, and the address its callbacks are taken on, if any.
    #[cfg(feature = "webhook")]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Webhook(crate::approve::Webhook, Option<String>),
    Client,
}

/// `--approve`'s value: `client`, or `rules=FILE` (read now: a wrong file stops the start).
pub(super) fn approver(value: &str) -> Result<Approve, String> {
    match value.split_once('=') {
        None if value == "client" => Ok(Approve::Client),
        Some(("rules", path)) if !path.is_empty() => {
            crate::approve::Rules::from_path(std::path::Path::new(path))
                .map(Approve::Rules)
                .map_err(|err| err.to_string())
        }
        #[cfg(feature = "webhook")]
        Some(("webhook", url)) => {
            use base64::Engine;
            let secret = std::env::var("TOOLSMITH_APPROVE_SECRET").map_err(|_| {
                "webhook=URL needs TOOLSMITH_APPROVE_SECRET: the secret it shares with the service (base64 of at least 32 random bytes)".to_owned()
            })?;
            let secret = base64::engine::general_purpose::STANDARD
                .decode(secret.trim())
                .map_err(|err| format!("TOOLSMITH_APPROVE_SECRET is not base64 ({err})"))?;
            let hook = crate::approve::Webhook::new(url, secret)?;
            // Decisions by callback, on a listener of their own (feature `http`).
            let addr = std::env::var("TOOLSMITH_APPROVE_CALLBACK_ADDR").ok();
            #[cfg(feature = "http")]
            let hook = match &addr {
                Some(addr) => {
                    let url = std::env::var("TOOLSMITH_APPROVE_CALLBACK_URL")
                        .unwrap_or_else(|_| format!("http://{addr}/"));
                    hook.callbacks(url)
                }
                None => hook,
            };
            #[cfg(not(feature = "http"))]
            if addr.is_some() {
                return Err("TOOLSMITH_APPROVE_CALLBACK_ADDR needs the `http` feature".into());
            }
            Ok(Approve::Webhook(hook, addr))
        }
        #[cfg(feature = "http")]
        Some(("page", addr)) if !addr.is_empty() => {
            let token = std::env::var("TOOLSMITH_APPROVE_TOKEN").map_err(|_| {
                "page=ADDR needs TOOLSMITH_APPROVE_TOKEN: the operators' token for the approvals page (at least 16 random characters)".to_owned()
            })?;
            crate::approve::Page::new(token).map(|page| Approve::Page(page, addr.to_owned()))
        }
        #[cfg(not(feature = "webhook"))]
        Some(("webhook", _)) => Err(missing_feature("webhook=URL", "webhook")),
        #[cfg(not(feature = "http"))]
        Some(("page", addr)) if !addr.is_empty() => Err(missing_feature("page=ADDR", "http")),
        _ => Err(format!(
            "{value:?} is not an approver: give rules=FILE, webhook=URL, page=ADDR or client"
        )),
    }
}

/// What an approver this build was made without says: which feature of `toolsmith` it needs.
#[cfg(any(not(feature = "webhook"), not(feature = "http")))]
fn missing_feature(approver: &str, feature: &str) -> String {
    format!(
        "{approver}: this server was built without it; build it with toolsmith's `{feature}` feature"
    )
}

/// `server` with the approvers of `approve`, in their order (`tasks`: where a webhook's
/// decisions are handed between replicas; `wait`: how long the webhook and the page wait for
/// a decision, when given).
#[cfg_attr(not(feature = "webhook"), allow(unused_variables))]
pub(super) fn with_approvers(
    mut server: Server,
    approve: &[Approve],
    tasks: &TaskArgs,
    wait: Option<std::time::Duration>,
) -> Server {
    // Before `client`: asked first; after it: only when the client cannot ask its user.
    let mut after_client = false;
    for approve in approve {
        let approver: std::sync::Arc<dyn crate::approve::Approver> = match approve {
            Approve::Rules(rules) => std::sync::Arc::new(rules.clone()),
            #[cfg(feature = "webhook")]
            Approve::Webhook(hook, _) => {
                let hook = match wait {
                    Some(wait) => hook.clone().timeout(wait),
                    None => hook.clone(),
                };
                match tasks.store() {
                    // A decision that came to another replica is handed over through the store.
                    Some(store) => std::sync::Arc::new(hook.callback_store(store)),
                    None => std::sync::Arc::new(hook),
                }
            }
            #[cfg(feature = "http")]
            // The page lists the server's remembered approvals, and revokes them.
            Approve::Page(page, _) => {
                let mut page = page.clone().grants(server.grants());
                if let Some(reviews) = server.reviewed() {
                    page = page.reviews(reviews.clone());
                }
                std::sync::Arc::new(match wait {
                    Some(wait) => page.timeout(wait),
                    None => page,
                })
            }
            Approve::Client => {
                after_client = true;
                continue;
            }
        };
        server = if after_client {
            server.approver_instead_of_client(approver)
        } else {
            server.approver(approver)
        };
    }
    server
}

/// `serving`, with the approvals pages `--approve page=ADDR` names and the webhook's
/// callbacks (`TOOLSMITH_APPROVE_CALLBACK_ADDR`) beside it, each on its own listener (bound
/// first: an address that cannot be had stops the start).
#[cfg(feature = "http")]
pub(super) fn with_listeners(
    approve: &[Approve],
    serving: crate::server::ServeFuture,
) -> crate::server::ServeFuture {
    let listeners: Vec<(&'static str, axum::Router, String)> = approve
        .iter()
        .filter_map(|approve| match approve {
            Approve::Page(page, addr) => Some(("approvals page", page.router(), addr.clone())),
            #[cfg(feature = "webhook")]
            Approve::Webhook(hook, Some(addr)) => {
                Some(("approval callbacks", hook.callback_router(), addr.clone()))
            }
            _ => None,
        })
        .collect();
    if listeners.is_empty() {
        return serving;
    }
    Box::pin(async move {
        for (what, router, addr) in listeners {
            let listener = tokio::net::TcpListener::bind(&addr)
                .await
                .map_err(|err| crate::Error::config(what, format!("{addr}: {err}")))?;
            tracing::info!(addr = %addr, "{what} listening");
            tokio::spawn(axum::serve(listener, router).into_future());
        }
        serving.await
    })
}
