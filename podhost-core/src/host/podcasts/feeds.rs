//! Feed operations: create, update, get, list, delete.

use super::Podcasts;
use crate::host::{
    PodcastHost, claims,
    podcasts::uploads::{StagedUpload, UploadTarget},
    refs, user_text,
    work::job_runs::records,
};
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::FeedId,
    model::{
        Feed, FeedPatch, FeedView, GooglePlayChannel, ItunesChannel, NewFeed, Page, PageRequest,
        PodcastChannel, category,
    },
    principal::Principal,
    probe::MediaKind,
    state::{AccountState, Change, federation::FediverseChange},
};

fn check_language(errors: &mut FieldErrors, language: &str) {
    let mut parts = language.split('-');
    let primary_ok = parts
        .next()
        .is_some_and(|p| (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()));
    let rest_ok =
        parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
    if !(primary_ok && rest_ok) {
        errors.add("language", "a language tag such as en, de or pt-BR");
    }
}

/// Applies a patch to a feed, collecting every problem.
/// At most this many measurement prefixes wrap an enclosure.
const MAX_PREFIXES: usize = 4;

/// Measurement prefixes: https URLs with a host and a path ending in `/`, no query or
/// fragment (the enclosure URL follows them), each once.
fn check_prefixes(e: &mut FieldErrors, prefixes: &[String]) {
    if prefixes.len() > MAX_PREFIXES {
        e.add("prefixes", format!("at most {MAX_PREFIXES} prefixes"));
    }
    for (i, prefix) in prefixes.iter().enumerate() {
        let ok = url::Url::parse(prefix).is_ok_and(|u| {
            u.scheme() == "https"
                && u.host_str().is_some_and(|h| !h.is_empty())
                && u.query().is_none()
                && u.fragment().is_none()
                && u.username().is_empty()
                && u.as_str() == prefix
        }) && prefix.ends_with('/');
        if !ok {
            e.add(
                "prefixes",
                format!("\"{prefix}\" is not a measurement prefix: an https URL ending in /, such as https://op3.dev/e/"),
            );
        }
        if prefixes[..i].contains(prefix) {
            e.add("prefixes", format!("{prefix} is given twice"));
        }
    }
}

fn apply_patch(feed: &mut Feed, patch: &FeedPatch, state: &AccountState) -> Result<()> {
    let mut e = FieldErrors::default();
    feed.apply(patch, &mut e);

    if feed.title.trim().is_empty() {
        e.add("title", "the title is required");
    }
    user_text::check_line(&mut e, "title", &feed.title);
    user_text::check_text(&mut e, "description", &feed.description);
    check_language(&mut e, &feed.language);
    user_text::check_line(&mut e, "copyright", &feed.copyright);
    user_text::check_url(&mut e, "link", &feed.link);
    let it = &feed.itunes;
    for (field, value) in [
        ("itunes.subtitle", &it.subtitle),
        ("itunes.author", &it.author),
        ("itunes.owner.name", &it.owner_name),
        ("googleplay.author", &feed.googleplay.author),
    ] {
        user_text::check_line(&mut e, field, value);
    }
    category::check_apple_category(&mut e, &it.category, &it.subcategory);
    user_text::check_text(&mut e, "itunes.summary", &it.summary);
    user_text::check_text(
        &mut e,
        "googleplay.description",
        &feed.googleplay.description,
    );
    user_text::check_email(&mut e, "itunes.owner.email", &it.owner_email);
    if let Some(url) = &it.new_feed_url {
        user_text::check_url(&mut e, "itunes.new-feed-url", url);
    }
    for funding in &feed.podcast.funding {
        user_text::check_url(&mut e, "podcast.funding", &funding.url);
        if funding.url.is_empty() {
            e.add("podcast.funding", "a funding link needs a URL");
        }
        user_text::check_line(&mut e, "podcast.funding", &funding.text);
    }
    if !crate::model::MEDIUMS.contains(&feed.podcast.medium.as_str()) {
        e.add(
            "podcast.medium",
            format!("one of {}", crate::model::MEDIUMS.join(", ")),
        );
    }
    refs::check_media_ref(&mut e, state, "logo", feed.logo, &[MediaKind::Image]);
    check_prefixes(&mut e, &feed.prefixes);
    e.into_result()
}

fn view(state: &AccountState, feed: &FeedId) -> Option<FeedView> {
    let entry = state.feeds.get(feed)?;
    Some(view_of(state, entry, entry.feed.clone()))
}

/// `feed` (the entry's, or what a decision makes of it) as shown, with its cover and its public
/// episodes without audio (kept by the state, not looked for).
pub(super) fn view_of(
    state: &AccountState,
    entry: &crate::state::FeedEntry,
    feed: Feed,
) -> FeedView {
    FeedView {
        logo: feed.logo.and_then(|id| state.media.get(&id).cloned()),
        episode_count: entry.episodes.len(),
        silent: entry.silent.iter().copied().collect(),
        feed,
    }
}

