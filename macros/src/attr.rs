//! Parsing `#[tool(...)]`'s arguments into [`Attrs`]. Every mistake in one attribute is
//! recorded; parsing goes on so that they are all reported together.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitBool, LitStr, Token};

use crate::ctxt::Ctxt;
use crate::entry::{Entry, ungroup};

/// The keys `#[tool]` accepts, for did-you-mean suggestions.
pub const KEYS: &[&str] = &[
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "closed_world",
    "title",
    "name",
    "description",
    "category",
    "tags",
    "icon",
    "icons",
    "scopes",
    "timeout",
    "confirm",
    "confirm_with",
    "task",
    "json_schema",
    "max_concurrency",
    "blocking",
    "allow_name_mismatch",
];

/// One hint as written.
pub struct Hint {
    pub value: bool,
    /// The tokens that stated it (`read_only`, `open_world = false`, ...), for spans.
    pub tokens: TokenStream,
    /// How it was written, for messages.
    pub spelling: String,
}

/// A string key's value.
pub struct Text {
    pub lit: LitStr,
}

/// Everything the attribute says.
#[derive(Default)]
pub struct Attrs {
    pub read_only: Option<Hint>,
    pub destructive: Option<Hint>,
    pub idempotent: Option<Hint>,
    pub open_world: Option<Hint>,
    pub title: Option<Text>,
    pub name: Option<Text>,
    pub description: Option<Text>,
    pub category: Option<Text>,
    pub tags: Option<Vec<LitStr>>,
    /// `icon = "..."` (repeatable) and `icons = [...]`, in order.
    pub icons: Vec<LitStr>,
    /// `scopes = [...]`: the OAuth scopes a caller needs instead of the hints' one.
    pub scopes: Option<Vec<LitStr>>,
    /// `timeout = "30s"`: milliseconds, and the text as written.
    pub timeout: Option<(u64, LitStr)>,
    /// `max_concurrency = N`: at most N calls of the tool run at once.
    pub max_concurrency: Option<u32>,
    /// `confirm` / `confirm = "..."`: ask the user before every call.
    pub confirm: Option<crate::confirm::Confirm>,
    /// `confirm_with = path`: the function that makes the question (the tool asks).
    pub confirm_with: Option<syn::ExprPath>,
    /// `task` / `task = "required"`: the tool may (or must) run as a task.
    pub task: Option<Task>,
    /// `json_schema = "2020-12"`: the input schema names its dialect and keeps `$defs`.
    pub json_schema: Option<Text>,
    /// `blocking`: the calls run on a thread of the pool from the first.
    pub blocking: Option<Ident>,
    pub allow_name_mismatch: Option<Ident>,
}

/// `task` as written: whether a call may, or must, run as a task.
pub struct Task {
    pub required: bool,
}

/// The four hints with the specification's cautious defaults filled in.
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Attrs {
    /// The four hints as the tool declares them, with the specification's cautious defaults
    /// for the unstated ones (`read_only` implies not destructive and idempotent).
    pub fn hints(&self) -> Hints {
        let read_only = self.read_only.as_ref().is_some_and(|h| h.value);
        Hints {
            read_only,
            destructive: self.destructive.as_ref().map_or(!read_only, |h| h.value),
            idempotent: self.idempotent.as_ref().map_or(read_only, |h| h.value),
            open_world: self.open_world.as_ref().is_none_or(|h| h.value),
        }
    }
}

impl Hints {
    /// A short list for the rustdoc line: `read-only, idempotent, closed-world`.
    pub fn describe(&self) -> String {
        let effect = match (self.read_only, self.destructive) {
            (true, _) => "read-only",
            (false, true) => "destructive",
            (false, false) => "additive",
        };
        let idempotent = if self.idempotent { ", idempotent" } else { "" };
        let world = if self.open_world {
            "open-world"
        } else {
            "closed-world"
        };
        format!("{effect}{idempotent}, {world}")
    }
}

