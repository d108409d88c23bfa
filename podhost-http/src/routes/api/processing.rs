//! Processing audio in the background: waveforms, silences, loudness, and the jobs that make them.

use podhost_core::{Action, JobId, MediaId};
use serde_json::json;

use crate::{
    routes::{BodyKind, QueryParam, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// Processing audio in the background: waveforms, silences, loudness, and the jobs that make
    /// them.
    pub enum ProcessingEndpoint: Api, tag "processing";

    /// generate a waveform (a background job; BBC audiowaveform's format)
    GenerateWaveform { id: MediaId } = POST "/api/generate/waveform/{id}",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Json {
                schema: example::<wire::jobs::WaveformOptions>(),
                required: false,
            })
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this file); Location: the job", Shape::Data(schema::<wire::jobs::JobRecord>()))
            .errors(&[413]);

    /// detect silences and suggest ad breaks (a background job; ffmpeg silencedetect's rule)
    GenerateSilence { id: MediaId } = POST "/api/generate/silence/{id}",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Json {
                schema: example::<wire::jobs::SilenceOptions>(),
                required: false,
            })
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this file); Location: the job", Shape::Data(schema::<wire::jobs::JobRecord>()))
            .errors(&[413]);

    /// measure loudness by EBU R128 (a background job; the decode that measures it also stores the
    /// waveform and silences at their default options)
    GenerateLoudness { id: MediaId } = POST "/api/generate/loudness/{id}",
        Spec::token(Action::EditMedia)
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this file); Location: the job", Shape::Data(schema::<wire::jobs::JobRecord>()));

    /// package a video for HLS again (a video is packaged when it is uploaded): its ladder of
    /// H.264 renditions no larger than the source, AAC audio, CMAF segments, I-frame and
    /// multivariant playlists, made by ffmpeg (a background job; the media record links the
    /// stream once it succeeded)
    GenerateHls { id: MediaId } = POST "/api/generate/hls/{id}",
        Spec::token(Action::EditMedia)
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this file); Location: the job", Shape::Data(schema::<wire::jobs::JobRecord>()));

    /// master a file: normalised to a loudness target, true peaks limited, encoded as a new media
    /// file (MP3) carrying the original's tags, chapters and cover (a background job; its result
    /// links the new file)
    GenerateMaster { id: MediaId } = POST "/api/generate/master/{id}",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Json {
                schema: example::<wire::jobs::MasterOptions>(),
                required: false,
            })
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this file); Location: the job", Shape::Data(schema::<wire::jobs::JobRecord>()))
            .errors(&[413]);

    /// a background job
    GetJob { job_id: JobId } = GET "/api/jobs/{job_id}",
        Spec::token(Action::ReadMedia)
            .addition()
            .answers(200, "the job", Shape::Data(schema::<wire::jobs::JobRecord>()));

    /// cancel a job: a waiting one never runs, a running one is stopped (its ffmpeg killed) and
    /// nothing it made is kept; it ends `failed` with an error saying it was cancelled (a job
    /// that has ended is answered as it is)
    CancelJob { job_id: JobId } = DELETE "/api/jobs/{job_id}",
        Spec::token(Action::EditMedia)
            .addition()
            .answers(200, "the job, as it ended", Shape::Data(schema::<wire::jobs::JobRecord>()));

    /// the latest waveform of a file, in audiowaveform's JSON (not wrapped, for peaks.js) or `.dat`
    /// form
    GetWaveform { id: MediaId } = GET "/api/media/{id}/waveform",
        Spec::token(Action::ReadMedia)
            .addition()
            .query(&[QueryParam {
                name: "format",
                schema: || json!({"type": "string", "enum": ["json", "dat"], "default": "json"}),
                description: "json or the binary dat",
            }])
            .answers(200, "the waveform", Shape::JsonOrBinary(schema::<wire::jobs::Waveform>()));

    /// the latest silence report of a file
    GetSilence { id: MediaId } = GET "/api/media/{id}/silence",
        Spec::token(Action::ReadMedia)
            .addition()
            .answers(200, "the silences and suggested mid-roll positions", Shape::Data(schema::<wire::jobs::Silences>()));

    /// the loudness of a file (integrated, range, true peak, sample peak), once an analysis job
    /// measured it
    GetLoudness { id: MediaId } = GET "/api/media/{id}/loudness",
        Spec::token(Action::ReadMedia)
            .addition()
            .answers(200, "the loudness", Shape::Data(schema::<wire::jobs::Loudness>()));
}
