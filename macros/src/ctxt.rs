//! Collects independent errors so that one compile reports every mistake at once.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// A bag of errors, in the spirit of serde_derive's `Ctxt`.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Records an error at `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error that already carries its span.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// Whether nothing was recorded.
    pub fn is_clean(&self) -> bool {
        self.errors.borrow().is_empty()
    }

    /// All errors as one combined error, if any.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
