//! Streaming scan of one JSON-RPC request line for the top-level `"id"` member.
//!
//! A line that is too long to buffer is fed here chunk by chunk while it is skipped, so that
//! the error answering it can still carry the request's `id`, wherever in the object the id
//! stands (the TypeScript SDK writes it last). The state is bounded whatever the input: a depth
//! counter, a few flags, and small capture buffers (at most [`ID_CAP`] bytes of a string id,
//! [`NUM_CAP`] bytes of a number id, [`KEY_CAP`] bytes of a top-level key).

/// Longest usable string id, in decoded bytes.
const ID_CAP: usize = 1024;
/// Captured bytes of a scalar id (`12`, `-3`, `true`, ...). Longer than any i64 text, so a
/// capture that hit the cap can never parse as an i64.
const NUM_CAP: usize = 32;
/// Decoded bytes kept of a top-level key: enough for `id` and `method`.
const KEY_CAP: usize = 8;

/// Scans one JSON-RPC line, fed in chunks, for what an error response needs.
#[derive(Default)]
pub(crate) struct IdScan {
    state: State,
    /// Nesting depth: 1 inside the outermost object.
    depth: u32,
    /// In a string, the previous byte was an unescaped backslash.
    esc: bool,
    object: bool,
    method: bool,
    /// How many top-level `"id"` members were seen.
    ids: u8,
    /// The value of the first id member: `Unusable` until it is complete.
    id: Option<FoundId>,
    /// Decodes the top-level key or the string id being read.
    dec: Decoder,
    /// The scalar id being read.
    num: Vec<u8>,
}

/// What was found in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// The top-level `id`.
    pub id: FoundId,
    /// The line starts (after optional whitespace and an optional UTF-8 BOM) with `{`.
    pub object: bool,
    /// A top-level `"method"` member was seen (so a line without an id is a notification).
    pub method: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FoundId {
    /// No top-level `"id"` member.
    Absent,
    /// A usable id: a JSON string (decoded, escapes resolved), or an integer within i64.
    String(String),
    Number(i64),
    /// An id member whose value is unusable: null, true/false, an object, an array, a float
    /// or exponent number (`1.5`, `1e3`, `1.0`), an integer outside i64 (e.g. 2^63), a value cut
    /// off by the end of the line (e.g. `"id":12` at EOF with no `,`/`}` after it, or an
    /// unterminated string), a string longer than 1024 bytes, or a second `"id"` member.
    Unusable,
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Before the first `{`; `bom` while a BOM may still come.
    Start { bom: bool },
    /// `n` bytes of a UTF-8 BOM seen.
    Bom(u8),
    /// Directly inside the outermost object, between tokens.
    Top(Top),
    /// In a top-level key.
    Key,
    /// In the string value of the first id member.
    IdStr,
    /// In the scalar value of the first id member.
    IdNum,
    /// In any other string.
    Str,
    /// Inside an object or array nested in the outermost object, between strings.
    Nested,
    /// Not an object, or the outermost object closed: the rest is ignored.
    Done,
}

impl Default for State {
    fn default() -> Self {
        State::Start { bom: true }
    }
}

/// Where we stand among the members of the outermost object.
#[derive(Debug, Clone, Copy)]
enum Top {
    /// After `{` or `,`.
    Key,
    /// After a key; `id` if it was the first id member.
    Colon { id: bool },
    /// After `:`.
    Value { id: bool },
    /// After a value (or after something malformed): waiting for `,` or `}`.
    After,
}

