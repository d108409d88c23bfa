//! What a feed is rendered from at one moment: the one selection of its published episodes
//! (shared by the feed, the pages and subscribers' copies), its RSS, and the validators of what
//! is served.

use jiff::Timestamp;

use crate::host::views::view_of;
use crate::{
    ids::AccountId,
    model::{EpisodeView, Media},
    publish::rss,
    state::{AccountState, FeedEntry},
};

/// What of a feed is public at one moment: what its RSS feed and its pages show.
pub(crate) struct Published<E = Vec<EpisodeView>> {
    /// The published episodes, newest first (or one page of them).
    pub(crate) episodes: E,
    /// When a scheduled episode publishes next.
    pub(crate) changes_at: Option<Timestamp>,
    /// The last change of anything the feed shows: the channel, any episode's last change (an
    /// unpublished one drops out, and that is a change too), publications that came, removals.
    pub(crate) last_modified: Timestamp,
}

/// The RSS of a feed's published episodes at `now`, and what was selected.
/// Whether a rendered feed's enclosures go through the podcast's measurement prefixes: the
/// served feed's do; an export's do not (its files are read back from its folder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    Prefixed,
    Plain,
}

pub(crate) fn render_rss(
    state: &AccountState,
    entry: &FeedEntry,
    account: &AccountId,
    links: &crate::urls::FeedLinks<'_>,
    now: Timestamp,
    notify: &crate::webhooks::notify::Notifiers,
    measure: Measure,
) -> (Vec<u8>, Published) {
    let private = links.is_private();
    let published = published(state, entry, now);
    let source = rss::FeedSource {
        account,
        feed: &entry.feed,
        logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
        episodes: &published.episodes,
        last_modified: published.last_modified,
        block_drafts: false,
        cleaned: &entry.feed_notes,
        // A subscriber's copy is nobody's to be told about.
        hubs: if private { &[] } else { &notify.websub_hubs },
        podping: !private && notify.podping_url.is_some(),
        // Never a subscriber's links: their keys would go to the measurement services.
        prefixes: match (private, measure) {
            (false, Measure::Prefixed) => &entry.feed.prefixes,
            _ => &[],
        },
        fediverse: !private && state.actor(&entry.feed.id).is_some(),
    };
    (rss::render(&source, links), published)
}

/// A feed as it is served: its RSS (from [`render_rss`]), its validators, and when it changes
/// next (a scheduled episode). The public feed and a subscriber's copy alike.
pub(crate) fn served_feed(xml: Vec<u8>, published: &Published) -> crate::publish::RenderedFeed {
    crate::publish::RenderedFeed {
        etag: etag_of(&xml),
        xml: xml.into(),
        last_modified: published.last_modified,
        changes_at: published.changes_at,
    }
}

/// The views of a feed's episodes that `keep` selects, newest first.
pub(crate) fn newest_first(
    state: &AccountState,
    entry: &FeedEntry,
    now: Timestamp,
    keep: impl Fn(&crate::model::Episode) -> bool,
) -> Vec<EpisodeView> {
    // The podcast's publication-date index, read backwards: newest first, ties by id.
    entry
        .order
        .ids(crate::model::EpisodeSort::PublishDate, true)
        .filter_map(|id| entry.episodes.get(&id))
        .filter(|ep| keep(ep))
        .map(|ep| view_of(state, ep.clone(), now))
        .collect()
}

/// One page of a feed's published episodes, in the order the podcast page lists them (newest
/// first; a serial show's oldest first, as apps list it): the `number`th (from 1) of `per_page`
/// each, with the count of them all. Views are made of that page's episodes only.
pub(crate) fn published_page(
    state: &AccountState,
    entry: &FeedEntry,
    now: Timestamp,
    number: usize,
    per_page: usize,
) -> Published<PublishedPage> {
    let oldest_first = entry.feed.itunes.show_type == crate::model::ShowType::Serial;
    let listed = || {
        entry
            .order
            .ids(crate::model::EpisodeSort::PublishDate, !oldest_first)
            .filter_map(|id| entry.episodes.get(&id))
            .filter(|ep| ep.is_published(now))
    };
    let skip = number.saturating_sub(1).saturating_mul(per_page);
    let episodes: Vec<EpisodeView> = listed()
        .skip(skip)
        .take(per_page)
        .map(|ep| view_of(state, ep.clone(), now))
        .collect();
    let total = listed().count();
    let (changes_at, last_modified) = when_it_changes(entry, now, listed().map(|ep| ep.publish_at));
    Published {
        episodes: PublishedPage { episodes, total },
        changes_at,
        last_modified,
    }
}

