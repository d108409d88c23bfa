//! Streaming frame scanner: counts the frames of an MPEG audio or ADTS stream in one pass with
//! constant memory, resynchronising on garbage.
//!
//! The scanner is fed the bytes that follow any leading ID3v2 tag. It only trusts a sync after
//! [`CONFIRM_FRAMES`] consecutive, mutually consistent frame headers (same format and sample
//! rate), which keeps stray `0xFF` bytes in cover art or other junk from being counted. Once
//! locked it hops from header to header, skipping frame bodies without buffering them. Trailing
//! ID3v1 (`TAG`), APE or ID3v2 tags break the chain and are ignored like any other garbage.

use super::frame::{self, FrameHeader, MAX_FRAME_LEN, MAX_HEADER_LEN, StreamKind, VbrHeader};

/// Consecutive consistent frames required before a sync is trusted.
pub(crate) const CONFIRM_FRAMES: usize = 4;

/// The first lock must start within this many bytes of the scanned stream, or the stream is
/// declared not to be MPEG audio and scanning stops.
const PROBE_WINDOW: u64 = 64 * 1024;

/// Capacity of the look-ahead buffer; enough to verify a chain of maximum-size frames.
const BUF_CAP: usize = 64 * 1024;

const _: () = assert!(BUF_CAP > CONFIRM_FRAMES * MAX_FRAME_LEN + MAX_HEADER_LEN);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Searching,
    Locked,
    Disabled,
}

enum Chain {
    Confirmed(FrameHeader),
    Rejected,
    NeedMore,
}

/// What a completed scan found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScanResult {
    /// The header of the first frame of the locked stream (format, sample rate, channels).
    pub stream: FrameHeader,
    /// Audio frames counted (a Xing/Info/VBRI header frame is not audio and not counted).
    pub frames: u64,
    /// Samples per channel over the counted frames.
    pub samples: u64,
    /// Bytes of the counted frames.
    pub audio_bytes: u64,
    /// Smallest nominal bitrate of a counted frame.
    pub min_bitrate: u32,
    /// Largest nominal bitrate of a counted frame.
    pub max_bitrate: u32,
    /// The VBR header found in the first frame, if any.
    pub vbr: Option<VbrHeader>,
    /// Times the sync was lost after the first lock.
    pub sync_losses: u32,
}

impl ScanResult {
    /// Samples per channel of playable audio.
    ///
    /// When the first frame carried a Xing/Info/VBRI frame count that agrees with the counted
    /// frames to within 1%, that count is used, and the encoder delay and padding of a LAME tag
    /// are removed (gapless length, equal to the source's sample count). When they disagree by
    /// more than 1% the file was truncated, extended or mislabelled: the counted frames win and
    /// no gapless trimming is applied, as the tag no longer describes the stored stream.
    pub(crate) fn playable_samples(&self) -> u64 {
        let per_frame = u64::from(self.stream.samples);
        let tagged = self
            .vbr
            .and_then(|vbr| vbr.frames.map(|frames| (vbr, u64::from(frames))))
            .filter(|&(_, tagged)| {
                self.frames > 0 && tagged.abs_diff(self.frames).saturating_mul(100) <= self.frames
            });
        if let Some((vbr, tagged)) = tagged {
            let total = tagged.saturating_mul(per_frame);
            let trim = u64::from(vbr.delay.unwrap_or(0)) + u64::from(vbr.padding.unwrap_or(0));
            return if trim < total { total - trim } else { total };
        }
        self.samples
    }

    /// Duration in milliseconds, rounded to the nearest millisecond.
    pub(crate) fn duration_ms(&self) -> u64 {
        samples_to_ms(self.playable_samples(), self.stream.sample_rate)
    }

    /// Whether every counted frame had the same nominal bitrate (MPEG only).
    pub(crate) fn is_cbr(&self) -> bool {
        matches!(self.stream.kind, StreamKind::Mpeg { .. })
            && self.frames > 0
            && self.min_bitrate == self.max_bitrate
    }

