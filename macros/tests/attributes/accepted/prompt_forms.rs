//! Every accepted form of `#[prompt]`: a `String`, a `PromptMessage`, a `Vec<PromptMessage>`,
//! each also inside `Result`, optional arguments, context parameters, `async fn`, and
//! completions by a sync and an async fn.

use toolsmith::{
    State, ToolError, complete::Completion, context::Caller, prompt, prompt::PromptMessage,
    prompt::Role, tool::Image,
};

struct Notes {
    count: usize,
}

/// Summarize the notes, or only the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(title = "Summarize notes", complete(tag = tags))]
fn summarize(notes: State<Notes>, tag: Option<String>) -> String {
    match tag {
        Some(tag) => format!("Summarize my {} notes tagged {tag}.", notes.count),
        None => format!("Summarize my {} notes.", notes.count),
    }
}

/// Review a screenshot with the assistant.
#[prompt(
    name = "review_screenshot",
    icon = "https://example.com/review.png",
    timeout = "2s"
)]
fn review() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user("What is wrong in this screenshot?"),
        PromptMessage::user(Image::png(vec![0x89, b'P', b'N', b'G'])),
        PromptMessage::assistant("Let me look."),
    ]
}

/// Greet the caller.
#[prompt(scopes = ["prompts:greet"])]
async fn greet(caller: Caller) -> PromptMessage {
    PromptMessage::user(format!("Hello, {}.", caller.subject().unwrap_or("you")))
}

/// Explain a topic in a language, or fail with a message shown to the client.
///
/// # Arguments
/// * `language` - The language.
/// * `topic` - What to explain.
#[prompt(complete(language = languages, topic = topics))]
async fn explain(language: String, topic: String) -> Result<Vec<PromptMessage>, ToolError> {
    if topic.is_empty() {
        return Err(ToolError::new("say what to explain"));
    }
    Ok(vec![PromptMessage::user(format!(
        "Explain {topic} in {language}."
    ))])
}

/// Plan the day, or fail with an error that is masked.
///
/// # Arguments
/// * `hours` - How many hours there are.
#[prompt(description = "Plan the day in a few hours.")]
fn plan(hours: u32) -> Result<String, std::io::Error> {
    Ok(format!("Plan my day in {hours} hours."))
}

/// The tags that start with what was typed.
fn tags(value: &str, _completion: &Completion) -> Vec<String> {
    vec![format!("{value}-tag")]
}

/// The languages that start with what was typed.
fn languages(value: &str, _completion: &Completion) -> Vec<String> {
    ["rust", "python"]
        .iter()
        .filter(|l| l.starts_with(value))
        .map(|l| l.to_string())
        .collect()
}

/// The topics for the language already chosen, found asynchronously.
async fn topics(value: &str, completion: &Completion) -> Vec<String> {
    let all: &[&str] = match completion.argument("language") {
        Some("rust") => &["ownership", "traits"],
        _ => &["basics"],
    };
    all.iter()
        .filter(|t| t.starts_with(value))
        .map(|t| t.to_string())
        .collect()
}

#[test]
fn compiles_and_works() {
    let registry = toolsmith::Registry::global();
    let names: Vec<&str> = registry.prompts().iter().map(|p| p.name()).collect();
    assert_eq!(
        names,
        ["explain", "greet", "plan", "review_screenshot", "summarize"]
    );

    let summarize_info = registry.prompt("summarize").unwrap();
    assert_eq!(summarize_info.header().title(), Some("Summarize notes"));
    assert_eq!(
        summarize_info.header().description(),
        "Summarize the notes, or only the notes with a tag."
    );
    assert_eq!(summarize_info.completes().collect::<Vec<_>>(), ["tag"]);
    let schema = summarize_info.arguments_schema();
    assert!(schema["properties"].get("tag").is_some());
    assert!(schema["properties"].get("notes").is_none());

    let explain_info = registry.prompt("explain").unwrap();
    assert_eq!(
        explain_info.completes().collect::<Vec<_>>(),
        ["language", "topic"]
    );
    assert_eq!(
        registry.prompt("greet").unwrap().header().scopes(),
        ["prompts:greet"]
    );
    assert_eq!(
        registry.prompt("plan").unwrap().header().description(),
        "Plan the day in a few hours."
    );

    // Still ordinary functions.
    let notes = State::new(Notes { count: 2 });
    assert_eq!(summarize(notes, None), "Summarize my 2 notes.");
    let messages = review();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2].role(), Role::Assistant);
    assert_eq!(plan(3).unwrap(), "Plan my day in 3 hours.");
    drop(greet(Caller::anonymous()));
    drop(explain("rust".to_owned(), "traits".to_owned()));
    let _ = topics;
}
