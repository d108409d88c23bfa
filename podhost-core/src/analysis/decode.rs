//! The decoding pass: container, track, decoder, and the samples fed to the analyses.

use std::io::{Read, Seek, SeekFrom};

use symphonia::core::audio::conv::FromSample;
use symphonia::core::audio::{Audio, AudioBuffer, GenericAudioBufferRef};
use symphonia::core::codecs::audio::well_known as ids;
use symphonia::core::codecs::audio::{AudioCodecId, AudioDecoderOptions};
use symphonia::core::codecs::registry::CodecRegistry;
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream, MediaSourceStreamOptions};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::units::Duration;

use super::loudness::LoudnessMeter;
use super::silence::{Quiet, SilenceDetector};
use super::waveform::{WaveformBuilder, mix};
use super::{
    edit_list,
    outcome::{Analysis, AnalysisError},
    parameters::{SilenceOptions, WaveformOptions},
};

/// Consecutive packets that fail to decode before the file is declared corrupt.
const MAX_BAD_IN_ROW: u32 = 16;
/// Packets that may fail to decode in all, at least (a damaged frame here and there is skipped,
/// as players and ffmpeg do).
const MAX_BAD_TOTAL: u64 = 64;
/// Most channels decoded.
const MAX_CHANNELS: usize = 64;

pub(super) fn run(
    source: Box<dyn MediaSource>,
    mime_hint: Option<&str>,
    waveform: Option<WaveformOptions>,
    silence: Option<SilenceOptions>,
    loudness: bool,
    mut tap: Option<&mut dyn Tap>,
) -> Result<Analysis, AnalysisError> {
    let mut mss = MediaSourceStream::new(source, MediaSourceStreamOptions::default());
    let edits = container_edits(&mut mss)?;
    skip_id3v2(&mut mss)?;

    let mut hint = Hint::new();
    if let Some(mime) = mime_hint {
        hint.mime_type(mime);
    }
    let mut reader = symphonia::default::get_probe()
        .probe(
            &hint,
            mss,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(|e| match e {
            SymError::Unsupported(_) => {
                AnalysisError::NotAudio("no audio format was recognised".into())
            }
            other => stream_error(other, 0.0),
        })?;

    let track = reader
        .default_track(TrackType::Audio)
        .or_else(|| {
            reader
                .tracks()
                .iter()
                .find(|t| t.codec_params.as_ref().and_then(|c| c.audio()).is_some())
        })
        .ok_or_else(|| AnalysisError::NotAudio("the file has no audio track".into()))?;
    let track_id = track.id;
    let mut params = track
        .codec_params
        .as_ref()
        .and_then(|c| c.audio())
        .ok_or_else(|| AnalysisError::NotAudio("the file has no audio track".into()))?
        .clone();
    // HE-AAC signalled explicitly: its AAC-LC core is decoded (see `core_config`); HE-AACv2's
    // mono core is measured as heard, on two channels.
    let mut dual_mono = false;
    if params.codec == ids::CODEC_ID_AAC
        && let Some(core) = params
            .extra_data
            .as_deref()
            .and_then(crate::probe::aac_profile::core_config)
    {
        params.extra_data = Some(core.config.into_boxed_slice());
        params.sample_rate = None;
        params.channels = None;
        dual_mono = core.parametric_stereo;
    }
    // Without a LAME tag, symphonia's MP3 length is an estimate from the first frames'
    // bitrate, and packets past it would be trimmed away: decode every frame instead.
    let untrimmed_mpeg = [ids::CODEC_ID_MP1, ids::CODEC_ID_MP2, ids::CODEC_ID_MP3]
        .contains(&params.codec)
        && track.delay.is_none()
        && track.padding.is_none();
    let edit = edits.iter().find(|e| e.track_id == track_id).copied();

    let mut decoder = codecs()
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(|e| match e {
            SymError::Unsupported(_) => AnalysisError::UnsupportedCodec(unsupported(params.codec)),
            other => stream_error(other, 0.0),
        })?;

    let mut sink: Option<Sink> = None;
    let mut bad_in_row = 0u32;
    let mut bad_total = 0u64;
    let mut packets = 0u64;
    loop {
        let at = sink.as_ref().map_or(0.0, Sink::seconds);
        let mut packet = match reader.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            // A truncated file ends where its data ends, as in players.
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(stream_error(e, at)),
        };
        if packet.track_id != track_id {
            continue;
        }
        packets += 1;
        if untrimmed_mpeg {
            packet.trim_end = Duration::ZERO;
        }
        match decoder.decode(&packet) {
            Ok(buffer) => {
                bad_in_row = 0;
                if buffer.frames() == 0 {
                    continue;
                }
                let sink = match &mut sink {
                    Some(s) => s,
                    None => sink.insert(Sink::new(
                        buffer.spec().rate(),
                        buffer.spec().channels().count(),
                        waveform,
                        silence,
                        loudness,
                        edit,
                        dual_mono,
                    )?),
                };
                sink.push(&buffer, &mut tap)?;
            }
            Err(SymError::Unsupported(reason)) if sink.is_none() => {
                return Err(AnalysisError::UnsupportedCodec(format!(
                    "{} ({reason})",
                    codec_name(params.codec)
                )));
            }
            // Damaged data: a malformed packet, one that reads past its end (the decoder reads
            // only the packet, so its I/O errors are about the data), or a feature the decoder
            // lacks met after audio was decoded (most likely damage that reads as that
            // feature). Skipped, as players and ffmpeg skip a bad frame, unless too many.
            Err(SymError::DecodeError(_) | SymError::IoError(_) | SymError::Unsupported(_))
                if bad_in_row < MAX_BAD_IN_ROW && bad_total < MAX_BAD_TOTAL.max(packets / 100) =>
            {
                bad_in_row += 1;
                bad_total += 1;
            }
            Err(
                e @ (SymError::DecodeError(_) | SymError::IoError(_) | SymError::Unsupported(_)),
            ) => {
                return Err(AnalysisError::Corrupt {
                    at,
                    reason: format!("{e} ({bad_total} damaged packets skipped before)"),
                });
            }
            Err(e) => return Err(stream_error(e, at)),
        }
    }
    let sink = sink
        .filter(|s| s.kept > 0)
        .ok_or_else(|| AnalysisError::NotAudio("the file holds no decodable audio".into()))?;
    Ok(sink.finish())
}

