//! The public side of a podcast: its feed and web pages, answered without a principal (they are
//! public), and the media files behind download URLs.

use super::Delivery;
use std::sync::Arc;

use crate::host::{
    AccountCatalog, PodcastHost, claims,
    render_cache::PageOf,
    rendering::{
        etag_of, media_updated, next_publication, public_media_of, published_page, render_rss,
        served_feed, shown_episode,
    },
    views::view_of,
};
use crate::{
    error::{Error, Result},
    ids::{AccountId, EpisodeId, FeedId},
    locale::Locale,
    publish::{PublicFeed, PublicPage, RenderedPage, page},
};

use crate::host::kernel::FeedAccount;

impl PodcastHost {
    /// The account holding a feed id, from its claim (kept in a bounded cache: claims never
    /// change).
    async fn feed_account(&self, id: &FeedId) -> Result<Option<AccountId>> {
        let now = self.now();
        if let Some(FeedAccount(account)) = self.inner.kernel.feed_accounts.get(id, &(), now) {
            return Ok(Some(account));
        }
        let account =
            claims::read_claim(self.store(), &crate::store::layout::feed_claim(id)).await?;
        if let Some(account) = &account {
            self.inner
                .kernel
                .feed_accounts
                .put(id.clone(), (), None, FeedAccount(account.clone()));
        }
        Ok(account)
    }

    /// The account and catalog behind a public feed id; `NotFound` for an id no podcast ever had.
    pub(crate) async fn public_catalog(
        &self,
        id: &FeedId,
    ) -> Result<(AccountId, Arc<AccountCatalog>)> {
        let not_found = || Error::not_found("feed", id);
        let account = self.feed_account(id).await?.ok_or_else(not_found)?;
        let catalog = self
            .existing_catalog(&account)
            .await?
            .ok_or_else(not_found)?;
        Ok((account, catalog))
    }
}

impl<'h> Delivery<'h> {
    /// A podcast's public feed: the RSS of its published episodes (scheduled ones appear when
    /// their time comes), a redirect when it moved, or gone when it was deleted. Rendered once
    /// per version of the account and reused until something changes. `NotFound` for an id no
    /// podcast ever had.
    pub async fn public_feed(self, id: &FeedId) -> Result<PublicFeed> {
        let (account, catalog) = self.host.public_catalog(id).await?;
        let now = self.host.now();
        let version = catalog.fresh_seq().await;
        if let Some(rendered) = self.host.inner.delivery.rendered.get(id, &version, now) {
            return Ok(PublicFeed::Live(rendered));
        }
        let links = crate::urls::FeedLinks::Public(self.host.urls());
        // Rendered from a view of the state: a writer of the account does not wait for the render.
        let (version, answer) = catalog
            .view_found(|state| {
                if state.deleted_feeds.contains_key(id) {
                    return Ok::<_, Error>(PublicFeed::Gone);
                }
                let entry = state
                    .feeds
                    .get(id)
                    .ok_or_else(|| Error::not_found("feed", id))?;
                if let Some(url) = &entry.feed.itunes.new_feed_url {
                    return Ok(PublicFeed::Moved(url.clone()));
                }
                // A private podcast has no public feed: only its subscribers' copies.
                if entry.feed.private {
                    return Err(Error::not_found("feed", id));
                }
                let (xml, published) = render_rss(
                    state,
                    entry,
                    &account,
                    &links,
                    now,
                    &self.host.config().notify,
                    crate::host::rendering::Measure::Prefixed,
                );
                Ok(PublicFeed::Live(served_feed(xml, &published)))
            })
            .await?;
        if let PublicFeed::Live(rendered) = &answer {
            self.host.inner.delivery.rendered.put(
                id.clone(),
                version,
                rendered.changes_at,
                rendered.clone(),
            );
        }
        Ok(answer)
    }

