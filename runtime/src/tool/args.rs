//! Decoding a `tools/call` request's arguments into a tool's typed parameters.
//!
//! Every problem is collected, so that one error result names every missing, unknown and
//! wrong-typed argument at once (SEP-1303: the model reads it and corrects its call).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tool::def::ParamDef;

/// The arguments of one call, consumed parameter by parameter by the code `#[tool]`
/// generates.
#[doc(hidden)]
pub struct Arguments<'a> {
    map: Map<String, Value>,
    params: &'static [ParamDef],
    expected: &'a [String],
    problems: Vec<String>,
}

impl<'a> Arguments<'a> {
    pub(crate) fn new(
        map: Option<Map<String, Value>>,
        params: &'static [ParamDef],
        expected: &'a [String],
    ) -> Self {
        Arguments {
            map: map.unwrap_or_default(),
            params,
            expected,
            problems: Vec::new(),
        }
    }

    /// Takes parameter `index` out of the arguments as a `T`. `None` means a problem was
    /// recorded; an absent optional parameter decodes from `null`, so `Option<T>` is `None`.
    pub fn take<T: DeserializeOwned>(&mut self, index: usize) -> Option<T> {
        let param = &self.params[index];
        let expected = self.expected.get(index).map_or("a value", String::as_str);
        match self.map.remove(param.name) {
            None if param.required => {
                self.problems.push(format!(
                    "missing required argument `{}` (expected {expected})",
                    param.name
                ));
                None
            }
            None => self.decode(param.name, expected, Value::Null),
            Some(value) => self.decode(param.name, expected, value),
        }
    }

    fn decode<T: DeserializeOwned>(
        &mut self,
        name: &str,
        expected: &str,
        value: Value,
    ) -> Option<T> {
        match serde_json::from_value(value) {
            Ok(v) => Some(v),
            Err(err) => {
                self.problems.push(format!(
                    "argument `{name}` is invalid (expected {expected}): {err}"
                ));
                None
            }
        }
    }

    /// Ends decoding: every argument left over is unknown. Returns the collected problems
    /// as one message, or `Ok` when the call is well-formed.
    pub fn finish(mut self) -> Result<(), String> {
        let mut unknown: Vec<&String> = self.map.keys().collect();
        unknown.sort();
        if !unknown.is_empty() {
            let names = self
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect::<Vec<_>>();
            let takes = if names.is_empty() {
                "this tool takes no arguments".to_owned()
            } else {
                format!("this tool takes {}", names.join(", "))
            };
            for name in unknown {
                self.problems
                    .push(format!("unknown argument `{name}` ({takes})"));
            }
        }
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems.join("; "))
        }
    }
}
