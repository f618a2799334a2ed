//! Reading the id of a request line too long to buffer: only its first bytes are kept, and
//! the id is read from them so that the error response can name the request.

use std::fmt;

use rmcp::model::RequestId;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};

/// The top-level `"id"` of a (possibly truncated) JSON object, read without buffering more.
pub(crate) fn top_level_id(prefix: &[u8]) -> Option<RequestId> {
    /// The id, and whether the object went on after it.
    struct FindId<'a>(&'a mut Option<(RequestId, bool)>);

    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON-RPC object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "id" {
                    let id = map.next_value::<RequestId>()?;
                    let more = map.next_key::<IgnoredAny>().is_ok();
                    *self.0 = Some((id, more));
                    return Err(de::Error::custom("stop: the id is read"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_slice(prefix);
    let _ = de::Deserializer::deserialize_map(&mut deserializer, FindId(&mut found));
    let (id, more) = found?;
    // A number at the very end of the prefix may be cut short (`12` of `123`).
    let cut_short = match &id {
        RequestId::Number(n) => !more && prefix.ends_with(n.to_string().as_bytes()),
        RequestId::String(_) => false,
    };
    (!cut_short).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_from_truncated_prefixes() {
        let num = |n| Some(RequestId::Number(n));
        assert_eq!(
            top_level_id(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"#),
            num(7)
        );
        assert_eq!(
            top_level_id(br#"{"id":"abc","params":"#),
            Some(RequestId::String("abc".into()))
        );
        assert_eq!(
            top_level_id(br#"{"method":"x","params":{"id":3,"big":"aaaa"#),
            None
        );
        assert_eq!(
            top_level_id(br#"{"method":"x","params":{"id":3},"id":9,"#),
            num(9)
        );
        assert_eq!(top_level_id(b"not json at all"), None);
        assert_eq!(
            top_level_id(br#"{"id":12"#),
            None,
            "a number cut short is not an id"
        );
    }
}