/// Maps a symphonia error to the analysis's, `at` seconds into the audio.
fn stream_error(e: SymError, at: f64) -> AnalysisError {
    match e {
        SymError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            AnalysisError::Corrupt {
                at,
                reason: "the data ends inside a header".into(),
            }
        }
        SymError::IoError(io) => AnalysisError::Io(io),
        SymError::DecodeError(reason) => AnalysisError::Corrupt {
            at,
            reason: reason.to_owned(),
        },
        SymError::Unsupported(what) => AnalysisError::UnsupportedCodec(what.to_owned()),
        SymError::LimitError(what) => AnalysisError::Corrupt {
            at,
            reason: format!("a safety limit was reached: {what}"),
        },
        SymError::ResetRequired => AnalysisError::Corrupt {
            at,
            reason: "the stream's parameters change midway".into(),
        },
        other => AnalysisError::Corrupt {
            at,
            reason: other.to_string(),
        },
    }
}

fn io_error(e: std::io::Error) -> AnalysisError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        AnalysisError::NotAudio("the file is too short".into())
    } else {
        AnalysisError::Io(e)
    }
}

/// The MP4 edit lists when the file is ISO media; the position is back at 0 after.
fn container_edits(mss: &mut MediaSourceStream<'_>) -> Result<Vec<edit_list::Edit>, AnalysisError> {
    let mut head = [0u8; 8];
    let got = read_up_to(mss, &mut head)?;
    let edits = if got == 8 && &head[4..8] == b"ftyp" {
        edit_list::edits(mss)
    } else {
        Vec::new()
    };
    mss.seek(SeekFrom::Start(0)).map_err(io_error)?;
    Ok(edits)
}

