//! The arguments of a tool that is not a `#[tool]` (a [`Tool`](crate::Tool) made by hand, a
//! gateway's upstream tool), checked against its input schema: what the pipeline does before
//! anything else runs for a call (a `#[tool]`'s typed decoding checks its own: `args.rs`).
//!
//! The schema is compiled once, when the tool is added to a registry (tools whose schemas are
//! equal in content share one compiled check): one that does not compile (not a JSON Schema,
//! a `$ref` to another document: none is ever fetched) is refused there. `format` is an annotation, as JSON Schema 2020-12 has it, and as a `#[tool]`'s
//! decoding treats it: not checked. A number with no fractional part (`1.0`) is an integer.
//!
//! Every problem is named at once, in `args.rs`'s words: `missing required argument `x`
//! (expected an integer)`, `unknown argument `y` (this tool takes `x`)`, `argument `x` is
//! invalid (expected an integer): got "abc"`. A nested one names its argument by its path
//! (`filter.limit`, `items[2]`). What a message quotes is capped as `args.rs` caps it, and at
//! most [`LISTED`] problems are named (the rest counted).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, Weak};

use foldhash::fast::FixedState;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::tool::args::{QUOTED, clip, takes, unknown};
use crate::tool::same::{self, same_object};
use crate::tool::schema::{ANYTHING, JsonObject, expected, expected_of, with_article};

/// How many problems one error names; the rest are counted.
const LISTED: usize = 10;

/// A tool's input schema, and the same compiled: shared by every tool whose schema is equal
/// in content (see [`compiled`]).
pub(crate) struct InputCheck {
    schema: Arc<JsonObject>,
    validator: Validator,
}

/// The checks compiled so far, by their schema's content hash: a tool whose schema equals one
/// a live tool has shares its check (and its schema) rather than compiling it again (a
/// compiled schema costs some 20 µs and 5 KB). Entries of checks no tool holds any more are
/// dropped as their hash comes again, and all at once every [`SWEEP`] compilations.
static COMPILED: Mutex<Compiled> = Mutex::new(Compiled {
    by_hash: None,
    compiled: 0,
});

/// How many compilations pass between two sweeps of [`COMPILED`].
const SWEEP: usize = 1024;

struct Compiled {
    by_hash: Option<HashMap<u64, Vec<Weak<InputCheck>>, FixedState>>,
    compiled: usize,
}

/// The check of `schema` (the input schema of tool `name`): one a live tool already has for a
/// schema equal in content, or `schema` compiled; why it cannot be compiled otherwise.
pub(crate) fn compiled(name: &str, schema: JsonObject) -> Result<Arc<InputCheck>, String> {
    let hash = same::hash(&schema);
    let found = |compiled: &Compiled| {
        let same = compiled.by_hash.as_ref()?.get(&hash)?;
        same.iter()
            .filter_map(Weak::upgrade)
            .find(|check| same_object(&check.schema, &schema))
    };
    if let Some(check) = found(&lock()) {
        return Ok(check);
    }
    // Compiled without the lock held: moved in and out of a `Value`, not copied.
    let schema = Value::Object(schema);
    let validator = compile(name, &schema)?;
    let Value::Object(schema) = schema else {
        unreachable!("an object stays an object")
    };
    let check = Arc::new(InputCheck {
        schema: Arc::new(schema),
        validator,
    });
    let mut compiled = lock();
    compiled.compiled += 1;
    let sweep = compiled.compiled.is_multiple_of(SWEEP);
    let by_hash = compiled.by_hash.get_or_insert_with(HashMap::default);
    if sweep {
        by_hash.retain(|_, same| {
            same.retain(|weak| weak.strong_count() > 0);
            !same.is_empty()
        });
    }
    let same = by_hash.entry(hash).or_default();
    same.retain(|weak| weak.strong_count() > 0);
    same.push(Arc::downgrade(&check));
    Ok(check)
}

/// [`COMPILED`], whatever a thread that panicked holding it left (entries only ever go).
fn lock() -> std::sync::MutexGuard<'static, Compiled> {
    COMPILED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `schema` compiled: offline (a `$ref` to another document is an error), formats not
