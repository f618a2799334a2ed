//! What `complete(arg = fn)` generates code against (through `__private`): the definition,
//! the call of the fn with its two forms of return value (now, later). Not a public API.

use std::future::Future;

use super::{Candidates, Completion};

/// One `complete(argument = fn)` of a resource or prompt. Not a public API.
#[doc(hidden)]
pub struct CompleteDef {
    /// The variable or argument it completes (checked by the macro).
    pub argument: &'static str,
    pub complete: for<'a> fn(&'a str, &'a Completion) -> Candidates<'a>,
}

/// The candidates of the `complete(arg = fn)` among `declared` that completes `argument`, or
/// `None` when none does.
pub(crate) fn declared<'a>(
    declared: &'static [CompleteDef],
    argument: &str,
    value: &'a str,
    completion: &'a Completion,
) -> Option<Candidates<'a>> {
    declared
        .iter()
        .find(|c| c.argument == argument)
        .map(|c| (c.complete)(value, completion))
}

/// A completion fn: `fn(value: &str, completion: &Completion) -> ...`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument: a completion fn takes `(value: &str, completion: &toolsmith::complete::Completion)`",
    label = "not `fn(&str, &Completion) -> Vec<String>`",
    note = "write `fn name(value: &str, completion: &toolsmith::complete::Completion) -> Vec<String>` (or an `async fn`)"
)]
pub trait CompletionFn<'a> {
    type Out;
    fn call(self, value: &'a str, completion: &'a Completion) -> Self::Out;
}

impl<'a, F, R> CompletionFn<'a> for F
where
    F: FnOnce(&'a str, &'a Completion) -> R,
{
    type Out = R;
    fn call(self, value: &'a str, completion: &'a Completion) -> R {
        self(value, completion)
    }
}

/// Calls a completion fn (`#[resource]`- and `#[prompt]`-generated code).
#[doc(hidden)]
pub fn complete_call<'a, F: CompletionFn<'a>>(
    func: F,
    value: &'a str,
    completion: &'a Completion,
) -> F::Out {
    func.call(value, completion)
}

/// A completion fn's return value, for the autoref below: a list of candidates now
/// (`Vec<String>`, `Vec<&str>`, any iterator of strings), or a future of one (an
/// `async fn`). The value sits in a cell, so that a method on a reference can take it.
#[doc(hidden)]
pub struct Completed<T>(std::cell::Cell<Option<T>>);

/// Wraps a completion fn's return value.
#[doc(hidden)]
pub fn completed<T>(value: T) -> Completed<T> {
    Completed(std::cell::Cell::new(Some(value)))
}

/// The sync form: candidates now.
#[doc(hidden)]
pub trait CompleteNow<'a> {
    fn candidates(self) -> Candidates<'a>;
}

/// The async form: candidates later.
#[doc(hidden)]
pub trait CompleteLater<'a> {
    fn candidates(self) -> Candidates<'a>;
}

impl<'a, I> CompleteNow<'a> for &&Completed<I>
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn candidates(self) -> Candidates<'a> {
        let values = self
            .0
            .take()
            .into_iter()
            .flatten()
            .map(Into::into)
            .collect();
        Box::pin(std::future::ready(values))
    }
}

impl<'a, F> CompleteLater<'a> for &Completed<F>
where
    F: Future + Send + 'a,
    F::Output: IntoIterator,
    <F::Output as IntoIterator>::Item: Into<String>,
{
    fn candidates(self) -> Candidates<'a> {
        let future = self.0.take();
        Box::pin(async move {
            match future {
                Some(future) => future.await.into_iter().map(Into::into).collect(),
                None => Vec::new(),
            }
        })
    }
}
