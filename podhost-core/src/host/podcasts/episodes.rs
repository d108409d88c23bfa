//! Episode operations: create, update, get, list, delete, copy.

use super::Podcasts;
use crate::host::{
    PodcastHost,
    podcasts::episode_files::EpisodeFiles,
    refs::{check_media_ref, feed_not_found},
    user_text,
    views::{ref_of, snapshot, view_of},
    work::job_runs,
};
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{EpisodeId, FeedId, JobId},
    model::{
        Episode, EpisodeListQuery, EpisodePatch, EpisodeRef, EpisodeView, ItunesEpisode,
        NewEpisode, Page,
    },
    principal::Principal,
    probe::MediaKind,
    state::{AccountState, Change, Records, WithMedia},
};

fn episode_not_found(id: EpisodeId) -> Error {
    Error::not_found("episode", id)
}

/// Applies a patch to an episode, collecting every problem.
fn apply_patch(ep: &mut Episode, patch: &EpisodePatch, records: &dyn Records) -> Result<()> {
    let mut e = FieldErrors::default();
    ep.apply(patch, &mut e);
    // Given a video and no audio, the episode's audio is the video's soundtrack, once its
    // packaging made it (else that job's end gives it).
    if ep.media.is_none()
        && let Some(soundtrack) = ep
            .video
            .and_then(|v| records.media(v))
            .and_then(|v| v.results.hls.as_ref())
            .and_then(|streamed| streamed.soundtrack)
    {
        ep.media = Some(soundtrack);
    }
    if ep.title.trim().is_empty() {
        e.add("title", "the title is required");
    }
    for (field, value) in [
        ("title", &ep.title),
        ("subtitle", &ep.subtitle),
        ("author", &ep.author),
        ("copyright", &ep.copyright),
        ("itunes.title", &ep.itunes.title),
        ("itunes.subtitle", &ep.itunes.subtitle),
        ("itunes.author", &ep.itunes.author),
    ] {
        user_text::check_line(&mut e, field, value);
    }
    user_text::check_text(&mut e, "description", &ep.description);
    user_text::check_text(&mut e, "itunes.summary", &ep.itunes.summary);
    user_text::check_url(&mut e, "link", &ep.link);
    user_text::check_email(&mut e, "email", &ep.email);
    check_media_ref(
        &mut e,
        records,
        "show_media",
        ep.media,
        &[MediaKind::Audio, MediaKind::Video],
    );
    check_media_ref(
        &mut e,
        records,
        "video_media",
        ep.video,
        &[MediaKind::Video],
    );
    check_media_ref(
        &mut e,
        records,
        "itunes.logo",
        ep.itunes.logo,
        &[MediaKind::Image],
    );
    check_media_ref(&mut e, records, "podcast.transcript", ep.transcript, &[]);
    for alternate in &ep.podcast.alternate_enclosure {
        check_media_ref(
            &mut e,
            records,
            "podcast.alternateEnclosure",
            alternate.media,
            &[MediaKind::Audio, MediaKind::Video],
        );
    }
    e.into_result()
}

/// `Forbidden` when a role that may not publish (an author's) would touch a public episode:
/// publish, schedule or unpublish one, change a published one, or delete it. Drafts are theirs.
fn check_publishing(
    who: &Principal,
    before: Option<&Episode>,
    after: Option<&Episode>,
) -> Result<()> {
    if before.is_some_and(|e| e.is_public) || after.is_some_and(|e| e.is_public) {
        who.authorize(Action::PublishEpisodes)?;
    }
    Ok(())
}

fn view(
    state: &AccountState,
    feed: &FeedId,
    id: EpisodeId,
    now: jiff::Timestamp,
) -> Option<EpisodeView> {
    let episode = state.episode(feed, id)?.clone();
    Some(view_of(state, episode, now))
}

/// What an episode's commit answers: the episode as stored and the jobs it recorded.
type Written = (Episode, Vec<JobId>);

/// One write of an episode, as the request gives it: who writes, the fields, the files uploaded
/// with it and the jobs reserved for it. Creating and changing an episode decide through it
/// alike ([`EpisodeWrite::changes`]).
struct EpisodeWrite<'a> {
    who: &'a Principal,
    patch: &'a EpisodePatch,
    files: &'a EpisodeFiles,
    reserved: &'a EpisodeJobs,
    /// The write names the episode's audio.
    audio_named: bool,
    now: jiff::Timestamp,
}

