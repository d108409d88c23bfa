//! A job as a decision records it: asked for on a file (the same job when one is waiting), and
//! the tag-writing job that `write_metadata` asks for in an episode's own commit.

use serde_json::Value;

use crate::host::views::snapshot;
use crate::webhooks::event::{EventKind, Subject};
use crate::{
    error::{Error, Result},
    ids::{JobId, MediaId},
    master::Format,
    model::{
        Episode, Feed, FeedAudio, Job, JobKind, Mastering, Media, MetadataPatch,
        podcast::AlternateEnclosure,
    },
    probe::MediaKind,
    state::{AccountState, Change, Records},
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
    // Packaging takes a video, an ad's packaging audio or video; every other job, audio.
    let (wanted, what): (&[MediaKind], _) = match kind {
        JobKind::Hls => (&[MediaKind::Video], "a video"),
        JobKind::AdStream => (&[MediaKind::Audio, MediaKind::Video], "an audio or video"),
        _ => (&[MediaKind::Audio], "an audio"),
    };
    if !wanted.contains(&file.kind()) {
        return Err(Error::invalid(
            "media",
            format!("{} is not {what} file ({})", file.name, file.facts.mime),
        ));
    }
    if kind == JobKind::WriteTags {
        no_tag_write_running(state, media)?;
    }
    // A mastering or an ad's encoding is the same job only at the same options.
    if let Some(running) = state.jobs.values().find(|j| {
        j.media == Some(media)
            && j.kind == kind
            && !j.status.is_final()
            && (!matches!(kind, JobKind::Master | JobKind::AdAudio | JobKind::AdStream)
                || j.params == *params)
    }) {
        return Ok((running.clone(), false));
    }
    let job = Job::queued(
        id.clone(),
        kind,
        Some(media),
        params.clone(),
        now,
        crate::request::RequestContext::current_id(),
    );
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

/// Whether a change that names `episode`'s audio makes work for its podcast's mastering
/// (`audio`, the podcast's setting): the podcast masters, and the audio is an audio file that
/// is not itself a mastered file.
pub(crate) fn needs_master(records: &dyn Records, episode: &Episode, audio: &FeedAudio) -> bool {
    audio.master
        && episode
            .media
            .and_then(|id| records.media(id))
            .is_some_and(|m| matches!(m.kind(), MediaKind::Audio) && m.mastered_from.is_none())
}

/// The decision of mastering `episode`'s audio after a change that named it (`before`: the
/// episode as it was, `None` for a new one), in the episode's own commit: in a podcast that
/// masters (`audio`, its setting; see [`needs_master`]), the mastering job of the file (reserved as `reserved`, or the
/// same one already waiting) and the episode marked as waiting for it; `None` otherwise, the
/// mark removed. An episode already published keeps the audio it had until the job ends (so
/// it never leaves the feed), and naming the audio it is published with keeps that audio.
pub(crate) fn episode_master_job(
    records: &dyn Records,
    before: Option<&Episode>,
    episode: &mut Episode,
    audio: &FeedAudio,
    reserved: Option<&JobId>,
    now: jiff::Timestamp,
) -> Result<Option<(Job, bool)>> {
    if !needs_master(records, episode, audio) {
        episode.mastering = None;
        return Ok(None);
    }
    let published = before.filter(|b| b.is_published(now));
    if let Some(before) = published
        && before.media == episode.media
    {
        // The audio it is published with, named again: it keeps it, and new audio being
        // mastered for it no longer replaces it.
        episode.mastering = None;
        return Ok(None);
    }
    let Some(reserved) = reserved else {
        return Err(Error::conflict(
            "the podcast's audio setting changed while the episode was being saved; ask again",
        ));
    };
    let media = episode.media.expect("needs_master: the episode has audio");
    let (job, new) = job_for(
        records,
        reserved,
        media,
        JobKind::Master,
        &audio.job_params(),
        now,
    )?;
    episode.mastering = Some(Mastering {
        job: job.id.clone(),
        media,
    });
    if let Some(before) = published {
        episode.media = before.media;
    }
    Ok(Some((job, new)))
}

/// In the finishing commit of mastering job `job`, which made `created` (the enclosure's file
/// first, then its alternate encodings): every episode waiting for that job takes the first as
/// its audio and the others as its alternate enclosures (in place of those a mastering made
/// before; one given other audio since no longer waits for it), and its events:
/// `episode.updated`, and `episode.published` when the wait was all that held it back.
pub(crate) fn episodes_mastered(
    state: &AccountState,
    job: &JobId,
    created: &[(Format, Media)],
    now: jiff::Timestamp,
) -> (Vec<Change>, Vec<(EventKind, Subject)>) {
    let files: Vec<Media> = created.iter().map(|(_, m)| m.clone()).collect();
    let records = crate::state::WithMedia {
        state,
        media: &files,
    };
    let (mut changes, mut events) = (Vec::new(), Vec::new());
    let Some(((_, enclosure), alternates)) = created.split_first() else {
        return (changes, events);
    };
    let waiting = state
        .feeds
        .values()
        .flat_map(|entry| entry.episodes.values());
    for before in waiting.filter(|e| e.mastering.as_ref().is_some_and(|m| &m.job == job)) {
        let mut episode = before.clone();
        episode.media = Some(enclosure.id);
        episode.mastering = None;
        let made_by_mastering = |a: &AlternateEnclosure| {
            a.media
                .and_then(|id| state.media.get(&id))
                .is_some_and(|m| m.mastered_from.is_some())
        };
        let list = &mut episode.podcast.alternate_enclosure;
        list.retain(|a| !made_by_mastering(a));
        for (format, media) in alternates {
            list.push(AlternateEnclosure {
                media: Some(media.id),
                mime: format.feed_type().to_string(),
                title: Some(format.name().to_string()),
                codecs: Some(format.codecs().to_string()),
                ..Default::default()
            });
        }
        episode.updated = now;
        episode.version += 1;
        events.push((EventKind::EpisodeUpdated, snapshot(&records, &episode, now)));
        if episode.is_published(now) && !state.publication_said(before, now) {
            events.push((
                EventKind::EpisodePublished,
                snapshot(&records, &episode, now),
            ));
        }
        changes.push(Change::EpisodePut(Box::new(episode)));
    }
    (changes, events)
}

/// The episodes of podcast `feed` that its audio setting `audio` gives mastering work to when
/// it changes: not published yet, with audio that needs mastering ([`needs_master`]), and not
/// already waiting for a job at these options.
pub(crate) fn episodes_to_master<'a>(
    state: &'a AccountState,
    feed: &crate::ids::FeedId,
    audio: &FeedAudio,
    now: jiff::Timestamp,
) -> Vec<&'a Episode> {
    let Some(entry) = state.feeds.get(feed) else {
        return Vec::new();
    };
    let params = audio.job_params();
    let waiting = |episode: &Episode| {
        episode.mastering.as_ref().is_some_and(|m| {
            state
                .jobs
                .get(&m.job)
                .is_some_and(|job| !job.status.is_final() && job.params == params)
        })
    };
    entry
        .episodes
        .values()
        .filter(|e| !e.is_published(now) && needs_master(state, e, audio) && !waiting(e))
        .collect()
}

/// The decision, in the commit that changes podcast `feed`'s audio setting to `audio`, of
/// mastering its episodes not published yet ([`episodes_to_master`]): each one's job (reserved
/// beforehand as `reserved`, in order) and the episode marked as waiting for it. Returns the
/// changes and the jobs recorded.
pub(crate) fn podcast_master_jobs(
    state: &AccountState,
    feed: &crate::ids::FeedId,
    audio: &FeedAudio,
    reserved: &[JobId],
    now: jiff::Timestamp,
) -> Result<(Vec<Change>, Vec<JobId>)> {
    let (mut changes, mut recorded) = (Vec::new(), Vec::new());
    for (i, before) in episodes_to_master(state, feed, audio, now)
        .into_iter()
        .enumerate()
    {
        let mut episode = before.clone();
        let decided = episode_master_job(
            state,
            Some(before),
            &mut episode,
            audio,
            reserved.get(i),
            now,
        )?;
        if let Some((job, new)) = decided {
            recorded.push(job.id.clone());
            if new {
                changes.push(Change::JobPut(job));
            }
        }
        episode.updated = now;
        episode.version += 1;
        changes.push(Change::EpisodePut(Box::new(episode)));
    }
    Ok((changes, recorded))
}