/// Parses the attribute's arguments. A syntax error is returned at once (nothing else can be
/// read); every other mistake goes into `cx` and parsing continues.
pub fn parse(cx: &Ctxt, args: TokenStream) -> syn::Result<Attrs> {
    let entries = Punctuated::<Entry, Token![,]>::parse_terminated.parse2(args)?;
    let mut attrs = Attrs::default();
    for entry in entries {
        let key = entry.key.unraw().to_string();
        if entry.args.is_some() {
            cx.error_spanned_by(
                entry.tokens(),
                format!("`{key}(...)` is not a key of #[tool]: write `{key}` or `{key} = value`"),
            );
            continue;
        }
        match key.as_str() {
            "read_only" => hint(cx, &mut attrs.read_only, &entry, "readOnlyHint"),
            "destructive" => hint(cx, &mut attrs.destructive, &entry, "destructiveHint"),
            "idempotent" => hint(cx, &mut attrs.idempotent, &entry, "idempotentHint"),
            "open_world" => hint(cx, &mut attrs.open_world, &entry, "openWorldHint"),
            "closed_world" => {
                if let Some((_, value)) = &entry.value {
                    cx.error_spanned_by(
                        value,
                        "`closed_world` takes no value: write `closed_world`, or `open_world = false`",
                    );
                } else {
                    set_hint(cx, &mut attrs.open_world, &entry, false, "openWorldHint");
                }
            }
            "title" => text(cx, &mut attrs.title, &entry, true),
            "name" => text(cx, &mut attrs.name, &entry, false),
            "description" => text(cx, &mut attrs.description, &entry, true),
            "category" => text(cx, &mut attrs.category, &entry, true),
            "tags" => tags(cx, &mut attrs.tags, &entry),
            "icon" => crate::icon::icon(cx, &mut attrs.icons, &entry),
            "icons" => crate::icon::icons(cx, &mut attrs.icons, &entry),
            "scopes" => crate::scopes::scopes(cx, &mut attrs.scopes, &entry),
            "timeout" => timeout(cx, &mut attrs.timeout, &entry),
            "max_concurrency" => max_concurrency(cx, &mut attrs.max_concurrency, &entry),
            "confirm" => crate::confirm::confirm(cx, &mut attrs.confirm, &entry),
            "confirm_with" => crate::confirm::confirm_with(cx, &mut attrs.confirm_with, &entry),
            "task" => task(cx, &mut attrs.task, &entry),
            "json_schema" => json_schema(cx, &mut attrs.json_schema, &entry),
            "blocking" => flag(cx, &mut attrs.blocking, &entry, &key),
            "allow_name_mismatch" => flag(cx, &mut attrs.allow_name_mismatch, &entry, &key),
            _ => cx.error_spanned_by(&entry.key, unknown_key_message(&key)),
        }
    }
    Ok(attrs)
}

/// A key that takes no value (`blocking`, `allow_name_mismatch`).
fn flag(cx: &Ctxt, slot: &mut Option<Ident>, entry: &Entry, key: &str) {
    if let Some((_, value)) = &entry.value {
        cx.error_spanned_by(value, format!("`{key}` takes no value: write `{key}`"));
    } else if slot.is_some() {
        cx.error_spanned_by(&entry.key, format!("`{key}` is given twice: remove one"));
    } else {
        *slot = Some(entry.key.clone());
    }
}

fn hint(cx: &Ctxt, slot: &mut Option<Hint>, entry: &Entry, wire: &str) {
    let value = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        None => true,
        Some(Expr::Lit(ExprLit {
            lit: Lit::Bool(LitBool { value, .. }),
            ..
        })) => *value,
        Some(other) => {
            let key = &entry.key;
            cx.error_spanned_by(
                other,
                format!("`{key}` takes `true` or `false` (`{key} = false`), or write `{key}` alone for true"),
            );
            return;
        }
    };
    set_hint(cx, slot, entry, value, wire);
}

