//! Text made safe for the HTML of the pages the server renders (the approvals page, the
//! sign-in's consent page).

/// `text` for HTML: in an element's text or a quoted attribute.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