/// checked.
fn compile(name: &str, schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .offline()
        .should_validate_formats(false)
        .build(schema)
        .map_err(|err| {
            let mut why = format!(
                "the input schema of tool '{name}' is not a JSON Schema its arguments can be checked against: {}",
                clip(&err.to_string())
            );
            // Where in the schema, when the schema itself was found wrong.
            let at = err.instance_path().as_str();
            if !at.is_empty() {
                let _ = write!(why, " (at `{}`)", clip(at));
            }
            why
        })
}

impl InputCheck {
    /// The input schema checked against.
    pub(crate) fn schema(&self) -> &Arc<JsonObject> {
        &self.schema
    }

    /// `Ok` when `arguments` (none: `{}`) match the schema; otherwise every problem, as one
    /// message. The arguments are given back as they came.
    pub(crate) fn check(&self, arguments: &mut Option<JsonObject>) -> Result<(), String> {
        let given = arguments.take();
        let absent = given.is_none();
        // Moved in and out of a `Value`: nothing is copied.
        let value = Value::Object(given.unwrap_or_default());
        let verdict = match self.validator.is_valid(&value) {
            true => Ok(()),
            false => Err(problems(
                &self.schema,
                self.validator.iter_errors(&value),
                &value,
            )),
        };
        if let Value::Object(map) = value
            && !absent
        {
            *arguments = Some(map);
        }
        verdict
    }
}

/// Every problem `errors` found in `arguments`, as one message.
fn problems<'a>(
    schema: &JsonObject,
    errors: impl Iterator<Item = ValidationError<'a>>,
    arguments: &Value,
) -> String {
    let mut problems: Vec<String> = Vec::new();
    let mut unknown_names: Vec<String> = Vec::new();
    let mut more = 0;
    for error in errors {
        if let Some(names) = unexpected(&error)
            && error.instance_path().is_empty()
        {
            unknown_names.extend(names.iter().cloned());
            continue;
        }
        if problems.len() == LISTED {
            more += 1;
            continue;
        }
        problems.push(describe(schema, &error, arguments));
    }
    if !unknown_names.is_empty() {
        // `additionalProperties` and `unevaluatedProperties` may both name one.
        unknown_names.sort_unstable();
        unknown_names.dedup();
        let takes = takes("this tool", properties(schema.get("properties")));
        let names = unknown_names.iter().map(String::as_str);
        problems.push(unknown(names, unknown_names.len(), "", &takes));
    }
    if more > 0 {
        problems.push(format!("and {more} more problems"));
    }
    problems.join("; ")
}

/// The names of the properties an error found unexpected (`additionalProperties: false`,
/// `unevaluatedProperties: false`).
fn unexpected<'e>(error: &'e ValidationError<'_>) -> Option<&'e [String]> {
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => Some(unexpected),
        _ => None,
    }
}

/// The names of `properties` (a schema's `properties`), in order.
fn properties(properties: Option<&Value>) -> impl Iterator<Item = &str> {
    properties
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
}

/// One problem, in `args.rs`'s words.
fn describe(schema: &JsonObject, error: &ValidationError<'_>, arguments: &Value) -> String {
    let name = path_name(error.instance_path(), arguments);
    // The subschema whose keyword failed, when the error's location leads to it.
    let keyword = error.schema_path().as_str();
    let at = keyword
        .rfind('/')
        .and_then(|end| subschema(schema, &keyword[..end]));
    let defs = schema.get("$defs").unwrap_or(&Value::Null);
    let kind = error.kind();
    if let ValidationErrorKind::Required { property } = kind {
        let property = property.as_str().unwrap_or_default();
        let expected = at
            .and_then(|at| at.get("properties")?.get(property))
            .map_or_else(|| ANYTHING.to_owned(), |p| expected(p, defs, 0));
        let full = match name.is_empty() {
            true => clip(property).into_owned(),
            false => clip(&format!("{name}.{}", clip(property))).into_owned(),
        };
        return format!("missing required argument `{full}` (expected {expected})");
    }
    if let Some(names) = unexpected(error) {
        let who = format!("`{name}`");
        let takes = takes(&who, properties(at.and_then(|at| at.get("properties"))));
        let names = names.iter().map(String::as_str);
        let count = names.len();
        return unknown(names, count, &format!("{name}."), &takes);
    }
    let detail = detail(kind, error);
    if name.is_empty() {
        return format!("the arguments are invalid: {detail}");
    }
    let expected = match kind {
        ValidationErrorKind::Type { kind } => types(kind),
        _ => at.map_or_else(|| ANYTHING.to_owned(), |at| expected_of(at, defs, 0)),
    };
    format!(
        "argument `{name}` is invalid (expected {}): {detail}",
        clip(&expected)
    )
}