/// The feed's newest published episode (by publication time, whatever order the show is
/// listed in): what its embedded player plays.
fn newest_published(entry: &FeedEntry, now: Timestamp) -> Option<&crate::model::Episode> {
    entry
        .order
        .ids(crate::model::EpisodeSort::PublishDate, true)
        .filter_map(|id| entry.episodes.get(&id))
        .find(|ep| ep.is_published(now))
}

/// The published episode a page or player of the feed shows: `episode`, or the newest (none).
/// `NotFound` when it is not published (a draft, a scheduled or a deleted one, another feed's)
/// or the feed has published none.
pub(crate) fn shown_episode(
    entry: &FeedEntry,
    episode: Option<crate::ids::EpisodeId>,
    now: Timestamp,
) -> crate::error::Result<&crate::model::Episode> {
    let shown = match episode {
        Some(id) => entry.episodes.get(&id).filter(|ep| ep.is_published(now)),
        None => newest_published(entry, now),
    };
    shown.ok_or_else(|| match episode {
        Some(id) => crate::error::Error::not_found("episode", id),
        None => crate::error::Error::not_found("episode", "newest"),
    })
}

/// When a scheduled episode of the feed publishes next.
pub(crate) fn next_publication(entry: &FeedEntry, now: Timestamp) -> Option<Timestamp> {
    entry
        .episodes
        .values()
        .filter(|ep| ep.is_public && ep.publish_at > now)
        .map(|ep| ep.publish_at)
        .min()
}

/// The episodes of one page of a podcast page, and how many the podcast has published.
pub(crate) struct PublishedPage {
    /// The page's episodes, in the order listed.
    pub(crate) episodes: Vec<EpisodeView>,
    /// How many episodes are published in all.
    pub(crate) total: usize,
}

/// When a scheduled episode of the feed publishes next, and the last change of anything a
/// document of its published episodes shows (see [`Published`]); `published_at` are the
/// published episodes' publication times.
fn when_it_changes(
    entry: &FeedEntry,
    now: Timestamp,
    published_at: impl Iterator<Item = Timestamp>,
) -> (Option<Timestamp>, Timestamp) {
    let changes_at = next_publication(entry, now);
    let last_modified = entry
        .episodes
        .values()
        .map(|ep| ep.updated)
        .chain(published_at)
        .chain(entry.removed_at)
        .chain([entry.feed.updated])
        .max()
        .unwrap_or(entry.feed.updated);
    (changes_at, last_modified)
}

/// The one selection of a feed's public episodes, shared by the feed and the pages.
pub(crate) fn published(state: &AccountState, entry: &FeedEntry, now: Timestamp) -> Published {
    let episodes = newest_first(state, entry, now, |ep| ep.is_published(now));
    let (changes_at, last_modified) =
        when_it_changes(entry, now, episodes.iter().map(|v| v.episode.publish_at));
    Published {
        episodes,
        changes_at,
        last_modified,
    }
}

/// The last change of the media records a page shows (a rename changes a URL, not the feed).
pub(crate) fn media_updated(logo: Option<&Media>, episodes: &[EpisodeView]) -> Timestamp {
    logo.into_iter()
        .chain(
            episodes
                .iter()
                .flat_map(|v| [&v.media, &v.logo, &v.transcript].into_iter().flatten()),
        )
        .map(|m| m.updated)
        .max()
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

/// A strong validator of rendered bytes: the SHA-256, hex, first 32 characters.
pub(crate) fn etag_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))[..32].to_string()
}

/// What a download of `media` of `account` needs.
pub(crate) fn public_media_of(account: &AccountId, media: &Media) -> crate::publish::PublicMedia {
    crate::publish::PublicMedia {
        size: media.size,
        mime: media.facts.mime.clone(),
        etag: media.blob.as_str().to_string(),
        last_modified: media.created,
        location: crate::store::layout::blob(account, &media.blob),
    }
}
