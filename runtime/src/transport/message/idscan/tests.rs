use super::{FoundId, IdScan, Scanned};
use serde_json::{Value, json};

/// Small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn scan_chunks(line: &[u8], mut size: impl FnMut() -> usize) -> Scanned {
    let mut scan = IdScan::new();
    let mut rest = line;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size().clamp(1, rest.len()));
        scan.feed(chunk);
        rest = tail;
    }
    scan.feed(&[]);
    scan.finish()
}

/// Scans `line` whole, one byte at a time, and in fixed and random-ish chunkings;
/// all must agree.
fn scan(line: impl AsRef<[u8]>) -> Scanned {
    let line = line.as_ref();
    let whole = scan_chunks(line, || usize::MAX);
    let by_byte = scan_chunks(line, || 1);
    assert_eq!(whole, by_byte, "byte at a time");
    // Multi-megabyte lines get fewer passes: the tests run unoptimized.
    let big = line.len() > 1 << 20;
    let sizes: &[usize] = if big {
        &[4096]
    } else {
        &[2, 3, 7, 31, 33, 64, 4096]
    };
    for &size in sizes {
        assert_eq!(whole, scan_chunks(line, || size), "chunks of {size}");
    }
    for seed in (if big { 2 } else { 1 })..=3u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let max = [5, 70, 9000][seed as usize - 1];
        assert_eq!(
            whole,
            scan_chunks(line, || 1 + rng.below(max)),
            "random chunks, seed {seed}"
        );
    }
    whole
}

fn id(line: impl AsRef<[u8]>) -> FoundId {
    scan(line).id
}

fn num(n: i64) -> FoundId {
    FoundId::Number(n)
}

fn string(s: &str) -> FoundId {
    FoundId::String(s.to_owned())
}

use FoundId::{Absent, Unusable};

