//! A media file's metadata: its technical facts, the tags read from the file, its ad breaks;
//! changing them (the tags are written into a new file by a job).

use serde::{Deserialize, Serialize};

use super::{PodcastHost, jobs::job_for, media::blob_path};
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    error::{Error, FieldErrors, Result},
    ids::{AccountId, EpisodeId, FeedId, JobId, MediaId},
    model::{AdBreak, BlobKey, Episode, Feed, Job, JobKind, Media},
    principal::Principal,
    probe::{ArtworkCheck, MediaKind},
    scope::Scope,
    state::{Change, Records},
    tags::{self, Chapter, Tags},
};

/// What `GET /api/media/{id}/metadata` shows.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// The media record (facts, ad breaks).
    pub media: Media,
    /// The tags read from the file now; `None` for files without a tag format.
    pub tags: Option<Tags>,
    /// Why the tags could not be read, when they could not.
    pub tags_error: Option<String>,
    /// Whether the file (an image), or the cover in its tags, meets Apple's artwork rule.
    pub artwork: Option<ArtworkCheck>,
}

/// Changes to a media file's metadata; `None` leaves a field as it is, `Some(None)` removes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetadataPatch {
    /// Title tag.
    pub title: Option<Option<String>>,
    /// Artist tag.
    pub artist: Option<Option<String>>,
    /// Album tag.
    pub album: Option<Option<String>>,
    /// Year tag.
    pub year: Option<Option<i32>>,
    /// Comment tag.
    pub comment: Option<Option<String>>,
    /// The chapters (all of them).
    pub chapters: Option<Vec<Chapter>>,
    /// A media id of an image to embed as the cover (`Some(None)` removes the cover).
    pub image: Option<Option<MediaId>>,
    /// Where ads may go (stored with the record, not in the file).
    #[serde(skip)]
    pub adbreak: Option<Option<AdBreak>>,
}

impl MetadataPatch {
    /// Whether the patch changes anything in the file.
    pub fn touches_file(&self) -> bool {
        self.title.is_some()
            || self.artist.is_some()
            || self.album.is_some()
            || self.year.is_some()
            || self.comment.is_some()
            || self.chapters.is_some()
            || self.image.is_some()
    }

    /// `tags` with this patch applied (the cover is set by the caller, which reads the image).
    pub(super) fn apply(&self, mut tags: Tags) -> Tags {
        fn set<T: Clone>(field: &mut Option<T>, change: &Option<Option<T>>) {
            if let Some(value) = change {
                *field = value.clone();
            }
        }
        set(&mut tags.title, &self.title);
        set(&mut tags.artist, &self.artist);
        set(&mut tags.album, &self.album);
        set(&mut tags.year, &self.year);
        set(&mut tags.comment, &self.comment);
        if let Some(chapters) = &self.chapters {
            tags.chapters = chapters.clone();
        }
        tags
    }
}

/// Reads a file's tags through the store (on a blocking thread: tag readers are synchronous).
pub(super) async fn read_file_tags(
    host: &PodcastHost,
    account: &AccountId,
    media: &Media,
) -> std::result::Result<Tags, tags::TagError> {
    read_blob_tags(host, account, &media.blob, media.size, &media.facts.mime).await
}

/// [`read_file_tags`] of a blob that has no record yet.
pub(super) async fn read_blob_tags(
    host: &PodcastHost,
    account: &AccountId,
    blob: &BlobKey,
    size: u64,
    mime: &str,
) -> std::result::Result<Tags, tags::TagError> {
    let mut source = crate::probe::source::StoreSource::whole(
        host.store().clone(),
        blob_path(account, blob),
        tokio::runtime::Handle::current(),
        size,
    );
    let mime = mime.to_owned();
    tokio::task::spawn_blocking(move || tags::read_tags(&mut source, &mime))
        .await
        .unwrap_or_else(|e| Err(tags::TagError::Corrupt(format!("the reader stopped: {e}"))))
}

impl PodcastHost {
    /// A media file's metadata (scope `media` or `media-read-only`).
    pub async fn media_metadata(&self, who: &Principal, id: MediaId) -> Result<Metadata> {
        who.require(Scope::MediaReadOnly)?;
        let media = self.get_media(who, id).await?;
        let (tags, tags_error) = if media.kind() == MediaKind::Audio {
            match read_file_tags(self, who.account(), &media).await {
                Ok(tags) => (Some(tags), None),
                Err(tags::TagError::Unsupported(_)) => (None, None),
                Err(e) => (None, Some(e.to_string())),
            }
        } else {
            (None, None)
        };
        let artwork = match (&media.facts.image, &tags) {
            (Some(image), _) => Some(ArtworkCheck::of(image.width, image.height)),
            (
                None,
                Some(Tags {
                    cover: Some(cover), ..
                }),
            ) => imagesize::blob_size(&cover.bytes)
                .ok()
                .map(|size| ArtworkCheck::of(size.width as u32, size.height as u32)),
            _ => None,
        };
        Ok(Metadata {
            media,
            tags,
            tags_error,
            artwork,
        })
    }

