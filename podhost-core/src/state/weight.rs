//! What an account's state weighs in memory, kept as the state changes (its podcasts' and
//! episodes' records and long texts), so that [`Journal::weight`](crate::catalog::Journal::weight) costs the
//! same on an account of 10 episodes as on one of 10,000 (it was a walk of every episode, on
//! every open catalog's use).

use crate::model::{Episode, Feed};

/// Bytes a record takes besides its long texts: its fields and the maps' nodes. Calibrated by
/// the scale bench: 8,886 open accounts of 20 episodes took 58 KiB each of resident memory
/// where 512 bytes a record estimated 30 KiB.
pub(super) const RECORD: usize = 1024;

/// The part of an account's weight that grows with its podcasts and episodes (derived: kept by
/// every podcast and episode change, rebuilt on load).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sizes {
    /// The bytes of podcasts' and episodes' records and texts (an episode's notes are kept
    /// twice: as written and as the feed carries them).
    pub(super) bytes: usize,
}

fn episode_bytes(e: &Episode) -> usize {
    2 * RECORD + e.title.len() + 2 * e.description.len()
}

fn feed_bytes(f: &Feed) -> usize {
    4 * RECORD + f.description.len()
}

impl Sizes {
    /// `new` replaces `old` (either may be none).
    pub(super) fn put_episode(&mut self, old: Option<&Episode>, new: Option<&Episode>) {
        if let Some(old) = old {
            self.bytes -= episode_bytes(old);
        }
        if let Some(new) = new {
            self.bytes += episode_bytes(new);
        }
    }

    /// `new` replaces `old` (either may be none).
    pub(super) fn put_feed(&mut self, old: Option<&Feed>, new: Option<&Feed>) {
        if let Some(old) = old {
            self.bytes -= feed_bytes(old);
        }
        if let Some(new) = new {
            self.bytes += feed_bytes(new);
        }
    }
}
