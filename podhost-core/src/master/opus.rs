//! Opus in Ogg (RFC 7845): libopus (BSD-3-Clause) through `opusic-c`, at a rate libopus takes
//! ([`rate_for`]; the caller resamples to it), framed into pages by the `ogg` crate after the `OpusHead` (whose pre-skip is the encoder's look-ahead) and `OpusTags`
//! headers. The last page's granule position trims the padding of the last frame, so the
//! decoded length equals the source's.

use ogg::{PacketWriteEndInfo, PacketWriter};
use opusic_c::{Application, Bitrate, Channels, Encoder, SampleRate};

use super::failure::MasterError;

/// Samples of one 20 ms frame per channel at 48 kHz (Ogg Opus counts at 48 kHz whatever the
/// rate given to the encoder).
const FRAME_48K: usize = 960;
/// The logical stream's serial number (one stream per file).
const SERIAL: u32 = 0x706f_6468;

fn encoder_error(e: impl std::fmt::Debug) -> MasterError {
    MasterError::Encoder(format!("libopus: {e:?}"))
}

/// The rate libopus encodes audio of `rate` Hz at: the same when it takes it, else 48 kHz.
pub(super) fn rate_for(rate: u32) -> u32 {
    match rate {
        8000 | 12000 | 16000 | 24000 | 48000 => rate,
        _ => 48000,
    }
}

/// An Ogg Opus file being encoded, from interleaved frames at a rate of [`rate_for`].
pub(super) struct OpusOgg {
    encoder: Encoder,
    channels: usize,
    /// The rate given to the encoder.
    rate: u32,
    /// Samples per channel of one 20 ms frame at `rate`.
    frame: usize,
    /// Interleaved samples at `rate` waiting for a whole frame.
    pending: Vec<f32>,
    /// Samples per channel given (at `rate`), and frames encoded.
    given: u64,
    encoded: u64,
    pre_skip: u64,
    writer: PacketWriter<'static, Vec<u8>>,
    /// The last packet, held back so the stream's end can be marked on it.
    held: Option<Vec<u8>>,
}

impl OpusOgg {
    /// An encoder for `channels` (1 or 2) of audio at `rate` Hz (one of [`rate_for`]), at
    /// `bitrate` kbit/s; `source_rate` is what the header says the original had.
    pub(super) fn new(
        channels: usize,
        rate: u32,
        source_rate: u32,
        bitrate: u32,
    ) -> Result<Self, MasterError> {
        let sample_rate = match rate {
            8000 => SampleRate::Hz8000,
            12000 => SampleRate::Hz12000,
            16000 => SampleRate::Hz16000,
            24000 => SampleRate::Hz24000,
            _ => SampleRate::Hz48000,
        };
        let layout = if channels == 1 {
            Channels::Mono
        } else {
            Channels::Stereo
        };
        let mut encoder =
            Encoder::new(layout, sample_rate, Application::Audio).map_err(encoder_error)?;
        encoder
            .set_bitrate(Bitrate::Value(bitrate * 1000))
            .map_err(encoder_error)?;
        // The look-ahead is counted at the encoder's rate; Ogg counts at 48 kHz.
        let look_ahead = u64::from(encoder.get_look_ahead().map_err(encoder_error)?);
        let pre_skip = look_ahead * 48000 / u64::from(rate);
        let mut writer = PacketWriter::new(Vec::new());
        let mut head = Vec::with_capacity(19);
        head.extend_from_slice(b"OpusHead");
        head.push(1);
        head.push(channels as u8);
        head.extend_from_slice(&(pre_skip as u16).to_le_bytes());
        head.extend_from_slice(&source_rate.to_le_bytes());
        head.extend_from_slice(&0i16.to_le_bytes());
        head.push(0);
        let vendor = b"podhost (libopus)";
        let mut tags = Vec::new();
        tags.extend_from_slice(b"OpusTags");
        tags.extend_from_slice(&(vendor.len() as u32).to_le_bytes());
        tags.extend_from_slice(vendor);
        tags.extend_from_slice(&0u32.to_le_bytes());
        for header in [head, tags] {
            writer
                .write_packet(header, SERIAL, PacketWriteEndInfo::EndPage, 0)
                .map_err(encoder_error)?;
        }
        Ok(OpusOgg {
            encoder,
            channels,
            rate,
            frame: FRAME_48K * rate as usize / 48000,
            pending: Vec::new(),
            given: 0,
            encoded: 0,
            pre_skip,
            writer,
            held: None,
        })
    }

    /// Takes interleaved frames at the encoder's rate.
    pub(super) fn push(&mut self, interleaved: &[f32]) -> Result<(), MasterError> {
        self.given += (interleaved.len() / self.channels) as u64;
        self.pending.extend_from_slice(interleaved);
        self.encode_whole_frames()
    }

    fn encode_whole_frames(&mut self) -> Result<(), MasterError> {
        let size = self.frame * self.channels;
        let mut pending = std::mem::take(&mut self.pending);
        let mut frames = pending.chunks_exact(size);
        for frame in frames.by_ref() {
            self.encode(frame)?;
        }
        let rest = frames.remainder().len();
        pending.drain(..pending.len() - rest);
        self.pending = pending;
        Ok(())
    }

    fn encode(&mut self, frame: &[f32]) -> Result<(), MasterError> {
        let mut packet = Vec::with_capacity(4000);
        self.encoder
            .encode_float_to_vec(frame, &mut packet)
            .map_err(encoder_error)?;
        if let Some(previous) = self.held.take() {
            let granule = self.encoded * FRAME_48K as u64;
            self.writer
                .write_packet(previous, SERIAL, PacketWriteEndInfo::NormalPacket, granule)
                .map_err(encoder_error)?;
        }
        self.encoded += 1;
        self.held = Some(packet);
        Ok(())
    }

    /// The file, once every frame was given.
    pub(super) fn finish(mut self) -> Result<Vec<u8>, MasterError> {
        // Pad to whole frames, and on until the encoder's look-ahead has come out.
        let total = self.pre_skip + self.given * 48000 / u64::from(self.rate);
        self.encode_whole_frames()?;
        let silence = vec![0.0; self.frame * self.channels];
        let mut last = std::mem::take(&mut self.pending);
        last.resize(self.frame * self.channels, 0.0);
        self.encode(&last)?;
        while self.encoded * (FRAME_48K as u64) < total {
            self.encode(&silence)?;
        }
        let last = self.held.take().expect("a frame was encoded");
        self.writer
            .write_packet(last, SERIAL, PacketWriteEndInfo::EndStream, total)
            .map_err(encoder_error)?;
        Ok(self.writer.into_inner())
    }
}
