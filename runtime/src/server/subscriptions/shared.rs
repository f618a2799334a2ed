//! Resource changes every replica hears: with a task store that passes messages between
//! replicas (Redis), a change a tool reports on one replica ([`Resources::updated`](
//! crate::context::Resources::updated)) is told to the others, and each tells its own
//! subscribers (sessions and 2026-07-28 listen streams), as if the change were its own.

use std::sync::OnceLock;
#[cfg(feature = "http")]
use std::sync::{Arc, Weak};

use serde::{Deserialize, Serialize};

use super::Subscriptions;
#[cfg(feature = "http")]
use crate::task::TaskStore;

/// The channel replicas tell each other of resource changes on.
#[cfg(feature = "http")]
const CHANNEL: &str = "resources";

/// How many changes wait to be told before the next ones are dropped (with a warning).
const BACKLOG: usize = 1024;

/// Where a replica tells the others: one task on the serving runtime publishes what is
/// queued, in order (a tool may report a change from a thread of another runtime, which is
/// not driven once the call returns).
pub(super) struct Shared {
    /// This replica, as its messages name it (it skips its own).
    replica: String,
    queue: tokio::sync::mpsc::Sender<String>,
}

/// What a replica tells.
#[derive(Serialize, Deserialize)]
struct Message {
    from: String,
    /// The resource that changed; none: the resource list did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
}

impl Subscriptions {
    /// Tells the other replicas that share `store` of every resource change reported here,
    /// and tells this replica's subscribers of theirs, while the subscriptions live: when
    /// the store passes messages between replicas (else nothing changes).
    #[cfg(feature = "http")]
    pub(crate) async fn share(
        self: &Arc<Self>,
        store: Arc<dyn TaskStore>,
    ) -> Result<(), crate::task::StoreError> {
        let Some(mut messages) = store.listen(CHANNEL).await? else {
            return Ok(());
        };
        let replica = format!("{:016x}", rand_u64());
        let (queue, mut queued) = tokio::sync::mpsc::channel::<String>(BACKLOG);
        let _ = self.shared.set(Shared {
            replica: replica.clone(),
            queue,
        });
        tokio::spawn(async move {
            while let Some(text) = queued.recv().await {
                if let Err(err) = store.publish(CHANNEL, &text).await {
                    tracing::warn!(%err, "the other replicas could not be told of a resource change");
                }
            }
        });
        let subscriptions: Weak<Subscriptions> = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(text) = messages.recv().await {
                let Some(subscriptions) = subscriptions.upgrade() else {
                    return;
                };
                let Ok(message) = serde_json::from_str::<Message>(&text) else {
                    continue;
                };
                if message.from == replica {
                    continue;
                }
                match message.uri {
                    Some(uri) => subscriptions.updated_here(&uri),
                    None => subscriptions.list_changed_here(),
                }
            }
        });
        Ok(())
    }

    /// Tells the other replicas (in the background) that `uri` changed, or the list.
    pub(super) fn tell_others(&self, uri: Option<&str>) {
        let Some(shared) = self.shared.get() else {
            return;
        };
        let message = Message {
            from: shared.replica.clone(),
            uri: uri.map(str::to_owned),
        };
        let Ok(text) = serde_json::to_string(&message) else {
            return;
        };
        if shared.queue.try_send(text).is_err() {
            tracing::warn!("a resource change was not told to the other replicas: {BACKLOG} wait");
        }
    }
}

/// Where the shared part is kept (set once, when serving starts).
pub(super) type SharedSlot = OnceLock<Shared>;

/// A random number for this replica's name.
#[cfg(feature = "http")]
fn rand_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // The system's generator; a failure leaves zeros, which only names the replica.
    let _ = getrandom::fill(&mut bytes);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::Message;

    #[test]
    fn a_message_names_its_replica_and_the_change() {
        let told = Message {
            from: "a".into(),
            uri: Some("notes://1".into()),
        };
        let text = serde_json::to_string(&told).unwrap();
        assert_eq!(text, r#"{"from":"a","uri":"notes://1"}"#);
        let list: Message = serde_json::from_str(r#"{"from":"b"}"#).unwrap();
        assert!(list.uri.is_none());
    }
}
