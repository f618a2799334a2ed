//! [`About`]: what a tool, a resource or a prompt made at run time says of itself alike (name,
//! title, description, icons, scopes, timeout, origin), the part their descriptions
//! ([`ToolDescription`](crate::tool::ToolDescription),
//! [`ResourceDescription`](crate::resource::ResourceDescription),
//! [`PromptDescription`](crate::prompt::PromptDescription)) share. Once registered, it is their
//! [`Header`](crate::item::Header) (and their timeout).

use std::time::Duration;

/// What a tool, a resource or a prompt made at run time says of itself alike: its name, title,
/// description, icons, the scopes a caller needs, how long a call may run, where it comes
/// from. Its fields are public (a wrapper changes one and keeps the others); it is made with
/// [`About::new`] and the `with_` methods, so that fields may be added.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::item::About;
///
/// let about = About::new("word_count", "Count the words of a text.")
///     .with_title("Word count")
///     .with_timeout(Duration::from_secs(5));
/// assert_eq!(about.name, "word_count");
/// assert_eq!(about.title.as_deref(), Some("Word count"));
/// assert!(about.icons.is_empty() && about.scopes.is_empty());
/// // By default it comes from where `new` was called.
/// assert!(about.origin.starts_with(file!()));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct About {
    /// What a client calls, reads or gets it by. A tool's: 1 to 128 characters of `A-Z a-z
    /// 0-9 _ - .`; a resource's or a prompt's: not empty, no control character (checked when
    /// it is added).
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the model reads about it (of a tool: to decide whether to call it).
    pub description: String,
    /// Icons: `https:` or `data:` URIs (others are left out when it is added).
    pub icons: Vec<String>,
    /// The OAuth scopes a caller needs, all of them; empty: the scope its kind implies (a
    /// tool's hints', the read scope for a resource or a prompt). Each distinct list is kept
    /// for the life of the process: give scopes of your configuration, never ones read from
    /// a request or another server.
    pub scopes: Vec<String>,
    /// How long a call (a read, a get) may run; `None`: no limit.
    pub timeout: Option<Duration>,
    /// Where it comes from, for messages (the error refusing two tools with one name names
    /// both). By default, the `file:line` where [`About::new`] (or a description's `new`) was
    /// called.
    pub origin: String,
}

impl About {
    /// `name` and `description`; no title, icons or scopes, no timeout; its origin the
    /// `file:line` of this call.
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "The notes of the day.");
    /// assert_eq!((about.name.as_str(), about.description.as_str()), ("notes", "The notes of the day."));
    /// assert_eq!(about.origin, format!("{}:{}", file!(), line!() - 2));
    /// ```
    #[track_caller]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> About {
        let called = std::panic::Location::caller();
        About {
            name: name.into(),
            title: None,
            description: description.into(),
            icons: Vec::new(),
            scopes: Vec::new(),
            timeout: None,
            origin: format!("{}:{}", called.file(), called.line()),
        }
    }

    /// With this human-readable title.
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "").with_title("Notes");
    /// assert_eq!(about.title.as_deref(), Some("Notes"));
    /// ```
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> About {
        self.title = Some(title.into());
        self
    }

    /// With this description.
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "").with_description("Today's notes.");
    /// assert_eq!(about.description, "Today's notes.");
    /// ```
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> About {
        self.description = description.into();
        self
    }

    /// With these icons (`https:` or `data:` URIs).
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "").with_icons(["https://example.com/n.png"]);
    /// assert_eq!(about.icons, ["https://example.com/n.png"]);
    /// ```
    #[must_use]
    pub fn with_icons<I: IntoIterator<Item = S>, S: Into<String>>(mut self, icons: I) -> About {
        self.icons = icons.into_iter().map(Into::into).collect();
        self
    }

    /// With these OAuth scopes, all needed by a caller.
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "").with_scopes(["notes:read"]);
    /// assert_eq!(about.scopes, ["notes:read"]);
    /// ```
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> About {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With this limit on how long a call may run.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let about = toolsmith::item::About::new("notes", "").with_timeout(Duration::from_secs(3));
    /// assert_eq!(about.timeout, Some(Duration::from_secs(3)));
    /// ```
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> About {
        self.timeout = Some(timeout);
        self
    }

    /// Saying it comes from `origin`, for messages.
    ///
    /// ```
    /// let about = toolsmith::item::About::new("notes", "").with_origin("plugin 'notes'");
    /// assert_eq!(about.origin, "plugin 'notes'");
    /// ```
    #[must_use]
    pub fn with_origin(mut self, origin: impl Into<String>) -> About {
        self.origin = origin.into();
        self
    }
}

