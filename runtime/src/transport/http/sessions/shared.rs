//! Sessions every replica serves: with a task store that passes messages between replicas
//! (Redis), what the server keeps of a session beyond one request (its handshake, its
//! owner, its log level) is a record in the store, and what one replica hears for a session
//! another one must act on is a message on the store's `sessions` channel:
//!
//! - a request of a session this replica does not know reads the record, and the session
//!   is served here from then on as if it had opened it (`adopt` in `mod.rs`);
//! - a client's answer to a question (elicitation, sampling, roots) goes to the replica
//!   whose call asked it: the question's id names that replica (`questions.rs`); another
//!   replica the answer reaches tells every replica, and the one named hands it to rmcp
//!   there, under the id rmcp gave, which gives it to the request it answers;
//! - `logging/setLevel` and a session's end reach every replica serving the session.
//!
//! A record lives for [`RECORD_TTL`] after the last sweep that saw the session used.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::InitializeRequestParams;
use serde::{Deserialize, Serialize};

// A record keeps as many subscriptions as a session may hold on one replica.
use crate::context::{MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS};
use crate::task::{Messages, StoreError, TaskStore};

/// The channel replicas tell each other about sessions on.
const CHANNEL: &str = "sessions";

/// How long a session's record outlives its last use seen by a sweep: as long as a session
/// nothing is asked of lives on one replica (a look every [`SWEEP`](super::opened::SWEEP)
/// keeps it while it is used anywhere).
pub(super) const RECORD_TTL: Duration = Duration::from_secs(330);

/// How long a replica holds a record's lease at most (a change takes a read and a write),
/// and how long another waits for it.
const LEASE_TTL: Duration = Duration::from_secs(2);
const LEASE_WAIT: Duration = Duration::from_secs(2);

/// What every replica may read of a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Record {
    /// The client's `initialize`, which a replica replays to serve the session.
    pub(super) handshake: InitializeRequestParams,
    /// With authorization: who opened it (only they may use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) owner: Option<String>,
    /// Its log level, once the client set one (`logging/setLevel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) level: Option<String>,
    /// The resources it is subscribed to (`resources/subscribe`), followed by the replica
    /// that holds its `GET` stream (`streams.rs`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub(super) subscriptions: BTreeSet<String>,
}

impl Record {
    /// A new session's record: its handshake, and its owner (with authorization).
    pub(super) fn new(handshake: InitializeRequestParams, owner: Option<String>) -> Record {
        Record {
            handshake,
            owner,
            level: None,
            subscriptions: BTreeSet::new(),
        }
    }
}

/// What a replica tells the others of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum News {
    /// The client's answer (a JSON-RPC response or error) to a question of the server.
    Answer(serde_json::Value),
    /// The client set the session's log level.
    Level(String),
    /// The client subscribed to a resource (`on`), or unsubscribed.
    Subscribed { uri: String, on: bool },
    /// The session ended (`DELETE`).
    Ended,
}

#[derive(Serialize, Deserialize)]
struct Message {
    /// The replica that tells.
    from: String,
    session: String,
    news: News,
}

/// A store shared by replicas, as the sessions use it.
pub(super) struct Shared {
    store: Arc<dyn TaskStore>,
    /// This replica, as its messages name it (it skips its own).
    replica: String,
    /// What the ids of its questions start with (`questions.rs`).
    tag: String,
}

impl Shared {
    /// Listens on the sessions' channel of `store`: `None` when it passes nothing between
    /// replicas (sessions then live in this process only).
    pub(super) async fn join(
        store: Arc<dyn TaskStore>,
    ) -> Result<Option<(Shared, Messages)>, crate::task::StoreError> {
        let Some(messages) = store.listen(CHANNEL).await? else {
            return Ok(None);
        };
        let replica = super::id::new_id();
        tracing::info!(
            replica,
            "sessions are kept in the task store: any replica that shares it serves them"
        );
        let tag = super::questions::tag_of(&replica);
        let shared = Shared {
            store,
            replica,
            tag,
        };
        Ok(Some((shared, messages)))
    }

    /// What the ids of this replica's questions start with.
    pub(super) fn tag(&self) -> &str {
        &self.tag
    }

    /// Keeps `record` of session `id` for every replica.
    pub(super) async fn save(&self, id: &str, record: &Record) {
        let Ok(json) = serde_json::to_string(record) else {
            return;
        };
        if let Err(err) = self.store.put(&key(id), &json, RECORD_TTL).await {
            tracing::warn!(%err, session = id, "the session is served by this replica only");
        }
    }

    /// The record of session `id`, if any replica kept one; an error when the store failed
    /// (not the same as none: the session may well exist).
    pub(super) async fn load(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let json = self.store.read(&key(id)).await.inspect_err(|err| {
            tracing::warn!(%err, session = id, "a session's record could not be read");
        })?;
        Ok(json.and_then(|json| serde_json::from_str(&json).ok()))
    }

