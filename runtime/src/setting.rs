//! A setting the program reads from its environment ([`Setting`]), declared with
//! [`Server::setting`](crate::Server::setting): `--help` lists it, and `bundle` turns it into
//! a field of the bundle's configuration (`user_config`) that the host passes to the server
//! in that variable, and into an environment variable of the registry's `server.json`.

/// A setting the program reads from an environment variable, for `--help` and for `bundle`.
///
/// An optional setting the user leaves empty reaches the server as an empty variable
/// (a bundle's host passes every field it shows), so read an empty value as unset.
///
/// ```
/// use toolsmith::Setting;
///
/// let token = Setting::new("NOTES_TOKEN", "API token", "The token the notes service accepts.")
///     .required()
///     .secret();
/// assert_eq!(token.variable(), "NOTES_TOKEN");
/// assert!(token.is_required() && token.is_secret());
/// assert_eq!(token.default_value(), None);
///
/// let dir = Setting::new("NOTES_DIR", "Notes folder", "Where the notes are kept.")
///     .default("~/notes");
/// assert_eq!(dir.default_value(), Some("~/notes"));
/// assert!(!dir.is_required());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    variable: String,
    title: String,
    description: String,
    required: bool,
    secret: bool,
    default: Option<String>,
}

impl Setting {
    /// The setting the program reads from `variable`, shown to the user as `title`, explained
    /// by `description`. Optional, not secret, with no default until said otherwise.
    pub fn new(
        variable: impl Into<String>,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> Setting {
        Setting {
            variable: variable.into(),
            title: title.into(),
            description: description.into(),
            required: false,
            secret: false,
            default: None,
        }
    }

    /// The server cannot start without it: a host asks for it before it starts the server.
    pub fn required(mut self) -> Setting {
        self.required = true;
        self
    }

    /// A secret (a token, a password): a host keeps it out of sight and in its secret store.
    pub fn secret(mut self) -> Setting {
        self.secret = true;
        self
    }

    /// Its value when the user gives none.
    pub fn default(mut self, value: impl Into<String>) -> Setting {
        self.default = Some(value.into());
        self
    }

    /// The environment variable the program reads.
    pub fn variable(&self) -> &str {
        &self.variable
    }

    /// Its title, as a host shows it.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// What it is for.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether the server needs it ([`Setting::required`]).
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// Whether it is a secret ([`Setting::secret`]).
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// Its value when the user gives none ([`Setting::default`]).
    pub fn default_value(&self) -> Option<&str> {
        self.default.as_deref()
    }

    /// Its line in `--help`: the variable, then what it is for and how it is given.
    pub(crate) fn help_line(&self) -> String {
        let mut line = format!("  {}  {}", self.variable, self.description);
        match (&self.default, self.required) {
            (Some(default), _) => line.push_str(&format!(" [default: {default}]")),
            (None, true) => line.push_str(" [required]"),
            (None, false) => {}
        }
        line
    }
}

/// The help section of `settings` (empty when none is declared).
pub(crate) fn help(settings: &[Setting]) -> Option<String> {
    if settings.is_empty() {
        return None;
    }
    let mut text = String::from("Environment (the program's own settings):");
    for setting in settings {
        text.push('\n');
        text.push_str(&setting.help_line());
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::{Setting, help};

    #[test]
    fn the_help_lists_each_variable_with_its_default_or_need() {
        let settings = [
            Setting::new("A_TOKEN", "Token", "The token.").required(),
            Setting::new("A_DIR", "Folder", "The folder.").default("/tmp"),
            Setting::new("A_MODE", "Mode", "The mode."),
        ];
        let text = help(&settings).unwrap();
        assert!(text.contains("  A_TOKEN  The token. [required]"), "{text}");
        assert!(
            text.contains("  A_DIR  The folder. [default: /tmp]"),
            "{text}"
        );
        assert!(text.ends_with("  A_MODE  The mode."), "{text}");
        assert_eq!(help(&[]), None);
    }
}
