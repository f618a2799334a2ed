//! The outbox under partial writes, cancelled writers and concurrent senders.

use std::future::Future;
use std::sync::Arc;

use tokio::io::AsyncReadExt;

use super::Outbox;

/// Frames, shared bodies among them, come out whole and in order, whatever size each
/// write the output takes.
#[tokio::test]
async fn frames_and_shared_bodies_come_out_in_order() {
    let (client, server) = tokio::io::duplex(7); // tiny: every write is partial
    let outbox = Outbox::new(server);
    let body = Arc::new(String::from("{\"tools\":[1,2,3]}"));
    outbox.queue(&serde_json::json!({"id": 1})).unwrap();
    outbox
        .queue_shared(b"{\"id\":2,\"result\":", body.clone(), b"}\n")
        .unwrap();
    outbox.queue(&serde_json::json!({"id": 3})).unwrap();
    assert_eq!(outbox.queued(), 9 + 17 + body.len() + 2 + 9);
    let reader = tokio::spawn(async move {
        let mut client = client;
        let mut text = String::new();
        client.read_to_string(&mut text).await.unwrap();
        text
    });
    outbox.write_now(); // writes what fits, a task writes the rest
    outbox.send(&serde_json::json!({"id": 4})).await.unwrap();
    outbox.flush().await.unwrap();
    drop(outbox);
    let text = tokio::time::timeout(std::time::Duration::from_secs(10), reader)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        text,
        "{\"id\":1}\n{\"id\":2,\"result\":{\"tools\":[1,2,3]}}\n{\"id\":3}\n{\"id\":4}\n"
    );
}

/// Many senders against a slow reader: every frame is written once, each sender's in
/// order, and nothing is left in the queue when the senders are done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_senders_and_a_slow_reader_lose_nothing() {
    let (client, server) = tokio::io::duplex(64);
    let outbox = Outbox::new(server);
    let reader = tokio::spawn(async move {
        let mut client = client;
        let mut text = String::new();
        client.read_to_string(&mut text).await.unwrap();
        text
    });
    let senders: Vec<_> = (0..8)
        .map(|sender| {
            let outbox = outbox.clone();
            tokio::spawn(async move {
                for n in 0..200 {
                    let frame = serde_json::json!({"sender": sender, "n": n});
                    if n % 3 == 0 {
                        outbox.queue(&frame).unwrap();
                        outbox.write_now();
                    } else {
                        outbox.send(&frame).await.unwrap();
                    }
                }
            })
        })
        .collect();
    for sender in senders {
        sender.await.unwrap();
    }
    // No flush: whoever held the writer must have taken every frame queued meanwhile.
    let drained = async {
        while outbox.queued() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), drained)
        .await
        .expect("no frame is left behind in the queue");
    drop(outbox);
    let text = tokio::time::timeout(std::time::Duration::from_secs(20), reader)
        .await
        .expect("every frame is written")
        .unwrap();
    let mut next = [0u64; 8];
    for line in text.lines() {
        let frame: serde_json::Value = serde_json::from_str(line).unwrap();
        let sender = frame["sender"].as_u64().unwrap() as usize;
        assert_eq!(frame["n"], next[sender], "in order per sender");
        next[sender] += 1;
    }
    assert_eq!(next, [200; 8]);
}