impl IdScan {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the line (without the final newline). Any chunking gives the same result.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let rest = &bytes[i..];
            match self.state {
                State::Done => return,
                // Fast paths: nothing but the next quote or backslash matters here.
                State::Str | State::Key | State::IdStr
                    if !self.esc && (matches!(self.state, State::Str) || self.dec.bad) =>
                {
                    match find(rest, |b| b == b'"' || b == b'\\') {
                        Some(p) => i += p,
                        None => return,
                    }
                }
                State::Nested => {
                    match find(rest, |b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']')) {
                        Some(p) => i += p,
                        None => return,
                    }
                }
                _ => {}
            }
            self.step(bytes[i]);
            i += 1;
        }
    }

    /// What was found once the line ended (at its newline, or cut by EOF).
    pub(crate) fn finish(&self) -> Scanned {
        let id = match (self.ids, &self.id) {
            (0, _) => FoundId::Absent,
            (1, Some(id)) => id.clone(),
            _ => FoundId::Unusable,
        };
        Scanned {
            id,
            object: self.object,
            method: self.method,
        }
    }

    fn step(&mut self, b: u8) {
        match self.state {
            State::Start { bom } => match b {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                0xEF if bom => self.state = State::Bom(1),
                b'{' => {
                    self.object = true;
                    self.depth = 1;
                    self.state = State::Top(Top::Key);
                }
                _ => self.state = State::Done,
            },
            State::Bom(n) => {
                self.state = match (n, b) {
                    (1, 0xBB) => State::Bom(2),
                    (2, 0xBF) => State::Start { bom: false },
                    _ => State::Done,
                }
            }
            State::Top(top) => self.top(top, b),
            State::Key | State::IdStr | State::Str => {
                if self.esc {
                    self.esc = false;
                } else if b == b'"' {
                    self.end_string();
                    return;
                } else if b == b'\\' {
                    self.esc = true;
                }
                if !matches!(self.state, State::Str) {
                    self.dec.push(b);
                }
            }
            State::IdNum => match b {
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'}' => {
                    if let Some(n) = parse_i64(&self.num) {
                        self.id = Some(FoundId::Number(n));
                    }
                    self.top(Top::After, b);
                }
                // Malformed: the id stays unusable.
                b']' | b'{' | b'[' | b'"' | b':' => self.top(Top::After, b),
                _ => {
                    if self.num.len() < NUM_CAP {
                        self.num.push(b);
                    }
                }
            },
            State::Nested => match b {
                b'"' => {
                    self.esc = false;
                    self.state = State::Str;
                }
                b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth <= 1 {
                        self.state = State::Top(Top::After);
                    }
                }
                _ => {}
            },
            State::Done => {}
        }
    }

    /// One byte directly inside the outermost object, outside any string.
    fn top(&mut self, top: Top, b: u8) {
        self.state = match (b, top) {
            (b' ' | b'\t' | b'\r' | b'\n', _) => State::Top(top),
            (b'"', _) => {
                self.esc = false;
                match top {
                    Top::Key => {
                        self.dec.start(KEY_CAP);
                        State::Key
                    }
                    Top::Value { id: true } => {
                        self.dec.start(ID_CAP);
                        State::IdStr
                    }
                    _ => State::Str,
                }
            }
            (b'{' | b'[', _) => {
                self.depth = self.depth.saturating_add(1);
                State::Nested
            }
            (b'}' | b']', _) => {
                self.depth = 0;
                State::Done
            }
            (b',', _) => State::Top(Top::Key),
            (b':', Top::Colon { id }) => State::Top(Top::Value { id }),
            (_, Top::Value { id: true }) => {
                self.num.clear();
                self.num.push(b);
                State::IdNum
            }
            _ => State::Top(Top::After),
        }
    }

    /// The closing quote of the current string.
    fn end_string(&mut self) {
        self.state = match self.state {
            State::Key => {
                let key = self.dec.done();
                if key == Some(b"method") {
                    self.method = true;
                }
                let id = key == Some(b"id");
                if id {
                    self.ids = self.ids.saturating_add(1);
                    if self.ids == 1 {
                        self.id = Some(FoundId::Unusable);
                    }
                }
                State::Top(Top::Colon {
                    id: id && self.ids == 1,
                })
            }
            State::IdStr => {
                if let Some(s) = self.dec.done().and_then(|b| std::str::from_utf8(b).ok()) {
                    self.id = Some(FoundId::String(s.to_owned()));
                }
                State::Top(Top::After)
            }
            _ if self.depth >= 2 => State::Nested,
            _ => State::Top(Top::After),
        }
    }
}

