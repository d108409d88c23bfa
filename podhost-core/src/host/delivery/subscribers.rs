//! Private podcasts' subscribers: each gets a feed URL of their own, carrying a key
//! (`sub_…_…`) that the feed's media URLs carry too; revoking a subscriber makes both answer
//! 410 on every process within a second (the account's state is read again every 500 ms).

use super::Delivery;
use crate::host::{
    PodcastHost,
    rendering::{render_rss, served_feed},
    secrets::random_secret,
};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{AccountId, FeedId, SubscriberId},
    model::Subscriber,
    principal::Principal,
    publish::{PublicMedia, RenderedFeed},
    state::{AccountState, Change},
};

/// What a subscriber's key opens.
#[derive(Debug)]
pub enum Private<T> {
    /// The feed or file.
    Live(T),
    /// The subscriber was revoked, or the podcast deleted (410).
    Gone,
}

/// `sub_` and 16 characters, `_`, 43 characters: the id and the secret.
fn parse_key(key: &str) -> Option<SubscriberId> {
    let (id, secret) = key.split_at_checked(20)?;
    let secret = secret.strip_prefix('_')?;
    (secret.len() == 43).then_some(())?;
    id.parse().ok()
}

/// The subscriber a key names in `state`, for `feed`: `Ok(None)` when revoked, `Err(NotFound)`
/// when it names nobody (another podcast's subscriber included).
fn subscriber_of<'s>(
    state: &'s AccountState,
    feed: &FeedId,
    key: &str,
) -> Result<Option<&'s Subscriber>> {
    let not_found = || Error::not_found("subscriber", "");
    let id = parse_key(key).ok_or_else(not_found)?;
    let subscriber = state
        .subscribers
        .get(&id)
        .filter(|s| &s.feed == feed)
        .ok_or_else(not_found)?;
    use subtle::ConstantTimeEq;
    if !bool::from(subscriber.key.as_bytes().ct_eq(key.as_bytes())) {
        return Err(not_found());
    }
    Ok(subscriber.revoked.is_none().then_some(subscriber))
}

impl PodcastHost {
    /// The record of a file a subscriber's key opens: see [`private_media`](Self::private_media).
    pub(crate) async fn subscriber_file(
        &self,
        feed: &FeedId,
        key: &str,
        blob: &str,
    ) -> Result<Private<(AccountId, crate::model::Media)>> {
        let (account, catalog) = self.public_catalog(feed).await?;
        let found = catalog
            .read_found(|state| {
                if subscriber_of(state, feed, key)?.is_none()
                    || state.deleted_feeds.contains_key(feed)
                {
                    return Ok::<_, Error>(None);
                }
                if !state.feeds.contains_key(feed) {
                    return Err(Error::not_found("feed", feed));
                }
                let media = state
                    .blob_records(blob)
                    .find(|m| state.feed_uses(feed, m.id))
                    .ok_or_else(|| Error::not_found("media", blob))?;
                Ok(Some(media.clone()))
            })
            .await?;
        Ok(match found {
            None => Private::Gone,
            Some(media) => Private::Live((account, media)),
        })
    }
}

