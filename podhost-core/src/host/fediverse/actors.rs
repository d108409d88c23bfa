//! The documents that find and show a podcast's actor: WebFinger, NodeInfo, the actor, its
//! episodes' posts, its outbox, followers and featured collections. Reads only.

use serde_json::Value;

use super::{
    Fediverse,
    known_actors::{OutboxPage, PostCount},
};
use crate::{
    activitypub::documents::{self, ActorSource, OUTBOX_PAGE, Verb},
    error::{Error, Result},
    host::{
        rendering::{next_publication, shown_episode},
        views::view_of,
    },
    ids::{AccountId, EpisodeId, FeedId},
    state::{AccountState, FeedEntry},
};

/// A document of the fediverse: its JSON, or that the podcast is gone (410: it was deleted,
/// and remote servers should forget it).
#[derive(Debug, Clone, PartialEq)]
pub enum FediverseDocument {
    /// The document.
    Found(Value),
    /// The podcast was deleted.
    Gone,
}

/// The podcast's entry when it is an actor ([`AccountState::actor`]); `NotFound` otherwise.
pub(super) fn actor_entry<'s>(state: &'s AccountState, feed: &FeedId) -> Result<&'s FeedEntry> {
    state
        .actor(feed)
        .map(|(entry, _)| entry)
        .ok_or_else(|| Error::not_found("actor", feed))
}

/// The episode whose post (`/ap/podcasts/{feed}/episodes/{episode}`) is public now: the
/// podcast is an actor and the episode is published, as its page and the public feed show it
/// ([`shown_episode`]). What the post's document answers by (404 otherwise), and what the inbox
/// takes replies, likes and boosts of.
pub(super) fn public_post<'s>(
    state: &'s AccountState,
    feed: &FeedId,
    episode: EpisodeId,
    now: jiff::Timestamp,
) -> Option<&'s crate::model::Episode> {
    let entry = actor_entry(state, feed).ok()?;
    shown_episode(entry, Some(episode), now).ok()
}

