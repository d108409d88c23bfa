//! Media operations: upload (streamed), list, get, rename, delete, copy, download.

use super::Podcasts;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use object_store::{ObjectStoreExt, WriteMultipart, path::Path};

use crate::host::{
    PodcastHost,
    podcasts::uploads::{StagedUpload, UploadTarget},
    user_text,
};
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{AccountId, MediaId},
    model::{
        Access, BlobKey, Job, JobKind, Media, MediaCopy, MediaListQuery, MediaPatch, MediaSort,
        NewMedia, Page, SortDir,
    },
    principal::Principal,
    probe::{self, Sniffer},
    state::{AccountState, Change},
};

/// Upload parts are this large (S3 needs at least 5 MiB).
const PART_BYTES: usize = 5 << 20;
/// At most this many parts are in flight; with [`PART_BYTES`] this bounds an upload's memory.
const PARTS_IN_FLIGHT: usize = 2;

fn check_category(errors: &mut FieldErrors, category: Option<&str>) {
    if let Some(category) = category {
        user_text::check_line(errors, "category", category);
        if category.len() > 255 {
            errors.add("category", "at most 255 bytes");
        }
    }
}

fn media_or_not_found(state: &AccountState, id: MediaId) -> Result<&Media> {
    state
        .media
        .get(&id)
        .ok_or_else(|| Error::not_found("media", id))
}

/// The changes that store `media` (made or changed) with its event, `kind`.
fn put_media(
    state: &crate::state::AccountState,
    now: jiff::Timestamp,
    kind: K,
    media: &Media,
) -> Vec<Change> {
    let mut changes = vec![Change::MediaPut(Box::new(media.clone()))];
    changes.extend(state.record(now, vec![(kind, Subject::Media(Box::new(media.clone())))]));
    changes
}

impl PodcastHost {
    async fn commit_media(
        &self,
        who: &Principal,
        staged: &StagedUpload,
        category: Option<String>,
    ) -> Result<Media> {
        who.authorize(Action::EditMedia)?;
        staged.check(who, &UploadTarget::Media, "media")?;
        let mut errors = FieldErrors::default();
        check_category(&mut errors, category.as_deref());
        errors.into_result()?;
        let catalog = self.catalog(who.account()).await?;
        let now = self.now();
        // A video is packaged for HLS as soon as it is stored: its job is recorded in the same
        // commit, so the ladder is being made before any episode or viewer asks for it.
        let packaging = match staged.facts().kind {
            probe::MediaKind::Video => Some(self.reserve_job(who.account()).await?),
            _ => None,
        };
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                let id = MediaId::new(state.next_media_id())?;
                let media = staged.record(id, category.clone(), now, |n| {
                    state.media.values().any(|m| m.name == n)
                });
                let mut changes = put_media(state, now, K::MediaCreated, &media);
                if let Some(job) = &packaging {
                    changes.push(Change::JobPut(Job::queued(
                        job.clone(),
                        JobKind::Hls,
                        Some(id),
                        serde_json::Value::Null,
                        now,
                        crate::request::RequestContext::current_id(),
                    )));
                }
                Ok((changes, media))
            })
            .await;
        if let Some(job) = &packaging {
            let recorded = committed.as_ref().ok().map(|_| job);
            self.settle_job(who.account(), job, recorded).await;
        }
        committed
    }

    /// Streams `body` into a new blob of the account and probes it (`name` helps only when the
    /// content says too little). Nothing points at the blob yet.
    pub(crate) async fn store_blob<S, E>(
        &self,
        account: &AccountId,
        name: &str,
        body: S,
    ) -> Result<(BlobKey, u64, crate::probe::MediaFacts)>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send,
        E: std::fmt::Display,
    {
        let blob = BlobKey(uuid::Uuid::new_v4().to_string());
        let path = crate::store::layout::blob(account, &blob);
        let (size, sniffed, sha384) = self.stream_to_blob(&path, body).await?;
        let mut facts = probe::probe(self.store().clone(), &path, size, sniffed, name).await;
        facts.sha384 = Some(sha384);
        Ok((blob, size, facts))
    }

    /// Streams `body` into the object at `path`: its size, what the sniffer saw, and its
    /// SHA-384 as a Subresource Integrity value.
    async fn stream_to_blob<S, E>(
        &self,
        path: &Path,
        body: S,
    ) -> Result<(u64, probe::Sniffed, String)>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send,
        E: std::fmt::Display,
    {
        let limit = self.config().max_upload_bytes;
        let upload = self.store().put_multipart(path).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
        let mut sniffer = Sniffer::new();
        let mut digest = <sha2::Sha384 as sha2::Digest>::new();
        let mut size = 0u64;
        let mut body = std::pin::pin!(body);
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(e) => {
                    let _ = writer.abort().await;
                    return Err(Error::Interrupted {
                        reason: e.to_string(),
                    });
                }
            };
            size += chunk.len() as u64;
            if size > limit {
                let _ = writer.abort().await;
                return Err(Error::TooLarge { limit });
            }
            sniffer.update(&chunk);
            sha2::Digest::update(&mut digest, &chunk);
            if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                // The upload failed; dropping the writer aborts it.
                return Err(e.into());
            }
            writer.put(chunk);
        }
        writer.finish().await?;
        use base64::Engine;
        let sri = format!(
            "sha384-{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Digest::finalize(digest))
        );
        Ok((size, sniffer.finish(), sri))
    }
}

