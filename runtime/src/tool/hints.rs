//! The MCP annotation hints of a tool, always complete.

use std::fmt;

/// The four behaviour hints of a tool, as the client receives them in `annotations`.
///
/// `#[tool]` always fills all four, following the MCP specification's cautious defaults:
/// a tool is assumed destructive, not idempotent and open-world unless it says otherwise,
/// and `read_only` implies not destructive and idempotent.
///
/// ```
/// use toolsmith::Hints;
///
/// let search = Hints::READ_ONLY.closed_world();
/// assert!(search.read_only && search.idempotent && !search.destructive && !search.open_world);
/// assert_eq!(search.to_string(), "read-only, idempotent, closed-world");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hints {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only: bool,
    /// `destructiveHint`: the tool may delete or overwrite (meaningful when not read-only).
    pub destructive: bool,
    /// `idempotentHint`: repeating a call with the same arguments has no further effect.
    pub idempotent: bool,
    /// `openWorldHint`: the tool reaches entities outside a closed domain (the web, ...).
    pub open_world: bool,
}

impl Hints {
    /// The specification's defaults for a tool that states nothing: destructive, not
    /// idempotent, open-world.
    ///
    /// ```
    /// assert!(toolsmith::Hints::DEFAULT.destructive);
    /// ```
    pub const DEFAULT: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };

    /// A read-only tool: not destructive, idempotent, open-world.
    ///
    /// ```
    /// assert!(toolsmith::Hints::READ_ONLY.idempotent);
    /// ```
    pub const READ_ONLY: Hints = Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };

    /// A tool that changes its environment and may delete or overwrite: destructive, not
    /// idempotent, open-world (as [`Hints::DEFAULT`]; say it where it is meant).
    ///
    /// ```
    /// use toolsmith::Hints;
    /// let delete = Hints::DESTRUCTIVE.idempotent().closed_world();
    /// assert_eq!(delete.to_string(), "destructive, idempotent, closed-world");
    /// assert_eq!(Hints::DESTRUCTIVE, Hints::DEFAULT);
    /// ```
    pub const DESTRUCTIVE: Hints = Hints::DEFAULT;

    /// A tool that only adds to its environment (creates, appends): not read-only, not
    /// destructive, not idempotent, open-world.
    ///
    /// ```
    /// use toolsmith::Hints;
    /// let create = Hints::ADDITIVE.closed_world();
    /// assert_eq!(create.to_string(), "additive, closed-world");
    /// assert!(!create.read_only && !create.destructive && !create.idempotent);
    /// ```
    pub const ADDITIVE: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    };

    /// The same hints with `idempotent` true: repeating a call has no further effect.
    ///
    /// ```
    /// let put = toolsmith::Hints::ADDITIVE.idempotent();
    /// assert!(put.idempotent && !put.destructive);
    /// ```
    pub const fn idempotent(self) -> Hints {
        Hints {
            idempotent: true,
            ..self
        }
    }

    /// The same hints with `open_world` false.
    ///
    /// ```
    /// assert!(!toolsmith::Hints::DEFAULT.closed_world().open_world);
    /// ```
    pub const fn closed_world(self) -> Hints {
        Hints {
            open_world: false,
            ..self
        }
    }
}

/// The hints as MCP writes them in a tool's `annotations`, each one optional.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Annotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    open_world_hint: Option<bool>,
}