    /// Average bitrate: the nominal one for CBR, otherwise audio bytes × 8 / frame-count duration.
    pub(crate) fn bitrate(&self) -> u32 {
        if self.is_cbr() {
            return self.max_bitrate;
        }
        let bits = u128::from(self.audio_bytes) * 8 * u128::from(self.stream.sample_rate);
        let samples = u128::from(self.samples);
        if samples == 0 {
            return 0;
        }
        u32::try_from((bits + samples / 2) / samples).unwrap_or(u32::MAX)
    }
}

/// Rounds `samples / rate` seconds to whole milliseconds.
pub(crate) fn samples_to_ms(samples: u64, rate: u32) -> u64 {
    if rate == 0 {
        return 0;
    }
    let rate = u128::from(rate);
    let ms = (u128::from(samples) * 1000 + rate / 2) / rate;
    u64::try_from(ms).unwrap_or(u64::MAX)
}

/// The streaming scanner. Feed it bytes with [`FrameScanner::update`], then call
/// [`FrameScanner::finish`].
#[derive(Clone, Debug)]
pub(crate) struct FrameScanner {
    mode: Mode,
    /// Look-ahead buffer; never longer than `BUF_CAP`.
    buf: Vec<u8>,
    /// Read cursor into `buf`.
    pos: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Bytes of the current frame that are still to be skipped; `buf` is empty while non-zero.
    skip: u64,
    /// The locked stream's first header.
    stream: Option<FrameHeader>,
    /// A frame whose body is being consumed; counted once it is complete.
    open: Option<FrameHeader>,
    /// Whether the first frame of the locked stream has been checked for a VBR header.
    seen_first: bool,
    frames: u64,
    samples: u64,
    audio_bytes: u64,
    min_bitrate: u32,
    max_bitrate: u32,
    vbr: Option<VbrHeader>,
    sync_losses: u32,
}

impl Default for FrameScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameScanner {
    /// A scanner looking for a sync at the start of the stream.
    pub(crate) fn new() -> Self {
        FrameScanner {
            mode: Mode::Searching,
            buf: Vec::new(),
            pos: 0,
            base: 0,
            skip: 0,
            stream: None,
            open: None,
            seen_first: false,
            frames: 0,
            samples: 0,
            audio_bytes: 0,
            min_bitrate: u32::MAX,
            max_bitrate: 0,
            vbr: None,
            sync_losses: 0,
        }
    }

    /// A scanner that ignores everything (the stream is known not to be MPEG audio).
    pub(crate) fn disabled() -> Self {
        FrameScanner {
            mode: Mode::Disabled,
            ..Self::new()
        }
    }

    /// Whether the scanner gave up (or was never enabled).
    pub(crate) fn is_disabled(&self) -> bool {
        self.mode == Mode::Disabled
    }

