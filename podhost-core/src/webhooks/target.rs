//! Which URLs and addresses webhooks may be sent to.
//!
//! A subscriber's URL must be `http` or `https` with a host and no user name or password. By
//! default a deployment refuses targets on loopback, private, shared (CGNAT), link-local,
//! unique-local, multicast, reserved and documentation addresses and the cloud metadata
//! addresses, so that a subscription cannot make the server reach into its own network
//! (server-side request forgery). [`check_url`] checks what the URL itself says (a literal
//! address, `localhost`); the sender checks every address a host name resolves to with
//! [`is_forbidden`] and connects only to checked addresses. A deployment that delivers to its
//! own network (and the tests, which need loopback) allows private targets.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// Checks a subscriber's URL: `http` or `https`, a host, no user name or password, and unless
/// `allow_private`, neither a forbidden literal address ([`is_forbidden`]) nor `localhost` or a
/// name under `.localhost`. The error is a sentence for the subscriber (a 422 answer).
///
/// Host names are checked again when sending, on the addresses they resolve to.
pub fn check_url(url: &str, allow_private: bool) -> Result<(), String> {
    check_target(
        url,
        allow_private,
        "which this deployment does not deliver webhooks to",
    )
}

/// [`check_url`] for a URL podhost fetches (an imported feed, its files): the same rules, with
/// `why` ending the refusal ("which this deployment does not fetch from").
pub fn check_fetch_url(url: &str, allow_private: bool) -> Result<(), String> {
    check_target(
        url,
        allow_private,
        "which this deployment does not fetch from",
    )
}

fn check_target(url: &str, allow_private: bool, why: &str) -> Result<(), String> {
    let parsed = Url::parse(url.trim()).map_err(|e| format!("the URL is not valid ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "the URL must be http or https, not {}",
            parsed.scheme()
        ));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("the URL must not contain a user name or password".to_owned());
    }
    let host = parsed
        .host()
        .ok_or_else(|| "the URL must name a host".to_owned())?;
    if allow_private {
        return Ok(());
    }
    let refused = |what: &str| Err(format!("the URL points at {what}, {why}"));
    match host {
        Host::Ipv4(ip) if is_forbidden(IpAddr::V4(ip)) => refused(&format!(
            "{ip}, a loopback, private, link-local or reserved address"
        )),
        Host::Ipv6(ip) if is_forbidden(IpAddr::V6(ip)) => refused(&format!(
            "{ip}, a loopback, private, link-local or reserved address"
        )),
        Host::Domain(name) if is_localhost(name) => refused(&format!("{name}, this machine")),
        _ => Ok(()),
    }
}

/// Whether `name` (lowercase, as the URL parser gives it) is `localhost` or under it
/// (RFC 6761), with or without the trailing dot.
fn is_localhost(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    name == "localhost" || name.ends_with(".localhost")
}

/// Whether a webhook may not be sent to `ip` unless the deployment allows private targets:
/// unspecified, loopback, private, shared (CGNAT), link-local, unique-local, multicast,
/// broadcast, reserved, benchmarking and documentation ranges, the cloud metadata addresses
/// (169.254.169.254, fd00:ec2::254, 100.100.100.200 are inside those ranges), IPv6 outside
/// global unicast (2000::/3), Teredo, and IPv6 addresses that carry an IPv4 address
/// (IPv4-mapped, IPv4-compatible, NAT64, 6to4) of any of these.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

