//! JSON objects compared and hashed by content, keys in order: how schemas equal in content
//! come to share one copy (`info.rs`'s cache) and one compiled check (`validate.rs`).

use std::hash::{BuildHasher, Hash, Hasher};

use serde_json::Value;

use crate::tool::schema::JsonObject;

/// A structural hash of `object` (order-sensitive: equal objects whose keys come in another
/// order are just not shared), with a fixed seed.
pub(crate) fn hash(object: &JsonObject) -> u64 {
    let mut hasher = foldhash::fast::FixedState::default().build_hasher();
    hash_object(object, &mut hasher);
    hasher.finish()
}

/// Feeds `object`, keys and values in order, to `state`.
fn hash_object(object: &JsonObject, state: &mut impl Hasher) {
    state.write_usize(object.len());
    for (key, value) in object {
        key.hash(state);
        hash_value(value, state);
    }
}

/// Equal with the keys in the same order (what sharing needs, and no hashing).
pub(crate) fn same_object(a: &JsonObject, b: &JsonObject) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => same_object(a, b),
        (a, b) => a == b,
    }
}

fn hash_value(value: &Value, state: &mut impl Hasher) {
    match value {
        Value::Null => state.write_u8(0),
        Value::Bool(b) => b.hash(state),
        Value::Number(n) => n.hash(state),
        Value::String(s) => s.hash(state),
        Value::Array(items) => {
            state.write_usize(items.len());
            items.iter().for_each(|item| hash_value(item, state));
        }
        Value::Object(object) => hash_object(object, state),
    }
}