    /// The Content-Security-Policy to send with the public pages (see
    /// [`content_security_policy`](crate::publish::page::content_security_policy)).
    pub fn page_policy(self) -> &'h str {
        let host = self.host;
        host.inner.delivery.page_policy.get_or_init(|| {
            page::content_security_policy(host.urls(), host.config().presigned_downloads.is_some())
        })
    }

    /// Up to `limit` podcasts of the deployment, every account's, by title: their ids and
    /// titles (the home page links to their pages). Deleted podcasts are not listed.
    pub async fn public_podcasts(self, limit: usize) -> Result<Vec<(FeedId, String)>> {
        self.host
            .inner
            .delivery
            .directory
            .podcasts(self.host.store(), limit)
            .await
    }

    /// Reads the deployment's directory of public podcasts into memory, as a server does when it
    /// starts (`podhost-http`'s `Server` does, in the background): one object (the directory's
    /// index), so that the first home page is answered from memory; then a listing of the
    /// entries, fetching only those changed since the index was written.
    pub async fn warm_directory(self) -> Result<()> {
        self.host
            .inner
            .delivery
            .directory
            .warm(self.host.store())
            .await
    }

    /// A podcast's public web page (`episode` none), the `page`th (from 1) of its list of
    /// published episodes ([`EPISODES_PER_PAGE`](crate::publish::page::EPISODES_PER_PAGE) a
    /// page), or the page of one of its published episodes (`page` 1): HTML that shows what the
    /// feed shows, rendered once per version of the account (and again when a scheduled
    /// episode's time comes). A moved podcast's pages stay, pointing listeners to its new feed.
    /// `Gone` once the podcast was deleted; `NotFound` for an id no podcast ever had, for an
    /// episode that is not published (a draft, a scheduled or a deleted one, another feed's),
    /// and for a page past the last.
    pub async fn public_page(
        self,
        id: &FeedId,
        episode: Option<EpisodeId>,
        page: usize,
        locale: Locale,
    ) -> Result<PublicPage> {
        let which = match episode {
            None => PageOf::Podcast(page),
            Some(_) if page != 1 => return Err(Error::not_found("page", page)),
            Some(episode) => PageOf::Episode(episode),
        };
        self.rendered_page(id, which, locale).await
    }

    /// The embeddable player (`/embed/{feed}[/{episode}]`) of a published episode, or of the
    /// podcast's newest one (`episode` none): a small page for an `<iframe>` on any site, with
    /// its own script, which [`player_policy`](Self::player_policy) allows. Found as
    /// [`public_page`](Self::public_page) finds pages; `NotFound` too for a podcast with no
    /// published episode (a private podcast has none to embed).
    pub async fn public_player(
        self,
        id: &FeedId,
        episode: Option<EpisodeId>,
        locale: Locale,
    ) -> Result<PublicPage> {
        self.rendered_page(id, PageOf::Player(episode), locale)
            .await
    }

    /// The Content-Security-Policy to send with [`public_player`](Self::public_player)'s
    /// pages (see [`player_policy`](crate::publish::page::player_policy)).
    pub fn player_policy(self) -> &'h str {
        let host = self.host;
        host.inner.delivery.player_policy.get_or_init(|| {
            page::player_policy(host.urls(), host.config().presigned_downloads.is_some())
        })
    }

    /// What an oEmbed consumer gets for the URL of a podcast's or an episode's page (or
    /// player): the player to embed (titled in `locale`), its size within `max` (width,
    /// height: the consumer's `maxwidth` and `maxheight`), and what the page is about. `NotFound` for a URL that is no
    /// page of this deployment, a private podcast, an episode that is not published; `Gone` is
    /// `NotFound` too (nothing to embed).
    pub async fn embedding(
        self,
        url: &str,
        max: (Option<u32>, Option<u32>),
        locale: Locale,
    ) -> Result<page::Embedding> {
        let not_found = || Error::not_found("page", url);
        let (id, episode) = self.host.urls().shown_at(url).ok_or_else(not_found)?;
        let (account, catalog) = self.host.public_catalog(&id).await?;
        let now = self.host.now();
        let urls = self.host.urls().clone();
        catalog
            .read_found(|state| {
                let entry = state
                    .feeds
                    .get(&id)
                    .filter(|entry| !entry.feed.private && !state.deleted_feeds.contains_key(&id))
                    .ok_or_else(not_found)?;
                let shown = shown_episode(entry, episode, now)?;
                let view = view_of(state, shown.clone(), now);
                let show = page::Show {
                    feed: &entry.feed,
                    logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
                };
                let site = page::Site {
                    urls: &urls,
                    account: &account,
                    time_zone: &jiff::tz::TimeZone::UTC,
                    locale,
                };
                Ok(page::embedding(&site, &show, &view, episode.is_some(), max))
            })
            .await
    }

    /// A page of a podcast in `locale`, rendered once per version of the account (see
    /// [`public_page`](Self::public_page)).
    async fn rendered_page(self, id: &FeedId, which: PageOf, locale: Locale) -> Result<PublicPage> {
        let (account, catalog) = self.host.public_catalog(id).await?;
        let now = self.host.now();
        let version = catalog.fresh_seq().await;
        let key = (id.clone(), which, locale);
        if let Some(rendered) = self.host.inner.delivery.pages.get(&key, &version, now) {
            return Ok(PublicPage::Live(rendered));
        }
        let urls = self.host.urls().clone();
        let time_zone = self.host.config().display_time_zone.clone();
        let answer = catalog
            .read_found(|state| {
                if state.deleted_feeds.contains_key(id) {
                    return Ok::<_, Error>(PublicPage::Gone);
                }
                let entry = state
                    .feeds
                    .get(id)
                    .filter(|entry| !entry.feed.private)
                    .ok_or_else(|| Error::not_found("feed", id))?;
                let site = page::Site {
                    urls: &urls,
                    account: &account,
                    time_zone: &time_zone,
                    locale,
                };
                let show = page::Show {
                    feed: &entry.feed,
                    logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
                };
                // One episode's page or player needs only that episode's view; it changes
                // with the podcast, the episode and the files it shows.
                let of_episode = |episode: &crate::model::Episode| {
                    let view = view_of(state, episode.clone(), now);
                    let ep = &view.episode;
                    let changed = [entry.feed.updated, ep.updated, ep.publish_at]
                        .into_iter()
                        .chain([media_updated(show.logo, std::slice::from_ref(&view))])
                        .max()
                        .unwrap_or(ep.updated);
                    (view, changed)
                };
                let (html, last_modified, changes_at) = match which {
                    PageOf::Podcast(page) => {
                        let published =
                            published_page(state, entry, now, page, page::EPISODES_PER_PAGE);
                        let listed = &published.episodes;
                        let paging = page::Paging {
                            number: page,
                            total: listed.total,
                        };
                        if !paging.exists() {
                            return Err(Error::not_found("page", page));
                        }
                        (
                            page::podcast_page(&site, &show, &listed.episodes, paging),
                            published
                                .last_modified
                                .max(media_updated(show.logo, &listed.episodes)),
                            published.changes_at,
                        )
                    }
                    PageOf::Episode(episode) => {
                        let (view, changed) = of_episode(shown_episode(entry, Some(episode), now)?);
                        // Its comments from the fediverse, when the podcast is there.
                        let conversation = state.actor(id).map(|_| page::Conversation {
                            handle: urls.handle(id),
                            comments: state
                                .fediverse
                                .comments
                                .get(&episode)
                                .into_iter()
                                .flatten()
                                .filter(|c| !c.hidden)
                                .collect(),
                        });
                        let commented = conversation
                            .as_ref()
                            .and_then(|c| c.comments.iter().map(|c| c.received).max());
                        let changed = changed.max(commented.unwrap_or(changed));
                        let html = page::episode_page(&site, &show, &view, conversation.as_ref());
                        (html, changed, None)
                    }
                    PageOf::Player(episode) => {
                        let (view, changed) = of_episode(shown_episode(entry, episode, now)?);
                        // The newest episode's player shows another once a scheduled one
                        // publishes.
                        let changes_at = episode
                            .is_none()
                            .then(|| next_publication(entry, now))
                            .flatten();
                        (page::player(&site, &show, &view), changed, changes_at)
                    }
                };
                Ok(PublicPage::Live(RenderedPage {
                    etag: etag_of(html.as_bytes()),
                    html: html.into(),
                    last_modified,
                    changes_at,
                }))
            })
            .await?;
        if let PublicPage::Live(rendered) = &answer {
            self.host
                .inner
                .delivery
                .pages
                .put(key, version, rendered.changes_at, rendered.clone());
        }
        Ok(answer)
    }
}