    /// Feeds the next bytes of the stream.
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.mode == Mode::Disabled {
                return;
            }
            if self.skip > 0 {
                let n = usize::try_from(self.skip).map_or(data.len(), |s| s.min(data.len()));
                self.skip -= n as u64;
                self.base += n as u64;
                data = data.get(n..).unwrap_or_default();
                continue;
            }
            let room = BUF_CAP.saturating_sub(self.buf.len());
            if room == 0 {
                // Cannot happen (a chain always fits), but never spin: drop one byte.
                self.pos = self.pos.max(1).min(self.buf.len());
                self.compact();
                continue;
            }
            let n = room.min(data.len());
            let (now, later) = data.split_at(n);
            self.buf.extend_from_slice(now);
            data = later;
            self.process(false);
        }
    }

    /// Ends the stream and returns what was found, if a stream was ever locked.
    pub(crate) fn finish(mut self) -> Option<ScanResult> {
        if self.skip > 0 {
            // The stream ended inside a frame: that frame is incomplete and not counted.
            self.open = None;
        } else {
            self.process(true);
            self.commit_open();
        }
        let stream = self.stream?;
        Some(ScanResult {
            stream,
            frames: self.frames,
            samples: self.samples,
            audio_bytes: self.audio_bytes,
            min_bitrate: if self.frames == 0 {
                0
            } else {
                self.min_bitrate
            },
            max_bitrate: self.max_bitrate,
            vbr: self.vbr,
            sync_losses: self.sync_losses,
        })
    }

    fn compact(&mut self) {
        let pos = self.pos.min(self.buf.len());
        self.buf.drain(..pos);
        self.base += pos as u64;
        self.pos = 0;
    }

    fn process(&mut self, eof: bool) {
        loop {
            let progressed = match self.mode {
                Mode::Disabled => {
                    self.buf = Vec::new();
                    self.pos = 0;
                    return;
                }
                Mode::Locked => self.step_locked(eof),
                Mode::Searching => self.step_search(eof),
            };
            if !progressed || self.skip > 0 {
                break;
            }
        }
        self.compact();
    }

    fn commit_open(&mut self) {
        if let Some(h) = self.open.take() {
            self.frames += 1;
            self.samples += u64::from(h.samples);
            self.audio_bytes += h.frame_len as u64;
            self.min_bitrate = self.min_bitrate.min(h.bitrate);
            self.max_bitrate = self.max_bitrate.max(h.bitrate);
        }
    }

    /// Consumes the frame at the cursor; an audio frame becomes the open frame.
    fn consume(&mut self, h: FrameHeader, audio: bool) {
        if audio {
            self.open = Some(h);
        }
        let avail = self.buf.len().saturating_sub(self.pos);
        if h.frame_len <= avail {
            self.pos += h.frame_len;
        } else {
            self.skip = (h.frame_len - avail) as u64;
            self.pos = self.buf.len();
        }
    }

    fn step_locked(&mut self, eof: bool) -> bool {
        self.commit_open();
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        if avail.is_empty() || (avail.len() < MAX_HEADER_LEN && !eof) {
            return false;
        }
        let header = frame::parse(avail).filter(|h| self.stream.is_some_and(|s| s.same_stream(h)));
        let Some(h) = header else {
            self.mode = Mode::Searching;
            self.sync_losses = self.sync_losses.saturating_add(1);
            return true;
        };
        if !self.seen_first {
            if avail.len() < h.frame_len && !eof {
                return false;
            }
            self.seen_first = true;
            let body = avail.get(..h.frame_len).unwrap_or(avail);
            if let Some(vbr) = frame::parse_vbr_header(body, &h) {
                self.vbr = Some(vbr);
                self.consume(h, false);
                return true;
            }
        }
        self.consume(h, true);
        true
    }

    fn step_search(&mut self, eof: bool) -> bool {
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        let Some(at) = avail.iter().position(|&b| b == 0xFF) else {
            self.pos = self.buf.len();
            self.check_window();
            return false;
        };
        self.pos += at;
        if self.check_window() {
            return true;
        }
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        match self.verify_chain(avail, eof) {
            Chain::Confirmed(h) => {
                if self.stream.is_none() {
                    self.stream = Some(h);
                }
                self.mode = Mode::Locked;
                true
            }
            Chain::Rejected => {
                self.pos += 1;
                true
            }
            Chain::NeedMore => false,
        }
    }

    /// Disables the scanner when no first lock happened within the probe window.
    fn check_window(&mut self) -> bool {
        if self.stream.is_none() && self.base + self.pos as u64 > PROBE_WINDOW {
            self.mode = Mode::Disabled;
            return true;
        }
        false
    }

    fn verify_chain(&self, avail: &[u8], eof: bool) -> Chain {
        let mut at = 0usize;
        let mut count = 0usize;
        let mut first: Option<FrameHeader> = None;
        loop {
            let rest = avail.get(at..).unwrap_or_default();
            if rest.is_empty() && eof {
                // The chain runs exactly to the end of the stream (or past it, truncated).
                let enough = count >= 2 || (count >= 1 && self.stream.is_some());
                return match first {
                    Some(h) if enough => Chain::Confirmed(h),
                    _ => Chain::Rejected,
                };
            }
            if rest.len() < MAX_HEADER_LEN && !eof {
                return Chain::NeedMore;
            }
            let Some(h) = frame::parse(rest) else {
                return Chain::Rejected;
            };
            let reference = first.or(self.stream).unwrap_or(h);
            if !reference.same_stream(&h) {
                return Chain::Rejected;
            }
            if first.is_none() {
                first = Some(h);
            }
            count += 1;
            if count >= CONFIRM_FRAMES {
                return Chain::Confirmed(first.unwrap_or(h));
            }
            at = at.saturating_add(h.frame_len);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// An MPEG-1 layer III frame: 128 kbps, 44.1 kHz, stereo, no padding: 417 bytes.
    fn frame(fill: u8) -> Vec<u8> {
        let mut f = vec![fill; 417];
        f[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x64]);
        f
    }

    fn scan(data: &[u8], chunk: usize) -> Option<ScanResult> {
        let mut s = FrameScanner::new();
        for c in data.chunks(chunk.max(1)) {
            s.update(c);
        }
        s.finish()
    }

    #[test]
    fn counts_frames_with_garbage_and_trailer() {
        let mut data = vec![0u8; 100];
        data.extend_from_slice(&[0xFF, 0xFB, 0x90]); // a false sync
        for _ in 0..10 {
            data.extend(frame(0x11));
        }
        data.extend_from_slice(&[0x00; 77]); // junk in the middle
        for _ in 0..5 {
            data.extend(frame(0x22));
        }
        data.extend_from_slice(b"TAG");
        data.extend_from_slice(&[0x20; 125]);
        for chunk in [1, 7, 1000, 1 << 20] {
            let r = scan(&data, chunk).unwrap();
            assert_eq!(r.frames, 15, "chunk {chunk}");
            assert_eq!(r.samples, 15 * 1152);
            assert_eq!(r.sync_losses, 2);
            assert!(r.is_cbr());
            assert_eq!(r.bitrate(), 128_000);
        }
    }

    #[test]
    fn truncated_last_frame_is_not_counted() {
        let mut data = Vec::new();
        for _ in 0..6 {
            data.extend(frame(0));
        }
        data.truncate(data.len() - 10);
        assert_eq!(scan(&data, 1000).unwrap().frames, 5);
        assert_eq!(scan(&data, 3).unwrap().frames, 5);
    }

    #[test]
    fn too_few_frames_do_not_lock() {
        let mut data = frame(0);
        data.extend_from_slice(&[1, 2, 3]);
        assert!(scan(&data, 100).is_none());
        assert!(scan(&[], 1).is_none());
    }

    #[test]
    fn no_lock_far_into_the_stream() {
        let mut data = vec![0u8; 70 * 1024];
        for _ in 0..10 {
            data.extend(frame(0));
        }
        assert!(scan(&data, 4096).is_none());
    }

    #[test]
    fn mpeg2_layer3_frames_carry_576_samples() {
        // MPEG-2, layer III, 64 kbps, 22.05 kHz, padded, mono: 209 bytes.
        let mut one = vec![0u8; 209];
        one[..4].copy_from_slice(&[0xFF, 0xF3, 0x82, 0xC0]);
        let data = one.repeat(10);
        let r = scan(&data, 50).unwrap();
        assert_eq!((r.frames, r.samples), (10, 5760));
        assert_eq!(r.duration_ms(), 261);
        assert_eq!(r.bitrate(), 64_000);
    }

    #[test]
    fn skips_xing_frame() {
        let mut first = frame(0);
        // Side info for MPEG-1 stereo is 32 bytes: the tag starts at offset 36.
        first[36..40].copy_from_slice(b"Xing");
        first[40..44].copy_from_slice(&1u32.to_be_bytes());
        first[44..48].copy_from_slice(&10u32.to_be_bytes());
        let mut data = first;
        for _ in 0..10 {
            data.extend(frame(0));
        }
        let r = scan(&data, 999).unwrap();
        assert_eq!(r.frames, 10);
        assert_eq!(r.vbr.unwrap().frames, Some(10));
        assert_eq!(r.playable_samples(), 11_520);
    }
}
