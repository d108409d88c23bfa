//! Image dimensions from the first bytes of an image file.

use super::facts::ImageFacts;

/// Pixel size of the image whose first bytes are `bytes` (PNG, JPEG, GIF, WebP, BMP, TIFF,
/// HEIF/AVIF, ICO, ...), if its header is complete within them.
pub(crate) fn dimensions(bytes: &[u8]) -> Option<ImageFacts> {
    let size = imagesize::blob_size(bytes).ok()?;
    let width = u32::try_from(size.width).ok()?;
    let height = u32::try_from(size.height).ok()?;
    (width > 0 && height > 0).then_some(ImageFacts { width, height })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_has_no_size() {
        assert_eq!(dimensions(b""), None);
        assert_eq!(dimensions(b"\x89PNG\r\n\x1a\n"), None);
        assert_eq!(dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]), None);
    }
}
