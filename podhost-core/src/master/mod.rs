//! Mastering: an audio file normalised to a loudness target, its true peaks held under a
//! ceiling by a look-ahead limiter, and encoded for podcast apps (MP3 by `rusty_mp3`, Apache-2.0
//! and pure Rust, with a LAME/Info header that tells decoders the encoder delay and padding).
//!
//! [`Master`] is an analysis [`Tap`]: the file is decoded once by the analysis decoder (the
//! same rules for encoder delay, edit lists and damaged frames), and every frame goes through
//! the gain, the limiter and the encoder. The gain comes from the file's loudness, measured
//! before (by an analysis job, or a decode of its own when none has run). With the `opus`
//! feature the same limited signal can also go to libopus (`opus.rs`), in the same decode; and
//! to ffmpeg's AAC encoder as a child process (`aac_m4a.rs`), for AAC-LC in M4A.

mod aac_m4a;
mod failure;
mod limiter;
mod options;
#[cfg(feature = "opus")]
mod opus;
mod resample;

use crate::analysis::{Loudness, LoudnessMeter, Tap};
pub use failure::MasterError;
use limiter::Limiter;
pub use options::{
    AAC_BITRATES, CEILINGS, Format, MP3_BITRATES, MP3_LSF_BITRATES, MasterOptions, OPUS_BITRATES,
    TARGETS, mp3_bitrate_near,
};
use resample::Resample;

/// How close to the target a mastered file must come, in LU, before another pass is tried.
pub const TOLERANCE_LU: f64 = 0.3;

/// Passes at most: the first, and corrections when limiting lowered the loudness.
pub const MAX_PASSES: usize = 4;

/// The gain of each mastering pass: from the file's loudness at first, then corrected by what
/// the last pass reached, scaled by how much of the previous correction the limiter let through.
#[derive(Clone, Debug)]
pub struct Passes {
    target: f64,
    gain: f64,
    /// The previous pass's gain and the loudness it reached.
    last: Option<(f64, f64)>,
    made: usize,
}

impl Passes {
    /// The first pass of mastering audio of `loudness` to `options`' target.
    pub fn new(options: &MasterOptions, loudness: &Loudness) -> Self {
        Passes {
            target: options.target,
            gain: Master::gain_for(options, loudness),
            last: None,
            made: 0,
        }
    }

    /// The gain of the pass to make, in dB.
    pub fn gain(&self) -> f64 {
        self.gain
    }

    /// The passes made so far.
    pub fn made(&self) -> usize {
        self.made
    }

    /// Records a pass that reached `reached` LUFS (`None`: silence); whether another pass is
    /// due, at the corrected [`gain`](Self::gain): the target missed by more than
    /// [`TOLERANCE_LU`], and fewer than [`MAX_PASSES`] made.
    pub fn another(&mut self, reached: Option<f64>) -> bool {
        self.made += 1;
        let Some(reached) = reached else {
            return false;
        };
        if (self.target - reached).abs() <= TOLERANCE_LU || self.made >= MAX_PASSES {
            return false;
        }
        let slope = self
            .last
            .map(|(gain, then)| (reached - then) / (self.gain - gain))
            .filter(|s| s.is_finite())
            .map_or(1.0, |s| s.clamp(0.1, 1.0));
        self.last = Some((self.gain, reached));
        self.gain += (self.target - reached) / slope;
        true
    }
}

/// The sample rates of MP3 (MPEG-1, 2 and 2.5 Layer III), in Hz.
const MP3_RATES: [u32; 9] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

/// The rate an MP3 of audio at `rate` Hz is encoded at: the same when MP3 has it, else 44.1 kHz
/// for the multiples of 11.025 kHz (88.2, 176.4) and the nearest MP3 rate above (48 kHz above
/// 44.1) for the others.
fn mp3_rate(rate: u32) -> u32 {
    if MP3_RATES.contains(&rate) {
        rate
    } else if rate > 48000 && rate % 11025 == 0 {
        44100
    } else {
        MP3_RATES.into_iter().find(|&r| r > rate).unwrap_or(48000)
    }
}

/// A codec, fed interleaved PCM at a rate it takes.
enum Codec {
    Mp3(Box<rusty_mp3::Mp3Encoder>),
    Aac(Box<aac_m4a::AacM4a>),
    #[cfg(feature = "opus")]
    Opus(Box<opus::OpusOgg>),
}