/// The `with_...` methods of a description that embeds an [`About`] (`about`), for what every
/// item says of itself, written once: `$ty` the description, `$setup` and `$make` the doc
/// examples' set-up and a description made, `$needs` what its scopes are all needed for,
/// `$run` what its timeout bounds.
macro_rules! about_builders {
    ($ty:ident, $setup:literal, $make:literal, $needs:literal, $run:literal) => {
        impl $ty {
            /// With this human-readable title.
            ///
            #[doc = concat!("```\n", $setup, "let made = ", $make, ".with_title(\"Title\");\n",
                "assert_eq!(made.about.title.as_deref(), Some(\"Title\"));\n```")]
            #[must_use]
            pub fn with_title(mut self, title: impl Into<String>) -> $ty {
                self.about = self.about.with_title(title);
                self
            }

            /// With this description: what it is for.
            ///
            #[doc = concat!("```\n", $setup, "let made = ", $make, ".with_description(\"For this.\");\n",
                "assert_eq!(made.about.description, \"For this.\");\n```")]
            #[must_use]
            pub fn with_description(mut self, description: impl Into<String>) -> $ty {
                self.about = self.about.with_description(description);
                self
            }

            /// With these icons (`https:` or `data:` URIs).
            ///
            #[doc = concat!("```\n", $setup, "let made = ", $make,
                ".with_icons([\"https://example.com/icon.png\"]);\n",
                "assert_eq!(made.about.icons, [\"https://example.com/icon.png\"]);\n```")]
            #[must_use]
            pub fn with_icons<I: IntoIterator<Item = S>, S: Into<String>>(mut self, icons: I) -> $ty {
                self.about = self.about.with_icons(icons);
                self
            }

            #[doc = concat!("With these OAuth scopes, all needed ", $needs, ".")]
            ///
            #[doc = concat!("```\n", $setup, "let made = ", $make, ".with_scopes([\"notes:read\"]);\n",
                "assert_eq!(made.about.scopes, [\"notes:read\"]);\n```")]
            #[must_use]
            pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> $ty {
                self.about = self.about.with_scopes(scopes);
                self
            }

            #[doc = concat!("With this limit on how long ", $run, " may run.")]
            ///
            #[doc = concat!("```\n", $setup, "use std::time::Duration;\n\nlet made = ", $make,
                ".with_timeout(Duration::from_secs(2));\n",
                "assert_eq!(made.about.timeout, Some(Duration::from_secs(2)));\n```")]
            #[must_use]
            pub fn with_timeout(mut self, timeout: std::time::Duration) -> $ty {
                self.about = self.about.with_timeout(timeout);
                self
            }

            /// Saying it comes from `origin`, for messages.
            ///
            #[doc = concat!("```\n", $setup, "let made = ", $make, ".with_origin(\"plugin 'net'\");\n",
                "assert_eq!(made.about.origin, \"plugin 'net'\");\n```")]
            #[must_use]
            pub fn with_origin(mut self, origin: impl Into<String>) -> $ty {
                self.about = self.about.with_origin(origin);
                self
            }
        }
    };
}

pub(crate) use about_builders;
