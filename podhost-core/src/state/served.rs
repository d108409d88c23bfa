//! Who may download a media file at its public URL: the mark a private podcast leaves on the
//! files it uses ([`Access::Private`]), kept as the uses of each file change (`uses.rs`), and the
//! one rule that decides ([`AccountState::served_publicly`]).
//!
//! The rule, as docs/features.md says it: a file a private podcast has used (as its artwork or
//! as an audio, cover, transcript or alternate file of one of its episodes, draft or not) is
//! private. Its public URL serves it only while a public podcast shows it: as that podcast's
//! artwork, or as a file of one of its published episodes. Deleting, unpublishing or moving
//! what used it, or deleting or hiding the podcast, never makes it public; a public podcast
//! publishing it, or the podcaster's word ([`Access::Public`]), does.

use jiff::Timestamp;

use super::{AccountState, FeedEntry, Use, Uses};
use crate::{
    ids::{FeedId, MediaId},
    model::Access,
};

impl AccountState {
    /// The rule of the public path: whether `media`'s public URL serves it at `now`. A file no
    /// private podcast used, or one the podcaster made public, is served; a private one only
    /// while a public podcast shows it (its artwork, or a file of a published episode). Costs
    /// the file's uses.
    pub(crate) fn served_publicly(&self, media: MediaId, now: Timestamp) -> bool {
        let Some(record) = self.media.get(&media) else {
            return false;
        };
        match record.access {
            Access::Open | Access::Public => true,
            Access::Private => self.uses.of(media).any(|u| self.shows_publicly(u, now)),
        }
    }

    /// Whether a public podcast shows a file through `u` at `now`.
    fn shows_publicly(&self, u: &Use, now: Timestamp) -> bool {
        let Some(entry) = self.feeds.get(u.feed()).filter(|e| !e.feed.private) else {
            return false;
        };
        match u {
            Use::Artwork(_) => true,
            Use::Episode(_, id) => entry.episodes.get(id).is_some_and(|e| e.is_published(now)),
        }
    }

    /// Whether `feed` uses `media` (its artwork or a file of one of its episodes). Costs the
    /// file's uses.
    pub(crate) fn feed_uses(&self, feed: &FeedId, media: MediaId) -> bool {
        self.uses.of(media).any(|u| u.feed() == feed)
    }

    /// Whether some private podcast uses `media`.
    fn used_privately(&self, media: MediaId) -> bool {
        self.uses
            .of(media)
            .any(|u| self.feeds.get(u.feed()).is_some_and(|e| e.feed.private))
    }

    /// Marks `media` private if a private podcast uses it and the podcaster never said
    /// otherwise: the one place a file becomes private by its use.
    pub(super) fn mark_if_used_privately(&mut self, media: MediaId) {
        if self.used_privately(media)
            && let Some(record) = self.media.get_mut(&media)
            && record.access == Access::Open
        {
            record.access = Access::Private;
        }
    }

    /// Rebuilds the uses of every file from the podcasts (on load).
    pub(super) fn rebuild_uses(&mut self) {
        let mut uses = Uses::default();
        for entry in self.feeds.values() {
            uses.put_artwork(None, &entry.feed);
            for episode in entry.episodes.values() {
                uses.put_episode(None, Some(episode));
            }
        }
        self.uses = uses;
    }

    /// Drops every use by a podcast that is gone.
    pub(super) fn drop_uses_of(&mut self, entry: &FeedEntry) {
        if let Some(logo) = entry.feed.logo {
            self.uses.remove(logo, &Use::Artwork(entry.feed.id.clone()));
        }
        for episode in entry.episodes.values() {
            self.uses.put_episode(Some(episode), None);
        }
    }

    /// Marks every file of `feed` (its artwork, its episodes' files) if it is private.
    pub(super) fn mark_feed_files(&mut self, feed: &FeedId) {
        let Some(entry) = self.feeds.get(feed).filter(|e| e.feed.private) else {
            return;
        };
        let files: Vec<MediaId> = entry
            .feed
            .logo
            .into_iter()
            .chain(entry.episodes.values().flat_map(|e| e.media_ids()))
            .collect();
        for media in files {
            self.mark_if_used_privately(media);
        }
    }
}