/// Moves past leading ID3v2 tags (this build has no ID3v2 reader to let the probe skip them,
/// and a tag with cover art can be larger than the probe's search window).
fn skip_id3v2(mss: &mut MediaSourceStream<'_>) -> Result<(), AnalysisError> {
    let mut at = 0u64;
    loop {
        mss.seek(SeekFrom::Start(at)).map_err(io_error)?;
        let mut h = [0u8; 10];
        if read_up_to(mss, &mut h)? < 10
            || &h[..3] != b"ID3"
            || h[6..10].iter().any(|b| b & 0x80 != 0)
        {
            break;
        }
        let size = h[6..10]
            .iter()
            .fold(0u64, |acc, &b| (acc << 7) | u64::from(b));
        let footer = if h[5] & 0x10 != 0 { 10 } else { 0 };
        at += 10 + size + footer;
    }
    mss.seek(SeekFrom::Start(at)).map_err(io_error)?;
    Ok(())
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, AnalysisError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(e)),
        }
    }
    Ok(got)
}

/// The decoders: symphonia's, and libopus's with the `opus` feature.
fn codecs() -> &'static CodecRegistry {
    #[cfg(feature = "opus")]
    {
        static WITH_OPUS: std::sync::LazyLock<CodecRegistry> = std::sync::LazyLock::new(|| {
            let mut registry = CodecRegistry::new();
            symphonia::default::register_enabled_codecs(&mut registry);
            registry.register_audio_decoder::<symphonia_adapter_libopus::OpusDecoder>();
            registry
        });
        &WITH_OPUS
    }
    #[cfg(not(feature = "opus"))]
    symphonia::default::get_codecs()
}

/// The reason given for a codec without a decoder: its name, and the feature that adds it.
fn unsupported(id: AudioCodecId) -> String {
    if id == ids::CODEC_ID_OPUS && cfg!(not(feature = "opus")) {
        "Opus (this build has no Opus decoder: build podhost with the `opus` feature)".to_owned()
    } else {
        codec_name(id)
    }
}

fn codec_name(id: AudioCodecId) -> String {
    const NAMES: &[(AudioCodecId, &str)] = &[
        (ids::CODEC_ID_MP3, "MP3"),
        (ids::CODEC_ID_AAC, "AAC"),
        (ids::CODEC_ID_FLAC, "FLAC"),
        (ids::CODEC_ID_VORBIS, "Vorbis"),
        (ids::CODEC_ID_OPUS, "Opus"),
        (ids::CODEC_ID_ALAC, "ALAC"),
        (ids::CODEC_ID_AC3, "AC-3"),
        (ids::CODEC_ID_EAC3, "E-AC-3"),
        (ids::CODEC_ID_DCA, "DTS"),
        (ids::CODEC_ID_SPEEX, "Speex"),
        (ids::CODEC_ID_WAVPACK, "WavPack"),
        (ids::CODEC_ID_ADPCM_MS, "Microsoft ADPCM"),
        (ids::CODEC_ID_ADPCM_IMA_WAV, "IMA ADPCM"),
        (ids::CODEC_ID_MP1, "MPEG-1 Layer I"),
        (ids::CODEC_ID_MP2, "MPEG-1 Layer II"),
    ];
    NAMES
        .iter()
        .find(|(k, _)| *k == id)
        .map_or_else(|| format!("codec {id}"), |(_, n)| (*n).to_owned())
}

/// What receives every decoded frame inside the edit window, as `f32` planes in [-1, 1] (one
/// per channel, of equal lengths), beside the analyses: how a job that transforms the audio
/// (mastering) reads it with the same decoding rules.
pub trait Tap {
    /// The next frames, at `rate` Hz.
    fn frames(&mut self, planes: &[&[f32]], rate: u32);
}

