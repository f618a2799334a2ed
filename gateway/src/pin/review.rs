//! Reviewing a changed tool held by the pin ([`OnChange::Hold`](crate::OnChange::Hold)): what
//! changed, field by field (the hints, scopes and title as reviewed and now; a description or
//! schema, of which a snapshot keeps only a fingerprint, shown as it is now), and the decision.
//! Approved, the tool is pinned as it is now (the snapshot file rewritten) and served from then
//! on; rejected, it stays refused. On the approvals page ([`Pin::reviews`]) or from the command
//! line (`toolsmith gateway ... pin approve NAME`, [`Pin::approve`]).

use std::sync::Arc;

use toolsmith::Registry;
use toolsmith::approve::{Review, Reviews};
use toolsmith::registry::RegistryHandle;

use crate::Pin;
use crate::pin::{Held, lock};

impl Pin {
    /// The tools this pin holds for review, for the approvals page
    /// ([`Server::reviews`](toolsmith::Server::reviews)): an approval swaps the held tool into
    /// `served` (the registry the gateway serves) as it is now.
    ///
    /// ```
    /// use toolsmith::approve::Reviews;
    /// use toolsmith_gateway::{OnChange, Pin};
    ///
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let pin = Pin::new(toolsmith::Registry::new().snapshot()).on_change(OnChange::Hold);
    /// let reviews = pin.reviews(server.registry_handle());
    /// assert!(reviews.pending().is_empty());
    /// assert!(reviews.decide("nothing", true, "ada").is_err());
    /// ```
    pub fn reviews(&self, served: RegistryHandle) -> Arc<dyn Reviews> {
        Arc::new(PinReviews {
            pin: self.clone(),
            served,
        })
    }

    /// Pins each tool of `tools` (by the name it is served under) as `now` (the gateway's
    /// tools as they are) gives it: its line of the snapshot rewritten, or added. What was
    /// done for each, or why one could not be (a name `now` does not serve).
    pub fn approve(&self, now: &Registry, tools: &[String]) -> Result<Vec<String>, String> {
        let changed = now.drift(&self.snapshot()).map_err(|err| err.to_string())?;
        // Every name first: none is pinned when one is wrong.
        let lines = tools
            .iter()
            .map(|name| {
                line_now(now, name).ok_or_else(|| {
                    format!("no tool {name} is served: name one as `gateway tools` lists it")
                })
            })
            .collect::<Result<Vec<String>, String>>()?;
        let mut done = Vec::new();
        for (name, line) in tools.iter().zip(lines) {
            self.repin(name, &line)?;
            done.push(match changed.get(name) {
                Some(what) => format!("{name}: pinned as it is now ({what} changed)"),
                None => format!("{name}: unchanged since the snapshot"),
            });
        }
        Ok(done)
    }
}

struct PinReviews {
    pin: Pin,
    served: RegistryHandle,
}

impl Reviews for PinReviews {
    fn pending(&self) -> Vec<Review> {
        lock(&self.pin.held)
            .iter()
            .map(|(name, held)| review(name, held))
            .collect()
    }

    /// `id` is `NAME@FINGERPRINT` of the tool as the page showed it: a tool that changed again
    /// since is not decided on (the operator reviews what it is now).
    fn decide(&self, id: &str, approve: bool, by: &str) -> Result<String, String> {
        let (name, shown) = id.rsplit_once('@').unwrap_or((id, ""));
        let mut held = lock(&self.pin.held);
        let Some(kept) = held.get(name) else {
            return Err(format!("no change of {name} is waiting for review"));
        };
        let line = line_now(&kept.now, name).unwrap_or_default();
        if fingerprint(&line) != shown {
            return Err(format!(
                "{name} changed again since the page showed it: reload the page and review it as it is now"
            ));
        }
        if !approve {
            held.remove(name);
            tracing::warn!(tool = %name, by, "a change was rejected on the approvals page: the tool stays refused");
            return Ok(format!("{name}: the change was rejected; it stays refused"));
        }
        let now = kept.now.clone();
        // Pinned first: a tool is served only once its review is on file.
        self.pin.repin(name, &line)?;
        self.served
            .update(|registry| {
                registry.remove_tool(name);
                *registry = registry.clone().merge(now)?;
                Ok(())
            })
            .map_err(|err| {
                format!("{name} is pinned as it is now, but could not be served: {err}; restart the gateway to serve it")
            })?;
        held.remove(name);
        tracing::warn!(tool = %name, by, "a change was approved on the approvals page: pinned as it is now, and served");
        Ok(format!(
            "{name}: approved by {by}, pinned as it is now and served"
        ))
    }
}

