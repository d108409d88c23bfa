//! Background jobs on the wire: the job, the options of waveform and silence jobs, and their
//! results.

use podhost_core::{
    MediaId, PodcastHost,
    analysis::SilenceReport,
    model::{Job, JobKind, JobStatus},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Example;
use crate::urls::ApiUrls;

/// What a job does.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKindName {
    /// A waveform.
    Waveform,
    /// Silences and ad-break suggestions.
    Silence,
    /// Loudness (EBU R128).
    Loudness,
    /// A mastered copy of the file.
    Master,
    /// Tags written into the file.
    WriteTags,
    /// A podcast moving in.
    Import,
    /// An ad encoded like the episodes it goes into.
    AdAudio,
    /// A video packaged for HLS.
    Hls,
    /// An ad packaged like the video streams it goes into.
    AdStream,
}

/// Where a job is.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStatusName {
    /// Waiting for a worker.
    Queued,
    /// A worker runs it.
    Running,
    /// Done.
    Succeeded,
    /// Given up (see `error`).
    Failed,
}

/// A background job: `{id, kind, media_id, status, error, result}`, then `created`,
/// `started`, `finished` and `attempts`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Job")]
pub struct JobRecord {
    /// Its id.
    pub id: String,
    /// What it does.
    pub kind: JobKindName,
    /// The file it works on; null for an import.
    pub media_id: Option<u64>,
    /// Where it is.
    pub status: JobStatusName,
    /// Why it failed.
    pub error: Option<String>,
    /// Links to the output once it succeeded; for an import, its report (feed_id, feed,
    /// rss_url, items, created, completed, unchanged, files, bytes, problems).
    pub result: Option<Value>,
    /// When it was asked for.
    pub created: String,
    /// When its last attempt started.
    pub started: Option<String>,
    /// When it ended.
    pub finished: Option<String>,
    /// Attempts so far.
    pub attempts: u32,
    /// Addition: how much of it is done, 0 to 1, while it runs, for a job that says (a video's
    /// packaging); null otherwise.
    pub progress: Option<f64>,
}

/// A background job, with links to its output once it succeeded.
pub fn job(host: &PodcastHost, j: &Job) -> JobRecord {
    let urls = ApiUrls::new(host);
    let result = match (j.status, j.kind, j.media) {
        (JobStatus::Succeeded, JobKind::Waveform, Some(m)) => Some(json!({
            "waveform": urls.waveform(m),
            "waveform_dat": format!("{}?format=dat", urls.waveform(m)),
        })),
        (JobStatus::Succeeded, JobKind::Silence, Some(m)) => {
            Some(json!({ "silence": urls.silence(m) }))
        }
        (JobStatus::Succeeded, JobKind::Loudness, Some(m)) => {
            Some(json!({ "loudness": urls.loudness(m) }))
        }
        // The new file the job made.
        (JobStatus::Succeeded, JobKind::Master, _) => j.report.as_ref().and_then(|r| {
            let id = MediaId::new(r["media_id"].as_u64()?).ok()?;
            let alternates: Vec<Value> = r["alternates"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| MediaId::new(a.as_u64()?).ok())
                .map(|a| json!({ "media_id": a.get(), "media": urls.media(a) }))
                .collect();
            Some(json!({ "media_id": id.get(), "media": urls.media(id), "alternates": alternates }))
        }),
        // The video's record, which links its stream.
        (JobStatus::Succeeded, JobKind::Hls, Some(m)) => Some(json!({ "media": urls.media(m) })),
        (JobStatus::Succeeded, JobKind::WriteTags, Some(m)) => {
            Some(json!({ "metadata": urls.metadata(m) }))
        }
        // The import's report, with a link to the podcast it made.
        (JobStatus::Succeeded, JobKind::Import, _) => {
            let mut report = j.report.clone().unwrap_or_else(|| json!({}));
            let feed = report["feed_id"]
                .as_str()
                .and_then(|id| podhost_core::FeedId::new(id).ok());
            if let (Some(feed), Some(object)) = (feed, report.as_object_mut()) {
                object.insert("feed".into(), json!(urls.feed(&feed)));
            }
            Some(report)
        }
        _ => None,
    };
    let time = |t: Option<jiff::Timestamp>| t.map(|t| t.to_string());
    JobRecord {
        id: j.id.as_str().to_string(),
        kind: match j.kind {
            JobKind::Waveform => JobKindName::Waveform,
            JobKind::Silence => JobKindName::Silence,
            JobKind::Loudness => JobKindName::Loudness,
            JobKind::Master => JobKindName::Master,
            JobKind::WriteTags => JobKindName::WriteTags,
            JobKind::Import => JobKindName::Import,
            JobKind::AdAudio => JobKindName::AdAudio,
            JobKind::Hls => JobKindName::Hls,
            JobKind::AdStream => JobKindName::AdStream,
        },
        media_id: j.media.map(MediaId::get),
        status: match j.status {
            JobStatus::Queued => JobStatusName::Queued,
            JobStatus::Running => JobStatusName::Running,
            JobStatus::Succeeded => JobStatusName::Succeeded,
            JobStatus::Failed => JobStatusName::Failed,
        },
        error: j.error.clone(),
        result,
        created: j.created.to_string(),
        started: time(j.started),
        finished: time(j.finished),
        attempts: j.attempts,
        progress: j.progress,
    }
}

