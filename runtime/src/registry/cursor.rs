//! Pagination cursors: an offset and a check value. The check value is a stable hash (64-bit
//! FNV-1a, fixed by this file, not by the Rust version or the process) of the offset, the
//! list it is an offset into (a search's filters, or the server's policy) and a fingerprint
//! of the registry. So every process of one build, with one policy, accepts the cursors of
//! every other (replicas behind a load balancer), and refuses a cursor that was altered, or
//! made for another list or another set of tools, with [`SearchError::InvalidCursor`].
//!
//! A cursor is not a secret and grants nothing: its offset only says where the next page
//! starts, in a list the client may read anyway. The check value keeps a client from
//! continuing a listing where the offsets would mean something else.

use std::hash::{Hash, Hasher};

use crate::tool::ToolInfo;

/// A cursor that was altered, or made for another list or another set of tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InvalidCursor;

/// 64-bit FNV-1a. Integers are hashed as little-endian bytes, so that the value does not
/// depend on the machine either.
pub(crate) struct Stable(u64);

impl Stable {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub(crate) fn new() -> Self {
        Stable(Self::OFFSET_BASIS)
    }

    /// The stable hash of `value`.
    pub(crate) fn hash_one(value: impl Hash) -> u64 {
        let mut hasher = Stable::new();
        value.hash(&mut hasher);
        hasher.finish()
    }
}

impl Hasher for Stable {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u16(&mut self, n: u16) {
        self.write(&n.to_le_bytes());
    }

    fn write_u32(&mut self, n: u32) {
        self.write(&n.to_le_bytes());
    }

    fn write_u64(&mut self, n: u64) {
        self.write(&n.to_le_bytes());
    }

