//! Messages between replicas: Redis's publish and subscribe, on channels under the store's
//! prefix. A listener has a connection of its own (a subscribed connection runs no other
//! command), made again a second after it is lost, until its receiver is dropped.

use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;

use super::super::{Messages, StoreError};
use super::RedisStore;

/// How many messages wait for a slow listener before the next ones are dropped (a replica
/// that stops reading does not grow without bound).
const BACKLOG: usize = 1024;

/// How long a lost listening connection waits before it is made again.
const RECONNECT: Duration = Duration::from_secs(1);

impl RedisStore {
    /// The channel's name in Redis.
    pub(super) fn channel(&self, channel: &str) -> String {
        format!("{}channel:{channel}", self.prefix)
    }

    /// `PUBLISH`es `message` on `channel`.
    pub(super) async fn send(&self, channel: &str, message: &str) -> Result<bool, StoreError> {
        let mut connection = self.connection().await?;
        let _: i64 = redis::cmd("PUBLISH")
            .arg(self.channel(channel))
            .arg(message)
            .query_async(&mut connection)
            .await
            .map_err(StoreError::new)?;
        Ok(true)
    }

    /// Subscribes to `channel` (the first connection is made here, so that an unreachable
    /// Redis is an error now), and hands on what it hears until the receiver is dropped.
    pub(super) async fn subscribe(&self, channel: &str) -> Result<Messages, StoreError> {
        let name = self.channel(channel);
        let first = subscribed(&self.client, &name).await?;
        let (sender, receiver) = mpsc::channel(BACKLOG);
        let client = self.client.clone();
        tokio::spawn(async move {
            let mut pubsub = Some(first);
            loop {
                let Some(listening) = pubsub.take() else {
                    tokio::select! {
                        () = tokio::time::sleep(RECONNECT) => {}
                        () = sender.closed() => return,
                    }
                    match subscribed(&client, &name).await {
                        Ok(again) => pubsub = Some(again),
                        Err(err) => tracing::warn!(%err, channel = name, "listening again failed"),
                    }
                    continue;
                };
                let mut messages = listening.into_on_message();
                loop {
                    let message = tokio::select! {
                        message = messages.next() => message,
                        () = sender.closed() => return,
                    };
                    let Some(message) = message else {
                        tracing::warn!(
                            channel = name,
                            "the connection listening to Redis was lost"
                        );
                        break;
                    };
                    let Ok(text) = message.get_payload::<String>() else {
                        continue;
                    };
                    match sender.try_send(text) {
                        Ok(()) => {}
                        Err(mpsc::error::TrySendError::Closed(_)) => return,
                        Err(mpsc::error::TrySendError::Full(_)) => tracing::warn!(
                            channel = name,
                            "a message between replicas was dropped: {BACKLOG} wait already"
                        ),
                    }
                }
            }
        });
        Ok(receiver)
    }
}

/// A connection subscribed to `name`.
async fn subscribed(client: &redis::Client, name: &str) -> Result<redis::aio::PubSub, StoreError> {
    let connect = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(name).await?;
        Ok::<_, redis::RedisError>(pubsub)
    };
    match tokio::time::timeout(Duration::from_secs(5), connect).await {
        Ok(result) => result.map_err(StoreError::new),
        Err(_) => Err(StoreError::new("Redis did not answer within 5 s")),
    }
}
