//! Which of an upstream's tools are served: `include` and `exclude`, globs of the names the
//! upstream lists them by (`search_*`, `delete_note`). A tool is served when it matches an
//! `include` pattern (every tool, without one) and no `exclude` pattern; the others are not
//! listed and cannot be called. A pattern that matches none of the upstream's tools is named
//! in a warning (a typo, or a tool it no longer has).

use std::sync::atomic::{AtomicBool, Ordering};

use glob::Pattern;

use crate::Error;

/// The patterns as given.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chosen {
    pub(crate) include: Vec<String>,
    pub(crate) exclude: Vec<String>,
}

impl Chosen {
    /// The patterns compiled, or the error naming the one that is not a glob.
    pub(crate) fn compile(&self, upstream: &str) -> Result<Choice, Error> {
        let compile = |key: &str, patterns: &[String]| {
            patterns
                .iter()
                .map(|text| {
                    Pattern::new(text)
                        .map(|pattern| (pattern, AtomicBool::new(false)))
                        .map_err(|err| Error::Config {
                            upstream: upstream.to_owned(),
                            why: format!("its `{key}` pattern {text:?} is not a glob ({err})"),
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Choice {
            include: compile("include", &self.include)?,
            exclude: compile("exclude", &self.exclude)?,
        })
    }
}

/// The patterns compiled, each remembering whether it matched a tool.
pub(crate) struct Choice {
    include: Vec<(Pattern, AtomicBool)>,
    exclude: Vec<(Pattern, AtomicBool)>,
}

impl Choice {
    /// Whether the tool the upstream lists as `name` is served.
    pub(crate) fn serves(&self, name: &str) -> bool {
        let matches = |patterns: &[(Pattern, AtomicBool)]| {
            let mut any = false;
            for (pattern, matched) in patterns {
                if pattern.matches(name) {
                    matched.store(true, Ordering::Relaxed);
                    any = true;
                }
            }
            any
        };
        let included = self.include.is_empty() | matches(&self.include);
        let excluded = matches(&self.exclude);
        included && !excluded
    }

    /// Names in a warning each pattern that matched none of the tools asked about.
    pub(crate) fn warn_unmatched(&self, upstream: &str) {
        for (key, patterns) in [("include", &self.include), ("exclude", &self.exclude)] {
            for (pattern, matched) in patterns {
                if !matched.load(Ordering::Relaxed) {
                    tracing::warn!(%upstream, pattern = %pattern.as_str(), "its `{key}` pattern matches none of its tools: check the name (as the upstream lists it, without the prefix)");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn included_unless_excluded_and_every_tool_without_an_include() {
        let choice = |include: &[&str], exclude: &[&str]| {
            let owned = |patterns: &[&str]| patterns.iter().map(|p| p.to_string()).collect();
            let chosen = Chosen {
                include: owned(include),
                exclude: owned(exclude),
            };
            chosen.compile("n").unwrap()
        };
        let all = choice(&[], &[]);
        assert!(all.serves("delete_note") && all.serves("get_note"));
        let some = choice(&["get_*", "search_notes"], &["*_all"]);
        assert!(some.serves("get_note") && some.serves("search_notes"));
        assert!(!some.serves("delete_note"));
        assert!(!some.serves("get_all"), "excluded wins");
        let but = choice(&[], &["delete_*"]);
        assert!(but.serves("get_note") && !but.serves("delete_note"));
    }

    #[test]
    fn a_pattern_that_is_not_a_glob_is_named() {
        let chosen = Chosen {
            exclude: vec!["delete_[*".into()],
            ..Chosen::default()
        };
        let err = chosen.compile("notes").err().unwrap();
        let text = err.to_string();
        assert!(
            text.starts_with("upstream 'notes': its `exclude` pattern \"delete_[*\" is not a glob"),
            "{text}"
        );
    }
}
