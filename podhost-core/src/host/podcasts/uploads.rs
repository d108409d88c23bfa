//! Uploads committed whole: a file's bytes are staged as a blob that no record references, and
//! one commit later writes every record that uses them (a media file, or an episode with its
//! audio and cover) together with their events, or nothing.
//!
//! A staged upload that is not committed is deleted when it is dropped (the request failed or
//! was refused); one left behind by a crash is an unreferenced blob that [`sweep`] removes once
//! it is old. No frontend cleans up after the core.
//!
//! [`sweep`]: Work::sweep

use super::Podcasts;
use std::sync::Arc;

use bytes::Bytes;
use futures::Stream;
use object_store::{ObjectStore, path::Path};

use crate::host::{file_tags, user_text};
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{AccountId, FeedId, MediaId},
    model::{BlobKey, Media},
    principal::Principal,
    probe::{MediaFacts, MediaKind},
    store::delete_quietly,
    tags::Chapter,
};

/// What an upload is for, so that the right scope and target are checked before any byte is
/// stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadTarget {
    /// A media file of its own ([`Podcasts::create_media`]; scope `media`).
    Media,
    /// A file of a new episode of this feed ([`Podcasts::create_episode_with_files`]; scope
    /// `shows`).
    Episode(FeedId),
    /// The cover of this feed ([`Podcasts::set_feed_logo`]; scope `feeds`).
    Feed(FeedId),
}

/// An uploaded file stored with no record yet ([`Podcasts::stage_upload`]). Nothing shows
/// it until the commit that creates its record; dropped unused, its bytes are deleted.
#[derive(Debug)]
pub struct StagedUpload {
    account: AccountId,
    target: UploadTarget,
    /// The cleaned file name (made unique when committed).
    name: String,
    blob: BlobKey,
    size: u64,
    facts: MediaFacts,
    chapters: Vec<Chapter>,
    /// Set until the upload is committed or its outcome is unknown: dropping deletes the blob.
    store: Option<Arc<dyn ObjectStore>>,
}

impl StagedUpload {
    /// The cleaned file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// What its content is.
    pub fn facts(&self) -> &MediaFacts {
        &self.facts
    }

    /// Publishes `chapters` with the file (chapters another host published beside it), instead
    /// of those read from its tags.
    pub fn set_chapters(&mut self, chapters: Vec<Chapter>) {
        self.chapters = chapters;
    }

    fn path(&self) -> Path {
        crate::store::layout::blob(&self.account, &self.blob)
    }

    /// The media record that makes it visible, with id `id`, named uniquely among `taken` names.
    pub(crate) fn record(
        &self,
        id: MediaId,
        category: Option<String>,
        now: jiff::Timestamp,
        taken: impl Fn(&str) -> bool,
    ) -> Media {
        Media {
            id,
            name: user_text::unique_name(&self.name, taken),
            url_name: None,
            category: category.filter(|c| !c.is_empty()),
            size: self.size,
            created: now,
            updated: now,
            blob: self.blob.clone(),
            facts: self.facts.clone(),
            adbreak: None,
            results: Default::default(),
            chapters: self.chapters.clone(),
            mastered_from: None,
            access: Default::default(),
        }
    }

    /// Refuses an upload staged for another account or target than the commit's.
    pub(crate) fn check(&self, who: &Principal, target: &UploadTarget, field: &str) -> Result<()> {
        if &self.account != who.account() || &self.target != target {
            return Err(Error::invalid(
                field,
                "this file was uploaded for something else",
            ));
        }
        Ok(())
    }

    /// After the commit that was to reference it: a refusal is definite, so the bytes go; after
    /// a store error the record may have landed, so they stay (the sweep removes them if nothing
    /// references them); after success they are the record's.
    pub(crate) async fn settle<T>(mut self, outcome: &Result<T>) {
        let Some(store) = self.store.take() else {
            return;
        };
        if let Err(e) = outcome
            && !matches!(e, Error::Storage { .. } | Error::Unavailable { .. })
        {
            let _ = delete_quietly(&store, &self.path()).await;
        }
    }
}

impl Drop for StagedUpload {
    fn drop(&mut self) {
        let Some(store) = self.store.take() else {
            return;
        };
        let path = self.path();
        // Not committed (the request failed before): the bytes go. Without a runtime the sweep
        // finds them.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = delete_quietly(&store, &path).await;
            });
        }
    }
}

impl Podcasts<'_> {
    /// Stores an uploaded file's bytes with no record yet: streamed to a new blob (memory stays
    /// bounded whatever the size), typed from its content, audio and images probed, chapters an
    /// editor wrote into it read. `target` is checked first (scope, and that the feed exists),
    /// so a refused request stores nothing. Commit it with [`create_media`](Self::create_media)
    /// or [`create_episode_with_files`](Self::create_episode_with_files).
    pub async fn stage_upload<S, E>(
        self,
        who: &Principal,
        target: UploadTarget,
        name: &str,
        body: S,
    ) -> Result<StagedUpload>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send,
        E: std::fmt::Display,
    {
        match &target {
            UploadTarget::Media => who.authorize(Action::EditMedia)?,
            UploadTarget::Episode(feed) => {
                self.host.podcasts().check_episode_target(who, feed).await?
            }
            UploadTarget::Feed(feed) => {
                who.authorize(Action::EditPodcasts)?;
                self.host.podcasts().get_feed(who, feed).await.map(drop)?;
            }
        }
        self.host.catalog(who.account()).await?;
        let name = user_text::clean_file_name(name);
        let (blob, size, facts) = self.host.store_blob(who.account(), &name, body).await?;
        let mut staged = StagedUpload {
            account: who.account().clone(),
            target,
            name,
            blob,
            size,
            facts,
            chapters: Vec::new(),
            store: Some(self.host.store().clone()),
        };
        // Chapters the file already carries (from an editor) are published like those podhost
        // writes; a tag that cannot be read never fails the upload.
        if staged.facts.kind == MediaKind::Audio && crate::tags::can_write(&staged.facts.mime) {
            staged.chapters = file_tags::read_blob_tags(
                self.host.store(),
                who.account(),
                &staged.blob,
                staged.size,
                &staged.facts.mime,
            )
            .await
            .map(|tags| tags.chapters)
            .unwrap_or_default();
        }
        Ok(staged)
    }
}