impl Codec {
    fn push(&mut self, pcm: &[f32], channels: usize, rate: u32) -> Result<(), MasterError> {
        match self {
            Codec::Mp3(mp3) => mp3
                .push_pcm_f32(pcm, channels as u16, rate)
                .map_err(|e| MasterError::Encoder(e.to_string())),
            Codec::Aac(aac) => aac.push(pcm),
            #[cfg(feature = "opus")]
            Codec::Opus(opus) => opus.push(pcm),
        }
    }

    fn finish(self) -> Result<Vec<u8>, MasterError> {
        match self {
            Codec::Mp3(mut mp3) => {
                mp3.finish();
                let mut out = Vec::new();
                loop {
                    match mp3.next_packet() {
                        Ok(packet) => out.extend_from_slice(&packet),
                        Err(rusty_mp3::Error::Again | rusty_mp3::Error::Eof) => break,
                        Err(e) => return Err(MasterError::Encoder(e.to_string())),
                    }
                }
                Ok(out)
            }
            Codec::Aac(aac) => aac.finish(),
            #[cfg(feature = "opus")]
            Codec::Opus(opus) => opus.finish(),
        }
    }
}

/// One encoding of the mastered audio: its codec, and a resampler in front when the codec has
/// no place for the source's rate.
struct Encoder {
    codec: Codec,
    /// The rate the codec is fed.
    rate: u32,
    resample: Option<Resample>,
    resampled: Vec<f32>,
}

impl Encoder {
    /// An encoder of audio at `rate` Hz in `format`, at sample rate `to` when given (else the
    /// format's nearest to `rate`); AAC by `ffmpeg`.
    fn new(
        format: Format,
        channels: usize,
        rate: u32,
        bitrate: u32,
        to: Option<u32>,
        ffmpeg: &crate::ffmpeg::Ffmpeg,
    ) -> Result<Self, MasterError> {
        let (to, codec) = match format {
            Format::Mp3 => {
                let to = to.unwrap_or_else(|| mp3_rate(rate));
                rusty_mp3::encoder_header(to, channels as u16, bitrate).map_err(|e| {
                    MasterError::Unsupported(format!("MP3 at {to} Hz and {bitrate} kbit/s: {e:?}"))
                })?;
                let config = rusty_mp3::Mp3EncoderConfig {
                    bitrate_kbps: bitrate,
                    vbr_quality: None,
                };
                (to, Codec::Mp3(Box::new(rusty_mp3::Mp3Encoder::new(config))))
            }
            Format::Aac => {
                let to = to.unwrap_or_else(|| aac_m4a::aac_rate(rate));
                let aac = aac_m4a::AacM4a::new(ffmpeg, channels, to, bitrate)?;
                (to, Codec::Aac(Box::new(aac)))
            }
            #[cfg(feature = "opus")]
            Format::Opus => {
                let to = to.unwrap_or_else(|| opus::rate_for(rate));
                let opus = opus::OpusOgg::new(channels, to, rate, bitrate)?;
                (to, Codec::Opus(Box::new(opus)))
            }
            #[cfg(not(feature = "opus"))]
            Format::Opus => {
                return Err(MasterError::Unsupported(
                    "opus needs a build with the `opus` feature (libopus)".into(),
                ));
            }
        };
        let resample = match to == rate {
            true => None,
            false => Some(Resample::new(rate, to, channels)?),
        };
        Ok(Encoder {
            codec,
            rate: to,
            resample,
            resampled: Vec::new(),
        })
    }

    fn push(&mut self, interleaved: &[f32], channels: usize) -> Result<(), MasterError> {
        let pcm = match &mut self.resample {
            None => interleaved,
            Some(resample) => {
                self.resampled.clear();
                resample.push(interleaved, &mut self.resampled)?;
                &self.resampled
            }
        };
        self.codec.push(pcm, channels, self.rate)
    }

    fn finish(mut self, channels: usize) -> Result<Vec<u8>, MasterError> {
        if let Some(resample) = self.resample.take() {
            let mut rest = Vec::new();
            resample.finish(&mut rest)?;
            self.codec.push(&rest, channels, self.rate)?;
        }
        self.codec.finish()
    }
}

