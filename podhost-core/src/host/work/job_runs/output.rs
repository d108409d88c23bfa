//! What a job changes: the delta its finishing commit applies to the media record as it is
//! then (never a copy read when the job began), or the media record it makes.

use crate::webhooks::event::{EventKind, Subject};
use crate::{
    analysis,
    error::Result,
    ids::{JobId, MediaId},
    model::{BlobKey, JobKind, Media},
    probe::MediaFacts,
    state::Change,
    tags::Chapter,
};

/// What a job changes in its media record (or, for an import, what it did). The job's finishing commit applies it to the record
/// as it is then ([`JobOutput::apply`]), never writes back a copy read when the job began: other
/// changes made while the job ran (ad breaks, a rename, another job's result) stay.
#[derive(Debug)]
pub(crate) enum JobOutput {
    /// One decode's results: the waveform, the silences and the loudness.
    Analysis(Analysed),
    /// The file with its tags written is stored as `blob`, to replace `from`.
    Tags {
        /// The blob the job read.
        from: BlobKey,
        /// The blob the job wrote.
        blob: BlobKey,
        /// Its size.
        size: u64,
        /// What it is.
        facts: MediaFacts,
        /// The chapters it holds, as published.
        chapters: Vec<Chapter>,
    },
    /// An import ran (its episodes and files were committed as it went).
    Import(crate::import::ImportReport),
    /// The mastered files (the format asked for, then the alternate), each to be a new media
    /// file.
    Mastered {
        /// The files, stored.
        files: Vec<MasteredFile>,
    },
    /// The ad encoded to `shape`, stored as `blob`.
    AdAudio {
        /// The shape it was encoded to.
        shape: crate::model::AdShape,
        /// The blob the job wrote.
        blob: BlobKey,
        /// Its size.
        size: u64,
    },
    /// The video packaged for HLS (its files and description stored under the job's results),
    /// and its soundtrack, to be a new audio file.
    Hls {
        /// The package, for the video's record.
        streamed: Box<crate::model::Streamed>,
        /// The soundtrack, stored (none for a silent video).
        soundtrack: Option<MadeFile>,
    },
    /// The ad packaged like the streams of `shape` (its files and description stored under the
    /// job's results).
    AdStream {
        /// The shape it was packaged to.
        shape: crate::model::StreamShape,
    },
}

/// A file a job made and stored, to be a new media record.
#[derive(Debug)]
pub(crate) struct MadeFile {
    /// Its name (made unique when the record is made).
    pub(crate) name: String,
    /// The blob the job wrote.
    pub(crate) blob: BlobKey,
    /// Its size.
    pub(crate) size: u64,
    /// What it is.
    pub(crate) facts: MediaFacts,
}

/// One mastered file, stored as `blob`, to be a new media file named `name`.
#[derive(Debug)]
pub(crate) struct MasteredFile {
    /// Its encoding.
    pub(crate) format: crate::master::Format,
    /// Its name (made unique when the record is made).
    pub(crate) name: String,
    /// The blob the job wrote.
    pub(crate) blob: BlobKey,
    /// Its size.
    pub(crate) size: u64,
    /// What it is.
    pub(crate) facts: MediaFacts,
    /// The chapters it holds.
    pub(crate) chapters: Vec<Chapter>,
}

impl JobOutput {
    /// The record `current` with this output applied at `now`, or why it cannot be (the job
    /// then fails with that reason and its output is discarded).
    pub(crate) fn apply(
        &self,
        current: &Media,
        now: jiff::Timestamp,
    ) -> std::result::Result<Media, String> {
        let mut media = current.clone();
        match self {
            JobOutput::Analysis(analysed) => analysed.apply(&mut media.results),
            JobOutput::Import(_)
            | JobOutput::Mastered { .. }
            | JobOutput::AdAudio { .. }
            | JobOutput::AdStream { .. } => {}
            JobOutput::Hls { streamed, .. } => media.results.hls = Some(streamed.clone()),
            JobOutput::Tags {
                from,
                blob,
                size,
                facts,
                chapters,
            } => {
                if &current.blob != from {
                    return Err(format!(
                        "media {} changed while its tags were being written; nothing was \
                         changed: ask again",
                        current.id
                    ));
                }
                media.blob = blob.clone();
                media.size = *size;
                media.facts = facts.clone();
                media.chapters.clone_from(chapters);
                // A new file has a new URL, named after the file as it is now.
                media.url_name = None;
                media.updated = now;
            }
        }
        Ok(media)
    }

