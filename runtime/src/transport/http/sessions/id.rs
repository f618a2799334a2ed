//! Random ids: a session's, and a replica's (`shared.rs`).

/// A new session id: a random UUID (version 4), as rmcp's own.
pub(super) fn new_id() -> String {
    let mut bytes = [0u8; 16];
    // The system's generator; it does not fail on the systems served (a failure leaves a
    // predictable id, so it is fatal rather than silent).
    getrandom::fill(&mut bytes).expect("the system's random generator is available");
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = |range: std::ops::Range<usize>| {
        bytes[range]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    format!(
        "{}-{}-{}-{}-{}",
        hex(0..4),
        hex(4..6),
        hex(6..8),
        hex(8..10),
        hex(10..16)
    )
}

#[cfg(test)]
mod tests {
    use super::new_id;

    #[test]
    fn ids_are_random_uuids() {
        let (a, b) = (new_id(), new_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4", "version 4: {a}");
        assert_eq!(a.matches('-').count(), 4);
    }
}
