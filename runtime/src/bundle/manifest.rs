//! A bundle's `manifest.json` (MCPB manifest 0.3): what it says of the server, and the
//! fields a host asks the user for (`user_config`), each passed to the server as a flag or an
//! environment variable.

use serde_json::{Map, Value, json};

use super::{Bundle, BundleError};
use crate::Setting;

/// The manifest's revision this writes.
pub(super) const MANIFEST_VERSION: &str = "0.3";

/// A field a host asks the user for when the bundle is installed (`user_config`), and how
/// the host passes its value to the server.
///
/// Every field has a value when the server starts (its default when the user gives none),
/// so that the host never passes its placeholder on: an optional setting without a default
/// is passed empty.
///
/// ```
/// use toolsmith::bundle::{ConfigField, FieldKind, Passed};
/// use toolsmith::Setting;
///
/// let flag = ConfigField::flag("read_only", "Read-only", "Offer only read-only tools.", "--read-only");
/// assert_eq!(flag.kind, FieldKind::Boolean);
/// assert_eq!(flag.passed, Passed::Flag("--read-only".into()));
///
/// let token = ConfigField::from_setting(&Setting::new("NOTES_TOKEN", "Token", "The token.").secret());
/// assert_eq!(token.key, "notes_token");
/// assert_eq!(token.passed, Passed::Env("NOTES_TOKEN".into()));
/// assert!(token.sensitive);
/// assert_eq!(token.default, Some("".into()));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ConfigField {
    /// Its key in `user_config` (`${user_config.KEY}`).
    pub key: String,
    /// What a host shows.
    pub title: String,
    /// What it is for.
    pub description: String,
    /// What kind of value.
    pub kind: FieldKind,
    /// Whether the user must give it before the server starts.
    pub required: bool,
    /// A secret: a host keeps it out of sight.
    pub sensitive: bool,
    /// Its value when the user gives none.
    pub default: Option<Value>,
    /// How the host passes it to the server.
    pub passed: Passed,
}

/// What kind of value a [`ConfigField`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldKind {
    /// Text.
    String,
    /// On or off (`true`/`false`).
    Boolean,
}

/// How a host passes a [`ConfigField`]'s value to the server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Passed {
    /// As `FLAG=VALUE` on the command line.
    Flag(String),
    /// In this environment variable.
    Env(String),
}

impl ConfigField {
    /// A switch passed as `FLAG=true` or `FLAG=false`, off unless the user turns it on.
    pub fn flag(key: &str, title: &str, description: &str, flag: &str) -> ConfigField {
        ConfigField {
            key: key.to_owned(),
            title: title.to_owned(),
            description: description.to_owned(),
            kind: FieldKind::Boolean,
            required: false,
            sensitive: false,
            default: Some(Value::Bool(false)),
            passed: Passed::Flag(flag.to_owned()),
        }
    }

    /// Text passed as `FLAG=VALUE`, `default` unless the user gives another.
    pub fn flag_value(
        key: &str,
        title: &str,
        description: &str,
        flag: &str,
        default: &str,
    ) -> ConfigField {
        ConfigField {
            kind: FieldKind::String,
            default: Some(Value::String(default.to_owned())),
            ..ConfigField::flag(key, title, description, flag)
        }
    }

    /// The field of a setting the program reads from its environment, passed in its
    /// variable; its key is the variable in lower case.
    pub fn from_setting(setting: &Setting) -> ConfigField {
        let default = match (setting.default_value(), setting.is_required()) {
            (Some(value), _) => Some(Value::String(value.to_owned())),
            (None, true) => None,
            (None, false) => Some(Value::String(String::new())),
        };
        ConfigField {
            key: setting.variable().to_ascii_lowercase(),
            title: setting.title().to_owned(),
            description: setting.description().to_owned(),
            kind: FieldKind::String,
            required: setting.is_required(),
            sensitive: setting.is_secret(),
            default,
            passed: Passed::Env(setting.variable().to_owned()),
        }
    }