impl Fediverse<'_> {
    /// Reads a podcast's state for a document: `Gone` when it was deleted, `NotFound` when it is
    /// no actor, else `f` of its entry.
    async fn read_actor(
        self,
        feed: &FeedId,
        f: impl Fn(&AccountId, &AccountState, &FeedEntry) -> Result<Value>,
    ) -> Result<FediverseDocument> {
        let (account, catalog) = self.host.public_catalog(feed).await?;
        catalog
            .read_found(|state| {
                if state.deleted_feeds.contains_key(feed) {
                    return Ok(FediverseDocument::Gone);
                }
                let entry = actor_entry(state, feed)?;
                f(&account, state, entry).map(FediverseDocument::Found)
            })
            .await
    }

    /// The WebFinger answer for `resource` (`acct:{feed}@{host}`, or the actor's or page's URL).
    pub async fn webfinger(self, resource: &str) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        let feed = documents::webfinger_feed(urls, resource)
            .ok_or_else(|| Error::not_found("account", resource))?;
        self.read_actor(&feed, |_, _, _| Ok(documents::webfinger(urls, &feed)))
            .await
    }

    /// NodeInfo 2.1 of the deployment: its public podcasts are its users.
    pub async fn nodeinfo(self) -> Value {
        let store = self.host.store();
        let users = match self
            .host
            .delivery()
            .directory()
            .podcasts(store, usize::MAX)
            .await
        {
            Ok(podcasts) => podcasts.len(),
            Err(_) => 0,
        };
        documents::nodeinfo(users)
    }

    /// A podcast's actor.
    pub async fn actor(self, feed: &FeedId) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        self.read_actor(feed, |account, state, entry| {
            let (_, key) = state
                .actor(feed)
                .ok_or_else(|| Error::not_found("actor", feed))?;
            Ok(documents::actor(
                urls,
                &ActorSource {
                    feed: &entry.feed,
                    logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
                    account,
                    public_key_pem: key.public_pem(),
                },
            ))
        })
        .await
    }

    /// An episode's post (a `Note`): only a published episode's.
    pub async fn note(self, feed: &FeedId, episode: EpisodeId) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        let now = self.host.now();
        self.read_actor(feed, |account, state, entry| {
            let ep = public_post(state, feed, episode, now)
                .ok_or_else(|| Error::not_found("episode", episode))?;
            let view = view_of(state, ep.clone(), now);
            Ok(documents::note(urls, account, &entry.feed, &view))
        })
        .await
    }

    /// The `Create` of an episode's post.
    pub async fn note_activity(
        self,
        feed: &FeedId,
        episode: EpisodeId,
    ) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        match self.note(feed, episode).await? {
            FediverseDocument::Found(note) => Ok(FediverseDocument::Found(documents::activity(
                urls,
                feed,
                episode,
                Verb::Create,
                "",
                note,
            ))),
            FediverseDocument::Gone => Ok(FediverseDocument::Gone),
        }
    }

    /// A podcast's outbox: the collection (`page` none), or one page of its posts' `Create`s,
    /// newest first (from 1). The count of its posts and each page are kept per version of
    /// the account until its next scheduled episode publishes (in this process's memory of
    /// the fediverse): a request renders nothing the previous one rendered.
    pub async fn outbox(self, feed: &FeedId, page: Option<usize>) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        let now = self.host.now();
        let (_, catalog) = self.host.public_catalog(feed).await?;
        let version = catalog.fresh_seq().await;
        let counts = &self.state().post_counts;
        let known = counts.get(feed, &version, now);
        let pages = &self.state().outbox_pages;
        if let Some(number) = page
            && let Some(OutboxPage(rendered, ..)) =
                pages.get(&(feed.clone(), number), &version, now)
        {
            return Ok(FediverseDocument::Found((*rendered).clone()));
        }
        let rendered = self
            .read_actor(feed, |account, state, entry| {
                let published = || {
                    entry
                        .order
                        .ids(crate::model::EpisodeSort::PublishDate, true)
                        .filter_map(|id| entry.episodes.get(&id))
                        .filter(|ep| ep.is_published(now))
                };
                let total = match known {
                    Some(PostCount(total)) => total,
                    None => {
                        let total = published().count();
                        let changes_at = next_publication(entry, now);
                        counts.put(feed.clone(), version, changes_at, PostCount(total));
                        total
                    }
                };
                let Some(number) = page else {
                    return Ok(documents::outbox(urls, feed, total, None));
                };
                let items = published()
                    .skip(number.saturating_sub(1).saturating_mul(OUTBOX_PAGE))
                    .take(OUTBOX_PAGE)
                    .map(|ep| {
                        let view = view_of(state, ep.clone(), now);
                        let note = documents::note(urls, account, &entry.feed, &view);
                        documents::activity(urls, feed, ep.id, Verb::Create, "", note)
                    })
                    .collect();
                let rendered = documents::outbox(urls, feed, total, Some((number.max(1), items)));
                let changes_at = next_publication(entry, now);
                pages.put(
                    (feed.clone(), number),
                    version,
                    changes_at,
                    OutboxPage::new(rendered.clone()),
                );
                Ok(rendered)
            })
            .await?;
        Ok(rendered)
    }

    /// How many follow a podcast.
    pub async fn followers(self, feed: &FeedId) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        self.read_actor(feed, |_, state, _| {
            Ok(documents::followers(
                urls,
                feed,
                state.fediverse.followers_of(feed).count(),
            ))
        })
        .await
    }

    /// A podcast's featured posts: its newest episode's.
    pub async fn featured(self, feed: &FeedId) -> Result<FediverseDocument> {
        let urls = self.host.urls();
        let now = self.host.now();
        self.read_actor(feed, |account, state, entry| {
            let newest = shown_episode(entry, None, now).ok();
            let notes = newest
                .map(|ep| view_of(state, ep.clone(), now))
                .iter()
                .map(|view| {
                    let mut note = documents::note(urls, account, &entry.feed, view);
                    if let Some(fields) = note.as_object_mut() {
                        fields.remove("@context");
                    }
                    note
                })
                .collect();
            Ok(documents::featured(urls, feed, notes))
        })
        .await
    }
}