/// Whether `ip` lies in `net`/`len`.
fn in_v4(ip: Ipv4Addr, net: [u8; 4], len: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn forbidden_v4(ip: Ipv4Addr) -> bool {
    const RANGES: &[([u8; 4], u32)] = &[
        ([0, 0, 0, 0], 8),       // "this network", unspecified
        ([10, 0, 0, 0], 8),      // private
        ([100, 64, 0, 0], 10),   // shared address space (CGNAT), 100.100.100.200 (metadata)
        ([127, 0, 0, 0], 8),     // loopback
        ([169, 254, 0, 0], 16),  // link-local, 169.254.169.254 (metadata)
        ([172, 16, 0, 0], 12),   // private
        ([192, 0, 0, 0], 24),    // IETF protocol assignments
        ([192, 0, 2, 0], 24),    // documentation (TEST-NET-1)
        ([192, 88, 99, 0], 24),  // 6to4 relay anycast
        ([192, 168, 0, 0], 16),  // private
        ([198, 18, 0, 0], 15),   // benchmarking
        ([198, 51, 100, 0], 24), // documentation (TEST-NET-2)
        ([203, 0, 113, 0], 24),  // documentation (TEST-NET-3)
        ([224, 0, 0, 0], 4),     // multicast
        ([240, 0, 0, 0], 4),     // reserved, 255.255.255.255 (broadcast)
    ];
    RANGES.iter().any(|&(net, len)| in_v4(ip, net, len))
}

/// Whether `ip` lies in `net`/`len`.
fn in_v6(ip: Ipv6Addr, net: [u16; 8], len: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - len).unwrap_or(0);
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

fn forbidden_v6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    // An IPv4 address inside: IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d (which
    // covers :: and ::1 as 0.0.0.0 and 0.0.0.1), NAT64 64:ff9b::a.b.c.d.
    if in_v6(ip, [0, 0, 0, 0, 0, 0xffff, 0, 0], 96)
        || in_v6(ip, [0; 8], 96)
        || in_v6(ip, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96)
    {
        return forbidden_v4(Ipv4Addr::from(bits as u32));
    }
    // 6to4: 2002:a.b.c.d::/48 reaches a.b.c.d.
    if in_v6(ip, [0x2002, 0, 0, 0, 0, 0, 0, 0], 16) {
        return forbidden_v4(Ipv4Addr::from((bits >> 80) as u32));
    }
    // Outside global unicast (2000::/3): unspecified, loopback, unique-local fc00::/7 (with
    // fd00:ec2::254, a metadata address), link-local fe80::/10, multicast ff00::/8,
    // discard-only, local-use NAT64, and what is not allocated.
    if !in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        return true;
    }
    const RANGES: &[([u16; 8], u32)] = &[
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 32),     // Teredo
        ([0x2001, 2, 0, 0, 0, 0, 0, 0], 48),     // benchmarking
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), // documentation
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20),     // documentation
    ];
    RANGES.iter().any(|&(net, len)| in_v6(ip, net, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_addresses() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.100.100.200",
            "100.127.255.255",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.0.1",
            "192.168.255.255",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "100::1",
            "2001::1",
            "2001:2::1",
            "2001:db8::1",
            "3fff::1",
            "fc00::1",
            "fd00:ec2::254",
            "fdff:ffff::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "fbff::1",
            "fe00::1",
            "4000::1",
        ] {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(is_forbidden(parsed), "{ip} should be forbidden");
        }
    }

    #[test]
    fn public_addresses() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "126.255.255.255",
            "128.0.0.1",
            "169.253.255.255",
            "169.255.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.1.1",
            "192.167.255.255",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "203.0.114.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "2a00:1450:4001::1",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(!is_forbidden(parsed), "{ip} should be allowed");
        }
    }

    #[test]
    fn urls() {
        let ok = |url: &str, allow_private: bool| check_url(url, allow_private);
        for url in [
            "https://example.com/hooks",
            "http://example.com:8080/hooks?x=1",
            "https://8.8.8.8/",
            "https://[2606:4700:4700::1111]/",
            "https://localhost.example.com/",
            "https://example.com/#fragment",
        ] {
            assert_eq!(ok(url, false), Ok(()), "{url}");
            assert_eq!(ok(url, true), Ok(()), "{url}");
        }
        // Refused unless the deployment allows private targets.
        for url in [
            "http://127.0.0.1:8080/",
            "http://localhost/",
            "http://LOCALHOST./",
            "http://api.localhost/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://10.1.2.3/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[fd00:ec2::254]/",
            "http://100.100.100.200/",
            "http://0.0.0.0/",
            // Other spellings of 127.0.0.1, normalised by the URL parser.
            "http://2130706433/",
            "http://0x7f.1/",
            "http://127.1/",
        ] {
            let refused = ok(url, false).unwrap_err();
            assert!(
                refused.contains("does not deliver webhooks to"),
                "{url}: {refused}"
            );
            assert_eq!(ok(url, true), Ok(()), "{url}");
        }
        // Refused always.
        for (url, says) in [
            ("ftp://example.com/", "http or https"),
            ("file:///etc/passwd", "http or https"),
            ("javascript:alert(1)", "http or https"),
            ("https://user:pw@example.com/", "user name or password"),
            ("http://user@127.0.0.1/", "user name or password"),
            ("https://:pw@example.com/", "user name or password"),
            ("example.com/hooks", "not valid"),
            ("", "not valid"),
            ("https://", "not valid"),
            ("http://exa mple.com/", "not valid"),
        ] {
            for allow_private in [false, true] {
                let refused = ok(url, allow_private).unwrap_err();
                assert!(refused.contains(says), "{url}: {refused}");
            }
        }
    }
}