    /// Its entry in `user_config`.
    fn entry(&self) -> Value {
        let kind = match self.kind {
            FieldKind::String => "string",
            FieldKind::Boolean => "boolean",
        };
        let mut entry = json!({
            "type": kind,
            "title": self.title,
            "description": self.description,
            "required": self.required,
        });
        if self.sensitive {
            entry["sensitive"] = Value::Bool(true);
        }
        if let Some(default) = &self.default {
            entry["default"] = default.clone();
        }
        entry
    }

    /// The placeholder a host replaces with its value.
    fn placeholder(&self) -> String {
        format!("${{user_config.{}}}", self.key)
    }
}

/// A prompt as a bundle's manifest lists it: its name, description, arguments, and its text
/// (a template with `${arguments.NAME}` where an argument goes, or what the prompt says of
/// itself when the server makes its messages, [`Bundle::prompts_generated`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments' names.
    pub arguments: Vec<String>,
    /// Its text: a template with `${arguments.NAME}` where an argument goes, or what it says
    /// of itself.
    pub text: String,
}

impl Prompt {
    /// A prompt named `name` whose text is `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Prompt {
        Prompt {
            name: name.into(),
            description: None,
            arguments: Vec::new(),
            text: text.into(),
        }
    }
}

impl Bundle {
    /// The bundle's `manifest.json`, or what it lacks to be valid.
    pub fn manifest(&self) -> Result<Value, BundleError> {
        let missing = |what: &str, how: &str| {
            BundleError::Incomplete(format!("a bundle needs {what}: {how}"))
        };
        if self.description.trim().is_empty() {
            return Err(missing("a description", "give --description TEXT"));
        }
        // Without one, the owner of a GitHub repository.
        let owner = self.github().map(|(owner, _)| owner.to_owned());
        let (author, email) = author(&self.author)
            .or_else(|| owner.map(|owner| (owner, None)))
            .ok_or_else(|| {
                missing(
                    "an author",
                    "give --author NAME, or a GitHub --repository (its owner)",
                )
            })?;
        let entry_point = format!("server/{}", self.binary_name()?);
        let mut args: Vec<Value> = self.args.iter().cloned().map(Value::String).collect();
        let mut env = Map::new();
        let mut user_config = Map::new();
        for field in &self.config {
            match &field.passed {
                Passed::Flag(flag) => {
                    args.push(Value::String(format!("{flag}={}", field.placeholder())))
                }
                Passed::Env(variable) => {
                    env.insert(variable.clone(), Value::String(field.placeholder()));
                }
            }
            user_config.insert(field.key.clone(), field.entry());
        }
        let mut mcp_config = json!({
            "command": format!("${{__dirname}}/{entry_point}"),
            "args": args,
        });
        if !env.is_empty() {
            mcp_config["env"] = Value::Object(env);
        }
        let mut manifest = json!({
            "manifest_version": MANIFEST_VERSION,
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "author": { "name": author },
            "server": {
                "type": "binary",
                "entry_point": entry_point,
                "mcp_config": mcp_config,
            },
            "tools": self.tools.iter().map(|(name, description)| {
                json!({ "name": name, "description": description })
            }).collect::<Vec<_>>(),
            "tools_generated": self.tools_generated,
            "prompts": self.prompts.iter().map(prompt_entry).collect::<Vec<_>>(),
            "prompts_generated": self.prompts_generated,
            "compatibility": { "platforms": [platform()] },
        });
        if let Some(email) = email {
            manifest["author"]["email"] = Value::String(email);
        }
        if let Some(name) = &self.display_name {
            manifest["display_name"] = Value::String(name.clone());
        }
        if let Some(url) = &self.repository {
            manifest["repository"] = json!({ "type": "git", "url": url });
        }
        if let Some(url) = &self.homepage {
            manifest["homepage"] = Value::String(url.clone());
        }
        if let Some(license) = &self.license {
            manifest["license"] = Value::String(license.clone());
        }
        if !user_config.is_empty() {
            manifest["user_config"] = Value::Object(user_config);
        }
        Ok(manifest)
    }

    /// The binary's file name, as the bundle keeps it under `server/`.
    pub(super) fn binary_name(&self) -> Result<String, BundleError> {
        self.binary
            .file_name()
            .and_then(|name| name.to_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                BundleError::Incomplete(format!(
                    "a bundle needs a server binary with a file name in UTF-8, not {}",
                    self.binary.display()
                ))
            })
    }
}

