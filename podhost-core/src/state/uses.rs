//! The uses of each media file by the account's podcasts: a derived index, kept by every
//! change of a podcast or an episode, so that a question about one file (who may download it,
//! what uses it) costs its uses, never a walk of the account.

use std::collections::{BTreeSet, HashMap};

use jiff::Timestamp;

use super::AccountState;
use crate::{
    ids::{EpisodeId, FeedId, MediaId},
    model::{Episode, Feed},
};

impl AccountState {
    /// The episodes (with their podcast) that use `media` as one of their files: audio, cover,
    /// transcript or alternate. Costs the file's uses.
    pub(crate) fn episodes_using(
        &self,
        media: MediaId,
    ) -> impl Iterator<Item = (&FeedId, &Episode)> {
        self.uses.of(media).filter_map(|u| match u {
            Use::Artwork(_) => None,
            Use::Episode(feed, id) => {
                let episode = self.feeds.get(feed)?.episodes.get(id)?;
                Some((feed, episode))
            }
        })
    }

    /// The episode `media`'s downloads and ads count for at `now`: of the episodes that play it
    /// as their audio, the first by [`Episode::playing_rank`] (published first, then the
    /// earliest). Costs the file's uses.
    pub(crate) fn playing(&self, media: MediaId, now: Timestamp) -> Option<(&FeedId, &Episode)> {
        self.episodes_using(media)
            .filter(|(_, e)| e.media == Some(media))
            .min_by_key(|(feed, e)| e.playing_rank(feed, now))
    }

    /// The episode a download of `media` is counted for: the one [`playing`](Self::playing) it
    /// as its audio, else the one showing it as its video (by the same rank).
    pub(crate) fn heard_or_seen(
        &self,
        media: MediaId,
        now: Timestamp,
    ) -> Option<(&FeedId, &Episode)> {
        self.playing(media, now).or_else(|| {
            self.episodes_using(media)
                .filter(|(_, e)| e.video == Some(media))
                .min_by_key(|(feed, e)| e.playing_rank(feed, now))
        })
    }
}

/// One use of a media file by a podcast.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Use {
    /// The podcast's artwork.
    Artwork(FeedId),
    /// A file of one of the podcast's episodes (audio, cover, transcript, alternate).
    Episode(FeedId, EpisodeId),
}

impl Use {
    /// The podcast that uses the file.
    pub(crate) fn feed(&self) -> &FeedId {
        match self {
            Use::Artwork(feed) | Use::Episode(feed, _) => feed,
        }
    }
}

/// The uses of each media file (derived: rebuilt on load, kept by every change of a podcast or
/// an episode), so that a question about one file costs its uses, never a walk of the account.
#[derive(Clone, Debug, Default)]
pub(crate) struct Uses(HashMap<MediaId, BTreeSet<Use>>);

impl Uses {
    /// The uses of `media`.
    pub(crate) fn of(&self, media: MediaId) -> impl Iterator<Item = &Use> {
        self.0.get(&media).into_iter().flatten()
    }

    fn add(&mut self, media: MediaId, what: Use) {
        self.0.entry(media).or_default().insert(what);
    }

    pub(super) fn remove(&mut self, media: MediaId, what: &Use) {
        if let Some(uses) = self.0.get_mut(&media) {
            uses.remove(what);
            if uses.is_empty() {
                self.0.remove(&media);
            }
        }
    }

    /// `episode`'s files replace `old`'s (either may be none).
    pub(super) fn put_episode(&mut self, old: Option<&Episode>, episode: Option<&Episode>) {
        for (ep, add) in [(old, false), (episode, true)] {
            let Some(ep) = ep else { continue };
            let what = Use::Episode(ep.feed.clone(), ep.id);
            for media in ep.media_ids() {
                match add {
                    true => self.add(media, what.clone()),
                    false => self.remove(media, &what),
                }
            }
        }
    }

    /// `feed`'s artwork replaces `old`'s.
    pub(super) fn put_artwork(&mut self, old: Option<MediaId>, feed: &Feed) {
        let what = Use::Artwork(feed.id.clone());
        if let Some(old) = old {
            self.remove(old, &what);
        }
        if let Some(new) = feed.logo {
            self.add(new, what);
        }
    }
}