    /// Changes a media file's metadata (scope `media`): the ad breaks at once; the tags,
    /// chapters and cover by a job that writes them into a new file (a new download URL; the
    /// old file stays until nothing uses it). Both in one commit: a refusal (a check, or another
    /// tag write running: `Conflict`) changes nothing. Returns the metadata now and the job, if
    /// any.
    pub async fn update_metadata(
        &self,
        who: &Principal,
        id: MediaId,
        patch: MetadataPatch,
    ) -> Result<(Metadata, Option<Job>)> {
        who.require(Scope::Media)?;
        if let Some(Some(adbreak)) = &patch.adbreak
            && adbreak.midrolls.iter().any(|t| !t.is_finite() || *t < 0.0)
        {
            return Err(Error::invalid(
                "adbreak.midrolls",
                "seconds from the start, not negative",
            ));
        }
        let params = serde_json::to_value(&patch).map_err(|e| Error::storage(e.to_string()))?;
        let catalog = self.catalog(who.account()).await?;
        let reserved = match patch.touches_file() {
            true => Some(self.reserve_job(who.account()).await?),
            false => None,
        };
        let now = self.now();
        let committed = catalog
            .commit(now, |state| {
                let media = state
                    .media
                    .get(&id)
                    .ok_or_else(|| Error::not_found("media", id))?;
                check_patch(state, media, &patch)?;
                let mut changes = Vec::new();
                let mut events = Vec::new();
                if let Some(adbreak) = &patch.adbreak
                    && &media.adbreak != adbreak
                {
                    let updated = Media {
                        adbreak: adbreak.clone(),
                        updated: now,
                        ..media.clone()
                    };
                    events.push((K::MediaUpdated, Subject::Media(Box::new(updated.clone()))));
                    changes.push(Change::MediaPut(updated));
                }
                let job = match &reserved {
                    Some(job_id) => {
                        let (job, new) =
                            job_for(state, job_id, id, JobKind::WriteTags, &params, now)?;
                        if new {
                            changes.push(Change::JobPut(job.clone()));
                        }
                        Some(job)
                    }
                    None => None,
                };
                changes.extend(state.record(now, events));
                Ok((changes, job))
            })
            .await;
        if let Some(reserved) = &reserved {
            let recorded = committed
                .as_ref()
                .ok()
                .and_then(|j| j.as_ref())
                .map(|j| &j.id);
            self.settle_job(who.account(), reserved, recorded).await;
        }
        let job = committed?;
        Ok((self.media_metadata(who, id).await?, job))
    }
}

/// Refuses now what the tag-writing job would refuse: tags on a format that takes none, the
/// patch's own values against the limits of the file's tag format, a cover that is not an image
/// of a kind the format can embed.
fn check_patch(
    state: &crate::state::AccountState,
    media: &Media,
    patch: &MetadataPatch,
) -> Result<()> {
    let mut errors = FieldErrors::default();
    let mime = &media.facts.mime;
    if patch.touches_file() && !tags::can_write(mime) {
        errors.add("media", format!("tags cannot be written into {mime} files"));
    }
    if tags::can_write(mime) {
        let asked = patch.apply(Tags::default());
        let chapters = Tags {
            chapters: asked.chapters.clone(),
            ..Tags::default()
        };
        if let Err(e) = tags::check_tags(mime, &chapters) {
            errors.add("chapters", tag_problem(e));
        }
        let others = Tags {
            chapters: Vec::new(),
            ..asked
        };
        if let Err(e) = tags::check_tags(mime, &others) {
            errors.add("tags", tag_problem(e));
        }
    }
    if let Some(Some(image)) = patch.image {
        match state.media.get(&image) {
            Some(picture) if picture.kind() == MediaKind::Image => {
                if let Err(e) = tags::check_cover(mime, &picture.facts.mime) {
                    errors.add("image", tag_problem(e));
                }
            }
            Some(_) => errors.add("image", "must be the id of an image file"),
            None => errors.add("image", format!("no media file {image}")),
        }
    }
    errors.into_result()
}

/// Whether `write_metadata` can be done for `episode` as it is about to be stored: it has
/// audio, the audio's format takes tags, and no other tag write of that file is under way.
/// Returns the audio's media id.
pub(super) fn check_write_metadata(
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
    super::jobs::no_tag_write_running(records.state(), media_id)?;
    Ok(media_id)
}

/// The tags `write_metadata` writes for `episode` of `feed`: its title, author, album (the
/// podcast's title) and cover (the episode's, else the podcast's).
pub(super) fn episode_tags(feed: &Feed, episode: &Episode) -> MetadataPatch {
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
pub(super) fn episode_tags_job(
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

impl PodcastHost {
    /// `write_metadata` of an episode (scope `shows`): writes its title, author, album (the
    /// podcast's title), cover (the episode's, else the podcast's) and the chapters its file
    /// has into its audio file, by a tag-writing job. `Invalid` when the episode has no audio
    /// or the audio's format takes no tags; `Conflict` while another tag write of the file runs.
    pub async fn write_episode_metadata(
        &self,
        who: &Principal,
        feed: &FeedId,
        episode: EpisodeId,
    ) -> Result<Job> {
        who.require(Scope::Shows)?;
        let catalog = self.catalog(who.account()).await?;
        let reserved = self.reserve_job(who.account()).await?;
        let now = self.now();
        let committed = catalog
            .commit(now, |state| {
                let found = state
                    .episode(feed, episode)
                    .ok_or_else(|| Error::not_found("episode", episode))?;
                let (job, new) = episode_tags_job(state, found, &reserved, now)?;
                let changes = if new {
                    vec![Change::JobPut(job.clone())]
                } else {
                    Vec::new()
                };
                Ok((changes, job))
            })
            .await;
        self.settle_job(
            who.account(),
            &reserved,
            committed.as_ref().ok().map(|j| &j.id),
        )
        .await;
        committed
    }
}

/// A tag check's refusal as a field message (without the "invalid tags: " prefix).
fn tag_problem(e: tags::TagError) -> String {
    match e {
        tags::TagError::Invalid(message) => message,
        other => other.to_string(),
    }
}
