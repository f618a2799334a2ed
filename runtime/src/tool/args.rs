//! Decoding a `tools/call` request's arguments into a tool's typed parameters.
//!
//! Every problem is collected, so that one error result names every missing, unknown and
//! wrong-typed argument at once (SEP-1303: the model reads it and corrects its call). A context
//! parameter that cannot be made (a rejection) ends the call with its own message instead.
//!
//! What a message quotes from the request is capped, so that an error is never much larger
//! than a normal one whatever the request: at most [`NAMED`] unknown arguments are named
//! (then "and N more"), and a quoted name or decoder message is cut at [`QUOTED`] characters.

use std::fmt::Display;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tool::output::Outcome;
use crate::tool::param::{Invocation, ParamDef};

/// How many unknown arguments an error names; the rest are counted.
pub(crate) const NAMED: usize = 5;
/// How many of the arguments a tool takes an error names; the rest are counted.
pub(crate) const LISTED: usize = 20;
/// How many characters of a name, or of a decoder's message, an error quotes.
pub(crate) const QUOTED: usize = 100;

/// The arguments of one call, consumed parameter by parameter by the code `#[tool]`
/// generates.
#[doc(hidden)]
pub struct Arguments<'a> {
    map: Map<String, Value>,
    params: &'static [ParamDef],
    expected: &'a [String],
    problems: Vec<String>,
    /// The first context parameter that could not be made, and why.
    rejection: Option<String>,
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
            rejection: None,
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
        // JSON Schema counts `1.0` and `1e3` as integers; serde does not. Kept for a second
        // try, only when the value holds such a number.
        let integral = holds_integral_float(&value).then(|| as_integers(value.clone()));
        match serde_json::from_value(value) {
            Ok(v) => Some(v),
            Err(_) if let Some(Ok(v)) = integral.map(serde_json::from_value) => Some(v),
            Err(err) => {
                // The decoder's message may quote the value: a long one is cut.
                let err = err.to_string();
                let err = clip(&err);
                self.problems.push(format!(
                    "argument `{name}` is invalid (expected {expected}): {err}"
                ));
                None
            }
        }
    }

    /// Records that a context parameter could not be made: the call ends with this message
    /// (the first one) rather than with argument problems: fixing the arguments would not help.
    pub fn reject(&mut self, rejection: impl Display) {
        if self.rejection.is_none() {
            self.rejection = Some(rejection.to_string());
        }
    }

    /// Ends decoding: every argument left over is unknown. Returns the call's answer when it
    /// cannot run: a context rejection's message, or the collected problems as one message;
    /// `Ok` when the call is well-formed.
    pub fn finish(self) -> Result<(), Invocation> {
        if let Some(message) = self.rejection {
            tracing::error!(error = %message, "a context parameter could not be made");
            let outcome = Outcome::ToolError(message);
            return Err(Invocation::Async(Box::pin(std::future::ready(outcome))));
        }
        self.problems().map_err(Invocation::Invalid)
    }

    fn problems(mut self) -> Result<(), String> {
        if !self.map.is_empty() {
            let arguments = self.params.iter().filter(|p| p.is_argument());
            let takes = takes("this tool", arguments.map(|p| p.name));
            let names = self.map.keys().map(String::as_str);
            let unknown = unknown(names, self.map.len(), "", &takes);
            self.problems.push(unknown);
        }
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems.join("; "))
        }
    }
}

/// The problem of `count` unknown arguments, `names` (in any order: the first [`NAMED`] in
/// order are named, each after `prefix`, the rest counted), and what the tool takes.
pub(crate) fn unknown<'a>(
    names: impl Iterator<Item = &'a str>,
    count: usize,
    prefix: &str,
    takes: &str,
) -> String {
    // The first few names in order, without sorting them all.
    let mut named: Vec<&str> = Vec::with_capacity(NAMED + 1);
    for name in names {
        let at = named.partition_point(|n| *n < name);
        if at < NAMED {
            named.insert(at, name);
            named.truncate(NAMED);
        }
    }
    let mut list = named
        .iter()
        .map(|name| {
            // At most one character past the cap is copied, however long the name.
            let full: String = prefix
                .chars()
                .chain(name.chars())
                .take(QUOTED + 1)
                .collect();
            format!("`{}`", clip(&full))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let more = count.saturating_sub(named.len());
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    let noun = if count == 1 { "argument" } else { "arguments" };
    format!("unknown {noun} {list} ({takes})")
}

/// What `who` ("this tool", an argument that is an object) takes, for the message naming
/// unknown arguments: `names`, the first [`LISTED`] of them named, the rest counted.
pub(crate) fn takes<'a>(who: &str, names: impl Iterator<Item = &'a str>) -> String {
    let mut listed = Vec::new();
    let mut count = 0;
    for name in names {
        if count < LISTED {
            listed.push(format!("`{}`", clip(name)));
        }
        count += 1;
    }
    if count == 0 {
        return format!("{who} takes no arguments");
    }
    let mut list = listed.join(", ");
    if count > LISTED {
        list.push_str(&format!(" and {} more", count - LISTED));
    }
    format!("{who} takes {list}")
}

/// `text`, cut after [`QUOTED`] characters (marked with `...`).
pub(crate) fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("{}...", &text[..at]).into(),
        None => text.into(),
    }
}