/// An id number is usable only as `-?(0|[1-9][0-9]*)` within i64.
fn parse_i64(text: &[u8]) -> Option<i64> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let ok = match digits {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !ok {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Index of the first byte for which `hit` holds: a few bytes one by one (structure is often
/// dense), then 32 bytes at a time.
#[inline]
fn find(hay: &[u8], hit: impl Fn(u8) -> bool + Copy) -> Option<usize> {
    const NEAR: usize = 16;
    let (near, far) = hay.split_at(hay.len().min(NEAR));
    if let Some(p) = near.iter().position(|&b| hit(b)) {
        return Some(p);
    }
    let (blocks, tail) = far.as_chunks::<32>();
    for (n, block) in blocks.iter().enumerate() {
        // No early exit inside a block, so this compiles to vector compares.
        if block.iter().fold(false, |acc, &b| acc | hit(b)) {
            return block
                .iter()
                .position(|&b| hit(b))
                .map(|p| NEAR + n * 32 + p);
        }
    }
    tail.iter()
        .position(|&b| hit(b))
        .map(|p| NEAR + blocks.len() * 32 + p)
}

/// Decodes the contents of a JSON string (the bytes between its quotes), byte by byte, into at
/// most `cap` bytes. Anything invalid or too long sets `bad`; the caller still finds the
/// string's end itself.
#[derive(Default)]
struct Decoder {
    out: Vec<u8>,
    cap: usize,
    esc: Esc,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    bad: bool,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Esc {
    #[default]
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and `n` hex digits making `acc`.
    Hex {
        n: u8,
        acc: u16,
    },
    /// After a high surrogate escape: `\u` of the low half must follow.
    LowBackslash,
    LowU,
}

impl Decoder {
    fn start(&mut self, cap: usize) {
        self.out.clear();
        self.cap = cap;
        self.esc = Esc::None;
        self.high = None;
        self.bad = false;
    }

    fn push(&mut self, b: u8) {
        if self.bad {
            return;
        }
        match self.esc {
            Esc::None => match b {
                b'\\' => self.esc = Esc::Backslash,
                0..=0x1F => self.bad = true,
                _ => self.put(&[b]),
            },
            Esc::Backslash => {
                self.esc = Esc::None;
                let c = match b {
                    b'"' | b'\\' | b'/' => b,
                    b'b' => 0x08,
                    b'f' => 0x0C,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'u' => {
                        self.esc = Esc::Hex { n: 0, acc: 0 };
                        return;
                    }
                    _ => {
                        self.bad = true;
                        return;
                    }
                };
                self.put(&[c]);
            }
            Esc::Hex { n, acc } => {
                let Some(d) = (b as char).to_digit(16) else {
                    self.bad = true;
                    return;
                };
                // Four hex digits fit a u16 exactly.
                let acc = (acc << 4) | d as u16;
                if n < 3 {
                    self.esc = Esc::Hex { n: n + 1, acc };
                } else {
                    self.esc = Esc::None;
                    self.unit(acc);
                }
            }
            Esc::LowBackslash if b == b'\\' => self.esc = Esc::LowU,
            Esc::LowU if b == b'u' => self.esc = Esc::Hex { n: 0, acc: 0 },
            Esc::LowBackslash | Esc::LowU => self.bad = true,
        }
    }

    /// One UTF-16 code unit from a `\u` escape.
    fn unit(&mut self, u: u16) {
        let c = match (self.high.take(), u) {
            (None, 0xD800..=0xDBFF) => {
                self.high = Some(u);
                self.esc = Esc::LowBackslash;
                return;
            }
            (Some(h), 0xDC00..=0xDFFF) => {
                0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(u) - 0xDC00)
            }
            (None, _) => u32::from(u),
            (Some(_), _) => {
                self.bad = true;
                return;
            }
        };
        match char::from_u32(c) {
            Some(c) => self.put(c.encode_utf8(&mut [0; 4]).as_bytes()),
            // A lone low surrogate.
            None => self.bad = true,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        if self.out.len() + bytes.len() > self.cap {
            self.bad = true;
        } else {
            self.out.extend_from_slice(bytes);
        }
    }

    /// The decoded bytes, if the string was valid, complete and within the cap. UTF-8 is not
    /// checked here.
    fn done(&self) -> Option<&[u8]> {
        (!self.bad && self.esc == Esc::None).then_some(&self.out[..])
    }
}

#[cfg(test)]
mod tests;