impl PodcastHost {
    /// The record behind a public URL of `account`'s `blob`, if that URL serves it now.
    pub(crate) async fn public_file(
        &self,
        account: &str,
        blob: &str,
    ) -> Result<(AccountId, crate::model::Media)> {
        let not_found = || Error::not_found("media", blob);
        let account = AccountId::new(account).map_err(|_| not_found())?;
        let catalog = self
            .existing_catalog(&account)
            .await?
            .ok_or_else(not_found)?;
        let now = self.now();
        let media = catalog
            .read_found(|state| {
                state
                    .blob_records(blob)
                    .find(|m| state.served_publicly(m.id, now))
                    .cloned()
                    .ok_or_else(not_found)
            })
            .await?;
        Ok((account, media))
    }

    /// The bytes `range` of the object at `location`, streamed with a range read; in a local
    /// folder, from the file opened and mapped here, without the store's blocking hand-offs
    /// (timed as the store's `get`).
    pub(crate) async fn read_range(
        &self,
        location: &object_store::path::Path,
        range: std::ops::Range<u64>,
    ) -> Result<futures::stream::BoxStream<'static, Result<bytes::Bytes>>> {
        use futures::StreamExt;
        if let Some(root) = &self.config().local_root {
            let started = std::time::Instant::now();
            let path = root.join(location.as_ref());
            if let Some(body) = crate::store::local::mapped_range(&path, range.clone()) {
                crate::store::metered::record(self.metrics(), "get", started, true);
                return Ok(body);
            }
        }
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Bounded(range.clone())),
            ..Default::default()
        };
        let got = self.store().get_opts(location, options).await?;
        match got.payload {
            // A local file: mapped in large windows, sent without a copy into podhost's memory
            // (object_store's own stream reads 8 KiB per blocking task, a fifth of what the
            // disk and the socket can do, and copies each byte twice).
            object_store::GetResultPayload::File(file, _) => {
                Ok(crate::store::local::mapped_chunks(file, range))
            }
            object_store::GetResultPayload::Stream(stream) => {
                Ok(stream.map(|chunk| chunk.map_err(Error::from)).boxed())
            }
        }
    }
}