/// Options of a waveform: BBC audiowaveform's.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct WaveformOptions {
    /// Samples per pixel (default 256); not with `pixels_per_second`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub samples_per_pixel: Option<u32>,
    /// Pixels per second of audio, instead of samples per pixel.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub pixels_per_second: Option<u32>,
    /// 8 (default) or 16 bits per value.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = [8, 16]))]
    pub bits: Option<u8>,
}

impl Example for WaveformOptions {
    fn example() -> Value {
        json!({"samples_per_pixel": 256, "bits": 8})
    }
}

/// Options of a mastering job; each may be left out for its default.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct MasterOptions {
    /// The integrated loudness to reach, in LUFS, from -70 to -5 (default -16 for stereo, -19
    /// for mono).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = *podhost_core::master::TARGETS.start(), max = *podhost_core::master::TARGETS.end()))]
    pub target: Option<f64>,
    /// The ceiling of true peaks, in dBTP, from -9 to 0 (default -1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = *podhost_core::master::CEILINGS.start(), max = *podhost_core::master::CEILINGS.end()))]
    pub true_peak: Option<f64>,
    /// The encoding: `mp3` (the default), `aac` (AAC-LC in M4A, by ffmpeg) or `opus` (Opus in
    /// Ogg; a build with the `opus` feature, else 422).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = podhost_core::master::Format::NAMES))]
    pub format: Option<String>,
    /// The bitrate in kbit/s: for MP3 one of 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192,
    /// 224, 256, 320 (default 128 for stereo, 64 for mono); for AAC 16 to 320 (default 128 for
    /// stereo, 64 for mono); for Opus 6 to 510 (default 48).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = *podhost_core::master::OPUS_BITRATES.start(), max = *podhost_core::master::OPUS_BITRATES.end()))]
    pub bitrate: Option<u32>,
    /// Other encodings made in the same decode, each a new media file at its format's default
    /// bitrate (at most one, another than `format`); the job's `result` lists them in
    /// `alternates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("items" = {"enum": podhost_core::master::Format::NAMES}))]
    pub alternates: Option<Vec<String>>,
}

impl Example for MasterOptions {
    fn example() -> Value {
        json!({"target": -16, "true_peak": -1, "format": "mp3", "bitrate": 128})
    }
}

/// Options of silence detection: ffmpeg silencedetect's.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct SilenceOptions {
    /// The threshold in dB (default -60).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 0))]
    pub noise: Option<f64>,
    /// The shortest silence in seconds (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
}

impl Example for SilenceOptions {
    fn example() -> Value {
        json!({"noise": -60, "duration": 2})
    }
}

/// A waveform in BBC audiowaveform's JSON form, value for value (what peaks.js reads).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Waveform {
    /// The format's version (2).
    pub version: u32,
    /// Channels (1: mixed to mono).
    pub channels: u32,
    /// The audio's sample rate.
    pub sample_rate: u32,
    /// Samples per pixel.
    pub samples_per_pixel: u32,
    /// Bits per value, 8 or 16.
    pub bits: u32,
    /// Pixels.
    pub length: u64,
    /// Minimum and maximum of each pixel, in turn.
    pub data: Vec<i32>,
}

/// A silence, in seconds.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SilenceSpan {
    /// Where it starts.
    pub start: f64,
    /// Where it ends.
    pub end: f64,
    /// How long it is.
    pub duration: f64,
}

/// The silences of a file and the suggested mid-roll ad breaks.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "SilenceReport")]
pub struct Silences {
    /// The silences.
    pub silences: Vec<SilenceSpan>,
    /// The audio's duration in seconds.
    pub duration: f64,
    /// Suggested mid-roll positions, in seconds.
    pub midrolls: Vec<f64>,
}

/// The loudness of a file by EBU R128 / ITU-R BS.1770-4 (what ffmpeg's `ebur128` filter reports
/// with `peak=true`); a level is null where there is nothing to measure (digital silence).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Loudness {
    /// Integrated loudness, in LUFS.
    pub integrated: Option<f64>,
    /// Loudness range, in LU.
    pub range: f64,
    /// The highest true peak of any channel, in dBTP.
    pub true_peak: Option<f64>,
    /// The highest sample of any channel, in dBFS.
    pub sample_peak: Option<f64>,
}

/// A loudness measurement.
pub fn loudness(l: &podhost_core::analysis::Loudness) -> Loudness {
    Loudness {
        integrated: l.integrated,
        range: l.range,
        true_peak: l.true_peak,
        sample_peak: l.sample_peak,
    }
}

/// A silence report.
pub fn silence_report(r: &SilenceReport) -> Silences {
    Silences {
        silences: r
            .silences
            .iter()
            .map(|s| SilenceSpan {
                start: s.start,
                end: s.end,
                duration: s.duration,
            })
            .collect(),
        duration: r.duration,
        midrolls: r.midrolls.clone(),
    }
}