/// A file being mastered: takes decoded frames, gives the encoded files at the end (the
/// format asked for, and the alternate, from the same limited signal).
pub struct Master {
    options: MasterOptions,
    gain: f32,
    channels: usize,
    rate: Option<u32>,
    /// The sample rate to encode at, when not the format's choice.
    encode_at: Option<u32>,
    /// How ffmpeg is run, for AAC.
    ffmpeg: crate::ffmpeg::Ffmpeg,
    /// Whether it encodes (else it only measures what it would encode).
    encode: bool,
    limiter: Option<Limiter>,
    encoders: Vec<(Format, Encoder)>,
    /// The loudness of what goes to the encoder.
    meter: Option<LoudnessMeter>,
    /// Interleaved scratch frames, reused for every buffer.
    interleaved: Vec<f32>,
    limited: Vec<f32>,
    error: Option<MasterError>,
}

impl Master {
    /// The gain that brings audio of `loudness` to the target of `options`, in dB: none for a
    /// file with nothing to measure (silence stays silent).
    pub fn gain_for(options: &MasterOptions, loudness: &Loudness) -> f64 {
        loudness
            .integrated
            .map_or(0.0, |integrated| options.target - integrated)
    }

    /// Masters audio with `options` at a gain of `gain_db` before the limiter (see
    /// [`gain_for`](Self::gain_for)), keeping at most two channels (more are folded into left
    /// and right).
    pub fn new(options: MasterOptions, gain_db: f64, channels: usize) -> Self {
        Master {
            options,
            gain: 10f64.powf(gain_db / 20.0) as f32,
            channels: channels.clamp(1, 2),
            rate: None,
            encode_at: None,
            ffmpeg: crate::ffmpeg::Ffmpeg::default(),
            encode: true,
            limiter: None,
            encoders: Vec::new(),
            meter: None,
            interleaved: Vec::new(),
            limited: Vec::new(),
            error: None,
        }
    }

    /// Encodes at sample rate `rate` (resampling to it), e.g. an ad made to sit in an episode
    /// at that rate; only the format asked for, no alternate.
    pub fn encoding_at(mut self, rate: u32) -> Self {
        self.encode_at = Some(rate);
        self.options.alternate = None;
        self
    }

    /// Measures what it would encode and encodes nothing: a pass that finds the gain.
    pub fn measure_only(mut self) -> Self {
        self.encode = false;
        self
    }

    /// Encodes AAC by `ffmpeg` (else by `ffmpeg` on the `PATH`).
    pub fn with_ffmpeg(mut self, ffmpeg: crate::ffmpeg::Ffmpeg) -> Self {
        self.ffmpeg = ffmpeg;
        self
    }

    fn start(&mut self, rate: u32) -> Result<(), MasterError> {
        let headroom = (self.options.alternate.into_iter())
            .chain([self.options.format])
            .map(Format::headroom_db)
            .fold(0.0, f64::max);
        let ceiling = 10f64.powf((self.options.true_peak - headroom) / 20.0) as f32;
        self.limiter = Some(Limiter::new(self.channels, rate, ceiling));
        self.meter =
            Some(LoudnessMeter::new(self.channels, rate).map_err(MasterError::Unsupported)?);
        self.rate = Some(rate);
        if !self.encode {
            return Ok(());
        }
        let mut encoders = vec![(
            self.options.format,
            Encoder::new(
                self.options.format,
                self.channels,
                rate,
                self.options.bitrate,
                self.encode_at,
                &self.ffmpeg,
            )?,
        )];
        if let Some(other) = self.options.alternate {
            let bitrate = other.default_bitrate(self.channels as u16);
            encoders.push((
                other,
                Encoder::new(other, self.channels, rate, bitrate, None, &self.ffmpeg)?,
            ));
        }
        self.encoders = encoders;
        Ok(())
    }

    fn encode(&mut self) -> Result<(), MasterError> {
        if let Some(meter) = &mut self.meter {
            meter.push_interleaved(&self.limited, self.channels);
        }
        for (_, encoder) in &mut self.encoders {
            encoder.push(&self.limited, self.channels)?;
        }
        self.limited.clear();
        Ok(())
    }