impl Delivery<'_> {
    /// Adds a subscriber to one of the caller's podcasts (scope `feeds`); its feed URL is
    /// [`subscriber_feed_url`](Self::subscriber_feed_url).
    pub async fn add_subscriber(
        self,
        who: &Principal,
        feed: &FeedId,
        label: &str,
    ) -> Result<Subscriber> {
        who.authorize(Action::EditPodcasts)?;
        who.require_feed(feed)?;
        let mut errors = FieldErrors::default();
        crate::host::user_text::check_line(&mut errors, "label", label);
        errors.into_result()?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let label = label.trim().to_string();
        catalog
            .commit(now, &who.actor(), |state| {
                if !state.feeds.contains_key(feed) {
                    return Err(Error::not_found("feed", feed));
                }
                let mut id = SubscriberId::random();
                while state.subscribers.contains_key(&id) {
                    id = SubscriberId::random();
                }
                let subscriber = Subscriber {
                    key: format!("{id}_{}", random_secret()),
                    id,
                    feed: feed.clone(),
                    label: label.clone(),
                    created: now,
                    revoked: None,
                };
                Ok((vec![Change::SubscriberPut(subscriber.clone())], subscriber))
            })
            .await
    }

    /// The subscribers of one of the caller's podcasts, oldest first, revoked ones included
    /// (scope `feeds-read-only`).
    pub async fn list_subscribers(self, who: &Principal, feed: &FeedId) -> Result<Vec<Subscriber>> {
        who.authorize(Action::ReadPodcasts)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| {
                if !state.feeds.contains_key(feed) {
                    return Err(Error::not_found("feed", feed));
                }
                let mut list: Vec<Subscriber> = state
                    .subscribers
                    .values()
                    .filter(|s| &s.feed == feed)
                    .cloned()
                    .collect();
                list.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
                Ok(list)
            })
            .await
    }

    /// Revokes a subscriber (scope `feeds`): their feed and files answer 410 on every process
    /// within a second. Revoking twice is no error.
    pub async fn remove_subscriber(
        self,
        who: &Principal,
        feed: &FeedId,
        id: &SubscriberId,
    ) -> Result<Subscriber> {
        who.authorize(Action::EditPodcasts)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let mut subscriber = state
                    .subscribers
                    .get(id)
                    .filter(|s| &s.feed == feed)
                    .cloned()
                    .ok_or_else(|| Error::not_found("subscriber", id))?;
                if subscriber.revoked.is_some() {
                    return Ok((Vec::new(), subscriber));
                }
                subscriber.revoked = Some(now);
                Ok((vec![Change::SubscriberPut(subscriber.clone())], subscriber))
            })
            .await
    }

    /// A subscriber's own feed URL.
    pub fn subscriber_feed_url(self, subscriber: &Subscriber) -> String {
        self.host
            .urls()
            .for_subscriber(&subscriber.feed, &subscriber.key)
            .rss(&subscriber.feed)
    }

    /// A subscriber's copy of a podcast's feed: every published episode, marked
    /// `itunes:block` and `podcast:block`, with media URLs that carry the subscriber's key.
    /// Rendered once per version of the account and subscriber. `Gone` once the subscriber was
    /// revoked or the podcast deleted; `NotFound` for a key that names no subscriber of it.
    pub async fn private_feed(self, feed: &FeedId, key: &str) -> Result<Private<RenderedFeed>> {
        let (account, catalog) = self.host.public_catalog(feed).await?;
        let now = self.host.now();
        let version = catalog.fresh_seq().await;
        let cache_key = (feed.clone(), key.to_string());
        if let Some(rendered) = self
            .host
            .inner
            .delivery
            .private_rendered
            .get(&cache_key, &version, now)
        {
            return Ok(Private::Live(rendered));
        }
        let links = self.host.urls().for_subscriber(feed, key);
        // Rendered from a view of the state: a writer of the account does not wait for the render.
        let (version, answer) = catalog
            .view_found(|state| {
                if subscriber_of(state, feed, key)?.is_none()
                    || state.deleted_feeds.contains_key(feed)
                {
                    return Ok::<_, Error>(Private::Gone);
                }
                let entry = state
                    .feeds
                    .get(feed)
                    .ok_or_else(|| Error::not_found("feed", feed))?;
                let (xml, published) = render_rss(
                    state,
                    entry,
                    &account,
                    &links,
                    now,
                    &Default::default(),
                    crate::host::rendering::Measure::Plain,
                );
                Ok(Private::Live(served_feed(xml, &published)))
            })
            .await?;
        if let Private::Live(rendered) = &answer {
            self.host.inner.delivery.private_rendered.put(
                cache_key,
                version,
                rendered.changes_at,
                rendered.clone(),
            );
        }
        Ok(answer)
    }

    /// A file of a private podcast, through a subscriber's key: the podcast's cover or a file of
    /// one of its episodes. `Gone` once the subscriber was revoked or the podcast deleted;
    /// `NotFound` for a key that names no subscriber of the podcast and for a file that is not
    /// the podcast's. Returns the account too (downloads are counted in it). Costs the file's
    /// uses.
    pub async fn private_media(
        self,
        feed: &FeedId,
        key: &str,
        blob: &str,
    ) -> Result<Private<(AccountId, PublicMedia)>> {
        Ok(match self.host.subscriber_file(feed, key, blob).await? {
            Private::Live((account, media)) => {
                let public = crate::host::rendering::public_media_of(&account, &media);
                Private::Live((account, public))
            }
            Private::Gone => Private::Gone,
        })
    }

    /// The JSON chapters of a private podcast's file through a subscriber's key
    /// (`/private/{feed}/{key}/chapters/{blob}.json`), as `listener` hears them: moved by the
    /// ads their download of the file carries (`true`), else as stored. `Gone` and `NotFound`
    /// as [`private_media`](Self::private_media) answers them; `NotFound` for a file without
    /// chapters.
    pub async fn private_chapters(
        self,
        feed: &FeedId,
        key: &str,
        blob: &str,
        listener: &crate::Listener,
    ) -> Result<Private<(bytes::Bytes, bool)>> {
        let (account, media) = match self.host.subscriber_file(feed, key, blob).await? {
            Private::Live(found) => found,
            Private::Gone => return Ok(Private::Gone),
        };
        if media.chapters.is_empty() {
            return Err(Error::not_found("chapters", blob));
        }
        let heard = self
            .host
            .ads()
            .chapters_heard(&account, &media, listener)
            .await?;
        Ok(Private::Live(heard))
    }
}