impl Podcasts<'_> {
    /// Uploads a file from a byte stream: [`stage_upload`](Self::stage_upload) then
    /// [`create_media`](Self::create_media). Nothing is visible until the record is committed; a
    /// failed upload leaves nothing (a crash leaves a blob for [`sweep`](crate::Work::sweep)).
    pub async fn upload_media<S, E>(self, who: &Principal, new: NewMedia, body: S) -> Result<Media>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send,
        E: std::fmt::Display,
    {
        who.authorize(Action::EditMedia)?;
        let mut errors = FieldErrors::default();
        check_category(&mut errors, new.category.as_deref());
        errors.into_result()?;
        let staged = self
            .host
            .podcasts()
            .stage_upload(who, UploadTarget::Media, &new.name, body)
            .await?;
        self.host
            .podcasts()
            .create_media(who, staged, new.category)
            .await
    }

    /// Makes a staged upload a media file of the caller's account (scope `media`): one commit
    /// writes its record and its `media.created` event. Its name is made unique in the account.
    pub async fn create_media(
        self,
        who: &Principal,
        staged: StagedUpload,
        category: Option<String>,
    ) -> Result<Media> {
        let result = self.host.commit_media(who, &staged, category).await;
        staged.settle(&result).await;
        result
    }

    /// Lists the caller's media: filtered, sorted, paged; `total` counts matches before paging.
    /// Read off the list's orders (`MediaOrder`): a page costs its files, never a sort of the
    /// account's; a `strict` name its matches; only a substring filter walks the names.
    pub async fn list_media(self, who: &Principal, query: &MediaListQuery) -> Result<Page<Media>> {
        who.authorize(Action::ReadMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        let filter = query.filter.as_deref().filter(|f| !f.is_empty());
        let descending = query.sort_dir == SortDir::Desc;
        let (start, size) = query.page.bounds();
        let page = catalog
            .read(|s| {
                let ids = s.media_order.ids(query.sort_by, descending);
                let (items, total): (Vec<MediaId>, usize) = match (filter, query.strict) {
                    (None, _) => (ids.skip(start).take(size).collect(), s.media.len()),
                    // The exact name's files (one, unless an older store repeats a name), in
                    // the order asked for.
                    (Some(name), true) => {
                        let mut named: Vec<&Media> = s
                            .media_order
                            .named(name)
                            .filter_map(|id| s.media.get(&id))
                            .collect();
                        named.sort_by(|a, b| {
                            let order = match query.sort_by {
                                MediaSort::Name => a.name.cmp(&b.name),
                                MediaSort::Size => a.size.cmp(&b.size),
                                MediaSort::Created => a.created.cmp(&b.created),
                            }
                            .then(a.id.cmp(&b.id));
                            if descending { order.reverse() } else { order }
                        });
                        let total = named.len();
                        (
                            named.iter().skip(start).take(size).map(|m| m.id).collect(),
                            total,
                        )
                    }
                    // A substring of the name: every name is looked at, a page of them kept.
                    (Some(filter), false) => {
                        let needle = filter.to_lowercase();
                        let mut total = 0;
                        let mut items = Vec::new();
                        for id in ids {
                            let hit = s
                                .media
                                .get(&id)
                                .is_some_and(|m| m.name.to_lowercase().contains(&needle));
                            if hit {
                                if total >= start && items.len() < size {
                                    items.push(id);
                                }
                                total += 1;
                            }
                        }
                        (items, total)
                    }
                };
                let items = items
                    .into_iter()
                    .filter_map(|id| s.media.get(&id).cloned())
                    .collect();
                Page {
                    items,
                    total,
                    request: query.page,
                    changes_at: None,
                }
            })
            .await;
        Ok(page)
    }

    /// One media file of the caller's account.
    pub async fn get_media(self, who: &Principal, id: MediaId) -> Result<Media> {
        who.authorize(Action::ReadMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|s| media_or_not_found(s, id).cloned())
            .await
    }

    /// Deletes a media file; `Conflict` naming the users while a feed or episode uses it. The
    /// blob goes too unless a copy shares it.
    pub async fn delete_media(self, who: &Principal, id: MediaId) -> Result<()> {
        who.authorize(Action::EditMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let removed = catalog
            .commit(now, &who.actor(), |state| {
                let media = media_or_not_found(state, id)?;
                let users = state.media_users(id);
                if !users.is_empty() {
                    return Err(Error::conflict(format!(
                        "media {id} is used by {}; remove it there first",
                        users.join(", ")
                    )));
                }
                let mut changes = vec![Change::MediaRemoved { id }];
                changes.extend(state.record(
                    now,
                    vec![(K::MediaDeleted, Subject::Media(Box::new(media.clone())))],
                ));
                Ok((changes, media.clone()))
            })
            .await?;
        let shared = catalog.read(|s| s.blob_in_use(removed.blob.as_str())).await;
        if !shared {
            // Best effort: a blob left behind by a failure here is found by the sweep.
            let _ = self
                .host
                .store()
                .delete(&crate::store::layout::blob(who.account(), &removed.blob))
                .await;
        }
        Ok(())
    }

    /// Copies a media file under a new name (made unique) and category. The copy shares the
    /// immutable blob.
    pub async fn copy_media(self, who: &Principal, id: MediaId, copy: MediaCopy) -> Result<Media> {
        who.authorize(Action::EditMedia)?;
        let mut errors = FieldErrors::default();
        if copy.label.trim().is_empty() {
            errors.add("label", "the name of the copy is required");
        }
        check_category(&mut errors, Some(&copy.category));
        errors.into_result()?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let name = user_text::clean_file_name(&copy.label);
        catalog
            .commit(now, &who.actor(), |state| {
                let original = media_or_not_found(state, id)?;
                let media = Media {
                    id: MediaId::new(state.next_media_id())?,
                    name: user_text::unique_name(&name, |n| {
                        state.media.values().any(|m| m.name == n)
                    }),
                    url_name: None,
                    category: Some(copy.category.clone()).filter(|c| !c.is_empty()),
                    created: now,
                    updated: now,
                    adbreak: None,
                    ..original.clone()
                };
                Ok((put_media(state, now, K::MediaCreated, &media), media))
            })
            .await
    }

    /// Renames a media file, moves it to another category, or says who its public URL serves
    /// (scope `media`). A name is cleaned and made unique in the account (a numbered suffix on a
    /// clash); the download URL keeps the name it had, so links already published stay valid.
    /// `private` is the podcaster's word on the file's public URL ([`Access`]): `true` serves
    /// it only where a public podcast shows it, `false` to anyone.
    pub async fn update_media(
        self,
        who: &Principal,
        id: MediaId,
        patch: MediaPatch,
    ) -> Result<Media> {
        who.authorize(Action::EditMedia)?;
        let mut errors = FieldErrors::default();
        let name = match &patch.name {
            Some(name) if name.trim().is_empty() => {
                errors.add("name", "a file name may not be empty");
                None
            }
            Some(name) => Some(user_text::clean_file_name(name)),
            None => None,
        };
        let category = patch.category.clone().map(|c| c.filter(|c| !c.is_empty()));
        check_category(&mut errors, category.as_ref().and_then(|c| c.as_deref()));
        errors.into_result()?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let current = media_or_not_found(state, id)?;
                let mut media = current.clone();
                if let Some(name) = &name
                    && name != &current.name
                {
                    media.name = user_text::unique_name(name, |n| {
                        state.media.values().any(|m| m.id != id && m.name == n)
                    });
                    media.url_name = Some(current.url_name().to_string());
                }
                if let Some(category) = &category {
                    media.category.clone_from(category);
                }
                if let Some(private) = patch.private {
                    media.access = match private {
                        true => Access::Private,
                        false => Access::Public,
                    };
                }
                if media == *current {
                    return Ok((Vec::new(), media));
                }
                media.updated = now;
                if media.url_name.as_deref() == Some(media.name.as_str()) {
                    media.url_name = None;
                }
                Ok((put_media(state, now, K::MediaUpdated, &media), media))
            })
            .await
    }

    /// The bytes of one of the caller's media files (scope `media` or `media-read-only`), with
    /// its record: streamed from the store with a range read, so memory stays bounded whatever
    /// the size. For frontends that hand a file to its owner (`podhost media download`); the
    /// public download URL serves the same bytes to anyone.
    pub async fn download_media(
        self,
        who: &Principal,
        id: MediaId,
    ) -> Result<(
        Media,
        futures::stream::BoxStream<'static, Result<bytes::Bytes>>,
    )> {
        let media = self.host.podcasts().get_media(who, id).await?;
        let path = crate::store::layout::blob(who.account(), &media.blob);
        let bytes = if media.size == 0 {
            futures::stream::empty().boxed()
        } else {
            self.host.read_range(&path, 0..media.size).await?
        };
        Ok((media, bytes))
    }

    /// The public download URL of a media file.
    pub fn media_url(self, account: &AccountId, media: &Media) -> String {
        self.host.urls().media(account, media)
    }

    /// The public URL of a packaged video's HLS stream (its multivariant playlist); `None`
    /// until a packaging job made it.
    pub fn stream_url(self, account: &AccountId, media: &Media) -> Option<String> {
        media
            .results
            .hls
            .as_ref()
            .map(|_| self.host.urls().stream(account, media))
    }
}