    /// `ms` milliseconds of silence after the frames given so far (before
    /// [`finish`](Self::finish)): an ad ends on frames of silence, which the carrier of a seam
    /// after it may take the place of without cutting the ad.
    pub fn pad(&mut self, ms: u32) {
        let Some(rate) = self.rate else { return };
        let zeros = vec![0f32; (u64::from(rate) * u64::from(ms) / 1000) as usize];
        let planes: Vec<&[f32]> = (0..self.channels).map(|_| &zeros[..]).collect();
        self.frames(&planes, rate);
    }

    /// The encoded files, once every frame was given.
    pub fn finish(mut self) -> Result<Mastered, MasterError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let (Some(_), Some(mut limiter)) = (self.rate, self.limiter.take()) else {
            return Err(MasterError::Unsupported("the file has no audio".into()));
        };
        limiter.finish(&mut self.limited);
        self.encode()?;
        let mut files = Vec::new();
        for (format, encoder) in std::mem::take(&mut self.encoders) {
            files.push((format, encoder.finish(self.channels)?));
        }
        let integrated = self.meter.take().and_then(|m| m.finish().integrated);
        Ok(Mastered { files, integrated })
    }
}

/// Why mastering in passes stopped: the decode's error, or mastering's.
#[derive(Debug)]
pub enum PassesError<E> {
    /// The decode that feeds a pass failed.
    Decode(E),
    /// Mastering failed.
    Master(MasterError),
}

/// Masters audio of `loudness` to `options` in passes, each a decode from the start fed to a
/// [`Master`] made by `master(gain_db)` (its channels, rate, ffmpeg) by `decode`. The first pass
/// encodes (most files need no other). When limiting cost it more than [`TOLERANCE_LU`] of the
/// target, passes that only measure correct the gain (see [`Passes`]) and one more encodes at
/// the gain found: at most two encodings, whatever the passes. Returns what was encoded and
/// the passes that set the gain.
pub fn in_passes<E>(
    options: &MasterOptions,
    loudness: &Loudness,
    master: impl Fn(f64) -> Master,
    mut decode: impl FnMut(&mut Master) -> Result<(), E>,
) -> Result<(Mastered, usize), PassesError<E>> {
    let mut passes = Passes::new(options, loudness);
    let mut pass = |gain: f64, encode: bool| {
        let mut made = master(gain);
        if !encode {
            made = made.measure_only();
        }
        decode(&mut made).map_err(PassesError::Decode)?;
        made.finish().map_err(PassesError::Master)
    };
    let first = pass(passes.gain(), true)?;
    if !passes.another(first.integrated) {
        return Ok((first, passes.made()));
    }
    loop {
        let measured = pass(passes.gain(), false)?;
        if !passes.another(measured.integrated) {
            break;
        }
    }
    Ok((pass(passes.gain(), true)?, passes.made()))
}

/// What mastering made.
#[derive(Debug)]
pub struct Mastered {
    /// The encoded files: the format asked for first, then the alternate (none when it only
    /// measured).
    pub files: Vec<(Format, Vec<u8>)>,
    /// The integrated loudness of what was encoded, in LUFS (`None` for silence).
    pub integrated: Option<f64>,
}

