//! The pages a browser sees: the consent page, which says in the tools' own terms what a
//! client asks to do, and the error page of a request that cannot go back to its client.
//! Server-rendered, no JavaScript, never framed.

use axum::http::StatusCode;
use axum::response::Response;

use super::records::{Client, Pending};
use super::server::{Level, Offer};
use crate::html::{escape, page};

/// The pages' look: readable on a phone, large buttons.
const STYLE: &str = "<style>\
    body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:38em;padding:1em;color:#222}\
    h1{font-size:1.35em}fieldset{border:1px solid #ccc;border-radius:8px;margin:.8em 0;padding:.4em 1em}\
    legend{font-weight:600}.tools{margin:.3em 0 .2em 1.8em;color:#444}.note{color:#555;font-size:.92em}\
    .unverified{color:#9a6700;font-weight:600}.destructive legend{color:#cf222e}\
    button{font-size:1em;padding:.5em 1.2em;margin:.4em .4em 0 0;border:0;border-radius:6px}\
    button[value=allow]{background:#1a7f37;color:#fff}button[value=deny]{background:#6e7781;color:#fff}\
    </style>";

/// The consent page of `pending`, for `client`, with what each scope opens (`offers`).
pub(super) fn consent(
    pending: &Pending,
    pending_id: &str,
    client: &Client,
    offers: &[Offer],
    server: &str,
) -> Response {
    let name = client.name.as_deref().unwrap_or("An unnamed application");
    let redirect_host = reqwest::Url::parse(&pending.asked.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let vouched = if client.document {
        let site = reqwest::Url::parse(&client.id)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        format!(
            "Its description is published by <strong>{}</strong>.",
            escape(&site)
        )
    } else {
        "<span class=\"unverified\">Unverified:</span> the application named itself when it registered; \
         nothing confirms the name."
            .to_owned()
    };
    let who = pending
        .identity
        .email
        .as_deref()
        .or(pending.identity.name.as_deref())
        .unwrap_or(&pending.identity.subject);
    let mut html = String::with_capacity(4096);
    html.push_str("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    html.push_str(&format!(
        "<title>Allow {}?</title>{STYLE}</head><body>",
        escape(name)
    ));
    html.push_str(&format!(
        "<h1>Allow <strong class=\"client\">{}</strong> to use {} as you?</h1>",
        escape(name),
        escape(server)
    ));
    html.push_str(&format!(
        "<p class=\"who\">You are signed in as <strong>{}</strong>.</p>",
        escape(who)
    ));
    html.push_str(&format!(
        "<p class=\"client-note\">Once you answer, you go back to <strong class=\"redirect\">{}</strong>. {vouched}</p>",
        escape(&redirect_host)
    ));
    html.push_str("<form method=\"post\" action=\"/oauth/consent\">");
    html.push_str(&format!(
        "<input type=\"hidden\" name=\"pending\" value=\"{}\"><input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        escape(pending_id),
        escape(&pending.csrf)
    ));
    html.push_str("<p>It asks to:</p>");
    for scope in &pending.asked.scopes {
        let offer = offers.iter().find(|o| &o.scope == scope);
        let level = offer.map_or(Level::Other, |o| o.level);
        let (class, words) = match level {
            Level::Read => ("read", "Read: use the tools that only read"),
            Level::Change => (
                "change",
                "Change things: use the tools that create or update (and read)",
            ),
            Level::Destructive => (
                "destructive",
                "Delete or overwrite: use the destructive tools (and every other)",
            ),
            Level::Other => ("other", "Use the tools that need this scope"),
        };
        let tools = offer.map(|o| o.tools.join(", ")).unwrap_or_default();
        let tools = if tools.is_empty() {
            "no tool at the moment".to_owned()
        } else {
            tools
        };
        html.push_str(&format!("<fieldset class=\"scope {class}\">"));
        if pending.offered.contains(scope) {
            html.push_str(&format!(
                "<legend><label><input type=\"checkbox\" name=\"scope\" value=\"{s}\" checked> {words}</label> <code>{s}</code></legend>",
                s = escape(scope)
            ));
        } else {
            html.push_str(&format!(
                "<legend>{words} <code>{s}</code></legend><p class=\"note not-offered\">Your account may not grant this: the server's operator keeps it for others.</p>",
                s = escape(scope)
            ));
        }
        html.push_str(&format!(
            "<p class=\"tools\">{}</p></fieldset>",
            escape(&tools)
        ));
    }
    html.push_str(&format!(
        "<p><label><input type=\"checkbox\" name=\"remember\" value=\"yes\"> Remember my answer for {}</label></p>",
        escape(name)
    ));
    html.push_str("<p class=\"note\">Untick what you do not want to allow. A tool outside what you allow is refused.</p>");
    html.push_str("<button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button>");
    html.push_str("<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>");
    html.push_str("</form></body></html>");
    page(StatusCode::OK, html)
}

/// The page of a request that cannot be sent back to its client (an unknown client, a
/// redirect URI it did not register, an expired sign-in): what went wrong, in words.
pub(super) fn error(status: StatusCode, why: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>Sign-in failed</title>{STYLE}</head><body><h1>Sign-in failed</h1>\
         <p class=\"error\">{}</p><p class=\"note\">Go back to the application and start again.</p></body></html>",
        escape(why)
    );
    page(status, html)
}