fn prompt_entry(prompt: &Prompt) -> Value {
    let mut entry = json!({
        "name": prompt.name,
        "arguments": prompt.arguments,
        "text": prompt.text,
    });
    if let Some(description) = &prompt.description {
        entry["description"] = Value::String(description.clone());
    }
    entry
}

/// The first of Cargo's `authors` (joined by `:`): its name, and its email when it has one
/// (`Name <email>`). `None` when there is no name.
fn author(authors: &str) -> Option<(String, Option<String>)> {
    let first = authors.split(':').next()?.trim();
    let (name, email) = match first.split_once('<') {
        Some((name, rest)) => (name.trim(), rest.strip_suffix('>').map(str::trim)),
        None => (first, None),
    };
    let email = email.filter(|email| email.contains('@')).map(str::to_owned);
    (!name.is_empty()).then(|| (name.to_owned(), email))
}

/// The platform the binary runs on, as a manifest names it.
pub(super) fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        _ => "linux",
    }
}

#[cfg(test)]
mod tests {
    use super::author;
    use crate::Setting;
    use crate::bundle::{Bundle, BundleError, ConfigField, Prompt};

    fn bundle() -> Bundle {
        let mut bundle = Bundle::new("/opt/notes/bin/notes", "notes", "0.3.1");
        bundle.description = "Notes.".into();
        bundle.author = "Ada <ada@example.com>:Charles".into();
        bundle
    }

    #[test]
    fn an_author_is_the_first_of_cargos_list() {
        assert_eq!(
            author("Ada Lovelace <ada@example.com>:Charles"),
            Some(("Ada Lovelace".into(), Some("ada@example.com".into())))
        );
        assert_eq!(author("Ada"), Some(("Ada".into(), None)));
        assert_eq!(author("Ada <not an email>"), Some(("Ada".into(), None)));
        assert_eq!(author(""), None);
        assert_eq!(author(" <ada@example.com>"), None);
    }

    #[test]
    fn settings_go_in_their_variables_and_flags_after_the_arguments() {
        let mut bundle = bundle();
        bundle.args = vec!["serve".into()];
        bundle.config = vec![
            ConfigField::flag("read_only", "Read-only", "Only read.", "--read-only"),
            ConfigField::flag_value("confirm", "Confirm", "Ask.", "--confirm", "destructive"),
            ConfigField::from_setting(&Setting::new("NOTES_DIR", "Dir", "Where.").required()),
        ];
        bundle.prompts = vec![Prompt::new("summarize", "Summarize ${arguments.topic}.")];
        let manifest = bundle.manifest().unwrap();
        let config = &manifest["server"]["mcp_config"];
        assert_eq!(config["command"], "${__dirname}/server/notes");
        assert_eq!(
            config["args"],
            serde_json::json!([
                "serve",
                "--read-only=${user_config.read_only}",
                "--confirm=${user_config.confirm}"
            ])
        );
        assert_eq!(config["env"]["NOTES_DIR"], "${user_config.notes_dir}");
        let fields = &manifest["user_config"];
        assert_eq!(fields["confirm"]["default"], "destructive");
        assert_eq!(fields["notes_dir"]["required"], true);
        assert!(fields["notes_dir"].get("default").is_none());
        assert_eq!(
            manifest["prompts"][0]["text"],
            "Summarize ${arguments.topic}."
        );
        assert_eq!(manifest["author"]["name"], "Ada");
        assert_eq!(manifest["server"]["entry_point"], "server/notes");
    }

    #[test]
    fn a_manifest_without_a_description_or_an_author_says_how_to_give_it() {
        let mut bundle = bundle();
        bundle.description = " ".into();
        let BundleError::Incomplete(err) = bundle.manifest().unwrap_err() else {
            panic!("not incomplete");
        };
        assert!(err.contains("--description"), "{err}");
        let mut bundle = self::bundle();
        bundle.author = String::new();
        let err = bundle.manifest().unwrap_err().to_string();
        assert!(err.contains("--author NAME"), "{err}");
        bundle.repository = Some("https://github.com/ada/notes".into());
        assert_eq!(bundle.manifest().unwrap()["author"]["name"], "ada");
    }
}
