//! Type checks for `#[tool]`-generated code. Each parameter and return type is checked once,
//! at its own token, with a message that says what to derive (a parameter's are
//! [`JsonParam`](crate::tool::probe::JsonParam)'s); everything else the expansion
//! does with the type goes through [`Typed`], whose fallback methods keep a failed check
//! from cascading into more errors.

use std::any::TypeId;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::CallContext;
use crate::tool::args::Arguments;
use crate::tool::content::IntoContent;
use crate::tool::output::{self, Outcome};
use crate::tool::param::ParamKind;
use crate::tool::schema::{self, OutputSchema};

/// A type a tool can take as a parameter: it decodes from JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`",
    label = "this parameter type cannot be decoded from JSON",
    note = "derive it: `#[derive(serde::Deserialize, schemars::JsonSchema)]`, or take an owned type that has it"
)]
pub trait ParamDeserialize {}
impl<T: DeserializeOwned> ParamDeserialize for T {}

/// A type a tool can take as a parameter: it has a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`",
    label = "this parameter type has no JSON Schema for the tool's input schema",
    note = "derive it: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait ParamSchema {}
impl<T: JsonSchema> ParamSchema for T {}

/// A type a tool can return as structured content: it encodes to JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: it does not implement `serde::Serialize`",
    label = "this return type cannot be encoded as JSON",
    note = "derive it: `#[derive(serde::Serialize, schemars::JsonSchema)]`, or return `String` for plain text"
)]
pub trait OutputSerialize {}
impl<T: Serialize> OutputSerialize for T {}

/// A type a tool can return as structured content: it has a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: it does not implement `schemars::JsonSchema`",
    label = "this return type has no JSON Schema for the tool's output schema",
    note = "derive it: `#[derive(serde::Serialize, schemars::JsonSchema)]`, or return `String` for plain text"
)]
pub trait OutputSchemaType {}
impl<T: JsonSchema> OutputSchemaType for T {}

/// A type a tool can return as its `Err`: it shows as text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it does not implement `std::fmt::Display`",
    label = "this error type cannot be shown as text",
    note = "implement `Display` for it, or return `toolsmith::ToolError` to show its message to the client"
)]
pub trait ErrorDisplay {}
impl<E: Display + 'static> ErrorDisplay for E {}

/// A `Result` a tool can return: its error type shows as text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's return type: its error type must implement `std::fmt::Display`",
    label = "the error type of this `Result` does not implement `Display`",
    note = "implement `Display` for the error, or return `toolsmith::ToolError` to show its message to the client"
)]
pub trait ToolResult {}
impl<T, E: Display + 'static> ToolResult for Result<T, E> {}

/// A structured return type's check for encoding.
pub const fn assert_serialize<T: OutputSerialize>() {}
/// A structured return type's check for its schema.
pub const fn assert_output_schema<T: OutputSchemaType>() {}
/// An error type's check, when the `Result` names it.
pub const fn assert_error<E: ErrorDisplay>() {}
/// The check of a `Result` alias's error type (`io::Result<T>`).
pub const fn assert_result<R: ToolResult>() {}

/// A type the expansion works with. Its inherent methods apply when the type passes its
/// check; otherwise the [`Fallback`] methods are picked, which do nothing (the program does not
/// compile anyway, and the check has already said why, once).
pub struct Typed<T>(PhantomData<T>);

impl<T> Typed<T> {
    pub const NEW: Self = Typed(PhantomData);

    /// As a parameter ([`Probe`](crate::tool::probe::Probe) picked it): an argument.
    pub fn kind(self) -> ParamKind {
        ParamKind::Argument
    }
}

impl<T: DeserializeOwned + JsonSchema> Typed<T> {
    pub fn take(self, args: &mut Arguments<'_>, _: &CallContext, index: usize) -> Option<T> {
        args.take(index)
    }
    pub fn param_schema(self, generator: &mut SchemaGenerator) -> Schema {
        schema::param::<T>(generator)
    }
}

impl<T: DeserializeOwned + JsonSchema + 'static> Typed<T> {
    /// The parameter's type, so that tools with the same parameters share one schema
    /// (`None`, no sharing, for a type that is not `'static`).
    pub fn param_type(self) -> Option<TypeId> {
        Some(TypeId::of::<T>())
    }
}

impl<T: Serialize + JsonSchema> Typed<T> {
    pub fn output_schema(self) -> OutputSchema {
        schema::output::<T>()
    }
    pub fn json(self, value: T) -> Outcome {
        output::json(value)
    }
    pub fn linked(self, value: crate::tool::Linked<T>) -> Outcome {
        let (value, blocks) = value.into_parts();
        match output::json(value) {
            Outcome::Ok(output::Output::Json(json)) => {
                Outcome::Ok(output::Output::Linked(json, blocks))
            }
            other => other,
        }
    }
}

impl<T: Serialize> Typed<T> {
    /// A resource's JSON value (no schema is needed: a resource has none).
    pub fn serialized(self, value: T) -> Outcome {
        output::json(value)
    }
}

impl<T: IntoContent> Typed<T> {
    pub fn content(self, value: T) -> Outcome {
        value.into_outcome()
    }
}

impl<T, E: Display + 'static> Typed<Result<T, E>> {
    pub fn result(self, value: Result<T, E>, ok: fn(T) -> Outcome) -> Outcome {
        output::result(value, ok)
    }
}

/// The methods picked when a type fails its check.
pub trait Fallback<T>: Sized {
    fn take(self, _: &mut Arguments<'_>, _: &CallContext, _: usize) -> Option<T> {
        None
    }
    fn param_schema(self, _: &mut SchemaGenerator) -> Schema {
        Schema::default()
    }
    fn param_type(self) -> Option<TypeId> {
        None
    }
    fn output_schema(self) -> OutputSchema {
        schema::output::<()>()
    }
    fn json(self, _: T) -> Outcome {
        Outcome::Failed(String::new())
    }
    fn content(self, _: T) -> Outcome {
        Outcome::Failed(String::new())
    }
    fn linked(self, _: crate::tool::Linked<T>) -> Outcome {
        Outcome::Failed(String::new())
    }
    fn serialized(self, _: T) -> Outcome {
        Outcome::Failed(String::new())
    }
    fn result<O>(self, _: T, _: fn(O) -> Outcome) -> Outcome {
        Outcome::Failed(String::new())
    }
}
impl<T> Fallback<T> for Typed<T> {}