fn set_hint(cx: &Ctxt, slot: &mut Option<Hint>, entry: &Entry, value: bool, wire: &str) {
    let spelling = entry.spelling();
    if let Some(earlier) = slot {
        let message = if earlier.value == value {
            format!(
                "`{spelling}` repeats `{}`: {wire} is given twice, remove one",
                earlier.spelling
            )
        } else {
            format!(
                "`{spelling}` contradicts `{}`: {wire} is given twice, keep the one you mean",
                earlier.spelling
            )
        };
        cx.error_spanned_by(entry.tokens(), message);
        return;
    }
    *slot = Some(Hint {
        value,
        tokens: entry.tokens(),
        spelling,
    });
}

pub fn text(cx: &Ctxt, slot: &mut Option<Text>, entry: &Entry, non_empty: bool) {
    text_like(cx, slot, entry, non_empty, "...");
}

/// [`text`], whose messages show `example` as the value to write.
pub fn text_like(
    cx: &Ctxt,
    slot: &mut Option<Text>,
    entry: &Entry,
    non_empty: bool,
    example: &str,
) {
    let key = &entry.key;
    let lit = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        })) => lit.clone(),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes a string literal: `{key} = \"{example}\"`"),
            );
            return;
        }
        None => {
            cx.error_spanned_by(
                key,
                format!("`{key}` needs a value: `{key} = \"{example}\"`"),
            );
            return;
        }
    };
    if slot.is_some() {
        cx.error_spanned_by(
            entry.tokens(),
            format!("`{key}` is given twice: remove one"),
        );
        return;
    }
    if non_empty && lit.value().trim().is_empty() {
        cx.error_spanned_by(
            &lit,
            format!("`{key}` is empty: write a few words, or remove the key"),
        );
        return;
    }
    *slot = Some(Text { lit });
}

fn tags(cx: &Ctxt, slot: &mut Option<Vec<LitStr>>, entry: &Entry) {
    let list = crate::list::StringList {
        key: "tags",
        item: "tag",
        form: "`tags` takes a list of string literals: `tags = [\"search\", \"read\"]`",
        empty: "`tags` is empty: list at least one tag, or remove the key",
    };
    list.read(cx, slot, entry, |tag| {
        if tag.trim().is_empty() {
            Err("empty tag: write a word, or remove it".into())
        } else {
            Ok(())
        }
    });
}

pub fn timeout(cx: &Ctxt, slot: &mut Option<(u64, LitStr)>, entry: &Entry) {
    let mut text = None;
    self::text(cx, &mut text, entry, true);
    let Some(Text { lit }) = text else { return };
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`timeout` is given twice: remove one");
    }
    match parse_duration(&lit.value()) {
        Some(ms) => *slot = Some((ms, lit)),
        None => cx.error_spanned_by(
            &lit,
            "`timeout` takes a positive duration with a unit: \"500ms\", \"30s\", \"2m\" or \"1h\"",
        ),
    }
}

/// `task`, `task = "optional"` (the same) or `task = "required"`.
fn task(cx: &Ctxt, slot: &mut Option<Task>, entry: &Entry) {
    let form = "`task` takes no value or \"required\": write `task`, or `task = \"required\"`";
    let required = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        None => false,
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        })) => match lit.value().as_str() {
            "required" => true,
            "optional" => false,
            _ => return cx.error_spanned_by(lit, form),
        },
        Some(other) => return cx.error_spanned_by(other, form),
    };
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`task` is given twice: remove one");
    }
    *slot = Some(Task { required });
}