    /// Changes the record of session `id` as `change` says, if there is one: under the
    /// record's lease, so that two replicas changing one session at once (a `logging/setLevel`
    /// on one, a `resources/subscribe` on the other) each read the other's change.
    async fn update(&self, id: &str, change: impl FnOnce(&mut Record)) {
        let lease = self.lease(id).await;
        if let Ok(Some(mut record)) = self.load(id).await {
            change(&mut record);
            self.save(id, &record).await;
        }
        if lease {
            let _ = self.store.take(&lease_key(id)).await;
        }
    }

    /// Waits (at most [`LEASE_WAIT`]) until this replica holds session `id`'s lease; whether
    /// it does. A store that cannot hold one, or a lease still held after the wait (its
    /// holder gone: it lapses after [`LEASE_TTL`]), lets the change go on without.
    async fn lease(&self, id: &str) -> bool {
        let until = tokio::time::Instant::now() + LEASE_WAIT;
        loop {
            match self
                .store
                .put_new(&lease_key(id), &self.replica, LEASE_TTL)
                .await
            {
                Ok(true) => return true,
                Ok(false) if tokio::time::Instant::now() < until => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Ok(false) => {
                    tracing::warn!(session = id, "a session's record changed without its lease");
                    return false;
                }
                Err(_) => return false,
            }
        }
    }

    /// Session `id` is `owner`'s (one rmcp opened, whose record it kept without).
    pub(super) async fn owned(&self, id: &str, owner: String) {
        self.update(id, |record| record.owner = Some(owner)).await;
    }

    /// The client of session `id` set its log level: kept, and told to the others.
    pub(super) async fn set_level(&self, id: &str, level: String) {
        let told = level.clone();
        self.update(id, |record| record.level = Some(level)).await;
        let _ = self.tell(id, News::Level(told)).await;
    }

    /// The client of session `id` subscribed to `uri` (`on`) or unsubscribed: kept, and
    /// told to the others.
    pub(super) async fn subscribe(&self, id: &str, uri: String, on: bool) {
        let told = uri.clone();
        self.update(id, |record| {
            match on {
                // As many as a session may hold, each as long as it may be (rmcp refuses
                // more, but answers with a stream before it does).
                true if record.subscriptions.len() < MAX_SUBSCRIPTIONS
                    && uri.len() <= MAX_SUBSCRIBED_URI =>
                {
                    record.subscriptions.insert(uri);
                }
                true => {}
                false => {
                    record.subscriptions.remove(&uri);
                }
            };
        })
        .await;
        let _ = self.tell(id, News::Subscribed { uri: told, on }).await;
    }

    /// Session `id` ended: its record goes, and the others end it too.
    pub(super) async fn end(&self, id: &str) {
        if let Err(err) = self.store.take(&key(id)).await {
            tracing::warn!(%err, session = id, "an ended session's record could not be removed");
        }
        let _ = self.tell(id, News::Ended).await;
    }

    /// Keeps the records of the sessions `ids` (used since the last sweep) for another
    /// [`RECORD_TTL`]; a record that is gone (the session ended) is not made again.
    pub(super) async fn refresh(&self, ids: Vec<String>) {
        for id in ids {
            if let Err(err) = self.store.touch(&key(&id), RECORD_TTL).await {
                tracing::warn!(%err, session = id, "a session's record could not be kept");
            }
        }
    }

    /// Tells every other replica `news` of session `id`: an error when the store failed.
    pub(super) async fn tell(&self, id: &str, news: News) -> Result<(), StoreError> {
        let message = Message {
            from: self.replica.clone(),
            session: id.to_owned(),
            news,
        };
        let text = serde_json::to_string(&message).map_err(StoreError::new)?;
        self.store
            .publish(CHANNEL, &text)
            .await
            .map(drop)
            .inspect_err(|err| {
                tracing::warn!(%err, session = id, "the other replicas could not be told");
            })
    }

    /// What another replica told (the session and its news); `None` for this replica's own
    /// messages and for what does not read.
    pub(super) fn hear(&self, text: &str) -> Option<(String, News)> {
        let message: Message = serde_json::from_str(text).ok()?;
        (message.from != self.replica).then_some((message.session, message.news))
    }
}

/// Where the record of session `id` is kept.
fn key(id: &str) -> String {
    format!("session:{id}")
}

/// Where the lease of session `id`'s record is (`update`).
fn lease_key(id: &str) -> String {
    format!("session-lease:{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn news_read_back_as_told_and_a_replica_skips_its_own() {
        let shared = |replica: &str| Shared {
            store: Arc::new(crate::task::MemoryStore::new()),
            replica: replica.to_owned(),
            tag: String::new(),
        };
        let (one, other) = (shared("a"), shared("b"));
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept"}});
        for news in [
            News::Answer(answer),
            News::Level("debug".into()),
            News::Ended,
        ] {
            let text = serde_json::to_string(&Message {
                from: "a".into(),
                session: "s1".into(),
                news: news.clone(),
            })
            .unwrap();
            assert_eq!(other.hear(&text), Some(("s1".to_owned(), news)));
            assert_eq!(one.hear(&text), None, "its own");
        }
        assert_eq!(other.hear("not json"), None);
    }
}