/// A writer cancelled halfway (its future dropped, as rmcp drops `receive`) leaves its
/// batch to the next one: `write_now` picks it up even with nothing else queued.
#[tokio::test]
async fn a_batch_left_by_a_cancelled_writer_is_finished() {
    let (client, server) = tokio::io::duplex(8); // takes 8 bytes, then blocks
    let outbox = Outbox::new(server);
    outbox
        .queue(&serde_json::json!({"id": 1, "text": "abcdefghij"}))
        .unwrap();
    {
        let flush = std::pin::pin!(outbox.flush());
        let waker = std::task::Waker::noop();
        let polled = flush.poll(&mut std::task::Context::from_waker(waker));
        assert!(
            polled.is_pending(),
            "the output took only part of the batch"
        );
    } // cancelled here
    assert_eq!(
        outbox.queued(),
        0,
        "the rest sits in the writer's batch, not the queue"
    );
    let reader = tokio::spawn(async move {
        let mut client = client;
        let mut text = String::new();
        client.read_to_string(&mut text).await.unwrap();
        text
    });
    let finished = async {
        loop {
            outbox.write_now();
            if outbox.0.writer.try_lock().is_ok_and(|w| w.batch.is_empty()) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), finished)
        .await
        .expect("the batch is finished");
    drop(outbox);
    assert_eq!(
        reader.await.unwrap(),
        "{\"id\":1,\"text\":\"abcdefghij\"}\n"
    );
}

thread_local! {
    /// Run by `write_now` while it holds the writer, after it has looked at the queue.
    static WHILE_HELD: std::cell::RefCell<Option<Box<dyn FnMut()>>> =
        const { std::cell::RefCell::new(None) };
}

pub(super) fn while_held() {
    WHILE_HELD.with(|hook| {
        if let Some(hook) = hook.borrow_mut().as_mut() {
            hook();
        }
    });
}

/// A sender that queues its answer while the reader's `write_now` holds the writer (after it
/// found the queue empty) leaves the answer to the holder: `write_now` must look again once
/// it lets go, or the answer stays queued until the client sends something else.
#[tokio::test]
async fn an_answer_queued_while_write_now_holds_the_writer_is_written() {
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let outbox = Outbox::new(server);
    let sender = outbox.clone();
    let mut once = true;
    WHILE_HELD.with(|hook| {
        *hook.borrow_mut() = Some(Box::new(move || {
            if std::mem::take(&mut once) {
                sender.queue(&serde_json::json!({"id": 7})).unwrap();
                // What `send` does next: the writer is held, so it leaves the frame queued.
                assert!(sender.0.writer.try_lock().is_err());
            }
        }));
    });
    outbox.write_now();
    WHILE_HELD.with(|hook| hook.borrow_mut().take());
    assert_eq!(outbox.queued(), 0, "the answer was left in the queue");
    let mut line = vec![0; 9];
    client.read_exact(&mut line).await.unwrap();
    assert_eq!(line, b"{\"id\":7}\n");
}

/// A client that stops reading: past the backlog, a sender waits before its frame is queued
/// (so the backlog stops growing), and goes on once the client reads again.
#[tokio::test]
async fn past_the_backlog_a_sender_waits_before_it_queues() {
    let (mut client, server) = tokio::io::duplex(64 * 1024);
    let outbox = Outbox::new(server);
    let big = "x".repeat(super::BACKLOG + (1 << 20));
    outbox.queue(&big).unwrap();
    outbox.write_now(); // the output takes 64 KiB; the writer keeps the rest
    let backlog = outbox.backlog();
    assert!(outbox.backed_up(), "{backlog} bytes wait");
    let sender = outbox.clone();
    let send = tokio::spawn(async move { sender.send(&"after").await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!send.is_finished(), "the sender waits");
    assert_eq!(outbox.backlog(), backlog, "its frame is not queued yet");
    // The client reads again: the frame goes out, last.
    let reader = tokio::spawn(async move {
        let mut text = Vec::new();
        let mut buf = vec![0; 1 << 16];
        while !text.ends_with(b"\"after\"\n") {
            let n = client.read(&mut buf).await.unwrap();
            assert!(n > 0, "the output ended early");
            text.extend_from_slice(&buf[..n]);
        }
        text.len()
    });
    let wait = std::time::Duration::from_secs(10);
    tokio::time::timeout(wait, send)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let read = tokio::time::timeout(wait, reader).await.unwrap().unwrap();
    assert_eq!(read, big.len() + 3 + "\"after\"\n".len());
    assert_eq!(outbox.backlog(), 0);
}