impl EpisodeWrite<'_> {
    /// The changes of the commit that stores `episode` (`before`: as `state` holds it, none for
    /// a new one) with the fields applied: the uploaded files' media records, the jobs it asks
    /// for, the episode, and their events.
    fn changes(
        &self,
        state: &AccountState,
        before: Option<&Episode>,
        mut episode: Episode,
    ) -> Result<(Vec<Change>, Written)> {
        let (who, now) = (self.who, self.now);
        // The files' records first, named uniquely among the account's and each other's.
        let mut fields = self.patch.clone();
        let created = self.files.records(state, &mut fields, now)?;
        let records = WithMedia {
            state,
            media: &created,
        };
        apply_patch(&mut episode, &fields, &records)?;
        check_publishing(who, before, Some(&episode))?;
        if before.is_some() {
            episode.updated = now;
            episode.version += 1;
        }
        let said = before.is_some_and(|before| state.publication_said(before, now));
        let mut changes: Vec<Change> = created
            .iter()
            .cloned()
            .map(|m| Change::MediaPut(Box::new(m)))
            .collect();
        let jobs = self.reserved.decide(
            &records,
            before,
            &mut episode,
            self.audio_named,
            now,
            &mut changes,
        )?;
        changes.push(Change::EpisodePut(Box::new(episode.clone())));
        let mut events: Vec<_> = created
            .iter()
            .map(|m| (K::MediaCreated, Subject::Media(Box::new(m.clone()))))
            .collect();
        let kind = match before {
            Some(_) => K::EpisodeUpdated,
            None => K::EpisodeCreated,
        };
        events.push((kind, snapshot(&records, &episode, now)));
        if episode.is_published(now) && !said {
            events.push((K::EpisodePublished, snapshot(&records, &episode, now)));
        }
        changes.extend(state.record(now, events));
        Ok((changes, (episode, jobs)))
    }
}

/// The jobs an episode's commit may record: the tag-writing job of `write_metadata` and the
/// mastering job of its podcast, each reserved before the commit (see
/// [`PodcastHost::reserve_job`]) and settled after it.
#[derive(Default)]
struct EpisodeJobs {
    tags: Option<JobId>,
    master: Option<JobId>,
}

impl EpisodeJobs {
    /// Decides both jobs for `episode` as it is about to be stored (`before`: as it was), in its
    /// own commit (so the episode and its jobs land together or not at all): pushes the new ones
    /// onto `changes` and returns the ids recorded. `audio_named`: the change names its audio.
    fn decide(
        &self,
        records: &dyn Records,
        before: Option<&Episode>,
        episode: &mut Episode,
        audio_named: bool,
        now: jiff::Timestamp,
        changes: &mut Vec<Change>,
    ) -> Result<Vec<JobId>> {
        let mut recorded = Vec::new();
        let mut record = |(job, new): (crate::model::Job, bool), changes: &mut Vec<Change>| {
            recorded.push(job.id.clone());
            if new {
                changes.push(Change::JobPut(job));
            }
        };
        let audio = records
            .state()
            .feeds
            .get(&episode.feed)
            .map(|entry| entry.feed.audio.clone())
            .unwrap_or_default();
        if audio_named
            && let Some(decided) = job_runs::records::episode_master_job(
                records,
                before,
                episode,
                &audio,
                self.master.as_ref(),
                now,
            )?
        {
            record(decided, changes);
        }
        if let Some(reserved) = &self.tags {
            record(
                job_runs::records::episode_tags_job(records, episode, reserved, now)?,
                changes,
            );
        }
        Ok(recorded)
    }
}

impl PodcastHost {
    /// Reserves the jobs an episode's commit may record: the tag write when `write_metadata`
    /// asks for one, the mastering when the change names audio (`audio`) and the podcast
    /// masters now (a podcast that starts mastering meanwhile makes the commit ask again).
    async fn reserve_episode_jobs(
        &self,
        who: &Principal,
        catalog: &crate::host::AccountCatalog,
        feed: &FeedId,
        write_metadata: bool,
        audio: bool,
    ) -> Result<EpisodeJobs> {
        let masters = audio
            && catalog
                .read(|state| state.feeds.get(feed).is_some_and(|e| e.feed.audio.master))
                .await;
        let mut reserved = EpisodeJobs::default();
        if write_metadata {
            reserved.tags = Some(self.reserve_job(who.account()).await?);
        }
        if masters {
            reserved.master = Some(self.reserve_job(who.account()).await?);
        }
        Ok(reserved)
    }