/// `max_concurrency = N`: a positive integer.
fn max_concurrency(cx: &Ctxt, slot: &mut Option<u32>, entry: &Entry) {
    let form = "`max_concurrency` takes a positive whole number of calls: `max_concurrency = 4`";
    let value = match entry.value.as_ref().map(|(_, v)| ungroup(v)) {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        })) => int.base10_parse::<u32>().ok().filter(|n| *n > 0),
        _ => None,
    };
    let Some(value) = value else {
        let at = entry
            .value
            .as_ref()
            .map_or(entry.tokens(), |(_, v)| quote!(#v));
        return cx.error_spanned_by(at, form);
    };
    if slot.is_some() {
        return cx.error_spanned_by(
            entry.tokens(),
            "`max_concurrency` is given twice: remove one",
        );
    }
    *slot = Some(value);
}

/// `json_schema = "2020-12"`, the one dialect a schema may declare.
fn json_schema(cx: &Ctxt, slot: &mut Option<Text>, entry: &Entry) {
    let mut text = None;
    self::text(cx, &mut text, entry, true);
    let Some(text) = text else { return };
    if slot.is_some() {
        return cx.error_spanned_by(entry.tokens(), "`json_schema` is given twice: remove one");
    }
    if text.lit.value() != "2020-12" {
        return cx.error_spanned_by(
            &text.lit,
            "`json_schema` takes \"2020-12\": the input schema then names JSON Schema 2020-12 (`$schema`) and keeps its subschemas in `$defs`",
        );
    }
    *slot = Some(text);
}

/// Milliseconds in `"500ms"`, `"30s"`, `"2m"`, `"1h"`; `None` when malformed or zero.
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let factor = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    number.checked_mul(factor).filter(|ms| *ms > 0)
}

fn unknown_key_message(key: &str) -> String {
    let known = KEYS.join(", ");
    match suggest(key) {
        Some(close) => format!("unknown key `{key}`: did you mean `{close}`?"),
        None => format!("unknown key `{key}`: expected one of {known}"),
    }
}

/// The known key a near miss probably meant: spelled without underscores or with a `hint`
/// suffix (`readonly`, `read_only_hint`), or within a small edit distance (`idempotant`).
pub fn suggest(key: &str) -> Option<&'static str> {
    fn squash(s: &str) -> String {
        let lower = s.to_ascii_lowercase().replace(['_', '-'], "");
        lower
            .strip_suffix("hint")
            .map(str::to_owned)
            .unwrap_or(lower)
    }
    let squashed = squash(key);
    if let Some(found) = KEYS.iter().find(|k| squash(k) == squashed) {
        return Some(found);
    }
    KEYS.iter()
        .map(|k| (edit_distance(&squashed, &squash(k)), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}

pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::suggest;

    #[test]
    fn durations_need_a_unit_and_a_positive_number() {
        use super::parse_duration;
        assert_eq!(parse_duration("30s"), Some(30_000));
        assert_eq!(parse_duration("500ms"), Some(500));
        assert_eq!(parse_duration("2m"), Some(120_000));
        assert_eq!(parse_duration("1h"), Some(3_600_000));
        for bad in [
            "30",
            "0s",
            "s",
            "1.5s",
            "-1s",
            "3 days",
            "99999999999999999999h",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }

    /// Every key is documented where users read about `#[tool]`: its rustdoc (the runtime
    /// re-exports the macro) and the tools guide page.
    #[test]
    fn every_key_is_documented() {
        let rustdoc = include_str!("../../runtime/src/lib.rs");
        let guide = include_str!("../../runtime/src/guide/tools.md");
        for key in super::KEYS {
            let named = format!("`{key}");
            assert!(
                rustdoc.contains(&named),
                "`{key}` is not in `tool`'s rustdoc"
            );
            assert!(guide.contains(&named), "`{key}` is not in the tools guide");
        }
    }

    #[test]
    fn near_misses_get_a_suggestion() {
        assert_eq!(suggest("readonly"), Some("read_only"));
        assert_eq!(suggest("read_only_hint"), Some("read_only"));
        assert_eq!(suggest("destructive_hint"), Some("destructive"));
        assert_eq!(suggest("openworld"), Some("open_world"));
        assert_eq!(suggest("idempotant"), Some("idempotent"));
        assert_eq!(suggest("readOnlyHint"), Some("read_only"));
        assert_eq!(suggest("colour"), None);
    }
}