/// Written as MCP's `annotations` (all four hints), read from it: an unstated hint takes the
/// specification's cautious default as `#[tool]` does (`readOnlyHint: true` implies not
/// destructive and idempotent), other members (`title`) are ignored, and `destructiveHint` is
/// read only when the tool is not read-only (the specification's rule: a list that writes
/// every hint may say `true` for a read-only tool). For tools loaded from JSON.
///
/// ```
/// use toolsmith::Hints;
///
/// let annotations = serde_json::json!({"title": "Search", "readOnlyHint": true, "openWorldHint": false});
/// let hints: Hints = serde_json::from_value(annotations).unwrap();
/// assert_eq!(hints, Hints::READ_ONLY.closed_world());
/// assert_eq!(
///     serde_json::to_value(Hints::ADDITIVE).unwrap(),
///     serde_json::json!({"readOnlyHint": false, "destructiveHint": false,
///                        "idempotentHint": false, "openWorldHint": true})
/// );
/// let nothing: Hints = serde_json::from_str("{}").unwrap();
/// assert_eq!(nothing, Hints::DEFAULT);
/// let both = serde_json::json!({"readOnlyHint": true, "destructiveHint": true});
/// assert_eq!(serde_json::from_value::<Hints>(both).unwrap(), Hints::READ_ONLY);
/// assert!(serde_json::from_value::<Hints>(serde_json::json!({"readOnlyHint": "yes"})).is_err());
/// ```
impl serde::Serialize for Hints {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Annotations {
            read_only_hint: Some(self.read_only),
            destructive_hint: Some(self.destructive),
            idempotent_hint: Some(self.idempotent),
            open_world_hint: Some(self.open_world),
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Hints {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Hints, D::Error> {
        let stated = Annotations::deserialize(deserializer)?;
        let read_only = stated.read_only_hint.unwrap_or(false);
        let destructive = !read_only && stated.destructive_hint.unwrap_or(true);
        Ok(Hints {
            read_only,
            destructive,
            idempotent: stated.idempotent_hint.unwrap_or(read_only),
            open_world: stated.open_world_hint.unwrap_or(true),
        })
    }
}

impl fmt::Display for Hints {
    /// A short, human-readable list: `read-only`, or `destructive`/`additive`, then
    /// `idempotent` when it is, then `open-world` or `closed-world`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let effect = if self.read_only {
            "read-only"
        } else if self.destructive {
            "destructive"
        } else {
            "additive"
        };
        f.write_str(effect)?;
        if self.idempotent {
            f.write_str(", idempotent")?;
        }
        f.write_str(if self.open_world {
            ", open-world"
        } else {
            ", closed-world"
        })
    }
}

/// What a tool's name implies about its hints, by the same verb rules as the `#[tool]` name
/// lint (whole tokens: `playlist.delete` is a delete, `playlist_create` is no list).
///
/// ```
/// let inferred = toolsmith::tool::infer_hints("get_note").unwrap();
/// assert_eq!((inferred.verb, inferred.read_only), ("get", true));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InferredHints {
    /// The verb that decided it (`delete`, `get`, ...).
    pub verb: &'static str,
    /// Whether the name reads as read-only.
    pub read_only: bool,
    /// Whether the name reads as destructive.
    pub destructive: bool,
}

impl InferredHints {
    /// Whether declared `hints` contradict the name, as the compile-time lint judges it.
    ///
    /// ```
    /// use toolsmith::{Hints, tool::infer_hints};
    ///
    /// let inferred = infer_hints("delete_note").unwrap();
    /// assert!(inferred.contradicts(Hints::READ_ONLY));
    /// assert!(!inferred.contradicts(Hints::DEFAULT));
    /// ```
    pub fn contradicts(&self, hints: Hints) -> bool {
        toolsmith_infer::mismatch(self.name_for_rules(), hints.read_only, hints.destructive)
            .is_some()
    }

    fn name_for_rules(&self) -> &'static str {
        self.verb
    }
}

/// Infers hints from a tool name, or `None` when the name has no telling verb.
///
/// ```
/// let inferred = toolsmith::tool::infer_hints("information_wipe").unwrap();
/// assert_eq!((inferred.verb, inferred.destructive), ("wipe", true));
/// assert!(toolsmith::tool::infer_hints("search_notes").unwrap().read_only);
/// assert!(toolsmith::tool::infer_hints("playlist_create").is_none());
/// ```
pub fn infer_hints(name: &str) -> Option<InferredHints> {
    Some(match toolsmith_infer::implied(name)? {
        toolsmith_infer::Implied::Destructive(verb) => InferredHints {
            verb,
            read_only: false,
            destructive: true,
        },
        toolsmith_infer::Implied::ReadOnly(verb) => InferredHints {
            verb,
            read_only: true,
            destructive: false,
        },
    })
}