    /// Settles the jobs reserved for an episode commit and returns the commit's result.
    async fn settled<T>(
        &self,
        who: &Principal,
        reserved: EpisodeJobs,
        committed: Result<(T, Vec<JobId>)>,
    ) -> Result<T> {
        let recorded = committed.as_ref().map_or(&[][..], |(_, ids)| ids);
        let reserved: Vec<JobId> = [reserved.tags, reserved.master]
            .into_iter()
            .flatten()
            .collect();
        self.settle_jobs(who.account(), &reserved, recorded).await;
        committed.map(|(value, _)| value)
    }

    async fn commit_episode(
        &self,
        who: &Principal,
        feed: &FeedId,
        new: &NewEpisode,
        files: &EpisodeFiles,
    ) -> Result<EpisodeView> {
        who.authorize(Action::EditEpisodes)?;
        who.require_feed(feed)?;
        let mut e = FieldErrors::default();
        if let Some(guid) = &new.guid {
            user_text::check_guid(&mut e, guid);
        }
        e.into_result()?;
        files.check(who, feed, &new.fields)?;
        let catalog = self.catalog(who.account()).await?;
        // Naming a video may name its soundtrack as the audio.
        let audio_named =
            new.fields.media.is_some() || new.fields.video.is_some() || files.media.is_some();
        let reserved = self
            .reserve_episode_jobs(who, &catalog, feed, new.fields.write_metadata, audio_named)
            .await?;
        let now = self.now();
        let write = EpisodeWrite {
            who,
            patch: &new.fields,
            files,
            reserved: &reserved,
            audio_named,
            now,
        };
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                if !state.feeds.contains_key(feed) {
                    return Err(feed_not_found(feed));
                }
                let id = EpisodeId::new(state.next_episode_id())?;
                let episode = Episode {
                    id,
                    feed: feed.clone(),
                    guid: new.guid.clone().unwrap_or_else(|| id.to_string()),
                    title: String::new(),
                    subtitle: String::new(),
                    description: String::new(),
                    author: String::new(),
                    email: String::new(),
                    copyright: String::new(),
                    link: String::new(),
                    is_public: false,
                    publish_at: now,
                    media: None,
                    video: None,
                    itunes: ItunesEpisode::default(),
                    transcript: None,
                    podcast: Default::default(),
                    mastering: None,
                    created: now,
                    updated: now,
                    version: 1,
                };
                write.changes(state, None, episode)
            })
            .await;
        let episode = self.settled(who, reserved, committed).await?;
        Ok(catalog.read(|state| view_of(state, episode, now)).await)
    }

    async fn commit_update(
        &self,
        who: &Principal,
        feed: &FeedId,
        id: EpisodeId,
        patch: &EpisodePatch,
        files: &EpisodeFiles,
    ) -> Result<EpisodeView> {
        who.authorize(Action::EditEpisodes)?;
        who.require_feed(feed)?;
        files.check(who, feed, patch)?;
        let catalog = self.catalog(who.account()).await?;
        let audio_named = patch.media.is_some() || patch.video.is_some() || files.media.is_some();
        let reserved = self
            .reserve_episode_jobs(who, &catalog, feed, patch.write_metadata, audio_named)
            .await?;
        let now = self.now();
        let write = EpisodeWrite {
            who,
            patch,
            files,
            reserved: &reserved,
            audio_named,
            now,
        };
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                let episode = state.episode(feed, id).cloned().ok_or_else(|| episode_not_found(id))?;
                if let Some(expected) = patch.if_version
                    && expected != episode.version
                {
                    return Err(Error::conflict(format!(
                        "episode {id} changed meanwhile (version {} now, {expected} expected); read it again",
                        episode.version
                    )));
                }
                write.changes(state, state.episode(feed, id), episode)
            })
            .await;
        let episode = self.settled(who, reserved, committed).await?;
        Ok(catalog.read(|state| view_of(state, episode, now)).await)
    }
}

