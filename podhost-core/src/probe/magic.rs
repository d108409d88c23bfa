//! Leading signatures ("magic numbers") of container and file formats that are never MPEG audio.

/// Bytes of a stream's start that [`is_container`] looks at.
pub(crate) const MAGIC_LEN: usize = 16;

/// Whether `b`, the first bytes of a stream, starts with the signature of a container or file
/// format that cannot be a bare MPEG audio or ADTS stream (so no frame scan is needed).
pub(crate) fn is_container(b: &[u8]) -> bool {
    const PREFIXES: &[&[u8]] = &[
        b"fLaC",
        b"OggS",
        b"RIFF",
        b"RF64",
        b"FORM",
        b"%PDF",
        b"\x89PNG",
        b"GIF8",
        b"\x1A\x45\xDF\xA3",
        b"PK\x03\x04",
        b"\xFF\xD8\xFF",
        b"MAC ",
        b"wvpk",
        b"caff",
        b"FLV\x01",
        b"\x00\x00\x01\xBA",
        b"\x00\x00\x01\xB3",
        b"\x30\x26\xB2\x75\x8E\x66\xCF\x11",
    ];
    PREFIXES.iter().any(|p| b.starts_with(p)) || b.get(4..8) == Some(b"ftyp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown() {
        assert!(is_container(b"\0\0\0\x20ftypisom"));
        assert!(is_container(b"fLaC\0\0\0\x22"));
        assert!(!is_container(b"\xFF\xFB\x90\x64"));
        assert!(!is_container(b""));
    }
}
