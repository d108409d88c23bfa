//! ID3v2 tag headers: recognising one and computing how many bytes the whole tag occupies.

/// Length of an ID3v2 header (and of its optional footer).
pub(crate) const HEADER_LEN: usize = 10;

/// If `b` starts with an ID3v2 header, returns the total tag length in bytes: header, body and
/// the footer when the footer flag is set. The size field is a 28-bit "syncsafe" integer, so the
/// result is at most 256 MiB + 20 bytes whatever the input.
pub(crate) fn tag_len(b: &[u8]) -> Option<u64> {
    let h: &[u8; HEADER_LEN] = b.get(..HEADER_LEN)?.try_into().ok()?;
    let [i, d, three, major, minor, flags, s0, s1, s2, s3] = *h;
    if [i, d, three] != *b"ID3" || major == 0xFF || minor == 0xFF {
        return None;
    }
    if [s0, s1, s2, s3].iter().any(|&s| s & 0x80 != 0) {
        return None;
    }
    let size = (u64::from(s0) << 21) | (u64::from(s1) << 14) | (u64::from(s2) << 7) | u64::from(s3);
    let footer = if major >= 4 && flags & 0x10 != 0 {
        HEADER_LEN as u64
    } else {
        0
    };
    Some(HEADER_LEN as u64 + size + footer)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(tag_len(b"ID3\x04\x00\x00\x00\x00\x01\x7f"), Some(10 + 255));
        assert_eq!(tag_len(b"ID3\x04\x00\x10\x00\x00\x00\x05"), Some(25));
        assert_eq!(tag_len(b"ID3\x03\x00\x10\x00\x00\x00\x05"), Some(15));
        assert_eq!(
            tag_len(b"ID3\x04\x00\x00\x7f\x7f\x7f\x7f"),
            Some(10 + (1 << 28) - 1)
        );
        assert_eq!(tag_len(b"ID3\x04\x00\x00\x80\x00\x00\x00"), None);
        assert_eq!(tag_len(b"ID3\x04\x00"), None);
        assert_eq!(tag_len(b"XYZ\x04\x00\x00\x00\x00\x00\x00"), None);
    }
}
