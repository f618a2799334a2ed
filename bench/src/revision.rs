//! The protocol revisions the benchmark drives, and what differs between them on the wire:
//! 2025-11-25 opens a session with `initialize`; 2026-07-28 is stateless, every request
//! carrying the client's context in `_meta` (and, over HTTP, `Mcp-Method` / `Mcp-Name`
//! headers), and every result saying `"resultType":"complete"`.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

/// A protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// 2025-11-25: `initialize`, then requests.
    V2025_11_25,
    /// 2026-07-28: stateless, no `initialize`; `_meta` on every request.
    V2026_07_28,
}

/// Both revisions, oldest first (the default of `--revisions`).
pub const ALL: [Revision; 2] = [Revision::V2025_11_25, Revision::V2026_07_28];

/// The `_meta` every 2026-07-28 request carries, as JSON.
pub const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

impl Revision {
    /// Its name, as in `MCP-Protocol-Version`.
    pub fn name(self) -> &'static str {
        match self {
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether it is stateless (no `initialize`; the client context rides on each request).
    pub fn stateless(self) -> bool {
        self == Revision::V2026_07_28
    }

    /// What to put inside a request's `params` object after its own members: nothing, or
    /// `,"_meta":{...}` (so `{"name":"x"` + this + `}`).
    pub fn params_suffix(self) -> &'static str {
        match self {
            Revision::V2025_11_25 => "",
            Revision::V2026_07_28 => concat!(
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
                r#""io.modelcontextprotocol/clientCapabilities":{}}"#
            ),
        }
    }

    /// `params` as this revision sends them (with the `_meta` of 2026-07-28).
    pub fn params(self, mut params: Value) -> Value {
        if self.stateless() {
            params["_meta"] = serde_json::from_str(META_2026).expect("valid JSON");
        }
        params
    }

    /// The HTTP headers of a request of `method` (and tool `name`, for calls), besides the
    /// content negotiation ones.
    pub fn http_headers(self, method: &str, name: Option<&str>) -> Vec<(String, String)> {
        let mut headers = vec![("MCP-Protocol-Version".to_owned(), self.name().to_owned())];
        if self.stateless() {
            headers.push(("Mcp-Method".to_owned(), method.to_owned()));
            if let Some(name) = name {
                headers.push(("Mcp-Name".to_owned(), name.to_owned()));
            }
        }
        headers
    }

    /// Checks a result's `resultType` (given as found, if at all): 2026-07-28 results must
    /// say `complete`, earlier ones have no such member. (Other members a revision adds,
    /// such as the caching hints `ttlMs` and `cacheScope` of a 2026-07-28 list, are
    /// accepted as they come.)
    pub fn check_result_type(self, result_type: Option<&str>) -> Result<(), String> {
        match (self.stateless(), result_type) {
            (true, Some("complete")) | (false, None) => Ok(()),
            (true, other) => Err(format!(
                "a {} result must have \"resultType\":\"complete\", not {other:?}",
                self.name()
            )),
            (false, Some(other)) => Err(format!(
                "a {} result has a resultType ({other:?})",
                self.name()
            )),
        }
    }

    /// [`Self::check_result_type`] of a parsed result.
    pub fn check_result(self, result: &Value) -> Result<(), String> {
        self.check_result_type(result.get("resultType").map(|t| t.as_str().unwrap_or("?")))
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Revision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ALL.into_iter()
            .find(|r| r.name() == s.trim())
            .ok_or_else(|| format!("unknown revision {s:?} (known: 2025-11-25, 2026-07-28)"))
    }
}

impl Serialize for Revision {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for r in ALL {
            assert_eq!(r.name().parse::<Revision>(), Ok(r));
        }
        assert!("2024-11-05".parse::<Revision>().is_err());
    }

    #[test]
    fn the_2026_params_carry_the_client_context() {
        let suffixed: Value = serde_json::from_str(&format!(
            r#"{{"name":"t"{}}}"#,
            Revision::V2026_07_28.params_suffix()
        ))
        .unwrap();
        let built = Revision::V2026_07_28.params(json!({"name": "t"}));
        assert_eq!(suffixed, built);
        assert_eq!(
            built["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            Revision::V2025_11_25.params(json!({"name": "t"})),
            json!({"name": "t"})
        );
        let headers = Revision::V2026_07_28.http_headers("tools/call", Some("tool_7"));
        assert!(headers.contains(&("Mcp-Name".into(), "tool_7".into())));
        assert_eq!(
            Revision::V2025_11_25.http_headers("tools/call", None).len(),
            1
        );
    }

    #[test]
    fn a_result_must_be_of_its_revision() {
        let modern =
            json!({"tools": [], "resultType": "complete", "ttlMs": 1, "cacheScope": "public"});
        let legacy = json!({"tools": []});
        assert!(Revision::V2026_07_28.check_result(&modern).is_ok());
        assert!(Revision::V2026_07_28.check_result(&legacy).is_err());
        assert!(Revision::V2025_11_25.check_result(&legacy).is_ok());
        assert!(Revision::V2025_11_25.check_result(&modern).is_err());
    }
}