/// A short fingerprint of a snapshot line, naming the version of a tool a review showed.
fn fingerprint(line: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(line.as_bytes())
        .iter()
        .take(6)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The fields of a snapshot line the pin compares: a review shows them, and an approval
/// rewrites only them (a line's confirmation and scopes, written by `check --write` with the
/// gateway's own policy, stay as the file has them).
const PINNED: [&str; 9] = toolsmith::registry::PINNED_FIELDS;

/// The review of `name` held as `held`: each field of its snapshot line that changed.
fn review(name: &str, held: &Held) -> Review {
    let now = line_now(&held.now, name).unwrap_or_default();
    let before = fields(held.reviewed.as_deref().unwrap_or_default());
    let after = fields(&now);
    let id = format!("{name}@{}", fingerprint(&now));
    let mut review = Review::new(id, format!("{name} changed since it was reviewed"));
    if held.reviewed.is_none() {
        review = review.change("tool", "not in the snapshot", "served now");
    }
    let tool = held.now.get(name);
    for key in PINNED {
        let key = &key.to_owned();
        let was = value(&before, key).unwrap_or("(none)");
        let is = value(&after, key).unwrap_or("(none)");
        if was == is {
            continue;
        }
        // A snapshot keeps a fingerprint of these: shown as they are now.
        let shown = tool.map(|tool| match key.as_str() {
            "description" => Some(tool.header().description().to_owned()),
            "input" => serde_json::to_string_pretty(tool.input_schema()).ok(),
            "output" => tool
                .mcp_tool()
                .output_schema
                .as_ref()
                .and_then(|schema| serde_json::to_string_pretty(schema).ok()),
            _ => None,
        });
        let is = match shown.flatten() {
            Some(text) => format!("{text}\n(fingerprint {is})"),
            None => is.to_owned(),
        };
        let was = match key.as_str() {
            "description" | "input" | "output" => format!("fingerprint {was}"),
            _ => was.to_owned(),
        };
        review = review.change(key.as_str(), was, is);
    }
    review
}

fn value<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The `key=value` fields of a snapshot line, in order (a quoted value kept whole).
fn fields(line: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut rest = line.strip_prefix("tool ").unwrap_or(line);
    // The name first: skip it.
    if let Some(after) = rest.strip_prefix('"') {
        rest = after.split_once('"').map_or("", |(_, r)| r);
    }
    let mut token = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in rest.chars().chain(std::iter::once(' ')) {
        match c {
            _ if escaped => {
                token.push(c);
                escaped = false;
            }
            '\\' if quoted => {
                token.push(c);
                escaped = true;
            }
            '"' => {
                token.push(c);
                quoted = !quoted;
            }
            ' ' if !quoted => {
                if let Some((key, value)) = token.split_once('=') {
                    fields.push((key.to_owned(), value.to_owned()));
                }
                token.clear();
            }
            c => token.push(c),
        }
    }
    fields
}

/// The snapshot line of `name` in `registry` as it is now.
fn line_now(registry: &Registry, name: &str) -> Option<String> {
    let alone = registry.clone().retain_tools(|tool| tool.name() == name);
    line_of(&alone.snapshot(), name)
}

/// `old` with each field the pin compares as `new` has it, the others as `old` has them.
fn merged(old: &str, new: &str) -> String {
    let old_fields = fields(old);
    let new_fields = fields(new);
    let head = new.split(" readOnly=").next().unwrap_or(new);
    let mut out = head.to_owned();
    let mut written: Vec<&str> = Vec::new();
    // In the new line's order, each field from the line that decides it.
    for (key, now) in &new_fields {
        let kept = match PINNED.contains(&key.as_str()) {
            true => now.as_str(),
            false => value(&old_fields, key).unwrap_or(now),
        };
        out.push_str(&format!(" {key}={kept}"));
        written.push(key);
    }
    // The file's own fields the new line does not have (none the pin compares).
    for (key, kept) in &old_fields {
        if !written.contains(&key.as_str()) && !PINNED.contains(&key.as_str()) {
            out.push_str(&format!(" {key}={kept}"));
        }
    }
    out
}

/// The line of tool `name` in `snapshot`.
pub(crate) fn line_of(snapshot: &str, name: &str) -> Option<String> {
    let prefix = format!("tool \"{name}\" ");
    snapshot
        .lines()
        .find(|line| line.starts_with(&prefix))
        .map(str::to_owned)
}

/// `snapshot` with the line of tool `name` made `line` in the fields the pin compares (the
/// others kept as the snapshot has them), or `line` added after the tools' lines when it had
/// none.
pub(crate) fn repinned(snapshot: &str, name: &str, line: &str) -> String {
    let line = &match line_of(snapshot, name) {
        Some(old) => merged(&old, line),
        None => line.to_owned(),
    };
    let prefix = format!("tool \"{name}\" ");
    let mut out = String::with_capacity(snapshot.len() + line.len() + 1);
    let mut done = false;
    let mut last_tool = None;
    let lines: Vec<&str> = snapshot.lines().collect();
    for (i, existing) in lines.iter().enumerate() {
        if existing.starts_with("tool ") {
            last_tool = Some(i);
        }
    }
    for (i, existing) in lines.iter().enumerate() {
        if existing.starts_with(&prefix) {
            out.push_str(line);
            done = true;
        } else {
            out.push_str(existing);
        }
        out.push('\n');
        if !done && Some(i) == last_tool {
            out.push_str(line);
            out.push('\n');
            done = true;
        }
    }
    if !done {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{fields, line_of, repinned};

    #[test]
    fn a_line_is_replaced_in_place_or_added_after_the_tools() {
        let snapshot =
            "# header\ntool \"a\" readOnly=true\ntool \"b\" readOnly=false\nresource \"r\" x=1\n";
        let replaced = repinned(snapshot, "a", "tool \"a\" readOnly=false");
        assert_eq!(
            replaced,
            "# header\ntool \"a\" readOnly=false\ntool \"b\" readOnly=false\nresource \"r\" x=1\n"
        );
        let added = repinned(snapshot, "c", "tool \"c\" readOnly=true");
        assert_eq!(
            added,
            "# header\ntool \"a\" readOnly=true\ntool \"b\" readOnly=false\ntool \"c\" readOnly=true\nresource \"r\" x=1\n"
        );
        assert_eq!(
            line_of(&added, "c").as_deref(),
            Some("tool \"c\" readOnly=true")
        );
        assert_eq!(line_of(&added, "d"), None);
    }

    #[test]
    fn an_approval_rewrites_only_what_the_pin_compares() {
        let old = "tool \"a\" readOnly=true destructive=false idempotent=false openWorld=false confirm=true scopes=notes:read input=111 output=none description=222";
        let now = "tool \"a\" readOnly=true destructive=false idempotent=true openWorld=false confirm=false scopes=tools:read input=333 output=none description=444 title=\"A\"";
        let snapshot = format!("# h\n{old}\n");
        assert_eq!(
            repinned(&snapshot, "a", now),
            "# h\ntool \"a\" readOnly=true destructive=false idempotent=true openWorld=false confirm=true scopes=notes:read input=333 output=none description=444 title=\"A\"\n"
        );
    }

    #[test]
    fn a_line_reads_as_its_fields_with_quoted_values_whole() {
        let line = r#"tool "a" readOnly=true title="Get \"the\" note" scopes=tools:read"#;
        assert_eq!(
            fields(line),
            [
                ("readOnly".to_owned(), "true".to_owned()),
                ("title".to_owned(), r#""Get \"the\" note""#.to_owned()),
                ("scopes".to_owned(), "tools:read".to_owned()),
            ]
        );
    }
}
