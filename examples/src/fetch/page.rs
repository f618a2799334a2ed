//! What `import_url` makes of a document: a title and a text.

/// A title and a text: an HTML page's `<title>` and its text without tags; a text file's
/// first line and the whole; else the URL.
pub(super) fn title_and_text(body: &str, url: &str) -> (String, String) {
    let lower = body.to_ascii_lowercase();
    let is_html = lower.contains("<html") || lower.contains("<title");
    if is_html {
        let title = lower
            .find("<title")
            .and_then(|at| Some(at + lower[at..].find('>')? + 1))
            .and_then(|start| Some((start, start + lower[start..].find("</title")?)))
            .map(|(start, end)| body[start..end].trim().to_owned())
            .filter(|t| !t.is_empty());
        let text = strip_tags(body);
        return (title.unwrap_or_else(|| url.to_string()), text);
    }
    let title = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map_or_else(|| url.to_string(), |l| l.chars().take(120).collect());
    (title, body.trim().to_owned())
}

/// The text of an HTML page: tags, scripts and styles removed, whitespace collapsed. One
/// pass over the page (lowercased once: the same byte offsets, ASCII only changes).
fn strip_tags(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut text = String::with_capacity(html.len() / 2);
    let mut at = 0;
    while let Some(open) = lower[at..].find('<').map(|i| at + i) {
        text.push_str(&html[at..open]);
        text.push(' ');
        let tag = &lower[open + 1..];
        let end = match ["script", "style"]
            .iter()
            .find(|name| tag.starts_with(**name))
        {
            Some(name) => {
                let close = format!("</{name}>");
                tag.find(&close).map(|e| e + close.len())
            }
            None => tag.find('>').map(|e| e + 1),
        };
        match end {
            Some(end) => at = open + 1 + end,
            None => at = html.len(),
        }
    }
    text.push_str(&html[at..]);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::title_and_text;

    #[test]
    fn titles_come_from_the_page_or_the_first_line() {
        let url = "http://example.com/a";
        let page = "<html><head><title> Hello </title><style>p{}</style></head><body><p>Some <b>text</b></p><script>x()</script></body></html>";
        assert_eq!(
            title_and_text(page, url),
            ("Hello".to_owned(), "Hello Some text".to_owned())
        );
        // A large page with many tags is one pass, not one per tag.
        let many = format!("<html>{}</html>", "<p>x</p>".repeat(100_000));
        assert_eq!(title_and_text(&many, url).1.len(), 2 * 100_000 - 1);
        let file = "\n  First line\nsecond";
        assert_eq!(title_and_text(file, url).0, "First line");
    }
}