#[test]
fn id_first() {
    let s = scan(r#"{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#);
    assert_eq!(
        s,
        Scanned {
            id: num(1),
            object: true,
            method: true
        }
    );
    assert_eq!(id(r#"{"id":"abc","method":"m"}"#), string("abc"));
    assert_eq!(id(r#"{"id":-7}"#), num(-7));
    assert_eq!(id(r#"{"id":0}"#), num(0));
}

#[test]
fn id_last_after_huge_params_typescript_order() {
    let big = "a\\\"b\\\\c \\\"id\\\":9 {[ ".repeat(300_000);
    let line = format!(
        r#"{{"method":"tools/call","params":{{"name":"x","arguments":{{"data":"{big}","list":[1,2,{{"id":3}}]}}}},"jsonrpc":"2.0","id":42}}"#
    );
    assert!(line.len() > 4 << 20);
    let s = scan(&line);
    assert_eq!(
        s,
        Scanned {
            id: num(42),
            object: true,
            method: true
        }
    );
    let line = line.replace(r#""id":42}"#, r#""id":"req-\u0031"}"#);
    assert_eq!(id(&line), string("req-1"));
}

#[test]
fn nested_ids_are_ignored() {
    let params = r#""params":{"id":5,"list":[{"id":6},[{"id":7}],"id"],"o":{"a":{"id":8}}}"#;
    assert_eq!(id(format!(r#"{{"method":"m",{params}}}"#)), Absent);
    assert_eq!(
        id(format!(r#"{{"method":"m",{params},"id":"top"}}"#)),
        string("top")
    );
    assert_eq!(id(format!(r#"{{"id":11,"method":"m",{params}}}"#)), num(11));
    assert_eq!(id(r#"{"a":[{"id":1}],"b":{"id":{"id":2}},"id":3}"#), num(3));
    assert_eq!(id(r#"{"a":[[[[{"id":1}]]]]}"#), Absent);
}

#[test]
fn strings_with_quotes_backslashes_and_id_text() {
    // A value string holding `"id":9` and escaped quotes.
    assert_eq!(id(r#"{"x":"\"id\":9,","id":8}"#), num(8));
    assert_eq!(id(r#"{"x":"\"id\":9,"}"#), Absent);
    // `\\"` ends the string: the next `"id"` is a real key.
    assert_eq!(id(r#"{"x":"a\\","id":8}"#), num(8));
    assert_eq!(id(r#"{"x":"a\\\\","id":8}"#), num(8));
    // `\\\"` does not end it.
    assert_eq!(id(r#"{"x":"a\\\",\"id\":9,\"y\":\"","id":8}"#), num(8));
    // Same inside params.
    assert_eq!(
        id(r#"{"params":{"s":"}\"id\":1,{\\","t":["\\\"]"]},"id":2}"#),
        num(2)
    );
    // A key that merely contains `id`.
    assert_eq!(id(r#"{"idx":1,"xid":2,"id ":3,"ID":4,"i":5}"#), Absent);
    // A string value "id" is not a key.
    assert_eq!(id(r#"{"method":"id","x":"id"}"#), Absent);
}

#[test]
fn escaped_keys_count() {
    assert_eq!(id(r#"{"\u0069d":5}"#), num(5));
    assert_eq!(id(r#"{"i\u0064":"x"}"#), string("x"));
    assert_eq!(id(r#"{"\u0069\u0064":6}"#), num(6));
    assert!(scan(r#"{"\u006dethod":"m"}"#).method);
    assert!(scan(r#"{"m\u0065thod":"m"}"#).method);
    assert!(!scan(r#"{"methods":"m"}"#).method);
    assert!(!scan(r#"{"params":{"method":"m"}}"#).method);
    // Invalid escapes in a key: not `id`.
    assert_eq!(id(r#"{"\x69d":5}"#), Absent);
    assert_eq!(id(r#"{"\u069d":5}"#), Absent);
}

#[test]
fn cut_by_eof() {
    assert_eq!(id(r#"{"jsonrpc":"2.0","method":"m","id":12"#), Unusable);
    assert_eq!(id(r#"{"id":1"#), Unusable);
    assert_eq!(id(r#"{"id":-"#), Unusable);
    assert_eq!(id(r#"{"id":"abc"#), Unusable);
    assert_eq!(id(r#"{"id":"abc\"#), Unusable);
    assert_eq!(id(r#"{"id":"abc\u00"#), Unusable);
    assert_eq!(id(r#"{"id":"\ud83d"#), Unusable);
    assert_eq!(id(r#"{"id":"\ud83d\"#), Unusable);
    assert_eq!(id(r#"{"id":"#), Unusable);
    assert_eq!(id(r#"{"id":  "#), Unusable);
    assert_eq!(id(r#"{"id""#), Unusable);
    assert_eq!(id(r#"{"id"#), Absent);
    assert_eq!(id(r#"{"i"#), Absent);
    assert_eq!(id(r#"{"id":{"a":1"#), Unusable);
    // Complete values survive a cut after them.
    assert_eq!(id(r#"{"id":"abc""#), string("abc"));
    assert_eq!(id(r#"{"id":12,"#), num(12));
    assert_eq!(id(r#"{"id":12 "#), num(12));
    assert_eq!(id(r#"{"id":12,"params":{"x":"#), num(12));
    // `1e15` cut after `1e1` is not 10.
    assert_eq!(id(r#"{"id":1e1"#), Unusable);
    assert_eq!(id(r#"{"id":10"#), Unusable);
}

#[test]
fn unusable_values() {
    for v in [
        "1.5",
        "1e3",
        "1E3",
        "1.0",
        "1e15",
        "1.05",
        "-0.0",
        "1e-3",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "123456789012345678901234567890123456789012345678901234567890",
        "null",
        "true",
        "false",
        "{}",
        r#"{"id":1}"#,
        "[]",
        "[1]",
        "01",
        "-01",
        "+1",
        "-",
        "0x10",
        "1_000",
        "nul",
        "NaN",
        "Infinity",
    ] {
        for tail in [",\"method\":\"m\"}", "}", " }", "\t,\"x\":1}"] {
            let line = format!(r#"{{"id":{v}{tail}"#);
            assert_eq!(id(&line), Unusable, "{line}");
        }
    }
    assert_eq!(id(r#"{"id":9223372036854775807}"#), num(i64::MAX));
    assert_eq!(id(r#"{"id":-9223372036854775808}"#), num(i64::MIN));
    assert_eq!(id(r#"{"id":-0}"#), num(0));
    // Missing or misplaced values.
    assert_eq!(id(r#"{"id":}"#), Unusable);
    assert_eq!(id(r#"{"id":,"method":"m"}"#), Unusable);
    assert_eq!(id(r#"{"id","method":"m"}"#), Unusable);
    assert_eq!(id(r#"{"id" 5}"#), Unusable);
    assert_eq!(id(r#"{"id":5]"#), Unusable);
    assert_eq!(id(r#"{"id":5"x"}"#), Unusable);
}

#[test]
fn duplicate_id_is_unusable() {
    assert_eq!(id(r#"{"id":1,"id":1}"#), Unusable);
    assert_eq!(id(r#"{"id":1,"method":"m","id":"x"}"#), Unusable);
    assert_eq!(id(r#"{"id":null,"id":2}"#), Unusable);
    assert_eq!(id(r#"{"id":1,"\u0069d":2}"#), Unusable);
    // Many repeats: the counter saturates.
    let line = format!("{{{}\"x\":0}}", "\"id\":1,".repeat(300));
    assert_eq!(id(line), Unusable);
}

#[test]
fn string_ids_decoded() {
    assert_eq!(id(r#"{"id":"a\"b\u00e9"}"#), string("a\"bé"));
    assert_eq!(id(r#"{"id":"a\"b\u00E9","method":"m"}"#), string("a\"bé"));
    assert_eq!(
        id(r#"{"id":"\\\/\b\f\n\r\t\u0000x"}"#),
        string("\\/\u{8}\u{c}\n\r\t\0x")
    );
    assert_eq!(id(r#"{"id":"\ud83d\ude00 é 😀"}"#), string("😀 é 😀"));
    assert_eq!(id(r#"{"id":""}"#), string(""));
    assert_eq!(id(r#"{"id":"{\"id\":1}"}"#), string(r#"{"id":1}"#));
    // Invalid strings.
    for v in [
        r#""\x""#,
        r#""\u12g4""#,
        r#""\ud83d""#,
        r#""\ud83dx""#,
        r#""\ud83d\n""#,
        r#""\ud83d\ud83d""#,
        r#""\ude00""#,
        "\"a\tb\"",
        "\"a\u{1}b\"",
    ] {
        let line = format!(r#"{{"id":{v},"method":"m"}}"#);
        assert_eq!(id(&line), Unusable, "{line}");
    }
    // Invalid UTF-8 in the raw bytes.
    assert_eq!(id(b"{\"id\":\"a\xFFb\"}"), Unusable);
    assert_eq!(id(b"{\"id\":\"a\xC3\\u00e9\"}"), Unusable);
    assert_eq!(id(b"{\"id\":\"\xC3\xA9\"}"), string("é"));
}

#[test]
fn string_id_length_limit() {
    let ok = "x".repeat(1024);
    assert_eq!(id(format!(r#"{{"id":"{ok}"}}"#)), string(&ok));
    let long = "x".repeat(1025);
    assert_eq!(id(format!(r#"{{"id":"{long}"}}"#)), Unusable);
    // The limit counts decoded bytes: 512 escaped `é` are 1024 bytes.
    let esc = "\\u00e9".repeat(512);
    assert_eq!(id(format!(r#"{{"id":"{esc}"}}"#)), string(&"é".repeat(512)));
    let esc = "\\u00e9".repeat(512) + "x";
    assert_eq!(id(format!(r#"{{"id":"{esc}"}}"#)), Unusable);
    // A huge id string is skipped, and what follows is still seen.
    let huge = "y".repeat(3 << 20);
    let s = scan(format!(r#"{{"id":"{huge}","method":"m"}}"#));
    assert_eq!((s.id, s.method), (Unusable, true));
}

#[test]
fn notification_has_no_id() {
    let s = scan(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(
        s,
        Scanned {
            id: Absent,
            object: true,
            method: true
        }
    );
    let s = scan(r#"{"jsonrpc":"2.0","result":{}}"#);
    assert_eq!((s.id, s.object, s.method), (Absent, true, false));
}

#[test]
fn not_an_object() {
    for line in [
        &b""[..],
        b"   ",
        b"[{\"id\":1}]",
        b"\"id\"",
        b"12",
        b"garbage {\"id\":1}",
        b"\xEF\xBB",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB\xBF\xEF\xBB\xBF{\"id\":1}",
        b"\xEF{\"id\":1}",
        b"\xFF\xFE{\"id\":1}",
        b"null",
    ] {
        let s = scan(line);
        assert_eq!(
            s,
            Scanned {
                id: Absent,
                object: false,
                method: false
            },
            "{}",
            String::from_utf8_lossy(line)
        );
    }
    // Leading whitespace and a BOM are allowed.
    for line in [
        &b" \t\r{\"id\":1}"[..],
        b"\xEF\xBB\xBF{\"id\":1}",
        b"\xEF\xBB\xBF  {\"id\":1}",
        b"  \xEF\xBB\xBF{\"id\":1}",
    ] {
        let s = scan(line);
        assert_eq!((s.id, s.object), (num(1), true));
    }
}

#[test]
fn whitespace_and_trailing_bytes() {
    assert_eq!(
        scan(" { \"id\" :\t7 ,\r\"method\" : \"m\" } "),
        Scanned {
            id: num(7),
            object: true,
            method: true
        }
    );
    assert_eq!(id(r#"{"id" : "s" }"#), string("s"));
    // After the outermost object closes, nothing counts.
    let s = scan(r#"{"x":1} {"id":2,"method":"m"}"#);
    assert_eq!((s.id, s.method), (Absent, false));
    assert_eq!(id(r#"{"id":1}"id":2"#), num(1));
    assert_eq!(id("{}"), Absent);
}

#[test]
fn deep_nesting_is_bounded() {
    let depth = 200_000;
    let line = format!(
        r#"{{"params":{}{},"id":5}}"#,
        "[{\"a\":".repeat(depth) + "1",
        "}]".repeat(depth)
    );
    assert_eq!(id(&line), num(5));
    // Never closed: no id.
    let line = format!(r#"{{"params":{},"id":5}}"#, "[".repeat(depth));
    assert_eq!(id(&line), Absent);
    // Too many closers: the outer object ends early.
    assert_eq!(id(r#"{"params":[]]],"id":5}"#), Absent);
}

#[test]
fn eight_mib_line() {
    let mut line = String::from(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"items":["#);
    let mut n = 0u64;
    while line.len() < 8 << 20 {
        line.push_str(&format!(
            r#"{{"id":{n},"s":"quote \" slash \\ {{[\"id\":{n}]}}","v":[1.5,true,null,{{}}]}},"#
        ));
        n += 1;
    }
    line.push_str(&format!(r#""{}"]}},"id":"end"}}"#, "z".repeat(1 << 20)));
    assert!(line.len() > 8 << 20);
    let s = scan(&line);
    assert_eq!(
        s,
        Scanned {
            id: string("end"),
            object: true,
            method: true
        }
    );
    // And serde_json agrees the line is valid with that id.
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], json!("end"));
}

// ---- generated lines, checked against what was generated and against serde_json ----

/// Pieces that stress the scanner when put in strings.
const PIECES: &[&str] = &[
    "id", "\"id\":1", "\"", "\\", "\\\"", "{", "}", "[", "]", ":", ",", " ", "é", "😀", "\n",
    "\u{1}", "x",
];

fn random_string(rng: &mut Rng) -> String {
    (0..rng.below(6))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

fn random_value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth > 3 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.next() as i64 >> rng.below(64)),
        3 => json!(rng.below(1000) as f64 / 8.0),
        4 | 5 => json!(random_string(rng)),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| {
                    let k =
                        ["id", "method", "x", random_string(rng).as_str()][rng.below(4)].to_owned();
                    (k, random_value(rng, depth + 1))
                })
                .collect(),
        ),
    }
}

/// Writes a string with every char as a `\u` escape.
fn escape_all(s: &str) -> String {
    let mut out = String::from("\"");
    for u in s.encode_utf16() {
        out.push_str(&format!("\\u{u:04x}"));
    }
    out + "\""
}

/// A JSON text for `v` (sometimes with escaped strings), and what the scanner should make of it
/// as an id.
fn id_text(rng: &mut Rng, v: &Value) -> (String, FoundId) {
    let text = match v {
        Value::String(s) if rng.below(3) == 0 => escape_all(s),
        _ => v.to_string(),
    };
    let expect = match v {
        Value::String(s) if s.len() <= 1024 => FoundId::String(s.clone()),
        Value::Number(n) if n.is_i64() => FoundId::Number(n.as_i64().unwrap()),
        _ => Unusable,
    };
    (text, expect)
}

/// A generated line and the expected scan of it; also the first id member's value (what a cut
/// line may yield at best).
fn random_line(rng: &mut Rng) -> (String, Scanned, FoundId) {
    let mut members = Vec::new();
    let mut first = Absent;
    let mut ids = 0;
    let mut method = false;
    for _ in 0..rng.below(6) {
        let key = ["id", "method", "params", "jsonrpc", "x"][rng.below(5)];
        let key_text = match rng.below(3) {
            0 => escape_all(key),
            _ => format!("\"{key}\""),
        };
        let value = random_value(rng, 0);
        let (value_text, expect) = id_text(rng, &value);
        if key == "id" {
            ids += 1;
            if ids == 1 {
                first = expect;
            }
        }
        method |= key == "method";
        let ws = [" ", "", "\t", "\r\n"];
        let (a, b) = (ws[rng.below(4)], ws[rng.below(4)]);
        members.push(format!("{a}{key_text}{b}:{b}{value_text}{a}"));
    }
    let line = format!("{{{}}}", members.join(","));
    let id = match ids {
        0 => Absent,
        1 => first.clone(),
        _ => Unusable,
    };
    let scanned = Scanned {
        id,
        object: true,
        method,
    };
    (line, scanned, first)
}

#[test]
fn generated_lines_and_their_prefixes() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..400 {
        let (line, expect, first) = random_line(&mut rng);
        // The generator writes valid JSON; check that, and the id, against serde_json.
        let v: Value = serde_json::from_str(&line).expect(&line);
        if let FoundId::String(s) = &expect.id {
            assert_eq!(v["id"], json!(s));
        }
        if let FoundId::Number(n) = &expect.id {
            assert_eq!(v["id"], json!(n));
        }
        assert_eq!(scan(&line), expect, "{line}");
        // Any prefix (a line cut by EOF) yields the first id's value, or Unusable, or Absent.
        let bytes = line.as_bytes();
        for cut in 0..bytes.len() {
            let s = scan_chunks(&bytes[..cut], || 1 + rng.below(9));
            match &s.id {
                Absent | Unusable => {}
                id => assert_eq!(id, &first, "prefix {cut} of {line}"),
            }
            assert!(!s.method || expect.method);
            assert_eq!(s.object, cut > 0);
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let alphabet = b"{}[]\":,\\ \tiIdDmethod0123456789-+.eEu\xEF\xBB\xBF\xC3\xA9\x00nulltrfals";
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let len = rng.below(80);
        let mut line: Vec<u8> = b"{".to_vec();
        line.extend((0..len).map(|_| alphabet[rng.below(alphabet.len())]));
        let whole = scan_chunks(&line, || usize::MAX);
        assert_eq!(whole, scan_chunks(&line, || 1));
        assert_eq!(whole, scan_chunks(&line, || 1 + rng.below(7)));
        // Where serde_json reads a valid object, the scanner agrees on a usable id.
        if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&line) {
            match &whole.id {
                FoundId::String(s) => assert_eq!(map.get("id"), Some(&json!(s))),
                FoundId::Number(n) => assert_eq!(map.get("id"), Some(&json!(n))),
                Absent => assert!(!map.contains_key("id")),
                Unusable => {}
            }
        }
    }
}
