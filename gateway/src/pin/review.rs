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
        let mut done = Vec::new();
        for name in tools {
            let line = line_now(now, name).ok_or_else(|| {
                format!("no tool {name} is served: name one as `gateway tools` lists it")
            })?;
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

    fn decide(&self, id: &str, approve: bool, by: &str) -> Result<String, String> {
        let held = lock(&self.pin.held)
            .remove(id)
            .ok_or_else(|| format!("no change of {id} is waiting for review"))?;
        if !approve {
            tracing::warn!(tool = %id, by, "a change was rejected on the approvals page: the tool stays refused");
            return Ok(format!("{id}: the change was rejected; it stays refused"));
        }
        let Some(line) = line_now(&held.now, id) else {
            return Err(format!("{id} is no longer served as it was held"));
        };
        if let Err(why) = self.pin.repin(id, &line) {
            lock(&self.pin.held).insert(id.to_owned(), held);
            return Err(why);
        }
        let now = held.now.clone();
        self.served
            .update(|registry| {
                registry.remove_tool(id);
                *registry = registry.clone().merge(now)?;
                Ok(())
            })
            .map_err(|err| err.to_string())?;
        tracing::warn!(tool = %id, by, "a change was approved on the approvals page: pinned as it is now, and served");
        Ok(format!(
            "{id}: approved by {by}, pinned as it is now and served"
        ))
    }
}

/// The review of `name` held as `held`: each field of its snapshot line that changed.
fn review(name: &str, held: &Held) -> Review {
    let now = line_now(&held.now, name).unwrap_or_default();
    let before = fields(held.reviewed.as_deref().unwrap_or_default());
    let after = fields(&now);
    let mut review = Review::new(name, format!("{name} changed since it was reviewed"));
    if held.reviewed.is_none() {
        review = review.change("tool", "not in the snapshot", "served now");
    }
    let tool = held.now.get(name);
    let mut keys: Vec<&String> = before.iter().chain(after.iter()).map(|(k, _)| k).collect();
    keys.dedup();
    let mut seen = Vec::new();
    for key in keys {
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
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

/// The line of tool `name` in `snapshot`.
pub(crate) fn line_of(snapshot: &str, name: &str) -> Option<String> {
    let prefix = format!("tool \"{name}\" ");
    snapshot
        .lines()
        .find(|line| line.starts_with(&prefix))
        .map(str::to_owned)
}

/// `snapshot` with the line of tool `name` replaced by `line` (added after the tools' lines
/// when it had none).
pub(crate) fn repinned(snapshot: &str, name: &str, line: &str) -> String {
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
