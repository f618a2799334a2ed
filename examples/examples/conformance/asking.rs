//! The tools that ask the client during the call: `tools-call-elicitation`,
//! `elicitation-sep1034-defaults`, `elicitation-sep1330-enums` and `tools-call-sampling`
//! (served with `--sessions`: the questions go out on the call's event stream).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith::rmcp::model::ElicitationSchema;
use toolsmith::{ToolError, context::Elicit, context::Elicitation, context::Sample, tool};

/// What the user is asked for in `test_elicitation`.
#[derive(Deserialize, Serialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

fn said<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accept(content) => format!(
            "action=accept, content={}",
            serde_json::to_string(content).unwrap_or_default()
        ),
        Elicitation::Decline => "action=decline".to_owned(),
        Elicitation::Cancel => "action=cancel".to_owned(),
    }
}

fn failed(err: toolsmith::context::AskError) -> ToolError {
    ToolError::new(err.to_string())
}

/// Asks the user for a name and an e-mail address, and says what they answered.
///
/// # Arguments
/// * `message` - The question to ask.
#[tool(read_only, closed_world)]
async fn test_elicitation(message: String, elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit.ask::<UserInfo>(message).await.map_err(failed)?;
    Ok(format!("User response: {}", said(&answer)))
}

fn john_doe() -> String {
    "John Doe".into()
}
fn thirty() -> i64 {
    30
}
fn ninety_five_and_a_half() -> f64 {
    95.5
}
fn yes() -> bool {
    true
}

/// A status, one of three plain values.
#[derive(Deserialize, Serialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[derive(Deserialize, Serialize, JsonSchema)]
struct Defaults {
    /// Your name.
    #[serde(default = "john_doe")]
    name: String,
    /// Your age.
    #[serde(default = "thirty")]
    age: i64,
    /// Your score.
    #[serde(default = "ninety_five_and_a_half")]
    score: f64,
    /// Your status.
    #[serde(default)]
    status: Status,
    /// Whether you are verified.
    #[serde(default = "yes")]
    verified: bool,
}

/// Asks for a form whose fields all have defaults (SEP-1034).
#[tool(read_only, closed_world)]
async fn test_elicitation_sep1034_defaults(elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit
        .ask::<Defaults>("Please review and update the form fields with defaults")
        .await
        .map_err(failed)?;
    Ok(format!("Elicitation completed: {}", said(&answer)))
}

/// The five enum shapes of SEP-1330, as rmcp's form schema: titled options and the legacy
/// `enumNames` are shapes a Rust enum does not say, so this form is written out.
fn enum_form() -> Result<ElicitationSchema, ToolError> {
    let titled = |prefix: &str, what: &str| -> Vec<Value> {
        ["First", "Second", "Third"]
            .iter()
            .enumerate()
            .map(|(i, n)| serde_json::json!({"const": format!("{prefix}{}", i + 1), "title": format!("{n} {what}")}))
            .collect()
    };
    let form = serde_json::json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled("value", "Option")},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled("value", "Choice")}},
        },
    });
    serde_json::from_value(form).map_err(|err| ToolError::new(err.to_string()))
}

/// Asks for a form with every enum shape of SEP-1330.
#[tool(read_only, closed_world)]
async fn test_elicitation_sep1330_enums(elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit
        .ask_form("Please select options from the enum fields", enum_form()?)
        .await
        .map_err(failed)?;
    Ok(format!("Elicitation completed: {}", said(&answer)))
}

/// Asks the client's model to answer a prompt.
///
/// # Arguments
/// * `prompt` - What to ask the model.
#[tool(read_only, closed_world)]
async fn test_sampling(prompt: String, sample: Sample) -> Result<String, ToolError> {
    let reply = sample.text(prompt, 100).await.map_err(failed)?;
    Ok(format!("LLM response: {reply}"))
}