impl PodcastHost {
    /// Whether `patch` would change the caller's feed `id` (an import run twice writes nothing).
    pub(crate) async fn feed_differs(
        &self,
        who: &Principal,
        id: &FeedId,
        patch: &FeedPatch,
    ) -> Result<bool> {
        let catalog = self.catalog(who.account()).await?;
        catalog
            .read(|state| {
                let entry = state
                    .feeds
                    .get(id)
                    .ok_or_else(|| refs::feed_not_found(id))?;
                let mut feed = entry.feed.clone();
                Ok(apply_patch(&mut feed, patch, state).is_err() || feed != entry.feed)
            })
            .await
    }

    async fn commit_feed_logo(
        &self,
        who: &Principal,
        id: &FeedId,
        staged: &StagedUpload,
    ) -> Result<FeedView> {
        who.authorize(Action::EditPodcasts)?;
        who.require_feed(id)?;
        staged.check(who, &UploadTarget::Feed(id.clone()), "logo")?;
        if staged.facts().kind != MediaKind::Image {
            return Err(Error::invalid(
                "logo",
                format!(
                    "{} is not an image ({})",
                    staged.name(),
                    staged.facts().mime
                ),
            ));
        }
        let catalog = self.catalog(who.account()).await?;
        let now = self.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let entry = state
                    .feeds
                    .get(id)
                    .ok_or_else(|| refs::feed_not_found(id))?;
                let media = staged.record(
                    crate::ids::MediaId::new(state.next_media_id())?,
                    None,
                    now,
                    |n| state.media.values().any(|m| m.name == n),
                );
                let mut feed = entry.feed.clone();
                feed.logo = Some(media.id);
                feed.updated = now;
                let mut view = view_of(state, entry, feed.clone());
                view.logo = Some(media.clone());
                let events = vec![
                    (K::MediaCreated, Subject::Media(Box::new(media.clone()))),
                    (K::FeedUpdated, Subject::Feed(Box::new(view.clone()))),
                ];
                let mut changes = vec![
                    Change::MediaPut(Box::new(media)),
                    Change::FeedPut(Box::new(feed)),
                ];
                changes.extend(state.record(now, events));
                Ok((changes, view))
            })
            .await
    }
}

