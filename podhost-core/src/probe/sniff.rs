//! The upload-time sniffer: sees every byte once as it streams by, in constant memory.

use super::id3;
use super::magic;
use super::scan::{FrameScanner, ScanResult};

/// Bytes of the start of the stream kept for content detection.
pub(crate) const HEAD_LEN: usize = 64 * 1024;

/// Bytes kept from just after a leading ID3v2 tag (which may be larger than the head).
pub(crate) const AFTER_TAG_LEN: usize = 4 * 1024;

/// Where the sniffer is at the start of the stream.
#[derive(Clone, Debug)]
enum Lead {
    /// Collecting the first bytes at `lead_start` to look for an ID3v2 header or a magic number.
    Header(Vec<u8>),
    /// Skipping the rest of an ID3v2 tag: bytes still to skip.
    Skip(u64),
    /// Past any leading tags: bytes go to the frame scanner.
    Body,
}

/// Incremental sniffer fed every chunk of an upload as it streams by (any chunk boundaries).
///
/// Keeps the first 64 KiB and, when the head looks like MPEG audio or ADTS AAC (optionally after
/// one or more ID3v2 tags, which are skipped whatever their size), runs a frame-header scanner
/// over the whole stream in constant memory to count frames and samples exactly. Memory use is
/// bounded (about 200 KiB) whatever is fed.
#[derive(Clone, Debug)]
pub struct Sniffer {
    head: Vec<u8>,
    len: u64,
    lead: Lead,
    /// Stream offset where the current `Lead::Header` collection (or skip target) starts.
    lead_start: u64,
    /// Number of leading ID3v2 tags seen.
    tags: u32,
    after_tag: Vec<u8>,
    scanner: FrameScanner,
}

impl Default for Sniffer {
    fn default() -> Self {
        Self::new()
    }
}

impl Sniffer {
    /// A sniffer for a new stream.
    pub fn new() -> Self {
        Sniffer {
            head: Vec::new(),
            len: 0,
            lead: Lead::Header(Vec::with_capacity(magic::MAGIC_LEN)),
            lead_start: 0,
            tags: 0,
            after_tag: Vec::new(),
            scanner: FrameScanner::new(),
        }
    }

    /// Feeds the next chunk of the stream (any size, including empty).
    pub fn update(&mut self, chunk: &[u8]) {
        self.len = self.len.saturating_add(chunk.len() as u64);
        if self.head.len() < HEAD_LEN {
            let take = (HEAD_LEN - self.head.len()).min(chunk.len());
            self.head
                .extend_from_slice(chunk.get(..take).unwrap_or_default());
        }
        let mut data = chunk;
        while !data.is_empty() {
            match &mut self.lead {
                Lead::Skip(remaining) => {
                    let n = usize::try_from(*remaining).map_or(data.len(), |r| r.min(data.len()));
                    *remaining -= n as u64;
                    data = data.get(n..).unwrap_or_default();
                    if *remaining == 0 {
                        self.lead = Lead::Header(Vec::with_capacity(magic::MAGIC_LEN));
                    }
                }
                Lead::Header(hdr) => {
                    // First exactly an ID3v2 header's worth, then up to the magic length.
                    let want = if hdr.len() < id3::HEADER_LEN {
                        id3::HEADER_LEN
                    } else {
                        magic::MAGIC_LEN
                    };
                    let n = (want - hdr.len()).min(data.len());
                    let (now, later) = data.split_at(n);
                    hdr.extend_from_slice(now);
                    data = later;
                    let tag = if hdr.len() == id3::HEADER_LEN {
                        id3::tag_len(hdr)
                    } else {
                        None
                    };
                    if let Some(total) = tag {
                        self.tags = self.tags.saturating_add(1);
                        self.lead_start = self.lead_start.saturating_add(total);
                        self.lead = Lead::Skip(total - id3::HEADER_LEN as u64);
                    } else if hdr.len() == magic::MAGIC_LEN {
                        let hdr = std::mem::take(hdr);
                        self.start_body(&hdr);
                    }
                }
                Lead::Body => {
                    self.feed_body(data);
                    data = &[];
                }
            }
        }
    }

