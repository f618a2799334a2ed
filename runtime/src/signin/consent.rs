//! The consent page and the user's answer: the page shown to the browser that signed in
//! (its cookie), the form's answer checked against that cookie and the page's CSRF token,
//! taken once; the scopes granted (those ticked, of those offered), remembered when asked.

use axum::http::StatusCode;

use super::consents::{self, Consent};
use super::flow::{Answer, failed, unavailable};
use super::page;
use super::records::{Pending, RecordStore, digest, key};
use super::server::AuthServer;

/// The consent form, as posted.
#[derive(Debug, Default)]
pub(super) struct ConsentForm {
    pub(super) pending: String,
    pub(super) csrf: String,
    pub(super) scopes: Vec<String>,
    pub(super) remember: bool,
    pub(super) allow: bool,
}

impl ConsentForm {
    /// The form from its `application/x-www-form-urlencoded` body (`scope` repeated).
    pub(super) fn parse(body: &[u8]) -> ConsentForm {
        let mut form = ConsentForm::default();
        for (name, value) in form_urlencoded::parse(body) {
            match &*name {
                "pending" => form.pending = value.into_owned(),
                "csrf" => form.csrf = value.into_owned(),
                "scope" => form.scopes.push(value.into_owned()),
                "remember" => form.remember = value == "yes",
                "decision" => form.allow = value == "allow",
                _ => {}
            }
        }
        form
    }
}

impl AuthServer {
    /// The consent page of `id`, for the browser that signed in (its cookie).
    pub(super) async fn consent_page(&self, id: &str, cookie: Option<&str>) -> Answer {
        let pending = match self
            .waiting(
                id,
                cookie,
                "Open this page in the browser you signed in with.",
            )
            .await
        {
            Ok(pending) => pending,
            Err(answer) => return answer,
        };
        let client = match self.client(&pending.asked.client_id).await {
            Ok(client) => client,
            Err(why) => return failed(StatusCode::BAD_REQUEST, &format!("Unknown client: {why}")),
        };
        let offers = (self.offers)();
        let server = reqwest::Url::parse(&self.resource)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| self.resource.clone());
        Answer::Page(page::consent(&pending, id, &client, &offers, &server))
    }

    /// The user's answer: the code (for the scopes granted), or `access_denied`.
    pub(super) async fn decide(&self, form: ConsentForm, cookie: Option<&str>) -> Answer {
        // Both: the cookie of the browser that signed in, and the form's token.
        let elsewhere =
            "This answer did not come from the consent page in the browser you signed in with.";
        let pending = match self.waiting(&form.pending, cookie, elsewhere).await {
            Ok(pending) if same(&form.csrf, &pending.csrf) => pending,
            Ok(_) => return failed(StatusCode::FORBIDDEN, elsewhere),
            Err(answer) => return answer,
        };
        let records = RecordStore(self.store.as_ref());
        match records.take::<Pending>(&key::pending(&form.pending)).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "This sign-in was answered already.",
                );
            }
            Err(err) => return unavailable(err),
        }
        let Pending {
            asked,
            identity,
            offered,
            ..
        } = pending;
        if !form.allow {
            tracing::info!(subject = %identity.subject, client = %asked.client_id, "sign-in: the user denied the request");
            return self.refuse(&asked, "access_denied", "the user denied the request");
        }
        let granted: Vec<String> = offered
            .into_iter()
            .filter(|s| form.scopes.contains(s))
            .collect();
        if granted.is_empty() {
            return self.refuse(&asked, "access_denied", "the user granted no scope");
        }
        let consent = consents::key_of(&identity, &asked.client_id);
        let remembered = if form.remember {
            let name = self
                .client(&asked.client_id)
                .await
                .ok()
                .and_then(|c| c.name);
            let lifetime = self.settings.consent_lifetime;
            let kept = Consent::new(&identity, &asked.client_id, name, granted.clone(), lifetime);
            RecordStore(self.store.as_ref())
                .put(&consent, &kept, lifetime)
                .await
        } else {
            self.store.take(&consent).await.map(drop)
        };
        if let Err(err) = remembered {
            return unavailable(err);
        }
        tracing::info!(subject = %identity.subject, client = %asked.client_id, scopes = %granted.join(" "), "sign-in: the user granted");
        self.code(asked, identity, granted).await
    }

    /// The consent waiting under `id`, for the browser whose cookie is `cookie`; or the page
    /// that answers otherwise (`elsewhere`: what a wrong browser is told).
    async fn waiting(
        &self,
        id: &str,
        cookie: Option<&str>,
        elsewhere: &str,
    ) -> Result<Pending, Answer> {
        let pending = match RecordStore(self.store.as_ref())
            .read::<Pending>(&key::pending(id))
            .await
        {
            Ok(Some(pending)) => pending,
            Ok(None) => {
                return Err(failed(
                    StatusCode::BAD_REQUEST,
                    "This sign-in expired or was answered already: start again from the application.",
                ));
            }
            Err(err) => return Err(unavailable(err)),
        };
        if cookie.map(digest).as_deref() != Some(pending.browser.as_str()) {
            return Err(failed(StatusCode::FORBIDDEN, elsewhere));
        }
        Ok(pending)
    }
}

/// Whether two texts are equal, in a time that does not tell where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}