impl Podcasts<'_> {
    /// Creates an episode in a feed. Only the title is required; the publishing date defaults
    /// to now; a public episode with a future date is scheduled and publishes itself.
    pub async fn create_episode(
        self,
        who: &Principal,
        feed: &FeedId,
        new: NewEpisode,
    ) -> Result<EpisodeView> {
        self.host
            .podcasts()
            .create_episode_with_files(who, feed, new, EpisodeFiles::default())
            .await
    }

    /// Creates an episode with files uploaded for it ([`stage_upload`](Self::stage_upload) with
    /// [`UploadTarget::Episode`](crate::UploadTarget::Episode)): one commit writes their media records, the episode using them
    /// (`media` as its audio, `cover` as its `itunes:image`), a tag-writing job when
    /// `write_metadata` asks for one, and all their events; or, refused, nothing (the staged
    /// bytes are then deleted). Scope `shows`, as for any episode.
    pub async fn create_episode_with_files(
        self,
        who: &Principal,
        feed: &FeedId,
        new: NewEpisode,
        files: EpisodeFiles,
    ) -> Result<EpisodeView> {
        let result = self.host.commit_episode(who, feed, &new, &files).await;
        files.settle(&result).await;
        result
    }

    /// Checks that the caller may create episodes in `feed` (scope `shows`, the feed is one of
    /// theirs), so that a frontend can refuse a request before storing its uploads.
    pub async fn check_episode_target(self, who: &Principal, feed: &FeedId) -> Result<()> {
        who.authorize(Action::EditEpisodes)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| match state.feeds.contains_key(feed) {
                true => Ok(()),
                false => Err(feed_not_found(feed)),
            })
            .await
    }

    /// Changes fields of an episode. With `if_version` set, `Conflict` when the episode changed
    /// since that version; without it, concurrent patches apply one after the other.
    pub async fn update_episode(
        self,
        who: &Principal,
        feed: &FeedId,
        id: EpisodeId,
        patch: &EpisodePatch,
    ) -> Result<EpisodeView> {
        self.host
            .podcasts()
            .update_episode_with_files(who, feed, id, patch, EpisodeFiles::default())
            .await
    }

    /// Changes fields of an episode and gives it files uploaded for it (staged with
    /// [`UploadTarget::Episode`](crate::UploadTarget::Episode)): one commit writes their media records and the episode using
    /// them, with their events, or nothing (the staged bytes are then deleted).
    pub async fn update_episode_with_files(
        self,
        who: &Principal,
        feed: &FeedId,
        id: EpisodeId,
        patch: &EpisodePatch,
        files: EpisodeFiles,
    ) -> Result<EpisodeView> {
        let result = self.host.commit_update(who, feed, id, patch, &files).await;
        files.settle(&result).await;
        result
    }

    /// One episode of one of the caller's feeds.
    pub async fn get_episode(
        self,
        who: &Principal,
        feed: &FeedId,
        id: EpisodeId,
    ) -> Result<EpisodeView> {
        who.authorize(Action::ReadEpisodes)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .read_found(|state| {
                if !state.feeds.contains_key(feed) {
                    return Err(feed_not_found(feed));
                }
                view(state, feed, id, now).ok_or_else(|| episode_not_found(id))
            })
            .await
    }

    /// A feed's episodes: filtered on title and description, sorted, paged. The default order
    /// is by publishing date, newest first.
    pub async fn list_episodes(
        self,
        who: &Principal,
        feed: &FeedId,
        query: &EpisodeListQuery,
    ) -> Result<Page<EpisodeView>> {
        self.host
            .podcasts()
            .list_episodes_with(who, feed, query, |page| page.map(|e| e.to_view()))
            .await
    }

    /// [`list_episodes`](Self::list_episodes), with the page's episodes lent to `render`
    /// instead of copied: a frontend that keeps its own rendering of each episode (keyed by
    /// what [`EpisodeRef`] tells) copies nothing for the episodes it has. `render` runs while
    /// the account's state is read, so it should be quick; it may run twice (once more after
    /// reading other processes' writes, when the podcast was not found).
    pub async fn list_episodes_with<R>(
        self,
        who: &Principal,
        feed: &FeedId,
        query: &EpisodeListQuery,
        render: impl Fn(Page<EpisodeRef<'_>>) -> R,
    ) -> Result<R> {
        who.authorize(Action::ReadEpisodes)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let needle = query
            .filter
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_lowercase);
        let descending = query.descending.unwrap_or(true);
        catalog
            .read_found(|state| {
                let entry = state.feeds.get(feed).ok_or_else(|| feed_not_found(feed))?;
                // Pages come off the feed's sorted index: no sort per request, and without a
                // filter only the page's episodes are looked at.
                let (start, size) = query.page.bounds();
                let (ids, total) = match &needle {
                    None => (
                        entry.order.page(query.sort_by, descending, start, size),
                        entry.order.len(),
                    ),
                    Some(n) => {
                        let mut total = 0;
                        let mut ids = Vec::new();
                        for id in entry.order.ids(query.sort_by, descending) {
                            let ep = &entry.episodes[&id];
                            if ep.title.to_lowercase().contains(n)
                                || ep.description.to_lowercase().contains(n)
                            {
                                if total >= start && ids.len() < size {
                                    ids.push(id);
                                }
                                total += 1;
                            }
                        }
                        (ids, total)
                    }
                };
                // When the answer changes by itself: the next scheduled public episode's time
                // (of the whole feed, which is never later than the filtered one's).
                let changes_at = entry
                    .order
                    .after(now)
                    .map(|(_, id)| &entry.episodes[&id])
                    .find(|ep| ep.is_public)
                    .map(|ep| ep.publish_at);
                let items = ids
                    .into_iter()
                    .map(|id| ref_of(state, &entry.episodes[&id], now))
                    .collect();
                Ok(render(Page {
                    items,
                    total,
                    request: query.page,
                    changes_at,
                }))
            })
            .await
    }

    /// Deletes an episode (its media files stay).
    pub async fn delete_episode(self, who: &Principal, feed: &FeedId, id: EpisodeId) -> Result<()> {
        who.authorize(Action::EditEpisodes)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                if !state.feeds.contains_key(feed) {
                    return Err(feed_not_found(feed));
                }
                let before = state
                    .episode(feed, id)
                    .ok_or_else(|| episode_not_found(id))?;
                check_publishing(who, Some(before), None)?;
                let mut changes = vec![Change::EpisodeRemoved {
                    feed: feed.clone(),
                    id,
                    at: Some(now),
                }];
                changes.extend(
                    state.record(now, vec![(K::EpisodeDeleted, snapshot(state, before, now))]),
                );
                Ok((changes, ()))
            })
            .await
    }

    /// Copies an episode into the same feed or another of the caller's feeds: always a draft,
    /// with a new id and guid and the same media.
    pub async fn copy_episode(
        self,
        who: &Principal,
        feed: &FeedId,
        id: EpisodeId,
        to: Option<&FeedId>,
    ) -> Result<EpisodeView> {
        who.authorize(Action::EditEpisodes)?;
        who.require_feed(feed)?;
        let target = to.unwrap_or(feed);
        who.require_feed(target)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let episode = catalog
            .commit(now, &who.actor(), |state| {
                if !state.feeds.contains_key(feed) {
                    return Err(feed_not_found(feed));
                }
                let original = state
                    .episode(feed, id)
                    .ok_or_else(|| episode_not_found(id))?;
                if !state.feeds.contains_key(target) {
                    return Err(Error::invalid(
                        "feed_id_to",
                        format!("there is no feed {target}"),
                    ));
                }
                let new_id = EpisodeId::new(state.next_episode_id())?;
                let copy = Episode {
                    id: new_id,
                    feed: target.clone(),
                    guid: new_id.to_string(),
                    is_public: false,
                    created: now,
                    updated: now,
                    version: 1,
                    ..original.clone()
                };
                let mut changes = vec![Change::EpisodePut(Box::new(copy.clone()))];
                changes.extend(
                    state.record(now, vec![(K::EpisodeCreated, snapshot(state, &copy, now))]),
                );
                Ok((changes, copy))
            })
            .await?;
        Ok(catalog.read(|state| view_of(state, episode, now)).await)
    }
}