    fn write_u128(&mut self, n: u128) {
        self.write(&n.to_le_bytes());
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// What decides where a tool stands in any list a server gives: its name (lists are sorted
/// by name) and what policies and scopes filter on. A changed description or schema moves
/// no tool, so it does not invalidate the cursors of a rolling deployment; a tool added or
/// removed does (a cursor of the set before is refused).
pub(crate) fn tool_fingerprint(tool: &ToolInfo) -> u64 {
    let mut hasher = Stable::new();
    (
        tool.name(),
        tool.hints(),
        tool.category(),
        tool.tags(),
        tool.header().scopes(),
    )
        .hash(&mut hasher);
    hasher.finish()
}

/// The fingerprint of a set of `count` tools whose [`tool_fingerprint`]s add up (wrapping)
/// to `sum`: independent of order (the lists are sorted by name anyway), so a registry keeps
/// it up to date as a tool is added or removed, without going over the others.
pub(crate) fn fingerprint(count: usize, sum: u64) -> u64 {
    let mut hasher = Stable::new();
    (count, sum).hash(&mut hasher);
    hasher.finish()
}

/// The key every cursor is checked with: the cursor format's version. (What the cursor is
/// of, the list and the set of tools, is in its scope.)
fn key() -> u64 {
    Stable::hash_one("toolsmith cursor v2")
}

/// A scope for cursors of one list: a [`Search`](crate::registry::Search)'s filters, or the server's
/// `tools/list` under its policy. Cursors of one scope are refused in another.
pub(crate) fn scope_of(value: impl Hash) -> u64 {
    Stable::hash_one((key(), value))
}

fn check(scope: u64, offset: usize) -> u64 {
    Stable::hash_one((key(), scope, offset))
}

pub(crate) fn encode_cursor(scope: u64, offset: usize) -> String {
    format!("{offset:x}.{:016x}", check(scope, offset))
}

pub(crate) fn decode_cursor(scope: u64, cursor: &str) -> Result<usize, InvalidCursor> {
    let (offset, mac) = cursor.split_once('.').ok_or(InvalidCursor)?;
    let offset = usize::from_str_radix(offset, 16).map_err(|_| InvalidCursor)?;
    let mac = u64::from_str_radix(mac, 16).map_err(|_| InvalidCursor)?;
    // Only the exact text a server issued is accepted (no leading zeros, no case games).
    if mac != check(scope, offset) || encode_cursor(scope, offset) != cursor {
        return Err(InvalidCursor);
    }
    Ok(offset)
}

/// The page of `items` starting at `start`, and the cursor of the next one.
pub(crate) fn paginate<T: Copy>(
    items: &[T],
    start: usize,
    size: usize,
    scope: u64,
) -> Result<(Vec<T>, Option<String>), InvalidCursor> {
    if start > items.len() {
        return Err(InvalidCursor);
    }
    let end = (start + size).min(items.len());
    let next = (end < items.len()).then(|| encode_cursor(scope, end));
    Ok((items[start..end].to_vec(), next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Policy;

    #[test]
    fn the_hash_is_fnv_1a_of_little_endian_bytes() {
        // The published FNV-1a 64 test vectors.
        let fnv = |bytes: &[u8]| {
            let mut hasher = Stable::new();
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
        // Integers as little-endian bytes, whatever the machine.
        let mut hasher = Stable::new();
        hasher.write_u32(0x0403_0201);
        assert_eq!(hasher.finish(), fnv(&[1, 2, 3, 4]));
        let mut hasher = Stable::new();
        hasher.write_usize(7);
        assert_eq!(hasher.finish(), fnv(&7u64.to_le_bytes()));
    }

    #[test]
    fn a_cursor_depends_on_nothing_but_its_scope_and_offset() {
        // What another process would compute: nothing random goes in.
        let scope = scope_of(("tools/list", &Policy::default()));
        let again = scope_of(("tools/list", &Policy::default()));
        assert_eq!(scope, again);
        let expected = Stable::hash_one((key(), scope, 4usize));
        assert_eq!(encode_cursor(scope, 4), format!("4.{expected:016x}"));
        let read_only = Policy {
            read_only: true,
            ..Policy::default()
        };
        let other = scope_of(("tools/list", &read_only));
        assert_ne!(scope, other, "another policy is another list");
        assert_eq!(
            decode_cursor(other, &encode_cursor(scope, 4)),
            Err(InvalidCursor)
        );
    }

    #[test]
    fn cursors_round_trip_and_refuse_tampering() {
        let cursor = encode_cursor(7, 50);
        assert_eq!(decode_cursor(7, &cursor), Ok(50));
        assert_eq!(decode_cursor(8, &cursor), Err(InvalidCursor));
        let (offset, mac) = cursor.split_once('.').unwrap();
        assert_ne!(offset, "33");
        let forged = format!("33.{mac}");
        assert_eq!(decode_cursor(7, &forged), Err(InvalidCursor));
        let padded = format!("0{cursor}");
        assert_eq!(decode_cursor(7, &padded), Err(InvalidCursor));
        let upper = cursor.to_uppercase();
        if upper != cursor {
            assert_eq!(decode_cursor(7, &upper), Err(InvalidCursor));
        }
        for junk in ["", ".", "zz.zz", "1", "1.2.3", "ffffffffffffffffffff.0"] {
            assert_eq!(decode_cursor(7, junk), Err(InvalidCursor), "{junk:?}");
        }
    }

    #[test]
    fn pages_cover_everything_once() {
        let items: Vec<u32> = (0..7).collect();
        let (first, next) = paginate(&items, 0, 3, 1).unwrap();
        assert_eq!(first, [0, 1, 2]);
        let start = decode_cursor(1, &next.unwrap()).unwrap();
        let (second, next) = paginate(&items, start, 3, 1).unwrap();
        assert_eq!(second, [3, 4, 5]);
        let (last, next) =
            paginate(&items, decode_cursor(1, &next.unwrap()).unwrap(), 3, 1).unwrap();
        assert_eq!((last, next), (vec![6], None));
    }
}
