//! Background jobs: waveform, silence detection and tag writing run apart from the request that
//! asked for them, survive restarts and report how they ended.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{JobId, MediaId};

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// The waveform of an audio file (BBC audiowaveform's format).
    Waveform,
    /// Silences and suggested ad breaks (ffmpeg silencedetect's rule).
    Silence,
    /// Loudness by EBU R128 (integrated, range, true and sample peak).
    Loudness,
    /// The file normalised, limited and encoded as a new media file.
    Master,
    /// Tags, chapters and cover written into the file (a new file, a new URL).
    WriteTags,
    /// A podcast imported from its RSS feed.
    Import,
    /// An ad encoded like the episodes it goes into (podhost asks for it when it first puts
    /// the ad into an episode of a new shape).
    AdAudio,
    /// A video packaged for HLS: its ladder of renditions, segments and playlists.
    Hls,
    /// An ad packaged like the video streams it goes into (podhost asks for it when a campaign
    /// may put the ad into a video of a new shape).
    AdStream,
}

impl JobKind {
    /// The name on the wire: `waveform`, `silence`, `loudness`, `master`, `write_tags`, `import`,
    /// `ad_audio`, `hls`, `ad_stream`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Waveform => "waveform",
            JobKind::Silence => "silence",
            JobKind::Loudness => "loudness",
            JobKind::Master => "master",
            JobKind::WriteTags => "write_tags",
            JobKind::Import => "import",
            JobKind::AdAudio => "ad_audio",
            JobKind::Hls => "hls",
            JobKind::AdStream => "ad_stream",
        }
    }
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Waiting for a worker.
    Queued,
    /// A worker has it.
    Running,
    /// Done; its result is stored.
    Succeeded,
    /// Ended with an error (`Job::error` says why); nothing else was harmed.
    Failed,
}

impl JobStatus {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Failed => "failed",
        }
    }

    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(self, JobStatus::Succeeded | JobStatus::Failed)
    }
}

/// One job of an account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Its id.
    pub id: JobId,
    /// What it does.
    pub kind: JobKind,
    /// The media file it works on (none for an import).
    pub media: Option<MediaId>,
    /// Its options, as the kind reads them.
    pub params: serde_json::Value,
    /// Where it is.
    pub status: JobStatus,
    /// Why it failed.
    pub error: Option<String>,
    /// When it was asked for.
    pub created: Timestamp,
    /// When a worker last started it.
    pub started: Option<Timestamp>,
    /// When it ended.
    pub finished: Option<Timestamp>,
    /// How many times a worker started it (more than one after a crash).
    pub attempts: u32,
    /// What it did, when it says more than its status (an import's report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
    /// The id of the request that asked for it (its log lines carry it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// How much of it is done (0 to 1) while it runs, for a job that says (packaging): read
    /// from its worker's lease, never stored with the job.
    #[serde(skip)]
    pub progress: Option<f64>,
}

impl Job {
    /// A job asked for at `now`, queued and never tried, naming the request that asked for it.
    pub fn queued(
        id: JobId,
        kind: JobKind,
        media: Option<MediaId>,
        params: serde_json::Value,
        now: Timestamp,
        request_id: Option<String>,
    ) -> Job {
        Job {
            id,
            kind,
            media,
            params,
            status: JobStatus::Queued,
            error: None,
            created: now,
            started: None,
            finished: None,
            attempts: 0,
            report: None,
            request_id,
            progress: None,
        }
    }
}
