//! The configured credentials kept out of what the model reads: an API that quotes the
//! request it got (in an error, or in an echo) would hand them over. Every form a credential
//! is sent in (as it is, URL-encoded in a query, JSON-escaped, base64 in HTTP basic, a basic
//! credential's password alone) is replaced by [`MARK`] in an answer's bytes, before
//! anything of them becomes a result.

use base64::Engine;

/// What stands where a credential was.
pub(crate) const MARK: &str = "[redacted]";

/// A form shorter than this is not looked for: it could not be told from the answer's own
/// words (and is no secret worth the name).
const SHORTEST: usize = 4;

/// The forms of the credentials of one API, the longest first (a form that holds another is
/// replaced whole).
#[derive(Default)]
pub(crate) struct Redactor {
    forms: Vec<Vec<u8>>,
}

impl Redactor {
    /// The forms of each of `credentials` (their values, as configured once expanded).
    pub(crate) fn new<'a>(credentials: impl IntoIterator<Item = &'a str>) -> Redactor {
        let mut forms: Vec<Vec<u8>> = Vec::new();
        for value in credentials {
            let mut values = vec![value];
            // HTTP basic's `user:password`: the password may be quoted alone.
            if let Some((_, password)) = value.split_once(':') {
                values.push(password);
            }
            for value in values {
                let query: String =
                    url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
                let path = query.replace('+', "%20");
                let json = serde_json::to_string(value).unwrap_or_default();
                let json = json.trim_matches('"').to_owned();
                let basic = base64::engine::general_purpose::STANDARD.encode(value);
                forms.extend([value.to_owned(), query, path, json, basic].map(String::into_bytes));
            }
        }
        forms.retain(|form| form.len() >= SHORTEST);
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        Redactor { forms }
    }

    /// `bytes` with every form of a credential replaced by [`MARK`].
    pub(crate) fn bytes(&self, mut bytes: Vec<u8>) -> Vec<u8> {
        for form in &self.forms {
            bytes = replaced(bytes, form);
        }
        bytes
    }

    /// `text` with every form of a credential replaced by [`MARK`].
    pub(crate) fn text(&self, text: &str) -> String {
        // A credential is text: replacing it keeps UTF-8 whole (it starts on a character's
        // first byte wherever it is found).
        String::from_utf8(self.bytes(text.as_bytes().to_vec()))
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
    }
}

/// `bytes` with each occurrence of `form` replaced by [`MARK`].
fn replaced(bytes: Vec<u8>, form: &[u8]) -> Vec<u8> {
    let Some(first) = find(&bytes, form, 0) else {
        return bytes;
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    let mut at = Some(first);
    while let Some(found) = at {
        out.extend_from_slice(&bytes[from..found]);
        out.extend_from_slice(MARK.as_bytes());
        from = found + form.len();
        at = find(&bytes, form, from);
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// Where `form` first occurs in `bytes` at or after `from`.
fn find(bytes: &[u8], form: &[u8], from: usize) -> Option<usize> {
    let (&head, _) = form.split_first()?;
    let mut at = from;
    while at + form.len() <= bytes.len() {
        let next = bytes[at..=bytes.len() - form.len()]
            .iter()
            .position(|&b| b == head)?;
        at += next;
        if bytes[at..at + form.len()] == *form {
            return Some(at);
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_a_credential_is_sent_in_is_replaced() {
        let redactor = Redactor::new(["k3y with/space&", "ann:pa55word", "abc"]);
        let said = "sent k3y with/space& as k3y+with%2Fspace%26 or k3y%20with%2Fspace%26; \
                    Basic YW5uOnBhNTV3b3Jk; password pa55word; abc stays";
        assert_eq!(
            redactor.text(said),
            "sent [redacted] as [redacted] or [redacted]; \
             Basic [redacted]; password [redacted]; abc stays"
        );
        // JSON-escaped, and bytes that are not text around it.
        let quoted = Redactor::new(["se\"cret"]);
        assert_eq!(
            quoted.bytes(b"\xff{\"k\":\"se\\\"cret\"}se\"cret".to_vec()),
            b"\xff{\"k\":\"[redacted]\"}[redacted]"
        );
        // The user alone is no secret; an answer without a credential is left as it is.
        assert_eq!(redactor.text("ann: ok"), "ann: ok");
        assert_eq!(Redactor::default().text("k3y"), "k3y");
    }
}
