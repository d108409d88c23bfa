//! The domain types: plain data with real time types and no wire formatting.

mod account;
mod ad_audio;
mod ad_stream;
mod audio;
mod campaign;
pub(crate) mod category;
mod episode;
mod feed;
mod job;
mod media;
mod member;
mod metadata;
mod paging;
pub mod podcast;
mod session;
mod size;
pub mod social;
mod subscriber;
pub mod taxonomy;

pub use account::{Account, Grant, ListedToken, NewOAuthClient, NewToken, OAuthClient, Token};
pub use ad_audio::{AdAudio, AdCodec, AdShape, AdSpan};
pub use ad_stream::{AdStream, StreamShape};
pub use audio::{AudioPatch, FeedAudio};
pub use campaign::{
    Campaign, CampaignPatch, CampaignStatus, CampaignView, NewCampaign, Position, Runs,
};
pub use category::{
    APPLE_CATEGORIES, AppleCategory, Reading, ResolvedCategory, apple_category, resolve_category,
};
pub use episode::{
    Episode, EpisodePatch, EpisodeRef, EpisodeType, EpisodeView, ItunesEpisode, Mastering,
    NewEpisode,
};
pub use feed::{
    Feed, FeedPatch, FeedView, Funding, GooglePlayChannel, ItunesChannel, MEDIUMS, NewFeed,
    PodcastChannel, ShowType, podcast_guid,
};
pub use job::{Job, JobKind, JobStatus};
pub use media::{
    Access, AdBreak, BlobKey, Media, MediaCopy, MediaListQuery, MediaPatch, MediaResults,
    MediaSort, NewMedia, Streamed,
};
pub(crate) use member::Invitation;
pub use member::{
    Activity, ActivityObject, Actor, Invited, ListedMember, Member, MemberPatch, MemberStatus,
    NewMember, Role, Via,
};
pub use metadata::{Metadata, MetadataPatch};
pub use paging::{EpisodeListQuery, EpisodeSort, Page, PageRequest, SortDir};
pub use session::{Session, SignedIn};
pub use size::human_size;
pub(crate) use size::in_units;
pub use subscriber::Subscriber;