    /// What this output makes in the finishing commit of job `job` (a mastering): the new media
    /// files beside `original`, the episodes waiting for the job pointed at them (see
    /// [`records::episodes_mastered`](super::records::episodes_mastered)), their events, and
    /// the job's report `{media_id, alternates}`; for a packaging, the soundtrack's file, linked
    /// from `updated` (the video's record as the commit writes it). `None` for an output that
    /// makes no file.
    pub(crate) fn made(
        &self,
        state: &crate::state::AccountState,
        original: &Media,
        updated: &mut Media,
        job: &JobId,
        now: jiff::Timestamp,
    ) -> Result<Option<Made>> {
        if let JobOutput::Hls {
            soundtrack: Some(file),
            ..
        } = self
        {
            return soundtrack_made(state, original, updated, file, now).map(Some);
        }
        if let JobOutput::AdStream { shape } = self {
            return Ok(Some(ad_stream_made(state, original, job, shape)));
        }
        if let JobOutput::AdAudio { shape, blob, size } = self {
            return Ok(Some(ad_audio_made(
                state, original, job, *shape, blob, *size,
            )));
        }
        let created = self.created(state, original, now)?;
        let Some(((_, first), others)) = created.split_first() else {
            return Ok(None);
        };
        let report = serde_json::json!({
            "media_id": first.id.get(),
            "alternates": others.iter().map(|(_, m)| m.id.get()).collect::<Vec<_>>(),
        });
        let (episodes, announced) = super::records::episodes_mastered(state, job, &created, now);
        let mut made = Made {
            changes: Vec::new(),
            events: Vec::new(),
            report,
        };
        for (_, media) in created {
            let event = Subject::Media(Box::new(media.clone()));
            made.events.push((EventKind::MediaCreated, event));
            made.changes.push(Change::MediaPut(Box::new(media)));
        }
        made.changes.extend(episodes);
        made.events.extend(announced);
        Ok(Some(made))
    }

    /// The media files this output makes beside `original` (in its category), in the state
    /// the job's finishing commit reads: the format asked for first, then the alternate.
    fn created(
        &self,
        state: &crate::state::AccountState,
        original: &Media,
        now: jiff::Timestamp,
    ) -> Result<Vec<(crate::master::Format, Media)>> {
        let JobOutput::Mastered { files } = self else {
            return Ok(Vec::new());
        };
        let mut made: Vec<(crate::master::Format, Media)> = Vec::new();
        for file in files {
            let taken = |n: &str| {
                state.media.values().any(|m| m.name == n) || made.iter().any(|(_, m)| m.name == n)
            };
            let media = Media {
                id: MediaId::new(state.next_media_id() + made.len() as u64)?,
                name: crate::host::user_text::unique_name(&file.name, taken),
                url_name: None,
                category: original.category.clone(),
                size: file.size,
                created: now,
                updated: now,
                blob: file.blob.clone(),
                facts: file.facts.clone(),
                adbreak: original.adbreak.clone(),
                results: Default::default(),
                chapters: file.chapters.clone(),
                mastered_from: Some(original.id),
                // A file made from a private one is private too.
                access: original.access,
            };
            made.push((file.format, media));
        }
        Ok(made)
    }

    /// The blobs this output stored, which nothing references unless the output is applied.
    pub(crate) fn new_blobs(&self) -> Vec<&BlobKey> {
        match self {
            JobOutput::Tags { blob, .. } => vec![blob],
            JobOutput::Mastered { files } => files.iter().map(|f| &f.blob).collect(),
            JobOutput::AdAudio { blob, .. } => vec![blob],
            JobOutput::Hls { soundtrack, .. } => soundtrack.iter().map(|f| &f.blob).collect(),
            JobOutput::Analysis(_) | JobOutput::Import(_) | JobOutput::AdStream { .. } => {
                Vec::new()
            }
        }
    }
}

/// The finishing commit of ad `ad`'s encoding to `shape` by `job`: the encoding stored, unless
/// the ad asked for it no longer waits for this job (its blob is then left to the sweep).
fn ad_audio_made(
    state: &crate::state::AccountState,
    ad: &Media,
    job: &JobId,
    shape: crate::model::AdShape,
    blob: &BlobKey,
    size: u64,
) -> Made {
    let waiting = state
        .ad_audio(ad.id, &shape)
        .is_some_and(|a| a.job == *job && a.blob.is_none());
    let changes = match waiting {
        true => vec![Change::AdAudioPut {
            media: ad.id,
            audio: crate::model::AdAudio {
                shape,
                job: job.clone(),
                blob: Some(blob.clone()),
                size,
            },
        }],
        false => Vec::new(),
    };
    Made {
        changes,
        events: Vec::new(),
        report: serde_json::json!({ "shape": shape, "size": size }),
    }
}

