//! A job as a decision records it: asked for on a file (the same job when one is waiting), and
//! the tag-writing job that `write_metadata` asks for in an episode's own commit.

use serde_json::Value;

use crate::{
    error::{Error, Result},
    ids::{JobId, MediaId},
    model::{Episode, Feed, Job, JobKind, JobStatus, MetadataPatch},
    probe::MediaKind,
    state::{AccountState, Records},
    tags,
};

/// `Conflict` while tags are being written into the file: a second tag write would be lost in
/// the first, so it waits for the caller to ask again.
pub(crate) fn no_tag_write_running(state: &AccountState, media: MediaId) -> Result<()> {
    match state
        .jobs
        .values()
        .find(|j| j.media == Some(media) && j.kind == JobKind::WriteTags && !j.status.is_final())
    {
        Some(running) => Err(Error::Conflict {
            message: format!(
                "tags are being written into this file (job {}); ask again when it has ended",
                running.id
            ),
        }),
        None => Ok(()),
    }
}

/// The decision of asking for job `id` (scope checked by the caller): the job to record, or
/// the one already waiting or running for the same file and kind (an analysis asked twice is
/// one job; `false` then: nothing to record). Refused when the file is not audio, or when its
/// tags are being written and this is another tag write.
pub(crate) fn job_for(
    records: &dyn Records,
    id: &JobId,
    media: MediaId,
    kind: JobKind,
    params: &Value,
    now: jiff::Timestamp,
) -> Result<(Job, bool)> {
    let state = records.state();
    let file = records
        .media(media)
        .ok_or_else(|| Error::not_found("media", media))?;
    if !matches!(file.kind(), MediaKind::Audio) {
        return Err(Error::invalid(
            "media",
            format!("{} is not an audio file ({})", file.name, file.facts.mime),
        ));
    }
    if kind == JobKind::WriteTags {
        no_tag_write_running(state, media)?;
    }
    if let Some(running) = state
        .jobs
        .values()
        .find(|j| j.media == Some(media) && j.kind == kind && !j.status.is_final())
    {
        return Ok((running.clone(), false));
    }
    let job = Job {
        id: id.clone(),
        kind,
        media: Some(media),
        params: params.clone(),
        status: JobStatus::Queued,
        error: None,
        created: now,
        started: None,
        finished: None,
        attempts: 0,
        report: None,
        request_id: crate::request::RequestContext::current_id(),
    };
    Ok((job, true))
}

/// Whether `write_metadata` can be done for `episode` as it is about to be stored: it has
/// audio, the audio's format takes tags, and no other tag write of that file is under way.
/// Returns the audio's media id.
pub(crate) fn check_write_metadata(
    records: &dyn Records,
    episode: &crate::model::Episode,
) -> Result<MediaId> {
    let refuse = |message: String| Error::invalid("write_metadata", message);
    let media_id = episode
        .media
        .ok_or_else(|| refuse("the episode has no audio file to write tags into".into()))?;
    let media = records
        .media(media_id)
        .ok_or_else(|| refuse(format!("no media file {media_id}")))?;
    if !tags::can_write(&media.facts.mime) {
        return Err(refuse(format!(
            "tags cannot be written into {} files",
            media.facts.mime
        )));
    }
    no_tag_write_running(records.state(), media_id)?;
    Ok(media_id)
}

/// The tags `write_metadata` writes for `episode` of `feed`: its title, author, album (the
/// podcast's title) and cover (the episode's, else the podcast's).
pub(crate) fn episode_tags(feed: &Feed, episode: &Episode) -> MetadataPatch {
    let first = |values: [&str; 3]| {
        values
            .into_iter()
            .find(|v| !v.trim().is_empty())
            .map(str::to_string)
    };
    MetadataPatch {
        title: Some(first([&episode.itunes.title, &episode.title, ""])),
        artist: Some(first([
            &episode.itunes.author,
            &episode.author,
            &feed.itunes.author,
        ])),
        album: Some(first([&feed.title, "", ""])),
        image: episode.itunes.logo.or(feed.logo).map(Some),
        ..Default::default()
    }
}

/// The decision of `write_metadata` for `episode` as it is about to be stored (in the same
/// commit): the tag-writing job of its audio file, reserved as `job`; `None` when the same job
/// is already queued.
pub(crate) fn episode_tags_job(
    records: &dyn Records,
    episode: &Episode,
    job: &JobId,
    now: jiff::Timestamp,
) -> Result<(Job, bool)> {
    let media = check_write_metadata(records, episode)?;
    let feed = records
        .state()
        .feeds
        .get(&episode.feed)
        .map(|entry| &entry.feed)
        .ok_or_else(|| Error::not_found("feed", &episode.feed))?;
    let params = serde_json::to_value(episode_tags(feed, episode))
        .map_err(|e| Error::storage(e.to_string()))?;
    job_for(records, job, media, JobKind::WriteTags, &params, now)
}
