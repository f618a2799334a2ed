//! The optional result cache of an upstream's read-only idempotent tools: an answer kept for
//! a while, per caller, tool and arguments, so that the same question asked again by the same
//! caller is answered without reaching the upstream. Off unless configured.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use serde_json::Value;

/// The most answers one upstream's cache keeps: past it, the expired go first, then the
/// oldest.
const MAX_ENTRIES: usize = 1024;

/// Who asked, which tool (its name at the upstream), with which arguments (canonical JSON).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    caller: String,
    tool: String,
    arguments: String,
}

impl Key {
    pub(crate) fn new(caller: &str, tool: &str, arguments: &serde_json::Map<String, Value>) -> Key {
        let mut canonical = String::new();
        write_canonical(&mut canonical, &Value::Object(arguments.clone()));
        Key {
            caller: caller.to_owned(),
            tool: tool.to_owned(),
            arguments: canonical,
        }
    }
}

/// `value` as JSON with every object's keys in order: the same arguments in another order
/// are the same question.
fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(out, &map[key]);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// One upstream's cached answers.
pub(crate) struct Cache {
    ttl: Duration,
    /// Each answer, when it was kept, and in which order (the oldest goes first).
    entries: Mutex<HashMap<Key, (Instant, u64, CallToolResult)>>,
    kept: AtomicU64,
}

impl Cache {
    pub(crate) fn new(ttl: Duration) -> Cache {
        Cache {
            ttl,
            entries: Mutex::new(HashMap::new()),
            kept: AtomicU64::new(0),
        }
    }

    /// The answer kept for `key`, if it is younger than the time to live.
    pub(crate) fn get(&self, key: &Key) -> Option<CallToolResult> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(key) {
            Some((at, _, result)) if at.elapsed() < self.ttl => Some(result.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` (a success: an error is never kept) for `key`.
    pub(crate) fn put(&self, key: Key, result: &CallToolResult) {
        if result.is_error == Some(true) {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
            entries.retain(|_, (at, _, _)| at.elapsed() < self.ttl);
            if entries.len() >= MAX_ENTRIES
                && let Some(oldest) = entries.iter().min_by_key(|(_, (_, order, _))| *order)
            {
                let oldest = oldest.0.clone();
                entries.remove(&oldest);
            }
        }
        let order = self.kept.fetch_add(1, Ordering::Relaxed);
        entries.insert(key, (Instant::now(), order, result.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;
    use serde_json::json;

    fn args(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn one_question_is_one_key_whatever_the_order_of_its_arguments() {
        let a = Key::new(
            "alice",
            "get",
            &args(json!({"id": 1, "opts": {"x": 1, "y": [2, {"b": 1, "a": 2}]}})),
        );
        let b = Key::new(
            "alice",
            "get",
            &args(json!({"opts": {"y": [2, {"a": 2, "b": 1}], "x": 1}, "id": 1})),
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            Key::new(
                "bob",
                "get",
                &args(json!({"id": 1, "opts": {"x": 1, "y": [2, {"b": 1, "a": 2}]}}))
            )
        );
        assert_ne!(a, Key::new("alice", "get", &args(json!({"id": 2}))));
    }

    #[test]
    fn an_answer_is_kept_per_caller_until_it_expires_and_an_error_never() {
        let cache = Cache::new(Duration::from_millis(50));
        let key = |caller: &str| Key::new(caller, "get", &args(json!({"id": 1})));
        let answer = CallToolResult::success(vec![ContentBlock::text("one")]);
        cache.put(key("alice"), &answer);
        assert_eq!(cache.get(&key("alice")), Some(answer.clone()));
        assert_eq!(
            cache.get(&key("bob")),
            None,
            "another caller's answer is not theirs"
        );
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(cache.get(&key("alice")), None, "expired");
        cache.put(
            key("alice"),
            &CallToolResult::error(vec![ContentBlock::text("no")]),
        );
        assert_eq!(cache.get(&key("alice")), None, "an error is not kept");
    }

    #[test]
    fn a_full_cache_makes_room_by_dropping_the_oldest() {
        let cache = Cache::new(Duration::from_secs(60));
        let answer = CallToolResult::success(vec![ContentBlock::text("x")]);
        for id in 0..=MAX_ENTRIES {
            cache.put(Key::new("a", "get", &args(json!({"id": id}))), &answer);
        }
        let entries = cache.entries.lock().unwrap();
        assert_eq!(entries.len(), MAX_ENTRIES);
        assert!(!entries.contains_key(&Key::new("a", "get", &args(json!({"id": 0})))));
    }
}