/// The finishing commit of ad `ad`'s packaging to `shape` by `job`: the package ready, unless
/// the ad no longer waits for this job (its files are then left to the sweep).
fn ad_stream_made(
    state: &crate::state::AccountState,
    ad: &Media,
    job: &JobId,
    shape: &crate::model::StreamShape,
) -> Made {
    let waiting = state
        .ad_stream(ad.id, shape)
        .is_some_and(|a| a.job == *job && !a.ready);
    let changes = match waiting {
        true => vec![Change::AdStreamPut {
            media: ad.id,
            stream: crate::model::AdStream {
                shape: shape.clone(),
                job: job.clone(),
                ready: true,
            },
        }],
        false => Vec::new(),
    };
    Made {
        changes,
        events: Vec::new(),
        report: serde_json::json!({ "renditions": shape.renditions.len() }),
    }
}

/// The finishing commit of the packaging of `video`: its soundtrack `file` a new audio file
/// beside it (in its category, as private as it), linked from the video's record (`updated`),
/// and taken as their audio by the episodes that show the video and have no audio of their own.
fn soundtrack_made(
    state: &crate::state::AccountState,
    video: &Media,
    updated: &mut Media,
    file: &MadeFile,
    now: jiff::Timestamp,
) -> Result<Made> {
    let media = Media {
        id: MediaId::new(state.next_media_id())?,
        name: crate::host::user_text::unique_name(&file.name, |n| {
            state.media.values().any(|m| m.name == n)
        }),
        url_name: None,
        category: video.category.clone(),
        size: file.size,
        created: now,
        updated: now,
        blob: file.blob.clone(),
        facts: file.facts.clone(),
        adbreak: None,
        results: Default::default(),
        chapters: Vec::new(),
        mastered_from: None,
        access: video.access,
    };
    if let Some(streamed) = updated.results.hls.as_mut() {
        streamed.soundtrack = Some(media.id);
    }
    let mut made = Made {
        changes: vec![Change::MediaPut(Box::new(media.clone()))],
        events: vec![(
            EventKind::MediaCreated,
            Subject::Media(Box::new(media.clone())),
        )],
        report: serde_json::json!({ "soundtrack": media.id.get() }),
    };
    let records = crate::state::WithMedia {
        state,
        media: std::slice::from_ref(&media),
    };
    let showing = state
        .feeds
        .values()
        .flat_map(|entry| entry.episodes.values())
        .filter(|e| e.video == Some(video.id) && e.media.is_none());
    for before in showing {
        let mut episode = before.clone();
        episode.media = Some(media.id);
        episode.updated = now;
        episode.version += 1;
        made.events.push((
            EventKind::EpisodeUpdated,
            crate::host::views::snapshot(&records, &episode, now),
        ));
        if episode.is_published(now) && !state.publication_said(before, now) {
            made.events.push((
                EventKind::EpisodePublished,
                crate::host::views::snapshot(&records, &episode, now),
            ));
        }
        made.changes.push(Change::EpisodePut(Box::new(episode)));
    }
    Ok(made)
}

/// What a job's output makes in its finishing commit: the changes, their events, the report.
pub(crate) struct Made {
    pub(crate) changes: Vec<Change>,
    pub(crate) events: Vec<(EventKind, Subject)>,
    pub(crate) report: serde_json::Value,
}

/// What an analysis job found, and where its files are: applied to the media record as it is
/// when the job finishes.
#[derive(Debug)]
pub(crate) struct Analysed {
    /// The kind of job.
    pub(crate) kind: JobKind,
    /// The job whose stored files hold the waveform and the silences: this one, or the one
    /// whose decode at the default options is reused.
    pub(crate) files: JobId,
    /// The outline of the stored waveform.
    pub(crate) outline: Vec<u8>,
    /// Whether both stored files are at the default options.
    pub(crate) defaults: bool,
    /// The loudness measured.
    pub(crate) loudness: analysis::Loudness,
}

impl Analysed {
    /// The job's kind points at its files; the other kinds of result, and the loudness, are
    /// filled in from the same decode, without replacing a result asked for with options.
    fn apply(&self, results: &mut crate::model::MediaResults) {
        let files = Some(self.files.clone());
        if self.kind == JobKind::Waveform || results.waveform.is_none() {
            results.waveform.clone_from(&files);
            results.outline.clone_from(&self.outline);
        }
        if self.kind == JobKind::Silence || results.silence.is_none() {
            results.silence.clone_from(&files);
        }
        if self.defaults {
            results.defaults = files;
        }
        results.loudness = Some(Box::new(self.loudness));
    }
}
