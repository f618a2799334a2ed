//! The prompts of the `prompts-*` scenarios (plain text, arguments, an embedded resource,
//! an image), and the completion of `completion-complete` (`arg1` of
//! `test_prompt_with_arguments`).

use toolsmith::{
    complete::Completion, prompt, prompt::PromptMessage, tool::EmbeddedResource, tool::Image,
};

use crate::media::red_pixel;

/// A simple prompt without arguments
#[prompt(title = "Simple Test Prompt")]
fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with required arguments
///
/// # Arguments
/// * `arg1` - First test argument
/// * `arg2` - Second test argument
#[prompt(title = "Prompt With Arguments", complete(arg1 = arg1_values))]
fn test_prompt_with_arguments(arg1: String, arg2: String) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The values `arg1` suggests: those that start with what was typed.
fn arg1_values(typed: &str, _: &Completion) -> Vec<String> {
    ["testValue1", "testValue2", "other"]
        .into_iter()
        .filter(|value| value.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// A prompt that includes an embedded resource
///
/// # Arguments
/// * `resourceUri` - URI of the resource to embed
#[prompt(title = "Prompt With Embedded Resource")]
#[allow(non_snake_case)]
fn test_prompt_with_embedded_resource(resourceUri: String) -> Vec<PromptMessage> {
    let resource = EmbeddedResource::text(resourceUri, "Embedded resource content for testing.")
        .mime_type("text/plain");
    vec![
        PromptMessage::user(resource),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt that includes image content
#[prompt(title = "Prompt With Image")]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Image::png(red_pixel())),
        PromptMessage::user("Please analyze the image above."),
    ]
}