/// Where decoded samples go: the edit window, the 16-bit mono mix for the waveform, the
/// silence detector, the loudness meter and the tap.
struct Sink {
    rate: u32,
    channels: usize,
    waveform: Option<WaveformBuilder>,
    silence: Option<SilenceDetector>,
    loudness: Option<LoudnessMeter>,
    /// First decoded frame kept, and how many are kept (the edit list).
    skip: u64,
    keep: Option<u64>,
    /// Frames decoded, and kept.
    decoded: u64,
    kept: u64,
    /// Scratch space reused for every buffer.
    mono: Vec<i16>,
    sums: Vec<i32>,
    floats: Vec<Vec<f32>>,
}

impl Sink {
    fn new(
        rate: u32,
        channels: usize,
        waveform: Option<WaveformOptions>,
        silence: Option<SilenceOptions>,
        loudness: bool,
        edit: Option<edit_list::Edit>,
        dual_mono: bool,
    ) -> Result<Self, AnalysisError> {
        if rate == 0 {
            return Err(AnalysisError::Corrupt {
                at: 0.0,
                reason: "the sample rate is 0".into(),
            });
        }
        if channels == 0 || channels > MAX_CHANNELS {
            return Err(AnalysisError::UnsupportedCodec(format!(
                "{channels} channels"
            )));
        }
        let waveform = match waveform {
            Some(w) => {
                let spp = w
                    .samples_per_pixel_at(rate)
                    .ok_or_else(|| AnalysisError::Options {
                        field: "pixels_per_second",
                        message: format!(
                            "at most {} for this file's sample rate of {rate} Hz",
                            rate / 2
                        ),
                    })?;
                Some(WaveformBuilder::new(rate, spp, w.bits))
            }
            None => None,
        };
        let loudness = match loudness {
            true => {
                let meter =
                    LoudnessMeter::new(channels, rate).map_err(AnalysisError::UnsupportedCodec)?;
                Some(if dual_mono { meter.dual_mono() } else { meter })
            }
            false => None,
        };
        let (skip, keep) = edit.map_or((0, None), |e| e.frames(rate));
        Ok(Sink {
            loudness,
            rate,
            channels,
            waveform,
            silence: silence.map(|s| SilenceDetector::new(s, rate, channels as u32)),
            skip,
            keep,
            decoded: 0,
            kept: 0,
            mono: Vec::new(),
            sums: Vec::new(),
            floats: vec![Vec::new(); channels],
        })
    }

    fn seconds(&self) -> f64 {
        self.kept as f64 / f64::from(self.rate)
    }

    fn push(
        &mut self,
        buffer: &GenericAudioBufferRef<'_>,
        tap: &mut Option<&mut dyn Tap>,
    ) -> Result<(), AnalysisError> {
        let spec = buffer.spec();
        if spec.rate() != self.rate || spec.channels().count() != self.channels {
            return Err(AnalysisError::Corrupt {
                at: self.seconds(),
                reason: "the sample rate or channel count changes midway".into(),
            });
        }
        match buffer {
            GenericAudioBufferRef::U8(b) => self.push_as::<u8, i16>(b, tap),
            GenericAudioBufferRef::U16(b) => self.push_as::<u16, i16>(b, tap),
            GenericAudioBufferRef::U24(b) => self.push_as::<_, i32>(b, tap),
            GenericAudioBufferRef::U32(b) => self.push_as::<u32, i32>(b, tap),
            GenericAudioBufferRef::S8(b) => self.push_as::<i8, i16>(b, tap),
            GenericAudioBufferRef::S16(b) => self.push_as::<i16, i16>(b, tap),
            GenericAudioBufferRef::S24(b) => self.push_as::<_, i32>(b, tap),
            GenericAudioBufferRef::S32(b) => self.push_as::<i32, i32>(b, tap),
            GenericAudioBufferRef::F32(b) => self.push_as::<f32, f32>(b, tap),
            GenericAudioBufferRef::F64(b) => self.push_as::<f64, f64>(b, tap),
        }
        Ok(())
    }

