//! Moving out: everything a podcaster owns about one podcast, read at one moment, so that a
//! frontend can write it down (`podhost export`) and another podhost can import it again.

use super::Podcasts;
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{FeedId, MediaId},
    model::{EpisodeView, FeedView, Media},
    principal::Principal,
};

/// One podcast as it is: its record, every episode (drafts included), every media file it uses,
/// and its RSS as podhost serves it.
#[derive(Debug, Clone)]
pub struct FeedExport {
    /// The podcast.
    pub feed: FeedView,
    /// Its episodes, newest first.
    pub episodes: Vec<EpisodeView>,
    /// The media files it uses (its cover, its episodes' audio, covers and transcripts), by id.
    pub media: Vec<Media>,
    /// Its RSS feed: the published episodes, as the feed URL serves them now.
    pub rss: bytes::Bytes,
    /// The rest as RSS: its drafts (marked `itunes:block`) and scheduled episodes, so that an
    /// import of both documents restores every episode as it was.
    pub drafts: bytes::Bytes,
}

impl Podcasts<'_> {
    /// Everything of one of the caller's podcasts (scopes `feeds-read-only`, `shows-read-only`
    /// and `media-read-only`), read at one moment. The RSS is rendered even when the podcast
    /// moved away (its feed URL then answers a redirect).
    pub async fn export_feed(self, who: &Principal, id: &FeedId) -> Result<FeedExport> {
        for action in [
            Action::ReadPodcasts,
            Action::ReadEpisodes,
            Action::ReadMedia,
        ] {
            who.authorize(action)?;
        }
        who.require_feed(id)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let links = crate::urls::FeedLinks::Public(self.host.urls());
        catalog
            .read(|state| {
                let entry = state
                    .feeds
                    .get(id)
                    .ok_or_else(|| Error::not_found("feed", id))?;
                let episodes = crate::host::rendering::newest_first(state, entry, now, |_| true);
                let mut ids: Vec<MediaId> = entry.feed.logo.into_iter().collect();
                ids.extend(entry.episodes.values().flat_map(|e| e.media_ids()));
                ids.sort();
                ids.dedup();
                let media = ids
                    .iter()
                    .filter_map(|m| state.media.get(m).cloned())
                    .collect();
                let (rss, _) = crate::host::rendering::render_rss(
                    state,
                    entry,
                    who.account(),
                    &links,
                    now,
                    &Default::default(),
                    crate::host::rendering::Measure::Plain,
                );
                let unpublished: Vec<EpisodeView> = episodes
                    .iter()
                    .filter(|v| !v.is_published)
                    .cloned()
                    .collect();
                let drafts = crate::publish::rss::render(
                    &crate::publish::rss::FeedSource {
                        account: who.account(),
                        feed: &entry.feed,
                        logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
                        episodes: &unpublished,
                        last_modified: entry.feed.updated,
                        block_drafts: true,
                        cleaned: &entry.feed_notes,
                        hubs: &[],
                        podping: false,
                        prefixes: &[],
                        fediverse: false,
                    },
                    &links,
                );
                Ok(FeedExport {
                    feed: super::feeds::view_of(state, entry, entry.feed.clone()),
                    episodes,
                    media,
                    rss: rss.into(),
                    drafts: drafts.into(),
                })
            })
            .await
    }
}
