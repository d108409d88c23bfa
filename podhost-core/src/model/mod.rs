//! The domain types: plain data with real time types and no wire formatting.

mod account;
mod episode;
mod feed;
mod media;
mod page;

pub use account::{Account, NewToken, Token};
pub use episode::{Episode, EpisodePatch, EpisodeType, EpisodeView, ItunesEpisode, NewEpisode};
pub use feed::{
    Feed, FeedPatch, FeedView, Funding, GooglePlayChannel, ItunesChannel, NewFeed, PodcastChannel,
    ShowType,
};
pub use media::{AdBreak, BlobKey, Media, MediaCopy, MediaListQuery, MediaSort, NewMedia};
pub use page::{EpisodeListQuery, EpisodeSort, Page, PageRequest, SortDir};