    /// Ends the stream.
    pub fn finish(mut self) -> Sniffed {
        if let Lead::Header(hdr) = &mut self.lead {
            let hdr = std::mem::take(hdr);
            self.start_body(&hdr);
        }
        let tag_end = if self.tags > 0 { self.lead_start } else { 0 };
        Sniffed {
            head: self.head,
            len: self.len,
            tag_end,
            after_tag: self.after_tag,
            scan: self.scanner.finish(),
        }
    }

    fn start_body(&mut self, hdr: &[u8]) {
        self.lead = Lead::Body;
        if magic::is_container(hdr) {
            self.scanner = FrameScanner::disabled();
        }
        self.feed_body(hdr);
    }

    fn feed_body(&mut self, data: &[u8]) {
        if self.tags > 0 && self.after_tag.len() < AFTER_TAG_LEN {
            let take = (AFTER_TAG_LEN - self.after_tag.len()).min(data.len());
            self.after_tag
                .extend_from_slice(data.get(..take).unwrap_or_default());
        }
        if !self.scanner.is_disabled() {
            self.scanner.update(data);
        }
    }
}

/// Result of sniffing: the head bytes, total length, and the frame scan when one ran.
#[derive(Clone, Debug)]
pub struct Sniffed {
    head: Vec<u8>,
    len: u64,
    /// Offset just past the leading ID3v2 tag(s) as declared (may exceed `len`); 0 if none.
    tag_end: u64,
    after_tag: Vec<u8>,
    scan: Option<ScanResult>,
}

impl Sniffed {
    /// Total number of bytes fed to the sniffer.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no bytes at all were fed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first bytes of the stream (up to 64 KiB).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Offset just past the leading ID3v2 tag(s), clamped to the stream length; 0 if none.
    pub(crate) fn tag_end(&self) -> u64 {
        self.tag_end.min(self.len)
    }

    /// Up to [`AFTER_TAG_LEN`] bytes starting at [`Sniffed::tag_end`] (whether or not they are in
    /// the head); empty when there was no leading tag.
    pub(crate) fn body_start(&self) -> &[u8] {
        if self.tag_end == 0 {
            return &self.head;
        }
        if !self.after_tag.is_empty() {
            return &self.after_tag;
        }
        usize::try_from(self.tag_end)
            .ok()
            .and_then(|at| self.head.get(at..))
            .unwrap_or_default()
    }

    /// The frame scan, when the stream locked as MPEG audio or ADTS.
    pub(crate) fn scan(&self) -> Option<&ScanResult> {
        self.scan.as_ref()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn frames(n: usize) -> Vec<u8> {
        let mut one = vec![0u8; 417];
        one[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x64]);
        one.repeat(n)
    }

    fn sniff(data: &[u8], chunk: usize) -> Sniffed {
        let mut s = Sniffer::new();
        for c in data.chunks(chunk) {
            s.update(c);
        }
        s.finish()
    }

    #[test]
    fn skips_chained_id3_tags_with_footer() {
        // ID3v2.4 with the footer flag: 10 + 20 + 10 bytes; then an ID3v2.3 tag of 10 + 5.
        let mut data = b"ID3\x04\x00\x10\x00\x00\x00\x14".to_vec();
        data.extend([0xFF; 20]);
        data.extend(b"3DI\x04\x00\x10\x00\x00\x00\x14");
        data.extend(b"ID3\x03\x00\x00\x00\x00\x00\x05\xFF\xFB\x90\x64\x00");
        data.extend(frames(8));
        for chunk in [1, 3, 16, 4096] {
            let s = sniff(&data, chunk);
            assert_eq!(s.tag_end(), 55, "chunk {chunk}");
            assert_eq!(s.body_start(), &data[55..]);
            assert_eq!(s.scan().unwrap().frames, 8, "chunk {chunk}");
        }
    }

    #[test]
    fn containers_are_not_scanned() {
        let mut data = b"fLaC".to_vec();
        data.extend(frames(8));
        assert!(sniff(&data, 100).scan().is_none());
        assert!(sniff(&frames(8), 100).scan().is_some());
    }

    #[test]
    fn empty_and_tiny_streams() {
        let s = sniff(&[], 1);
        assert!(s.is_empty() && s.head().is_empty() && s.scan().is_none());
        let s = sniff(b"ID3", 1);
        assert_eq!((s.len(), s.tag_end()), (3, 0));
        let s = sniff(b"ID3\x04\x00\x00\x00\x00\x00\x00", 1);
        assert_eq!(s.tag_end(), 10);
    }
}
