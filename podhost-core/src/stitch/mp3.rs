//! The layout of an MP3 file for stitching: where its audio frames are (after the ID3v2 tag and
//! the Xing/Info frame, before an ID3v1 or APE tag), how many samples each holds, and how far
//! back each one's main data begins (the bit reservoir, up to 511 bytes in the frames before it).
//!
//! A frame after a cut may begin its main data in the frames before the cut, which the answer
//! then replaces by an ad. The seam is made clean by [`Mp3Layout::carrier`]: one silent frame
//! (side information zeroed, at a bitrate with room enough) whose main data ends with the bytes
//! the next frame reads (511 bytes at most). It takes the place of the ad's last frame, so the
//! answer has exactly the frames of its parts.

use std::ops::Range;

use bytes::Bytes;

use crate::probe::frame::{self, FrameHeader, Layer, StreamKind, Version};

/// Why a file cannot be stitched.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum StitchError {
    /// It is not an MPEG-1/2/2.5 Layer III stream from its first frame on.
    #[error("not an MP3 stream: {0}")]
    NotMp3(String),
    /// Its frames change what cannot change inside one answer (layer, version, rate, channels).
    #[error("the MP3 stream changes its format at byte {0}")]
    Mixed(u64),
    /// Frames carry a CRC (their side information cannot be zeroed without rewriting it).
    #[error("CRC-protected MP3 frames are not stitched")]
    Crc,
    /// An ad was given for a slot the episode was not cut for.
    #[error("the episode has no slot {0}")]
    NoSlot(usize),
}

/// One audio frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its length in bytes, header included.
    pub len: u32,
    /// How many bytes before its header its main data begins (0: it borrows nothing).
    pub main_data_begin: u16,
}

/// Makes frames of a stream that decode as silence: a header of the stream's (at a bitrate with
/// the room asked for), side information zeroed (no granule reads a bit), and main data of the
/// caller's. Such a frame holds a Xing header, or the bit reservoir of the frame after a seam.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SilentFrames {
    /// A header of the stream, as its bytes.
    head: [u8; 4],
    /// The bytes of the side information after each header.
    side_info: usize,
}

impl SilentFrames {
    /// A silent frame whose main data has at least `room` bytes (all zero): the stream's header
    /// at the lowest bitrate that gives it, without padding or CRC. `None` when no bitrate does.
    pub fn with_room(&self, room: usize) -> Option<Vec<u8>> {
        (1u8..15).find_map(|index| {
            let head = [
                self.head[0],
                self.head[1] | 1,
                (index << 4) | (self.head[2] & 0x0C),
                self.head[3],
            ];
            let header = frame::parse(&head)?;
            let len = header.frame_len;
            (len >= 4 + self.side_info + room).then(|| {
                let mut frame = vec![0; len];
                frame[..4].copy_from_slice(&head);
                frame
            })
        })
    }

    /// Where a frame's main data (after its header and side information) begins.
    pub fn main_data(&self) -> usize {
        4 + self.side_info
    }
}

/// Where the audio frames of an MP3 file are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mp3Layout {
    /// The first frame's header (every frame's rate, channels and layer).
    pub(crate) header: FrameHeader,
    /// Silent frames of this stream.
    pub silent: SilentFrames,
    /// The audio frames, in order (the Xing/Info frame left out).
    pub frames: Vec<Frame>,
    /// Samples per channel of each frame.
    pub samples_per_frame: u32,
}

