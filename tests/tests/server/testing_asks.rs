//! The test client plays the user and the model for tools that ask: `on_confirm`,
//! `on_elicit` (typed forms, and URL mode) and `on_sample`, each seeing what was asked; by
//! default it declines.

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); every revision served has it.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolsmith::testing::{Answer, Client};
use toolsmith::{
    ToolError, context::Elicit, context::Elicitation, context::Sample, error::ErrorKind,
    server::Confirm, tool,
};

#[derive(Deserialize, JsonSchema)]
struct Seats {
    /// How many seats.
    count: u32,
}

/// Book seats, asking how many.
#[tool(closed_world, destructive = false, idempotent)]
async fn book(elicit: Elicit) -> Result<String, ToolError> {
    match elicit.ask::<Seats>("How many seats?").await {
        Ok(Elicitation::Accept(seats)) => Ok(format!("booked {}", seats.count)),
        Ok(Elicitation::Decline) => Ok("not booked".into()),
        Ok(Elicitation::Cancel) => Ok("cancelled".into()),
        Err(err) => Err(ToolError::new(err.to_string())),
    }
}

/// Send the user to a sign-in page.
#[tool(read_only, closed_world)]
async fn sign_in(elicit: Elicit) -> Result<String, ToolError> {
    match elicit
        .ask_url("Sign in to continue", "https://login.example/x")
        .await
    {
        Ok(Elicitation::Accept(())) => Ok("went".into()),
        Ok(_) => Ok("stayed".into()),
        Err(err) => Err(ToolError::new(err.to_string())),
    }
}

/// Ask the model for a haiku.
#[tool(read_only, closed_world)]
async fn haiku(sample: Sample) -> Result<String, ToolError> {
    sample
        .text("A haiku about Rust", 40)
        .await
        .map_err(|err| ToolError::new(err.to_string()))
}

/// Wipe the disk (destructive, declares no `confirm`).
#[tool(destructive, closed_world, title = "Wipe")]
fn wipe(disk: String) -> String {
    format!("wiped {disk}")
}

#[tokio::test]
async fn on_elicit_fills_a_typed_form_and_sees_it() {
    let client = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap();
    let declined = client.call("book", json!({})).await.unwrap();
    assert_eq!(declined.text(), "not booked", "the default user declines");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let forms = seen.clone();
    let client = client.on_elicit(move |form| {
        forms.lock().unwrap().push(form.clone());
        Elicitation::Accept(json!({"count": 3}))
    });
    assert_eq!(
        client.call("book", json!({})).await.unwrap().text(),
        "booked 3"
    );
    let forms = seen.lock().unwrap();
    assert_eq!(forms[0].message, "How many seats?");
    assert_eq!(forms[0].schema["properties"]["count"]["type"], "integer");
    assert_eq!(forms[0].schema["required"], json!(["count"]));
}

#[tokio::test]
async fn a_url_elicitation_needs_a_client_that_declared_url_mode() {
    // The test client declares elicitation without naming a mode: forms only.
    let client = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap();
    let err = client.call("sign_in", json!({})).await.unwrap_err();
    assert!(err.message().contains("`elicitation.url`"), "{err}");
}

#[tokio::test]
async fn on_sample_plays_the_model() {
    let client = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap();
    let err = client.call("haiku", json!({})).await.unwrap_err();
    assert!(matches!(
        err,
        toolsmith::testing::CallError::Tool {
            kind: ErrorKind::Tool,
            ..
        }
    ));
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let seen = prompts.clone();
    let client = client.on_sample(move |request| {
        let text = serde_json::to_value(&request.messages).unwrap()[0]["content"]["text"].clone();
        seen.lock().unwrap().push(text);
        "rust never sleeps".into()
    });
    assert_eq!(
        client.call("haiku", json!({})).await.unwrap().text(),
        "rust never sleeps"
    );
    assert_eq!(*prompts.lock().unwrap(), [json!("A haiku about Rust")]);
}

#[tokio::test]
async fn the_confirm_policy_asks_with_the_default_question() {
    let server = toolsmith_tests::server_of(module_path!()).confirm(Confirm::Destructive);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(server)
        .await
        .unwrap()
        .on_confirm(move |question| {
            seen.lock().unwrap().push(question.message.clone());
            Answer::Cancel
        });
    let err = client
        .call("wipe", json!({"disk": "sda"}))
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        toolsmith::testing::CallError::Tool {
            kind: ErrorKind::Refused,
            ..
        }
    ));
    assert!(err.message().contains("cancelled"), "{err}");
    assert_eq!(
        *asked.lock().unwrap(),
        ["Allow \"Wipe\" (wipe) to run with disk = sda?"]
    );
    // A tool's own form is not a confirmation: `book` goes to on_elicit (here, the default).
    assert_eq!(
        client.call("book", json!({})).await.unwrap().text(),
        "not booked"
    );
}

#[tokio::test]
async fn a_state_ttl_of_zero_stops_the_server() {
    let server = toolsmith_tests::server_of(module_path!()).state_ttl(std::time::Duration::ZERO);
    // No client: without the check, the server would start and end cleanly at once.
    let (client, server_end) = tokio::io::duplex(1024);
    drop(client);
    let (read, write) = tokio::io::split(server_end);
    let Err(err) = server.serve_io(read, write).await else {
        panic!("a zero TTL would refuse every confirmation");
    };
    assert!(
        matches!(
            err,
            toolsmith::Error::Config {
                setting: "state TTL",
                ..
            }
        ),
        "{err}"
    );
}
