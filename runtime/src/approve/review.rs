//! Changes an operator reviews on the approvals page ([`Reviews`]): what a program holds
//! until someone looks (a gateway's upstream tool that changed since its pinned snapshot),
//! each shown with what changed, and approved or rejected by a named operator.

/// The changes waiting for an operator's review, and what a decision does. The approvals
/// page (`serve --approve page=ADDR`, given them with
/// [`Server::reviews`](crate::Server::reviews)) lists them under "Changes to review", each
/// with Approve and Reject, and the name of who decides.
///
/// ```
/// use std::sync::Mutex;
/// use toolsmith::approve::{Review, Reviews};
///
/// /// One change, approved at most once.
/// struct One(Mutex<bool>);
///
/// impl Reviews for One {
///     fn pending(&self) -> Vec<Review> {
///         match *self.0.lock().unwrap() {
///             true => Vec::new(),
///             false => vec![Review::new("t", "tool t").change("readOnly", "true", "false")],
///         }
///     }
///     fn decide(&self, id: &str, approve: bool, by: &str) -> Result<String, String> {
///         *self.0.lock().unwrap() = true;
///         Ok(format!("{id} {} by {by}", if approve { "approved" } else { "rejected" }))
///     }
/// }
///
/// let one = One(Mutex::new(false));
/// assert_eq!(one.pending()[0].changes[0].after, "false");
/// assert_eq!(one.decide("t", true, "ada").unwrap(), "t approved by ada");
/// assert!(one.pending().is_empty());
/// ```
pub trait Reviews: Send + Sync + 'static {
    /// The changes waiting for a decision.
    fn pending(&self) -> Vec<Review>;

    /// Approves (`approve`) or rejects the change `id`, decided by the operator `by`: what
    /// was done, or why it could not be.
    fn decide(&self, id: &str, approve: bool, by: &str) -> Result<String, String>;
}

/// One change waiting for review: what it is, and each field that changed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Review {
    /// What a decision names it by.
    pub id: String,
    /// What the page shows it as.
    pub title: String,
    /// What changed, field by field.
    pub changes: Vec<Change>,
}

/// A field that changed: its value before, and now.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// Which field.
    pub field: String,
    /// What it was.
    pub before: String,
    /// What it is now.
    pub after: String,
}

impl Review {
    /// The change `id`, shown as `title`, with no field yet.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Review {
        Review {
            id: id.into(),
            title: title.into(),
            changes: Vec::new(),
        }
    }

    /// With `field` changed from `before` to `after`.
    pub fn change(
        mut self,
        field: impl Into<String>,
        before: impl Into<String>,
        after: impl Into<String>,
    ) -> Review {
        self.changes.push(Change {
            field: field.into(),
            before: before.into(),
            after: after.into(),
        });
        self
    }
}