impl Mp3Layout {
    /// Reads the layout of `file`, a whole MP3 file.
    pub fn read(file: &[u8]) -> Result<Self, StitchError> {
        let mut at = crate::probe::id3::tag_len(file).unwrap_or(0) as usize;
        let mut first: Option<FrameHeader> = None;
        let mut head = [0u8; 4];
        let mut frames = Vec::new();
        while let Some(header) = file.get(at..).and_then(frame::parse) {
            let StreamKind::Mpeg {
                layer: Layer::L3, ..
            } = header.kind
            else {
                return Err(StitchError::NotMp3(format!(
                    "a frame of another kind at {at}"
                )));
            };
            let end = at + header.frame_len;
            if end > file.len() {
                break; // a truncated last frame is left out
            }
            match &first {
                None => {
                    if header.has_crc {
                        return Err(StitchError::Crc);
                    }
                    first = Some(header);
                    head.copy_from_slice(&file[at..at + 4]);
                    // The Xing/Info frame says how to play the whole file, not a part of it.
                    if frame::parse_vbr_header(&file[at..end], &header).is_some() {
                        at = end;
                        continue;
                    }
                }
                Some(h) if !(h.same_stream(&header) && h.channels == header.channels) => {
                    return Err(StitchError::Mixed(at as u64));
                }
                Some(_) if header.has_crc => return Err(StitchError::Crc),
                Some(_) => {}
            }
            let side = &file[at + 4..end];
            frames.push(Frame {
                offset: at as u64,
                len: header.frame_len as u32,
                main_data_begin: main_data_begin(&header, side),
            });
            at = end;
        }
        let header = first.ok_or_else(|| StitchError::NotMp3("no MPEG audio frame".into()))?;
        Ok(Mp3Layout {
            samples_per_frame: header.samples,
            silent: SilentFrames {
                head,
                side_info: side_info_len(&header),
            },
            header,
            frames,
        })
    }

    /// The sample rate in Hz.
    pub fn sample_rate(&self) -> u32 {
        self.header.sample_rate
    }

    /// The number of channels.
    pub fn channels(&self) -> u16 {
        self.header.channels
    }

    /// Samples per channel of its audio frames.
    pub fn samples(&self) -> u64 {
        self.frames.len() as u64 * u64::from(self.samples_per_frame)
    }

    /// The byte range of frames `frames` in the file.
    pub fn bytes(&self, frames: Range<usize>) -> Range<u64> {
        let start = frames.start.min(self.frames.len());
        let end = frames.end.clamp(start, self.frames.len());
        match (
            self.frames.get(start),
            end.checked_sub(1).and_then(|l| self.frames.get(l)),
        ) {
            (Some(first), Some(last)) if start < end => {
                first.offset..last.offset + u64::from(last.len)
            }
            _ => 0..0,
        }
    }

    /// The first frame that starts at or after sample `sample` (per channel): where a cut at
    /// that moment goes.
    pub fn frame_at(&self, sample: u64) -> usize {
        let per = u64::from(self.samples_per_frame);
        (sample.div_ceil(per) as usize).min(self.frames.len())
    }

    /// The frame to put before frame `index` when what preceded it in the file is gone: a
    /// silent frame whose main data ends with the bytes of the frames before it that frame
    /// `index` begins its main data in (its bit reservoir, 511 bytes at most). `None` when it
    /// borrows nothing. `file` is the whole file.
    pub fn carrier(&self, file: &[u8], index: usize) -> Option<Bytes> {
        let frame = self.frames.get(index)?;
        let needed = usize::from(frame.main_data_begin);
        if needed == 0 {
            return None;
        }
        // The last `needed` bytes of the main data of the frames before it, in order.
        let mut reservoir = Vec::with_capacity(needed);
        for before in self.frames[..index].iter().rev() {
            let start = before.offset as usize + self.silent.main_data();
            let end = before.offset as usize + before.len as usize;
            let data = file.get(start..end)?;
            let take = (needed - reservoir.len()).min(data.len());
            reservoir.splice(0..0, data[data.len() - take..].iter().copied());
            if reservoir.len() == needed {
                break;
            }
        }
        let mut carrier = self.silent.with_room(reservoir.len())?;
        let at = carrier.len() - reservoir.len();
        carrier[at..].copy_from_slice(&reservoir);
        Some(Bytes::from(carrier))
    }
}

/// The length of a Layer III frame's side information.
fn side_info_len(h: &FrameHeader) -> usize {
    let v1 = matches!(
        h.kind,
        StreamKind::Mpeg {
            version: Version::V1,
            ..
        }
    );
    match (v1, h.channels) {
        (true, 1) => 17,
        (true, _) => 32,
        (false, 1) => 9,
        (false, _) => 17,
    }
}

/// `main_data_begin` from the side information `side` (after the header): 9 bits in MPEG-1, 8 in
/// MPEG-2 and 2.5.
fn main_data_begin(h: &FrameHeader, side: &[u8]) -> u16 {
    let (b0, b1) = (
        side.first().copied().unwrap_or(0),
        side.get(1).copied().unwrap_or(0),
    );
    match h.kind {
        StreamKind::Mpeg {
            version: Version::V1,
            ..
        } => (u16::from(b0) << 1) | u16::from(b1 >> 7),
        _ => u16::from(b0),
    }
}
