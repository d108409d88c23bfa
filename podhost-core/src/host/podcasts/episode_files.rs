//! Files uploaded with an episode: checked against the episode's fields, recorded in its commit,
//! settled by its outcome.

use crate::host::{
    podcasts::uploads::{StagedUpload, UploadTarget},
    refs::kind_names,
};
use crate::{
    error::{FieldErrors, Result},
    ids::{FeedId, MediaId},
    model::{EpisodePatch, Media},
    principal::Principal,
    probe::MediaKind,
    state::AccountState,
};

/// Files uploaded with an episode ([`Podcasts::create_episode_with_files`](crate::Podcasts::create_episode_with_files),
/// [`Podcasts::update_episode_with_files`](crate::Podcasts::update_episode_with_files)).
#[derive(Debug, Default)]
pub struct EpisodeFiles {
    /// The audio (or video): the episode's enclosure.
    pub media: Option<StagedUpload>,
    /// The cover: the episode's `itunes:image`.
    pub cover: Option<StagedUpload>,
    /// The transcript: the episode's `podcast:transcript`.
    pub transcript: Option<StagedUpload>,
}

impl EpisodeFiles {
    /// Whether no file is given.
    pub fn is_empty(&self) -> bool {
        self.media.is_none() && self.cover.is_none() && self.transcript.is_none()
    }

    /// The files with their field names, the names of the id fields they stand for, and the
    /// kinds each may be (any, when empty).
    pub(crate) fn slots(
        &self,
    ) -> [(
        &'static str,
        &'static str,
        Option<&StagedUpload>,
        &'static [MediaKind],
    ); 3] {
        [
            (
                "media",
                "show_media",
                self.media.as_ref(),
                &[MediaKind::Audio, MediaKind::Video],
            ),
            (
                "cover",
                "itunes.logo",
                self.cover.as_ref(),
                &[MediaKind::Image],
            ),
            (
                "transcript",
                "podcast.transcript",
                self.transcript.as_ref(),
                &[],
            ),
        ]
    }

    /// Checks, before any commit, that the files were staged for this episode's feed and are
    /// of the right kinds, and that no file is also given by id in `patch`.
    pub(crate) fn check(&self, who: &Principal, feed: &FeedId, patch: &EpisodePatch) -> Result<()> {
        let target = UploadTarget::Episode(feed.clone());
        let mut e = FieldErrors::default();
        for (field, alias, staged, kinds) in self.slots() {
            let Some(staged) = staged else { continue };
            staged.check(who, &target, field)?;
            let by_id = match field {
                "media" => patch.media.is_some(),
                "cover" => patch.itunes_logo.is_some(),
                _ => patch.transcript.is_some(),
            };
            if by_id {
                e.add(
                    field,
                    format!("give the file `{field}` or `{alias}`, not both"),
                );
            }
            if !kinds.is_empty() && !kinds.contains(&staged.facts().kind) {
                e.add(
                    field,
                    format!(
                        "{} is not {} ({})",
                        staged.name(),
                        kind_names(kinds),
                        staged.facts().mime
                    ),
                );
            }
        }
        e.into_result()
    }

    /// In a decision: the media records of the files, named uniquely among the account's and
    /// each other's, and `fields` pointing at them.
    pub(crate) fn records(
        &self,
        state: &AccountState,
        fields: &mut EpisodePatch,
        now: jiff::Timestamp,
    ) -> Result<Vec<Media>> {
        let mut created: Vec<Media> = Vec::new();
        let mut next = state.next_media_id();
        for (field, _, staged, _) in self.slots() {
            let Some(staged) = staged else { continue };
            let record = staged.record(MediaId::new(next)?, None, now, |n| {
                state.media.values().any(|m| m.name == n) || created.iter().any(|m| m.name == n)
            });
            next += 1;
            let id = Some(Some(record.id));
            match field {
                "media" => fields.media = id,
                "cover" => fields.itunes_logo = id,
                _ => fields.transcript = id,
            }
            created.push(record);
        }
        Ok(created)
    }

    /// After the commit: each staged file settled by its outcome.
    pub(crate) async fn settle<T>(self, outcome: &Result<T>) {
        for staged in [self.media, self.cover, self.transcript]
            .into_iter()
            .flatten()
        {
            staged.settle(outcome).await;
        }
    }
}