impl Delivery<'_> {
    /// The media file behind a public download URL (`/media/{account}/{blob}/{name}`), for any
    /// caller: download URLs are public. `NotFound` unless the account has a file with that
    /// blob that its public URL serves now (a private podcast's file is served only while a
    /// public podcast shows it: see `AccountState::served_publicly`). Costs the file's uses.
    pub async fn public_media(
        self,
        account: &str,
        blob: &str,
    ) -> Result<crate::publish::PublicMedia> {
        let (account, media) = self.host.public_file(account, blob).await?;
        Ok(public_media_of(&account, &media))
    }

    /// The JSON chapters of a public media file (`/chapters/{account}/{blob}.json`), for any
    /// caller: `NotFound` unless [`public_media`](Self::public_media) serves the file and it
    /// has chapters (a subscriber's feed links them under their key instead).
    pub async fn public_chapters(self, account: &str, blob: &str) -> Result<bytes::Bytes> {
        let (_, media) = self.host.public_file(account, blob).await?;
        if media.chapters.is_empty() {
            return Err(Error::not_found("chapters", blob));
        }
        Ok(crate::publish::chapters::render(&media.chapters).into())
    }

    /// Where a public media file's download is redirected, when the deployment serves
    /// downloads from presigned store URLs ([`HostConfig::presigned_downloads`]); `None` when
    /// podhost streams them itself.
    ///
    /// [`HostConfig::presigned_downloads`]: crate::HostConfig::presigned_downloads
    pub async fn media_redirect(
        self,
        media: &crate::publish::PublicMedia,
    ) -> Result<Option<String>> {
        match &self.host.inner.kernel.config.presigned_downloads {
            Some(presigner) => Ok(Some(
                presigner
                    .presigned_get(&media.location, crate::publish::PRESIGNED_FOR)
                    .await?,
            )),
            None => Ok(None),
        }
    }

    /// The bytes `range` of a public media file, streamed from the store with a range read
    /// (memory stays bounded whatever the size).
    pub async fn media_bytes(
        self,
        media: &crate::publish::PublicMedia,
        range: std::ops::Range<u64>,
    ) -> Result<futures::stream::BoxStream<'static, Result<bytes::Bytes>>> {
        self.host.read_range(&media.location, range).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{
        ids::EpisodeId,
        model::{EpisodePatch, NewEpisode},
        publish::PublicFeed,
        state::Change,
    };

    /// A cold render of a large feed reads a view of the state: the account's writers commit
    /// meanwhile instead of waiting for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_writer_commits_while_a_cold_render_of_a_large_feed_runs() {
        let host = crate::PodcastHost::new(
            crate::HostConfig::new("https://pod.test").unwrap(),
            Arc::new(object_store::memory::InMemory::new()),
        );
        host.access().create_account("alice").await.unwrap();
        let owner = host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        let feed = host
            .podcasts()
            .create_feed(&owner, crate::model::NewFeed::titled("big", "Big"))
            .await
            .unwrap()
            .feed
            .id;
        let fields = EpisodePatch {
            title: Some("Episode 1: a title of ordinary length".into()),
            description: Some(
                "<p>Show notes of a typical length, with a few sentences.</p>".into(),
            ),
            is_public: Some(true),
            ..Default::default()
        };
        let first = host
            .podcasts()
            .create_episode(&owner, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap()
            .episode;
        // 9,999 more like it, in one commit.
        let catalog = host.catalog(owner.account()).await.unwrap();
        catalog
            .commit(host.now(), &crate::model::Actor::podhost(), |state| {
                let next = state.next_episode_id();
                let mut changes = Vec::new();
                for n in next..next + 9_999 {
                    let mut episode = first.clone();
                    episode.id = EpisodeId::new(n)?;
                    episode.guid = episode.id.to_string();
                    episode.title = format!("Episode {n}: a title of ordinary length");
                    changes.push(Change::EpisodePut(Box::new(episode)));
                }
                Ok((changes, ()))
            })
            .await
            .unwrap();

        // The render runs on the other worker; this one commits while it does.
        let render = tokio::spawn({
            let (host, feed) = (host.clone(), feed.clone());
            async move { host.delivery().public_feed(&feed).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let mut committed_during = 0;
        let mut n = 0;
        while !render.is_finished() {
            n += 1;
            let title = format!("Renamed {n}");
            host.podcasts()
                .update_episode(
                    &owner,
                    &feed,
                    first.id,
                    &EpisodePatch {
                        title: Some(title),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            if !render.is_finished() {
                committed_during += 1;
            }
        }
        let rendered = match render.await.unwrap().unwrap() {
            PublicFeed::Live(rendered) => rendered,
            _ => panic!("a live feed"),
        };
        assert!(
            committed_during >= 2,
            "{committed_during} commits finished while the render ran"
        );
        // The render is of one consistent state: every episode, as it was when it began.
        let xml = String::from_utf8_lossy(&rendered.xml);
        assert_eq!(xml.matches("<item>").count(), 10_000);
    }
}
