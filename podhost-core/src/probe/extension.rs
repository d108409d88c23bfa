//! A file name's extension, as the sniffing reads it.

/// The lowercase extension of a file name ("" when there is none or it looks unreasonable).
pub(crate) fn extension_of(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or_default();
    match base.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && !ext.is_empty()
                && ext.len() <= 16
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            ext.to_ascii_lowercase()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        assert_eq!(extension_of("Episode 1.MP3"), "mp3");
        assert_eq!(extension_of("dir.d/file"), "");
        assert_eq!(extension_of(".bashrc"), "");
        assert_eq!(extension_of("a.tar.gz"), "gz");
        assert_eq!(extension_of("weird.ex t"), "");
        assert_eq!(extension_of(""), "");
    }
}
