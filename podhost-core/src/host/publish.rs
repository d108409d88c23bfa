//! The public side of a podcast: its feed, answered without a principal (feeds are public).

use super::{PodcastHost, accounts, episodes::view_of, feeds::feed_claim_path};
use crate::{
    error::{Error, Result},
    ids::{AccountId, FeedId},
    model::EpisodeView,
    publish::{PublicFeed, RenderedFeed, rss},
};

impl PodcastHost {
    /// The account holding a feed id, from its claim (kept in memory: claims never change).
    async fn feed_account(&self, id: &FeedId) -> Result<Option<AccountId>> {
        if let Some(account) = self
            .inner
            .feed_accounts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
        {
            return Ok(Some(account.clone()));
        }
        let account = accounts::read_claim(self, &feed_claim_path(id)).await?;
        if let Some(account) = &account {
            self.inner
                .feed_accounts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.clone(), account.clone());
        }
        Ok(account)
    }

    /// A podcast's public feed: the RSS of its published episodes (scheduled ones appear when
    /// their time comes), a redirect when it moved, or gone when it was deleted. Rendered once
    /// per version of the account and reused until something changes. `NotFound` for an id no
    /// podcast ever had.
    pub async fn public_feed(&self, id: &FeedId) -> Result<PublicFeed> {
        let not_found = || Error::not_found("feed", id);
        let account = self.feed_account(id).await?.ok_or_else(not_found)?;
        let catalog = match self.catalog(&account).await {
            Ok(catalog) => catalog,
            Err(Error::NotFound { .. }) => return Err(not_found()),
            Err(e) => return Err(e),
        };
        let now = self.now();
        let version = catalog.fresh_seq().await;
        if let Some((at, rendered)) = self
            .inner
            .rendered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            && *at == version
            && rendered.changes_at.is_none_or(|t| now < t)
        {
            return Ok(PublicFeed::Live(rendered.clone()));
        }
        let urls = self.urls().clone();
        let answer = catalog
            .read(|state| {
                if state.deleted_feeds.contains_key(id) {
                    return Ok::<_, Error>(PublicFeed::Gone);
                }
                let entry = state.feeds.get(id).ok_or_else(not_found)?;
                if let Some(url) = &entry.feed.itunes.new_feed_url {
                    return Ok(PublicFeed::Moved(url.clone()));
                }
                let mut published: Vec<EpisodeView> = entry
                    .episodes
                    .values()
                    .filter(|ep| ep.is_published(now))
                    .map(|ep| view_of(state, ep.clone(), now))
                    .collect();
                published.sort_by(|a, b| {
                    b.episode
                        .publish_at
                        .cmp(&a.episode.publish_at)
                        .then(b.episode.id.cmp(&a.episode.id))
                });
                let changes_at = entry
                    .episodes
                    .values()
                    .filter(|ep| ep.is_public && ep.publish_at > now)
                    .map(|ep| ep.publish_at)
                    .min();
                // Everything that changes the document: the channel, any episode's last change (an
                // unpublished one drops out, and that is a change too), publications that came,
                // and removals.
                let last_modified = entry
                    .episodes
                    .values()
                    .map(|ep| ep.updated)
                    .chain(published.iter().map(|v| v.episode.publish_at))
                    .chain(entry.removed_at)
                    .chain([entry.feed.updated])
                    .max()
                    .unwrap_or(entry.feed.updated);
                let logo = entry.feed.logo.and_then(|m| state.media.get(&m));
                let source = rss::FeedSource {
                    account: &account,
                    feed: &entry.feed,
                    logo,
                    episodes: &published,
                    last_modified,
                };
                let xml = rss::render(&source, &urls);
                use sha2::Digest;
                let etag = hex::encode(sha2::Sha256::digest(&xml))[..32].to_string();
                Ok(PublicFeed::Live(RenderedFeed {
                    xml: xml.into(),
                    etag,
                    last_modified,
                    changes_at,
                }))
            })
            .await?;
        if let PublicFeed::Live(rendered) = &answer {
            let mut cache = self
                .inner
                .rendered
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if cache.len() > 10_000 {
                cache.clear();
            }
            cache.insert(id.clone(), (version, rendered.clone()));
        }
        Ok(answer)
    }
}

impl PodcastHost {
    /// The media file behind a public download URL (`/media/{account}/{blob}/{name}`), for any
    /// caller: download URLs are public. `NotFound` unless the account has a file with that blob.
    pub async fn public_media(
        &self,
        account: &str,
        blob: &str,
    ) -> Result<crate::publish::PublicMedia> {
        let not_found = || Error::not_found("media", blob);
        let account = AccountId::new(account).map_err(|_| not_found())?;
        let catalog = match self.catalog(&account).await {
            Ok(catalog) => catalog,
            Err(Error::NotFound { .. }) => return Err(not_found()),
            Err(e) => return Err(e),
        };
        let media = catalog
            .read(|state| state.media_by_blob(blob).cloned())
            .await
            .ok_or_else(not_found)?;
        Ok(crate::publish::PublicMedia {
            size: media.size,
            mime: media.facts.mime.clone(),
            etag: media.blob.as_str().to_string(),
            last_modified: media.created,
            location: super::media::blob_path(&account, &media.blob),
        })
    }

    /// The bytes `range` of a public media file, streamed from the store with a range read
    /// (memory stays bounded whatever the size).
    pub async fn media_bytes(
        &self,
        media: &crate::publish::PublicMedia,
        range: std::ops::Range<u64>,
    ) -> Result<futures::stream::BoxStream<'static, Result<bytes::Bytes>>> {
        use futures::StreamExt;
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Bounded(range)),
            ..Default::default()
        };
        let got = self.store().get_opts(&media.location, options).await?;
        Ok(got
            .into_stream()
            .map(|chunk| chunk.map_err(Error::from))
            .boxed())
    }
}
