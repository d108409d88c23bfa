//! The uses of each media file by the account's podcasts: a derived index, kept by every
//! change of a podcast or an episode, so that a question about one file (who may download it,
//! what uses it) costs its uses, never a walk of the account.

use std::collections::{BTreeSet, HashMap};

use crate::{
    ids::{EpisodeId, FeedId, MediaId},
    model::{Episode, Feed},
};

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
