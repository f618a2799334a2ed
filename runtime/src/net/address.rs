//! Which addresses a fetch may reach: public ones, and any address of a host allowed by
//! name; the resolver that holds the connections to it.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Whether `ip` is a public address: not loopback, private, link-local (where cloud
/// metadata services live), shared (carrier-grade NAT), documentation, benchmarking,
/// multicast, unspecified or reserved; an IPv4-mapped or IPv4-compatible IPv6 address is
/// judged as never public or as its IPv4 address.
///
/// ```
/// use toolsmith::net::is_public;
///
/// assert!(is_public("93.184.216.34".parse().unwrap()));
/// assert!(is_public("2606:4700:4700::1111".parse().unwrap()));
/// for inside in ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "fd00::1", "::ffff:192.168.1.1"] {
///     assert!(!is_public(inside.parse().unwrap()), "{inside}");
/// }
/// ```
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // shared (carrier-grade NAT)
                || (a == 192 && b == 0) // IETF protocol assignments
                || (a == 198 && (b == 18 || b == 19)) // benchmarking
                || a >= 240) // reserved
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let segments = v6.segments();
            // The deprecated IPv4-compatible range (`::a.b.c.d`, ::/96, RFC 4291 §2.5.5.1),
            // with :: and ::1: never a public address to fetch from.
            if segments[..6] == [0; 6] {
                return false;
            }
            let first = segments[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || first == 0x2001 && segments[1] == 0x0db8 // documentation
                || first == 0x0064 && segments[1] == 0xff9b) // NAT64
        }
    }
}

/// A host as the allow list and the checks compare it: without an IPv6 literal's brackets.
fn bare(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Whether `host` (as it appears in a URL) is in `allow` (names or IP addresses, compared
/// without case and without an IPv6 literal's brackets).
pub(super) fn allowed(allow: &[String], host: &str) -> bool {
    let host = bare(host);
    allow.iter().any(|a| bare(a).eq_ignore_ascii_case(host))
}

/// Whether `host` is an IP address literal that is neither public nor allowed: a
/// connection to it is refused before it is made (a literal is never resolved).
pub(super) fn refused_literal(allow: &[String], host: &str) -> bool {
    bare(host)
        .parse::<IpAddr>()
        .is_ok_and(|ip| !is_public(ip) && !allowed(allow, host))
}

/// What the resolver answers for a name with no public address: found in the transport
/// error's sources, it becomes [`FetchError::NotPublic`](super::FetchError::NotPublic).
#[derive(Debug)]
pub(super) struct Refused(pub(super) String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} has no public address", self.0)
    }
}

impl std::error::Error for Refused {}

/// The resolver of the guarded client's connections: a name resolves to its public
/// addresses only (to all of them for an allowed host); none left is a [`Refused`]. The
/// check is on the addresses the connection uses, so a name that resolves to a public
/// address when checked and a private one when connecting cannot slip through.
pub(super) struct PublicOnly {
    pub(super) allow: Arc<Vec<String>>,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let all = allowed(&allow, &host);
            let kept: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|addr| all || is_public(addr.ip()))
                .collect();
            if kept.is_empty() {
                return Err(Box::new(Refused(host)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_pass() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "2001:db8::1",
            "64:ff9b::a00:1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "::10.0.0.1",
            "::8.8.8.8",
            "::",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for open in [
            "93.184.216.34",
            "1.1.1.1",
            "100.128.0.1",
            "::ffff:1.1.1.1",
            "2606:4700:4700::1111",
        ] {
            assert!(is_public(open.parse().unwrap()), "{open}");
        }
    }

    #[test]
    fn a_literal_is_refused_unless_public_or_allowed() {
        let allow = vec!["127.0.0.1".to_owned(), "[::1]".to_owned()];
        assert!(!refused_literal(&allow, "127.0.0.1"));
        assert!(!refused_literal(&allow, "[::1]"));
        assert!(refused_literal(&allow, "10.0.0.1"));
        assert!(refused_literal(&[], "[fe80::1]"));
        assert!(!refused_literal(&[], "1.1.1.1"));
        assert!(
            !refused_literal(&[], "localhost"),
            "a name is checked when resolved"
        );
        assert!(allowed(&["LocalHost".to_owned()], "localhost"));
    }
}
