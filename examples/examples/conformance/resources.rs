//! The resources of the `resources-*` scenarios: a text, a binary (a PNG), a template
//! whose reads echo their id, and a resource to subscribe to (subscribing takes
//! `--sessions`: a stateless server could not tell anyone it changed).

use serde::Serialize;
use toolsmith::{resource, tool::Image};

use crate::media::red_pixel;

/// A static text resource for testing
#[resource(
    uri = "test://static-text",
    name = "static-text",
    title = "Static Text Resource",
    mime_type = "text/plain"
)]
fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A static binary resource (image) for testing
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    title = "Static Binary Resource",
    mime_type = "image/png"
)]
fn static_binary() -> Image {
    Image::png(red_pixel())
}

/// What a read of `test://template/{id}/data` gives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// A resource template with parameter substitution
///
/// # Arguments
/// * `id` - Any id: the contents echo it.
#[resource(
    uri = "test://template/{id}/data",
    name = "template",
    title = "Resource Template",
    mime_type = "application/json"
)]
fn template(id: String) -> TemplateData {
    TemplateData {
        data: format!("Data for ID: {id}"),
        id,
        template_test: true,
    }
}

/// A resource to subscribe to (its contents never change here)
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    title = "Watched Resource",
    mime_type = "text/plain"
)]
fn watched_resource() -> String {
    "Watched resource content".into()
}