impl Tap for Master {
    fn frames(&mut self, planes: &[&[f32]], rate: u32) {
        if self.error.is_some() {
            return;
        }
        if self.rate.is_none()
            && let Err(e) = self.start(rate)
        {
            self.error = Some(e);
            return;
        }
        let len = planes.first().map_or(0, |p| p.len());
        self.interleaved.clear();
        for i in 0..len {
            match (self.channels, planes) {
                (1, planes) => {
                    let sum: f32 = planes.iter().map(|p| p[i]).sum();
                    self.interleaved.push(sum / planes.len() as f32 * self.gain);
                }
                (_, [mono]) => {
                    self.interleaved.push(mono[i] * self.gain);
                    self.interleaved.push(mono[i] * self.gain);
                }
                (_, [left, right, rest @ ..]) => {
                    // More than two channels: centre and surrounds folded in at -3 dB.
                    let fold: f32 = rest.iter().map(|p| p[i]).sum::<f32>() * 0.707;
                    self.interleaved.push((left[i] + fold) * self.gain);
                    self.interleaved.push((right[i] + fold) * self.gain);
                }
                _ => {}
            }
        }
        if let Some(limiter) = &mut self.limiter {
            limiter.process(&self.interleaved, &mut self.limited);
        }
        if let Err(e) = self.encode() {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mp3_takes_its_rates_and_the_others_go_to_the_nearest() {
        for (rate, want) in [
            (44100, 44100),
            (8000, 8000),
            (88200, 44100),
            (176_400, 44100),
            (96000, 48000),
            (192_000, 48000),
            (37800, 44100),
            (64000, 48000),
            (6000, 8000),
        ] {
            assert_eq!(mp3_rate(rate), want, "{rate}");
        }
    }

    /// The MP3 frames of `mp3` (its Xing/Info frame left out).
    fn frames(mp3: &[u8]) -> usize {
        crate::stitch::Mp3Layout::read(mp3).unwrap().frames.len()
    }

    #[test]
    fn padding_adds_silence_after_the_audio() {
        let options = MasterOptions::from_params(&serde_json::Value::Null, 1).unwrap();
        let tone: Vec<f32> = (0..44_100)
            .map(|i| (i as f32 * 440.0 * std::f32::consts::TAU / 44_100.0).sin() * 0.3)
            .collect();
        let encode = |pad_ms: u32| {
            let mut master = Master::new(options, 0.0, 1);
            master.frames(&[&tone[..]], 44_100);
            master.pad(pad_ms);
            let mastered = master.finish().unwrap();
            mastered.files[0].1.clone()
        };
        let (bare, padded) = (frames(&encode(0)), frames(&encode(150)));
        // 150 ms at 44.1 kHz: 6,615 samples, five frames and more of 1,152.
        assert!(padded >= bare + 5, "{bare} frames, {padded} with 150 ms");
    }

    #[test]
    fn passes_encode_at_most_twice_and_the_last_encoding_is_at_the_gain_found() {
        // Quiet speech-like tone with loud clicks: the limiter takes loudness from the gain.
        let rate = 44_100;
        let tone: Vec<f32> = (0..rate * 4)
            .map(|i| {
                let t = i as f32 / rate as f32;
                let click = if i % 11_025 < 40 { 0.95 } else { 0.0 };
                0.02 * (t * 220.0 * std::f32::consts::TAU).sin() + click
            })
            .collect();
        let options = MasterOptions::from_params(&serde_json::Value::Null, 1).unwrap();
        let mut meter = LoudnessMeter::new(1, rate).unwrap();
        meter.push_interleaved(&tone, 1);
        let loudness = meter.finish();
        let encodings = std::cell::Cell::new(0);
        let master = |gain| Master::new(options, gain, 1);
        let decode = |m: &mut Master| {
            encodings.set(encodings.get() + usize::from(m.encode));
            m.frames(&[&tone[..]], rate);
            Ok::<_, ()>(())
        };
        let (made, passes) = in_passes(&options, &loudness, master, decode).unwrap();
        assert!(passes > 1, "the limiter costs loudness: {passes} pass(es)");
        assert_eq!(encodings.get(), 2, "{passes} passes");
        assert_eq!(made.files.len(), 1);
        let reached = made.integrated.unwrap();
        assert!(
            (reached - options.target).abs() <= TOLERANCE_LU + 0.5,
            "{reached}"
        );
    }

    #[test]
    fn passes_correct_the_gain_by_what_the_limiter_let_through() {
        let options = MasterOptions::from_params(&serde_json::Value::Null, 2).unwrap();
        let loudness = Loudness {
            integrated: Some(-26.0),
            range: 0.0,
            true_peak: None,
            sample_peak: None,
        };
        let mut passes = Passes::new(&options, &loudness);
        assert_eq!(passes.gain(), 10.0, "-26 LUFS to -16");
        // A limiter that lets half of any gain past 6 dB through.
        let reached = |gain: f64| -26.0 + gain.min(6.0) + (gain - 6.0).max(0.0) / 2.0;
        while passes.another(Some(reached(passes.gain()))) {}
        assert_eq!(passes.made(), 3);
        assert!((reached(passes.gain()) + 16.0).abs() <= TOLERANCE_LU);
        // Silence: one pass, no gain.
        let silent = Loudness {
            integrated: None,
            ..loudness
        };
        let mut passes = Passes::new(&options, &silent);
        assert_eq!(passes.gain(), 0.0);
        assert!(!passes.another(None));
    }
}