impl Podcasts<'_> {
    /// Creates a feed. Its id is claimed deployment-wide with put-if-absent: `Conflict` when
    /// any account holds it (deleted feeds' ids stay taken: their URLs are public).
    pub async fn create_feed(self, who: &Principal, new: NewFeed) -> Result<FeedView> {
        who.authorize(Action::EditPodcasts)?;
        if !who.sees_all() {
            return Err(Error::Forbidden {
                message: "a member restricted to some podcasts cannot create podcasts".into(),
            });
        }
        let id = FeedId::new(&new.id)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let rss = self.host.urls().rss(&id);
        let mut feed = Feed {
            id: id.clone(),
            title: String::new(),
            description: String::new(),
            language: "en".into(),
            copyright: String::new(),
            link: String::new(),
            logo: None,
            itunes: ItunesChannel::default(),
            googleplay: GooglePlayChannel::default(),
            podcast: PodcastChannel {
                guid: new
                    .fields
                    .podcast_guid
                    .unwrap_or_else(|| crate::model::podcast_guid(&rss)),
                locked: false,
                funding: Vec::new(),
                medium: "podcast".into(),
                tags: Default::default(),
            },
            private: false,
            audio: Default::default(),
            prefixes: Vec::new(),
            public_stats: false,
            fediverse: true,
            created: now,
            updated: now,
        };
        // Validate before claiming, so a rejected request takes no id.
        catalog
            .read(|state| apply_patch(&mut feed, &new.fields, state))
            .await?;
        let taken = || {
            Error::conflict(format!(
                "the podcast id \"{}\" is taken (ids are unique in the deployment and never reused): choose another",
                id.as_str()
            ))
        };
        let holder = claims::claim(
            self.host.store(),
            &crate::store::layout::feed_claim(&id),
            who.account(),
        )
        .await?;
        if &holder != who.account() {
            return Err(taken());
        }
        // Its fediverse actor's key, made with it (RSA takes a moment: off the async threads),
        // once the store's format keeps the fediverse's records.
        let key = actor_key(self.host).await?;
        catalog
            .commit(now, &who.actor(), |state| {
                // Ours already (created, deleted, or an earlier attempt of this call): taken,
                // unless the claim is ours but the feed never got written (a crash in between).
                if state.feeds.contains_key(&id) || state.deleted_feeds.contains_key(&id) {
                    return Err(taken());
                }
                let mut feed = feed.clone();
                apply_patch(&mut feed, &new.fields, state)?;
                let view = FeedView {
                    logo: feed.logo.and_then(|m| state.media.get(&m).cloned()),
                    episode_count: 0,
                    silent: Vec::new(),
                    feed: feed.clone(),
                };
                let mut changes = vec![Change::FeedPut(Box::new(feed))];
                changes.extend(key.clone().map(|key| {
                    Change::Fediverse(FediverseChange::KeyPut {
                        feed: id.clone(),
                        key,
                    })
                }));
                changes.extend(state.record(
                    now,
                    vec![(K::FeedCreated, Subject::Feed(Box::new(view.clone())))],
                ));
                Ok((changes, view))
            })
            .await
    }

    /// Changes channel fields of a feed.
    pub async fn update_feed(
        self,
        who: &Principal,
        id: &FeedId,
        patch: &FeedPatch,
    ) -> Result<FeedView> {
        who.authorize(Action::EditPodcasts)?;
        who.require_feed(id)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        // A change of the audio setting masters the episodes not published yet: their jobs
        // are reserved before the commit (one that finds more asks the caller to try again).
        let mut reserved = Vec::new();
        if patch.audio.is_some() {
            let count = catalog
                .read(|state| {
                    let mut feed = state.feeds.get(id)?.feed.clone();
                    apply_patch(&mut feed, patch, state).ok()?;
                    Some(records::episodes_to_master(state, id, &feed.audio, now).len())
                })
                .await
                .unwrap_or(0);
            for _ in 0..count {
                reserved.push(self.host.reserve_job(who.account()).await?);
            }
        }
        // A podcast made before podhost was on the fediverse (or before the store's format
        // kept it) gets its actor's key with its next change. Turning it off or on is kept
        // only once the format is there: a release before would drop the setting.
        if patch.fediverse.is_some() {
            self.host
                .require_format(crate::store::format::FEDIVERSE, "the `fediverse` setting")
                .await?;
        }
        let key = match catalog
            .read(|state| state.fediverse.keys.contains_key(id))
            .await
        {
            true => None,
            false => actor_key(self.host).await?,
        };
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                let entry = state
                    .feeds
                    .get(id)
                    .ok_or_else(|| refs::feed_not_found(id))?;
                let mut feed = entry.feed.clone();
                apply_patch(&mut feed, patch, state)?;
                feed.updated = now;
                let view = view_of(state, entry, feed.clone());
                let (mut changes, recorded) = match patch.audio {
                    Some(_) => {
                        records::podcast_master_jobs(state, id, &feed.audio, &reserved, now)?
                    }
                    None => (Vec::new(), Vec::new()),
                };
                changes.push(Change::FeedPut(Box::new(feed)));
                if let Some(key) = key
                    .as_ref()
                    .filter(|_| !state.fediverse.keys.contains_key(id))
                {
                    changes.push(Change::Fediverse(FediverseChange::KeyPut {
                        feed: id.clone(),
                        key: key.clone(),
                    }));
                }
                changes.extend(state.record(
                    now,
                    vec![(K::FeedUpdated, Subject::Feed(Box::new(view.clone())))],
                ));
                Ok((changes, (view, recorded)))
            })
            .await;
        let recorded = committed.as_ref().map_or(&[][..], |(_, ids)| ids);
        self.host
            .settle_jobs(who.account(), &reserved, recorded)
            .await;
        committed.map(|(view, _)| view)
    }

    /// Makes a staged image the cover of the caller's feed `id` (scope `feeds`): one commit
    /// writes its media record and the feed pointing at it, with their events.
    pub async fn set_feed_logo(
        self,
        who: &Principal,
        id: &FeedId,
        staged: StagedUpload,
    ) -> Result<FeedView> {
        let result = self.host.commit_feed_logo(who, id, &staged).await;
        staged.settle(&result).await;
        result
    }

    /// One feed of the caller's account.
    pub async fn get_feed(self, who: &Principal, id: &FeedId) -> Result<FeedView> {
        who.authorize(Action::ReadPodcasts)?;
        who.require_feed(id)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| view(state, id).ok_or_else(|| refs::feed_not_found(id)))
            .await
    }

    /// The caller's feeds, by id.
    pub async fn list_feeds(self, who: &Principal, page: PageRequest) -> Result<Page<FeedView>> {
        who.authorize(Action::ReadPodcasts)?;
        let catalog = self.host.catalog(who.account()).await?;
        let (start, size) = page.bounds();
        let (items, total) = catalog
            .read(|state| match who.feeds() {
                None => {
                    let items = state
                        .feeds
                        .keys()
                        .skip(start)
                        .take(size)
                        .filter_map(|id| view(state, id))
                        .collect::<Vec<_>>();
                    (items, state.feeds.len())
                }
                // A member restricted to some podcasts: theirs, walked from their list.
                Some(theirs) => {
                    let visible = theirs.iter().filter(|id| state.feeds.contains_key(*id));
                    let total = visible.clone().count();
                    let items = visible
                        .skip(start)
                        .take(size)
                        .filter_map(|id| view(state, id))
                        .collect::<Vec<_>>();
                    (items, total)
                }
            })
            .await;
        Ok(Page {
            items,
            total,
            request: page,
            changes_at: None,
        })
    }

    /// Deletes a feed and its episodes (not its media files). Its id stays taken.
    pub async fn delete_feed(self, who: &Principal, id: &FeedId) -> Result<()> {
        who.authorize(Action::EditPodcasts)?;
        who.require_feed(id)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let before = view(state, id).ok_or_else(|| refs::feed_not_found(id))?;
                let mut changes = vec![Change::FeedRemoved {
                    id: id.clone(),
                    at: now,
                }];
                changes.extend(
                    state.record(now, vec![(K::FeedDeleted, Subject::Feed(Box::new(before)))]),
                );
                Ok((changes, ()))
            })
            .await
    }

    /// When the caller's feed was deleted, if it was; for answering 410 on its public URLs.
    pub async fn feed_deleted_at(
        self,
        who: &Principal,
        id: &FeedId,
    ) -> Result<Option<jiff::Timestamp>> {
        who.authorize(Action::ReadPodcasts)?;
        who.require_feed(id)?;
        let catalog = self.host.catalog(who.account()).await?;
        Ok(catalog
            .read(|state| state.deleted_feeds.get(id).copied())
            .await)
    }
}

