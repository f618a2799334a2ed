//! The notes server's limits on tags: a note carries at most 20, and a chart draws at most
//! 21 bars however many tags the notes carry, so that its cost does not grow with them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use toolsmith::testing::Client;
use toolsmith_examples::chart;
use toolsmith_examples::notes::{MAX_BARS, MAX_TAGS};
use toolsmith_examples::store::{Note, Notes};

async fn client() -> Client {
    Client::connect(toolsmith::Server::new().state(Notes::seeded()))
        .await
        .expect("the notes server starts")
}

/// The width and height of a PNG.
fn size(png: &[u8]) -> (u32, u32) {
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[tokio::test]
async fn a_note_with_too_many_or_too_long_tags_is_refused() {
    let client = client().await;
    let tags: Vec<String> = (0..20_000).map(|i| format!("t{i}")).collect();
    let err = client
        .call(
            "create_note",
            json!({"title": "t", "body": "b", "tags": tags}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "A note carries at most 20 tags; this one has 20000."
    );
    let long = json!({"title": "t", "body": "b", "tags": ["ok", "x".repeat(65)]});
    let err = client.call("create_note", long).await.unwrap_err();
    assert_eq!(
        err.message(),
        "A tag is at most 64 characters long; tag 2 is longer."
    );
    let tags: Vec<String> = (0..MAX_TAGS).map(|i| format!("t{i}")).collect();
    let note: Note = client
        .call(
            "create_note",
            json!({"title": "t", "body": "b", "tags": tags}),
        )
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(
        (note.id, note.tags.len()),
        (4, 20),
        "nothing was created before"
    );
}

#[tokio::test]
async fn a_chart_draws_the_top_tags_and_one_bar_for_the_others() {
    let client = client().await;
    // 50 notes with 20 tags each: `common` on every note, `often` on ten.
    for n in 0..50 {
        let mut tags: Vec<String> = (0..18).map(|i| format!("n{n:02}t{i:02}")).collect();
        tags.push("common".into());
        tags.push(if n < 10 {
            "often".into()
        } else {
            format!("seldom{n}")
        });
        let args = json!({"title": "t", "body": "b", "tags": tags});
        client.call("create_note", args).await.unwrap();
    }
    let chart = client.call("tag_chart", json!({})).await.unwrap();
    let legend = chart.text();
    let lines: Vec<&str> = legend.lines().collect();
    assert_eq!(lines.len(), MAX_BARS + 1, "{legend}");
    assert!(lines.contains(&"common: 50"), "{legend}");
    assert!(lines.contains(&"often: 10"), "{legend}");
    // 945 tags: `common`, `often`, and 18 of those on one note each (`home`, then `n00t00`
    // to `n00t16`) get a bar; the other 925 are on the other two seeded notes and all 50.
    assert_eq!(&lines[..3], ["common: 50", "home: 1", "n00t00: 1"]);
    assert_eq!(lines[MAX_BARS], "others (925 tags): 52");
    let image = chart.content()[1].as_image().expect("an image");
    let png = STANDARD.decode(&image.data).expect("base64");
    assert_eq!(size(&png), (chart::width(MAX_BARS + 1), chart::HEIGHT));
}
