//! ISO base media (MP4/M4A) boxes: the boxes of a byte slice, and how many bytes the media data
//! (`mdat`) of a stored file holds.

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

/// Most top-level boxes walked before giving up.
const MAX_BOXES: usize = 256;

/// Sums the payload sizes of the top-level `mdat` boxes of the ISO base media file at
/// `[base, size)` of the object, reading only box headers (from `head`, the object's first
/// bytes, when they cover them). `None` when the box structure is broken or has no `mdat`.
pub(crate) async fn media_data_len(
    store: &dyn ObjectStore,
    location: &Path,
    head: &[u8],
    base: u64,
    size: u64,
) -> Option<u64> {
    let mut at = base;
    let mut total: Option<u64> = None;
    for _ in 0..MAX_BOXES {
        if size.saturating_sub(at) < 8 {
            break;
        }
        let end = at.saturating_add(16).min(size);
        let header = match usize::try_from(at)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, e)| head.get(a..e))
        {
            Some(h) => h.to_vec(),
            None => store.get_range(location, at..end).await.ok()?.to_vec(),
        };
        let word = |i: usize| -> Option<u64> {
            let quad: [u8; 4] = header.get(i..i + 4)?.try_into().ok()?;
            Some(u64::from(u32::from_be_bytes(quad)))
        };
        let size32 = word(0)?;
        let kind = header.get(4..8)?;
        let (box_len, header_len) = match size32 {
            0 => (size - at, 8),
            1 => ((word(8)? << 32) | word(12)?, 16),
            n => (n, 8),
        };
        if box_len < header_len {
            return None;
        }
        if kind == b"mdat" {
            let payload = box_len.min(size - at).saturating_sub(header_len);
            total = Some(total.unwrap_or(0).saturating_add(payload));
        }
        at = at.saturating_add(box_len);
    }
    total
}

/// A box found in a byte slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BoxAt {
    /// Its four letters.
    pub kind: [u8; 4],
    /// Where it starts in the slice.
    pub start: usize,
    /// Its length, header included.
    pub len: usize,
    /// Its header's length (8, or 16 with a 64-bit size).
    pub header: usize,
}

impl BoxAt {
    /// Its bytes in `bytes` (the slice it was found in).
    pub fn bytes<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.start..self.start + self.len]
    }

    /// Its body (after the header) in `bytes`.
    pub fn body<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.start + self.header..self.start + self.len]
    }
}

/// The boxes of `bytes`, one after another from its start (the top level of a file, or a
/// container's body); stops at the first that is broken or runs past the end.
pub(crate) fn boxes(bytes: &[u8]) -> impl Iterator<Item = BoxAt> + '_ {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let header = bytes.get(at..at.checked_add(8)?)?;
        let kind: [u8; 4] = header[4..8].try_into().ok()?;
        let (len, header) = match u32::from_be_bytes(header[..4].try_into().ok()?) {
            0 => (bytes.len() - at, 8),
            1 => (
                usize::try_from(u64::from_be_bytes(
                    bytes.get(at + 8..at + 16)?.try_into().ok()?,
                ))
                .ok()?,
                16,
            ),
            n => (n as usize, 8),
        };
        if len < header || at.checked_add(len)? > bytes.len() {
            return None;
        }
        let found = BoxAt {
            kind,
            start: at,
            len,
            header,
        };
        at += len;
        Some(found)
    })
}