impl Podcasts<'_> {
    /// Gives every podcast that has no fediverse actor's key one: those made while the store's
    /// format did not keep the keys become actors at once, not with their next change. What
    /// `upgrade_store` does once the format keeps them; nothing while it does not. Returns how
    /// many podcasts got a key. Safe to repeat, and beside running servers: each account's
    /// commit gives a key only to a podcast that still has none.
    pub(crate) async fn make_actors(self) -> Result<usize> {
        let mut made = 0;
        for account in crate::host::catalogs::account_ids(self.host.store().as_ref()).await? {
            let catalog = self.host.catalog(&account).await?;
            let keyless: Vec<FeedId> = catalog
                .read(|state| {
                    state
                        .feeds
                        .keys()
                        .filter(|id| !state.fediverse.keys.contains_key(*id))
                        .cloned()
                        .collect()
                })
                .await;
            let mut keys = Vec::with_capacity(keyless.len());
            for feed in keyless {
                let Some(key) = actor_key(self.host).await? else {
                    return Ok(made);
                };
                keys.push((feed, key));
            }
            if keys.is_empty() {
                continue;
            }
            made += catalog
                .commit(self.host.now(), &crate::model::Actor::podhost(), |state| {
                    let changes: Vec<Change> = keys
                        .iter()
                        .filter(|(feed, _)| {
                            state.feeds.contains_key(feed)
                                && !state.fediverse.keys.contains_key(feed)
                        })
                        .map(|(feed, key)| {
                            Change::Fediverse(FediverseChange::KeyPut {
                                feed: feed.clone(),
                                key: key.clone(),
                            })
                        })
                        .collect();
                    let count = changes.len();
                    Ok((changes, count))
                })
                .await?;
        }
        Ok(made)
    }
}

/// A new actor key for a podcast, made on a blocking thread; none while the store's format
/// does not keep the fediverse's records (servers of a release before may run on it).
pub(crate) async fn actor_key(
    host: &PodcastHost,
) -> Result<Option<crate::activitypub::keys::ActorKey>> {
    if host.store_format().await? < crate::store::format::FEDIVERSE {
        return Ok(None);
    }
    tokio::task::spawn_blocking(crate::activitypub::keys::ActorKey::generate)
        .await
        .map(Some)
        .map_err(|e| Error::storage(format!("making the podcast's key failed: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn podcast_guid_follows_the_namespace_rule() {
        // The example of the podcastindex.org namespace documentation.
        assert_eq!(
            crate::model::podcast_guid("https://mp3s.nashownotes.com/pc20rss.xml").to_string(),
            "917393e3-1b1e-5cef-ace4-edaa54e1f810"
        );
        assert_eq!(
            crate::model::podcast_guid("https://mp3s.nashownotes.com/pc20rss.xml/"),
            crate::model::podcast_guid("http://mp3s.nashownotes.com/pc20rss.xml")
        );
    }
}