/// What was wrong with the value, without repeating what was expected.
fn detail(kind: &ValidationErrorKind, error: &ValidationError<'_>) -> String {
    let value = quote(error.instance());
    match kind {
        ValidationErrorKind::Type { .. }
        | ValidationErrorKind::Enum { .. }
        | ValidationErrorKind::Constant { .. }
        | ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::FalseSchema => format!("got {value}"),
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("{value} matches more than one of the schemas it may match")
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("{value} is greater than the maximum of {limit}")
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("{value} is less than the minimum of {limit}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("{value} is not less than {limit}")
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("{value} is not greater than {limit}")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("{value} is not a multiple of {multiple_of}")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("{value} is longer than {limit} characters")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("{value} is shorter than {limit} characters")
        }
        ValidationErrorKind::MaxItems { limit } => format!("it has more than {limit} items"),
        ValidationErrorKind::MinItems { limit } => format!("it has fewer than {limit} items"),
        ValidationErrorKind::UniqueItems => "its items are not unique".to_owned(),
        ValidationErrorKind::Pattern { pattern } => {
            format!("{value} does not match the pattern `{}`", clip(pattern))
        }
        // The validator's own words (its message may quote the value: it is cut).
        _ => clip(&error.to_string()).into_owned(),
    }
}

/// The types a `type` keyword allows, as `expected` says them.
fn types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(ty) => with_article(&ty.to_string()),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|ty| with_article(&ty.to_string()))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

/// The subschema of `schema` at `pointer` (a JSON pointer, empty for `schema` itself), when
/// it is an object.
fn subschema<'s>(schema: &'s JsonObject, pointer: &str) -> Option<&'s JsonObject> {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.is_empty().then_some(schema);
    };
    let (first, rest) = rest.split_once('/').unwrap_or((rest, ""));
    let value = schema.get(&*first.replace("~1", "/").replace("~0", "~"))?;
    match rest.is_empty() {
        true => value.as_object(),
        false => value.pointer(&format!("/{rest}"))?.as_object(),
    }
}

/// The argument at `path` in `arguments`, named as a model reads it: `filter.limit`,
/// `items[2]` (empty: the arguments themselves). Cut as `args.rs` cuts a name.
fn path_name(path: &Location, arguments: &Value) -> String {
    let mut name = String::new();
    let mut at = Some(arguments);
    for segment in path.segments() {
        // An index is one only into an array: a property may be named `0`.
        let key = match segment {
            LocationSegment::Index(index) if matches!(at, Some(Value::Array(_))) => {
                let _ = write!(name, "[{index}]");
                at = at.and_then(|value| value.get(index));
                continue;
            }
            LocationSegment::Index(index) => index.to_string().into(),
            LocationSegment::Property(property) => property,
        };
        if !name.is_empty() {
            name.push('.');
        }
        name.push_str(&key);
        at = at.and_then(|value| value.get(&*key));
        if name.len() > 4 * QUOTED {
            break;
        }
    }
    clip(&name).into_owned()
}

/// `value` as JSON, cut after [`QUOTED`] characters (only so much of it is written).
fn quote(value: &Value) -> String {
    /// Takes bytes up to its cap, then refuses more.
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            // Enough bytes for one character past the cap, whatever their width.
            let room = 4 * (QUOTED + 1) - self.0.len();
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let taken = bytes.len().min(room);
            self.0.extend_from_slice(&bytes[..taken]);
            Ok(taken)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut capped = Capped(Vec::new());
    // Cut short once it is full: what was written is what is quoted.
    let _ = serde_json::to_writer(&mut capped, value);
    clip(&String::from_utf8_lossy(&capped.0)).into_owned()
}

#[cfg(test)]
mod tests;
