//! Audio stream facts from containers, read with symphonia's demuxers (no decoding).
//!
//! Only the container's own bookkeeping is used: FLAC STREAMINFO, WAVE chunk sizes, the Ogg
//! end-of-stream granule position, MP4 sample tables, Xing/VBRI headers. Durations therefore
//! come from frame counts, never from decoding the whole stream.

use symphonia::core::codecs::audio::AudioCodecId;
use symphonia::core::codecs::audio::well_known as ids;
use symphonia::core::formats::probe::ProbeableFormat;
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::{MediaSourceStream, ReadBytes};
use symphonia::core::units::{Duration, TimeBase};
use symphonia::default::formats::{
    AdtsReader, FlacReader, IsoMp4Reader, MpaReader, OggReader, WavReader,
};

use super::scan::samples_to_ms;
use super::store_source::StoreSource;

/// Which symphonia demuxer to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Demuxer {
    /// FLAC.
    Flac,
    /// Ogg.
    Ogg,
    /// RIFF WAVE.
    Wav,
    /// ISO base media.
    Mp4,
    /// Bare MPEG audio.
    Mpa,
    /// Bare ADTS AAC.
    Adts,
}

/// What a container says about its first audio track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TrackAudio {
    /// Short lowercase codec name.
    pub codec: String,
    /// Sample rate in Hz (0 if the container does not say).
    pub sample_rate: u32,
    /// Channel count (0 if the container does not say).
    pub channels: u16,
    /// Bits per sample, for PCM and lossless codecs.
    pub bits_per_sample: Option<u32>,
    /// Duration in milliseconds, when the container knows it.
    pub duration_ms: Option<u64>,
    /// Exact bitrate of uncompressed PCM.
    pub pcm_bitrate: Option<u32>,
    /// The AAC profile, from the decoder configuration.
    pub profile: Option<&'static str>,
}

/// What a container says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ContainerFacts {
    /// The default audio track, if there is one with a known codec.
    pub audio: Option<TrackAudio>,
    /// Whether there is a video track.
    pub has_video: bool,
    /// Source offset where the media data starts (after headers and metadata).
    pub data_start: u64,
}

/// Largest gap, in samples, between an MP4 track's sample-table duration and the movie
/// duration that is explained by encoder priming and padding (edit lists are not applied by
/// symphonia, the movie header's duration is).
const MP4_PRIMING_SLACK: u64 = 5 * 1024;

/// Opens `source` with `demuxer` and reads the container's facts. Blocking: call it from a
/// blocking thread.
pub(crate) fn read(demuxer: Demuxer, source: StoreSource) -> Option<ContainerFacts> {
    let size = source_len(&source);
    let mss = MediaSourceStream::new(Box::new(source), Default::default());
    let opts = FormatOptions::default();
    let reader = match demuxer {
        Demuxer::Flac => <FlacReader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
        Demuxer::Ogg => <OggReader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
        Demuxer::Wav => <WavReader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
        Demuxer::Mp4 => <IsoMp4Reader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
        Demuxer::Mpa => <MpaReader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
        Demuxer::Adts => <AdtsReader<'_> as ProbeableFormat<'_>>::try_probe_new(mss, opts),
    }
    .ok()?;
    let has_video = reader
        .tracks()
        .iter()
        .any(|t| t.track_type() == Some(TrackType::Video));
    let audio = reader.default_track(TrackType::Audio).and_then(|track| {
        let params = track.codec_params.as_ref()?.audio()?;
        let sample_rate = params.sample_rate.unwrap_or(0);
        let channels = params
            .channels
            .as_ref()
            .map_or(0, |c| u16::try_from(c.count()).unwrap_or(u16::MAX));
        let codec = codec_name(params.codec);
        let bits_per_sample = params.bits_per_sample.or(params.bits_per_coded_sample);
        let pcm_bitrate = is_pcm(params.codec)
            .then(|| bits_per_sample.map(|b| u64::from(b) * u64::from(sample_rate)))
            .flatten()
            .map(|r| r * u64::from(channels))
            .and_then(|r| u32::try_from(r).ok())
            .filter(|&r| r > 0);
        let mut duration_ms = track_duration_ms(
            track.num_frames,
            sample_rate,
            track.duration,
            track.time_base,
        );
        if demuxer == Demuxer::Mp4 {
            duration_ms = mp4_duration(duration_ms, sample_rate, reader.as_ref());
        }
        Some(TrackAudio {
            codec,
            sample_rate,
            channels,
            bits_per_sample: if is_lossless(params.codec) {
                bits_per_sample
            } else {
                None
            },
            duration_ms,
            pcm_bitrate,
            profile: (params.codec == ids::CODEC_ID_AAC)
                .then(|| {
                    params
                        .extra_data
                        .as_deref()
                        .and_then(super::aac_profile::profile)
                })
                .flatten(),
        })
    });
    let data_start = reader.into_inner().pos().min(size);
    let mut facts = ContainerFacts {
        audio,
        has_video,
        data_start,
    };
    clamp_pcm_duration(&mut facts, size);
    Some(facts)
}

fn source_len(source: &StoreSource) -> u64 {
    use symphonia::core::io::MediaSource;
    source.byte_len().unwrap_or(0)
}

