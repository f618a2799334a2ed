//! A question's id names the replica that asked it. Each replica's rmcp numbers the requests
//! it sends a session's client (elicitation, sampling, roots) from 0, so two replicas asking
//! in one session at once would both ask `0`, and an answer could be taken by the call that
//! did not ask it. With replicas sharing sessions, the event streams of a session's answers
//! carry each question under an id that starts with the asking replica's tag
//! (`"3f2a9c01b7de:0"`), and an answer is restored to rmcp's own id only on that replica.
//! Each event's own id is tagged too (`id: 3f2a9c01b7de:0/1`), so that a client resuming a
//! stream on another replica is told it cannot be resumed there (`replicas.rs`).

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::header;
use axum::response::Response;
use serde_json::Value;

/// How long a tag is: 12 hex digits of the replica's random id.
const TAG_LEN: usize = 12;

/// The most of an event kept waiting for its end; past it, what came goes on as it is.
const MAX_PENDING: usize = 1 << 20;

/// A replica's tag, from its random id.
pub(super) fn tag_of(replica: &str) -> String {
    replica
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(TAG_LEN)
        .collect()
}

/// Who asked the question an answer's `id` (raw JSON) names.
#[derive(Debug, PartialEq)]
pub(super) enum Asker {
    /// This replica: the id rmcp gave it (raw JSON).
    Here(String),
    /// Another replica.
    Elsewhere,
    /// No replica's tag: an id rmcp gave, where no tag was put.
    Untagged,
}

/// Who asked the question `id` answers, for the replica tagged `tag`.
pub(super) fn asker(id: &Value, tag: &str) -> Asker {
    let Some((asker, own)) = id.as_str().and_then(split_tag) else {
        return Asker::Untagged;
    };
    match asker == tag {
        true => Asker::Here(own.to_owned()),
        false => Asker::Elsewhere,
    }
}

/// Where a stream a client resumes (its `Last-Event-ID`) was served.
#[derive(Debug, PartialEq)]
pub(super) enum Resumed {
    /// Here: the event id rmcp gave.
    Here(String),
    /// By another replica: a call's own stream (`call`), or the session's `GET` stream.
    Elsewhere { call: bool },
    /// No replica's tag.
    Untagged,
}

/// Where the stream whose event `last` a client resumes from was served, for the replica
/// tagged `tag`. rmcp's event ids are `INDEX/STREAM` on a call's stream, `INDEX` on the
/// session's `GET` stream.
pub(super) fn resumed(last: &str, tag: &str) -> Resumed {
    let Some((by, own)) = split_tag(last) else {
        return Resumed::Untagged;
    };
    match by == tag {
        true => Resumed::Here(own.to_owned()),
        false => Resumed::Elsewhere {
            call: of_call(own.as_bytes()),
        },
    }
}

/// Whether event id `last` (rmcp's, tagged or not) is of a call's own stream: rmcp's are
/// `INDEX/STREAM` there, `INDEX` on the session's `GET` stream.
pub(super) fn of_call(last: &[u8]) -> bool {
    last.contains(&b'/')
}

/// The replica's tag an id or event id starts with, and what rmcp gave after it; `None`
/// for one that names no replica.
fn split_tag(text: &str) -> Option<(&str, &str)> {
    let (tag, own) = text.split_once(':')?;
    (tag.len() == TAG_LEN && tag.bytes().all(|b| b.is_ascii_hexdigit())).then_some((tag, own))
}

/// `frame` (an answer) with the id rmcp gave the question (`own`, raw JSON) in place of the
/// tagged one; `None` when it does not read.
pub(super) fn restored(mut frame: Value, own: &str) -> Option<Value> {
    let own: Value = serde_json::from_str(own).ok()?;
    *frame.as_object_mut()?.get_mut("id")? = own;
    Some(frame)
}

/// `response` with every question on its event stream tagged `tag` (any other response
/// as it is).
pub(super) fn tagging(response: Response, tag: &str) -> Response {
    let stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if !stream {
        return response;
    }
    let tag = tag.to_owned();
    response.map(|body| {
        Body::new(Tagging {
            body,
            tag,
            pending: Vec::new(),
            scanned: 0,
        })
    })
}

/// An event stream whose questions are tagged as they pass; an event cut across chunks is
/// kept until its end comes.
struct Tagging {
    body: Body,
    tag: String,
    pending: Vec<u8>,
    /// How much of `pending` was looked through for an event's end already.
    scanned: usize,
}

impl HttpBody for Tagging {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        loop {
            let frame = match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => frame,
                Poll::Ready(None) if !this.pending.is_empty() => {
                    // A last event with no blank line after it: as it came.
                    let rest = std::mem::take(&mut this.pending);
                    return Poll::Ready(Some(Ok(http_body::Frame::data(rest.into()))));
                }
                other => return other,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            this.pending.extend_from_slice(&data);
            let Some(end) = last_event_end(&this.pending, this.scanned) else {
                this.scanned = this.pending.len();
                if this.pending.len() > MAX_PENDING {
                    // No event is that long: pass it on as it came.
                    this.scanned = 0;
                    let pending = std::mem::take(&mut this.pending);
                    return Poll::Ready(Some(Ok(http_body::Frame::data(pending.into()))));
                }
                continue;
            };
            let rest = this.pending.split_off(end);
            let events = std::mem::replace(&mut this.pending, rest);
            this.scanned = 0;
            let tagged = tag_events(&events, &this.tag);
            return Poll::Ready(Some(Ok(http_body::Frame::data(tagged.into()))));
        }
    }

    fn is_end_stream(&self) -> bool {
        self.pending.is_empty() && self.body.is_end_stream()
    }
}

