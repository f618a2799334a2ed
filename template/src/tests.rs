//! The template crate's own tests.

use super::*;

fn parse(text: &str) -> Template {
    Template::parse(text).unwrap()
}

fn message(text: &str) -> String {
    Template::parse(text).unwrap_err().message
}

#[test]
fn mistakes_are_named() {
    assert!(message("notes://{}").contains("empty variable"));
    assert!(message("notes://a}").contains("without its `{`"));
    assert!(message("notes://{?q}").contains("operator `?`"));
    assert!(message("notes://{a,b}").contains("one variable per"));
    assert!(message("notes://{a-b}").contains("not a variable name"));
    assert!(message("notes://{a}/{a}").contains("appears twice"));
    assert!(message("notes://{a}{b}").contains("follows another variable"));
    assert!(message("index").contains("not an absolute URI"));
    assert!(message("notes://a b").contains("percent-encode"));
}

#[test]
fn matching_decodes_and_respects_classes() {
    let t = parse("notes://{id}/tags/{tag}");
    assert_eq!(
        t.matches("notes://7/tags/r%C3%A9sum%C3%A9").unwrap(),
        [("id", "7".to_owned()), ("tag", "résumé".to_owned())]
    );
    assert!(t.matches("notes://7/tags/").is_none());
    assert!(t.matches("notes:///tags/x").is_none());
    assert!(t.matches("notes://7/tags/x?y").is_none());
    let dotted = parse("files://{name}.{ext}");
    assert_eq!(
        dotted.matches("files://a.b.c").unwrap(),
        [("name", "a".to_owned()), ("ext", "b.c".to_owned())]
    );
}

#[test]
fn hostile_uris_match_in_bounded_time() {
    let t = parse("x://{a}a{b}a{c}a{d}a{e}b");
    let uri = format!("x://{}", "a".repeat(3000));
    assert!(t.matches(&uri).is_none());
}

#[test]
fn expansion_round_trips() {
    let t = parse("repo://{owner}/{+path}");
    let uri = t.expand(|name| Some(if name == "owner" { "a/b" } else { "x/y z" }.into()));
    assert_eq!(uri, "repo://a%2Fb/x/y%20z");
    assert_eq!(
        t.matches(&uri).unwrap(),
        [("owner", "a/b".to_owned()), ("path", "x/y z".to_owned())]
    );
}

#[test]
fn overlaps_are_found() {
    assert!(parse("a://{x}").overlaps(&parse("a://{y}")));
    assert!(parse("a://{x}/b").overlaps(&parse("a://c/{y}")));
    assert!(!parse("a://{x}").overlaps(&parse("a://{x}/b")));
    assert!(parse("a://{+x}").overlaps(&parse("a://{y}/b")));
    assert!(!parse("a://{x}").overlaps(&parse("b://{x}")));
    assert!(!parse("a://index").overlaps(&parse("a://{x}/y")));
    assert!(parse("a://index").overlaps(&parse("a://{x}")));
}

#[test]
fn decoding_needs_two_hex_digits_and_utf8() {
    let t = parse("notes://{name}");
    assert_eq!(t.matches("notes://a%2Bb").unwrap()[0].1, "a+b");
    assert_eq!(
        t.matches("notes://%+A").unwrap()[0].1,
        "%+A",
        "not a percent-escape"
    );
    assert!(t.matches("notes://%FF").is_none(), "not UTF-8");
    let reserved = parse("files://{+path}");
    let uri = reserved.expand(|_| Some("a/b?c#d".into()));
    assert_eq!(uri, "files://a/b%3Fc%23d");
    assert_eq!(
        reserved.matches(&uri).unwrap()[0].1,
        "a/b?c#d",
        "round trip"
    );
}