fn track_duration_ms(
    num_frames: Option<u64>,
    sample_rate: u32,
    duration: Option<Duration>,
    time_base: Option<TimeBase>,
) -> Option<u64> {
    if let Some(n) = num_frames.filter(|_| sample_rate > 0) {
        return Some(samples_to_ms(n, sample_rate));
    }
    let time = time_base?.calc_duration(duration?)?;
    u64::try_from(time.as_millis()).ok()
}

/// Prefers the movie header's duration (which reflects the edit list, i.e. the encoder priming
/// and padding are trimmed) when it is shorter than the track's sample-table duration by no
/// more than priming and padding can explain.
fn mp4_duration(track_ms: Option<u64>, sample_rate: u32, reader: &dyn FormatReader) -> Option<u64> {
    let track_ms = track_ms?;
    let info = reader.media_info();
    let movie_ms = info
        .time_base
        .zip(info.duration)
        .and_then(|(tb, d)| tb.calc_duration(d))
        .and_then(|t| u64::try_from(t.as_millis()).ok());
    match movie_ms {
        Some(m) if m > 0 && m <= track_ms => {
            let slack = samples_to_ms(MP4_PRIMING_SLACK, sample_rate.max(1));
            Some(if track_ms - m <= slack { m } else { track_ms })
        }
        _ => Some(track_ms),
    }
}

/// A PCM header may claim more data than the object holds (e.g. a 4 GB data chunk): cap the
/// duration at what the bytes present can carry.
fn clamp_pcm_duration(facts: &mut ContainerFacts, size: u64) {
    let Some(a) = facts.audio.as_mut() else {
        return;
    };
    if let (Some(rate), Some(ms)) = (a.pcm_bitrate, a.duration_ms) {
        let bytes = u128::from(size.saturating_sub(facts.data_start));
        let max_ms = bytes * 8 * 1000 / u128::from(rate);
        let max_ms = u64::try_from(max_ms).unwrap_or(u64::MAX);
        a.duration_ms = Some(ms.min(max_ms));
    }
}

fn is_pcm(id: AudioCodecId) -> bool {
    pcm_name(id).is_some()
}

fn is_lossless(id: AudioCodecId) -> bool {
    is_pcm(id) || id == ids::CODEC_ID_FLAC || id == ids::CODEC_ID_ALAC
}

fn pcm_name(id: AudioCodecId) -> Option<&'static str> {
    const PCM: &[(AudioCodecId, &str)] = &[
        (ids::CODEC_ID_PCM_S32LE, "pcm_s32le"),
        (ids::CODEC_ID_PCM_S32BE, "pcm_s32be"),
        (ids::CODEC_ID_PCM_S24LE, "pcm_s24le"),
        (ids::CODEC_ID_PCM_S24BE, "pcm_s24be"),
        (ids::CODEC_ID_PCM_S16LE, "pcm_s16le"),
        (ids::CODEC_ID_PCM_S16BE, "pcm_s16be"),
        (ids::CODEC_ID_PCM_S8, "pcm_s8"),
        (ids::CODEC_ID_PCM_U32LE, "pcm_u32le"),
        (ids::CODEC_ID_PCM_U32BE, "pcm_u32be"),
        (ids::CODEC_ID_PCM_U24LE, "pcm_u24le"),
        (ids::CODEC_ID_PCM_U24BE, "pcm_u24be"),
        (ids::CODEC_ID_PCM_U16LE, "pcm_u16le"),
        (ids::CODEC_ID_PCM_U16BE, "pcm_u16be"),
        (ids::CODEC_ID_PCM_U8, "pcm_u8"),
        (ids::CODEC_ID_PCM_F32LE, "pcm_f32le"),
        (ids::CODEC_ID_PCM_F32BE, "pcm_f32be"),
        (ids::CODEC_ID_PCM_F64LE, "pcm_f64le"),
        (ids::CODEC_ID_PCM_F64BE, "pcm_f64be"),
        (ids::CODEC_ID_PCM_ALAW, "pcm_alaw"),
        (ids::CODEC_ID_PCM_MULAW, "pcm_mulaw"),
    ];
    PCM.iter().find(|(k, _)| *k == id).map(|(_, n)| *n)
}

/// Short lowercase codec name, in ffmpeg's vocabulary where there is one.
pub(crate) fn codec_name(id: AudioCodecId) -> String {
    if let Some(pcm) = pcm_name(id) {
        return pcm.to_owned();
    }
    const NAMED: &[(AudioCodecId, &str)] = &[
        (ids::CODEC_ID_MP1, "mp1"),
        (ids::CODEC_ID_MP2, "mp2"),
        (ids::CODEC_ID_MP3, "mp3"),
        (ids::CODEC_ID_AAC, "aac"),
        (ids::CODEC_ID_VORBIS, "vorbis"),
        (ids::CODEC_ID_OPUS, "opus"),
        (ids::CODEC_ID_SPEEX, "speex"),
        (ids::CODEC_ID_FLAC, "flac"),
        (ids::CODEC_ID_ALAC, "alac"),
        (ids::CODEC_ID_AC3, "ac3"),
        (ids::CODEC_ID_EAC3, "eac3"),
        (ids::CODEC_ID_DCA, "dts"),
        (ids::CODEC_ID_WAVPACK, "wavpack"),
        (ids::CODEC_ID_ADPCM_MS, "adpcm_ms"),
        (ids::CODEC_ID_ADPCM_IMA_WAV, "adpcm_ima_wav"),
    ];
    NAMED
        .iter()
        .find(|(k, _)| *k == id)
        .map_or_else(|| "unknown".to_owned(), |(_, n)| (*n).to_owned())
}
