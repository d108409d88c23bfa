//! A media file's metadata: its technical facts, the tags read from the file, its ad breaks;
//! changing them (the tags are written into a new file by a job).

use super::Podcasts;
use crate::host::{file_tags, work::job_runs};
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{EpisodeId, FeedId, MediaId},
    model::{Job, JobKind, Media, Metadata, MetadataPatch},
    principal::Principal,
    probe::{ArtworkCheck, MediaKind},
    state::Change,
    tags::{self, Tags},
};

impl Podcasts<'_> {
    /// A media file's metadata (scope `media` or `media-read-only`).
    pub async fn media_metadata(self, who: &Principal, id: MediaId) -> Result<Metadata> {
        who.authorize(Action::ReadMedia)?;
        let media = self.host.podcasts().get_media(who, id).await?;
        let (tags, tags_error) = if media.kind() == MediaKind::Audio {
            match file_tags::read_file_tags(self.host.store(), who.account(), &media).await {
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
        self,
        who: &Principal,
        id: MediaId,
        patch: MetadataPatch,
    ) -> Result<(Metadata, Option<Job>)> {
        who.authorize(Action::EditMedia)?;
        if let Some(Some(adbreak)) = &patch.adbreak
            && adbreak.midrolls.iter().any(|t| !t.is_finite() || *t < 0.0)
        {
            return Err(Error::invalid(
                "adbreak.midrolls",
                "seconds from the start, not negative",
            ));
        }
        let params = serde_json::to_value(&patch).map_err(|e| Error::storage(e.to_string()))?;
        let catalog = self.host.catalog(who.account()).await?;
        let reserved = match patch.touches_file() {
            true => Some(self.host.reserve_job(who.account()).await?),
            false => None,
        };
        let now = self.host.now();
        let committed = catalog
            .commit(now, &who.actor(), |state| {
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
                    changes.push(Change::MediaPut(Box::new(updated)));
                }
                let job = match &reserved {
                    Some(job_id) => {
                        let (job, new) = job_runs::records::job_for(
                            state,
                            job_id,
                            id,
                            JobKind::WriteTags,
                            &params,
                            now,
                        )?;
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
            self.host
                .settle_job(who.account(), reserved, recorded)
                .await;
        }
        let job = committed?;
        Ok((self.host.podcasts().media_metadata(who, id).await?, job))
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

impl Podcasts<'_> {
    /// `write_metadata` of an episode (scope `shows`): writes its title, author, album (the
    /// podcast's title), cover (the episode's, else the podcast's) and the chapters its file
    /// has into its audio file, by a tag-writing job. `Invalid` when the episode has no audio
    /// or the audio's format takes no tags; `Conflict` while another tag write of the file runs.
    pub async fn write_episode_metadata(
        self,
        who: &Principal,
        feed: &FeedId,
        episode: EpisodeId,
    ) -> Result<Job> {
        who.authorize(Action::EditEpisodes)?;
        let catalog = self.host.catalog(who.account()).await?;
        let reserved = self.host.reserve_job(who.account()).await?;
        let now = self.host.now();
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                let found = state
                    .episode(feed, episode)
                    .ok_or_else(|| Error::not_found("episode", episode))?;
                let (job, new) = job_runs::records::episode_tags_job(state, found, &reserved, now)?;
                let changes = if new {
                    vec![Change::JobPut(job.clone())]
                } else {
                    Vec::new()
                };
                Ok((changes, job))
            })
            .await;
        self.host
            .settle_job(
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