/// Where the last complete event of `bytes` ends (after its blank line: `\n\n`, or
/// `\r\n\r\n`), looking from `from` on (less the three bytes a line end may straddle).
fn last_event_end(bytes: &[u8], from: usize) -> Option<usize> {
    let start = from.saturating_sub(3);
    let tail = &bytes[start..];
    let lf = tail
        .windows(2)
        .rposition(|pair| pair == b"\n\n")
        .map(|at| at + 2);
    let crlf = tail
        .windows(4)
        .rposition(|four| four == b"\r\n\r\n")
        .map(|at| at + 4);
    lf.max(crlf).map(|end| start + end)
}

/// Complete events, each request among them (a question to the client) with its id tagged.
fn tag_events(events: &[u8], tag: &str) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(events) else {
        return events.to_vec();
    };
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if let Some(id) = line.strip_prefix("id:") {
            // The event's own id, which a client resumes the stream from.
            out.push_str("id: ");
            out.push_str(tag);
            out.push(':');
            out.push_str(id.trim());
            out.push('\n');
            continue;
        }
        match line
            .strip_prefix("data:")
            .and_then(|data| tagged(data.trim(), tag))
        {
            Some(data) => {
                out.push_str("data: ");
                out.push_str(&data);
                out.push('\n');
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// The JSON-RPC request `data` with its id tagged; `None` for anything else.
fn tagged(data: &str, tag: &str) -> Option<String> {
    if !data.contains("\"method\"") {
        return None;
    }
    let mut message: Value = serde_json::from_str(data).ok()?;
    let object = message.as_object_mut()?;
    object.get("method")?;
    let id = object.get_mut("id")?;
    *id = Value::String(format!("{tag}:{id}"));
    serde_json::to_string(&message).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_tagged_and_their_answers_restored_on_the_replica_that_asked() {
        let tag = tag_of("3f2a9c01-b7de-4aaa-8bbb-cccccccccccc");
        assert_eq!(tag, "3f2a9c01b7de");
        let events = concat!(
            "id: 0/1\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
        );
        let out = String::from_utf8(tag_events(events.as_bytes(), &tag)).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0], "id: 3f2a9c01b7de:0/1",
            "the event's own id names the replica"
        );
        assert_eq!(
            resumed("3f2a9c01b7de:0/1", &tag),
            Resumed::Here("0/1".into())
        );
        assert_eq!(
            resumed("0123456789ab:0/1", &tag),
            Resumed::Elsewhere { call: true },
            "a call's stream another replica served"
        );
        assert_eq!(
            resumed("0123456789ab:4", &tag),
            Resumed::Elsewhere { call: false }
        );
        assert_eq!(resumed("0/1", &tag), Resumed::Untagged);
        let question: Value = serde_json::from_str(&lines[1]["data: ".len()..]).unwrap();
        assert_eq!(question["id"], "3f2a9c01b7de:0");
        assert_eq!(question["method"], "elicitation/create");
        assert!(
            out.contains("\"method\":\"notifications/progress\""),
            "a notification has no id"
        );
        assert!(
            out.contains("\"id\":7,\"result\""),
            "a response keeps its id"
        );

        let answer = serde_json::json!({"jsonrpc": "2.0", "id": question["id"], "result": {}});
        let Asker::Here(own) = asker(&answer["id"], &tag) else {
            panic!("asked here");
        };
        assert_eq!(restored(answer.clone(), &own).unwrap()["id"], 0);
        assert_eq!(asker(&answer["id"], "000000000000"), Asker::Elsewhere);
        assert_eq!(asker(&Value::from(0), &tag), Asker::Untagged);
        assert_eq!(asker(&Value::from("client:0"), &tag), Asker::Untagged);
    }

    #[test]
    fn an_event_ends_at_a_blank_line_of_either_kind() {
        assert_eq!(last_event_end(b"data: a\n\ndata: b", 0), Some(9));
        assert_eq!(last_event_end(b"data: a\r\n\r\n", 0), Some(11));
        assert_eq!(last_event_end(b"data: a\n", 0), None);
        // Looked through up to 8 already: a blank line straddling it is found.
        assert_eq!(last_event_end(b"data: a\n\n", 8), Some(9));
        let crlf = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\r\n";
        let out = String::from_utf8(tag_events(crlf.as_bytes(), "0123456789ab")).unwrap();
        assert!(out.contains(r#""id":"0123456789ab:1""#), "{out}");
    }

    #[tokio::test]
    async fn an_event_cut_across_chunks_is_tagged_whole() {
        use futures::StreamExt;
        let chunks = [
            "data: {\"jsonrpc\":\"2.0\",\"id\":\"q\",\"meth",
            "od\":\"roots/list\"}\n",
            "\n: keep-alive\n\n",
        ];
        let stream = futures::stream::iter(chunks.map(|c| Ok::<_, std::io::Error>(Bytes::from(c))));
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(stream))
            .unwrap();
        let body = tagging(response, "0123456789ab").into_body();
        let bytes: Vec<u8> = body
            .into_data_stream()
            .map(|chunk| chunk.unwrap().to_vec())
            .concat()
            .await;
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(r#""id":"0123456789ab:\"q\"""#), "{text}");
        assert!(text.ends_with(": keep-alive\n\n"), "{text}");
    }
}