/// A float with no fractional part that an integer type can hold.
fn integral(number: &serde_json::Number) -> Option<serde_json::Number> {
    let float = number.as_f64().filter(|_| number.is_f64())?;
    if float.fract() != 0.0 {
        return None;
    }
    // The range both checks exactly: from -2^63 up to (not including) 2^64.
    if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        Some((float as i64).into())
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        Some((float as u64).into())
    } else {
        None
    }
}

fn holds_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => integral(n).is_some(),
        Value::Array(items) => items.iter().any(holds_integral_float),
        Value::Object(map) => map.values().any(holds_integral_float),
        _ => false,
    }
}

/// `value` with every integral float written as an integer.
fn as_integers(value: Value) -> Value {
    match value {
        Value::Number(n) => Value::Number(integral(&n).unwrap_or(n)),
        Value::Array(items) => Value::Array(items.into_iter().map(as_integers).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, as_integers(v))).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{Arguments, NAMED, QUOTED, as_integers, holds_integral_float};
    use crate::tool::param::{Invocation, ParamDef, ParamKind};

    static COUNT: [ParamDef; 1] = [ParamDef {
        name: "count",
        description: None,
        required: true,
        schema: |generator| generator.subschema_for::<u32>(),
        type_id: || None,
        kind: || ParamKind::Argument,
    }];

    /// The message of a call of a tool taking `count` with `args`.
    fn problems(args: Map<String, Value>) -> String {
        let expected = ["an integer".to_owned()];
        let mut arguments = Arguments::new(Some(args), &COUNT, &expected);
        let _ = arguments.take::<u32>(0);
        match arguments.finish() {
            Err(Invocation::Invalid(problems)) => problems,
            _ => panic!("the arguments are invalid"),
        }
    }

    #[test]
    fn an_error_names_a_few_unknown_arguments_and_counts_the_rest() {
        let mut args: Map<String, Value> = (0..100_000)
            .map(|i| (format!("key{i:06}"), Value::Null))
            .collect();
        args.insert("count".into(), json!(1));
        let message = problems(args);
        assert_eq!(
            message,
            "unknown arguments `key000000`, `key000001`, `key000002`, `key000003`, \
             `key000004` and 99995 more (this tool takes `count`)"
        );
        let one = problems(Map::from_iter([
            ("count".to_owned(), json!(1)),
            ("limit".to_owned(), json!(2)),
        ]));
        assert_eq!(one, "unknown argument `limit` (this tool takes `count`)");
        assert_eq!(NAMED, 5);
    }

    #[test]
    fn an_error_quotes_a_long_name_or_value_cut() {
        let long = "x".repeat(1 << 20);
        let args = Map::from_iter([("count".to_owned(), json!(long)), (long.clone(), json!(1))]);
        let message = problems(args);
        assert!(message.len() < 4 * QUOTED, "{} bytes", message.len());
        assert!(
            message.starts_with(
                "argument `count` is invalid (expected an integer): invalid type: string \"xxx"
            ),
            "{message}"
        );
        assert!(
            message.contains("xxx...; unknown argument `xxx"),
            "{message}"
        );
        assert!(
            message.ends_with("xxx...` (this tool takes `count`)"),
            "{message}"
        );
    }

    #[test]
    fn integral_floats_are_integers_for_a_second_try() {
        let value = json!({"a": 1.0, "b": [1e3, 2.5, -3.0], "c": "1.0", "d": 7});
        assert!(holds_integral_float(&value));
        assert_eq!(
            as_integers(value),
            json!({"a": 1, "b": [1000, 2.5, -3], "c": "1.0", "d": 7})
        );
        assert!(!holds_integral_float(&json!([2.5, 7, 1e300 * 10.0])));
        let n: u64 = serde_json::from_value(as_integers(json!(1.8446744073709552e19))).unwrap_or(0);
        assert_eq!(n, 0, "2^64 does not fit");
    }
}