    /// Feeds a buffer of `S` samples; silence is tested on them converted to `Q`, the format
    /// ffmpeg's filter would receive them in (the same for the formats it takes).
    fn push_as<S, Q>(&mut self, buffer: &AudioBuffer<S>, tap: &mut Option<&mut dyn Tap>)
    where
        S: symphonia::core::audio::sample::Sample + Copy,
        Q: Quiet + FromSample<S>,
        i16: FromSample<S>,
        f32: FromSample<S>,
    {
        let n = buffer.frames() as u64;
        let start = self.decoded;
        self.decoded += n;
        // The part of this buffer inside the edit window.
        let from = self.skip.max(start);
        let to = self.keep.map_or(self.decoded, |k| {
            self.decoded.min(self.skip.saturating_add(k))
        });
        if from >= to {
            return;
        }
        let range = (from - start) as usize..(to - start) as usize;
        let len = range.len();
        self.kept += len as u64;
        let mut planes: Vec<&[S]> = Vec::with_capacity(self.channels);
        for c in 0..self.channels {
            planes.push(
                buffer
                    .plane(c)
                    .and_then(|p| p.get(range.clone()))
                    .unwrap_or_default(),
            );
        }
        if let Some(detector) = &mut self.silence {
            detect::<S, Q>(detector, &planes, len);
        }
        if let Some(builder) = &mut self.waveform {
            mono_mix(&planes, len, &mut self.mono, &mut self.sums);
            builder.push_mono(&self.mono);
        }
        if self.loudness.is_none() && tap.is_none() {
            return;
        }
        for (out, plane) in self.floats.iter_mut().zip(&planes) {
            out.clear();
            out.extend(plane.iter().take(len).map(|&s| f32::from_sample(s)));
            out.resize(len, 0.0);
        }
        let floats: Vec<&[f32]> = self.floats.iter().map(Vec::as_slice).collect();
        if let Some(meter) = &mut self.loudness {
            meter.push(&floats);
        }
        if let Some(tap) = tap.as_mut() {
            tap.frames(&floats, self.rate);
        }
    }

    fn finish(self) -> Analysis {
        let duration_ms =
            u64::try_from(u128::from(self.kept) * 1000 / u128::from(self.rate)).unwrap_or(u64::MAX);
        Analysis {
            waveform: self.waveform.map(WaveformBuilder::finish),
            silence: self.silence.map(SilenceDetector::finish),
            loudness: self.loudness.map(LoudnessMeter::finish),
            duration_ms,
        }
    }
}

/// Runs the detector on samples as ffmpeg's filter would see them (converted to `Q`; the
/// identity for the formats it takes).
fn detect<S, Q>(detector: &mut SilenceDetector, planes: &[&[S]], len: usize)
where
    S: Copy,
    Q: Quiet + FromSample<S>,
{
    detector.push_planar(planes, len, Q::from_sample);
}

/// audiowaveform's mono mix of 16-bit samples into `out`.
fn mono_mix<S: Copy>(planes: &[&[S]], len: usize, out: &mut Vec<i16>, sums: &mut Vec<i32>)
where
    i16: FromSample<S>,
{
    out.clear();
    if let [plane] = planes {
        out.extend(plane.iter().take(len).map(|&s| i16::from_sample(s)));
        return;
    }
    sums.clear();
    sums.resize(len, 0);
    for plane in planes {
        for (acc, &s) in sums.iter_mut().zip(plane.iter()) {
            *acc += i32::from(i16::from_sample(s));
        }
    }
    let channels = planes.len() as i32;
    out.extend(sums.iter().map(|&sum| mix(sum, channels)));
}
