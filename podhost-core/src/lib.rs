//! podhost-core: the podcast hosting service as a library.
//!
//! [`PodcastHost`] is the one handle: built from a [`HostConfig`] and an
//! [`ObjectStore`](object_store::ObjectStore), it offers typed async operations on accounts and
//! tokens, media, feeds and episodes. Every operation takes the caller ([`Principal`]) and
//! enforces scopes and ownership itself, so no frontend can forget a check. All state lives in
//! the object store (see the [`catalog`](crate) design in ARCHITECTURE.md); there is no other
//! database. This crate knows nothing of HTTP or command lines.
#![deny(missing_docs)]

pub mod activitypub;
pub mod analysis;
pub mod authorization;
pub mod cache;
mod catalog;
mod clock;
mod config;
pub mod demo;
mod directory;
mod error;
pub mod ffmpeg;
mod health;
pub mod hls;
mod host;
pub mod idempotency;
mod ids;
pub mod import;
mod jobs;
mod lease;
pub mod locale;
pub mod lock;
pub mod master;
pub mod metrics;
pub mod model;
mod principal;
pub mod probe;
pub mod publish;
pub mod ratelimit;
mod request;
mod scope;
mod state;
pub mod stats;
pub mod stitch;
mod store;
pub mod tags;
mod urls;
pub mod webhooks;
mod work_index;

pub use authorization::Action;
pub use catalog::{CatalogConfig, OpenStats};
pub use clock::{Clock, ManualClock, StoreClock, SystemClock};
pub use config::{HostConfig, JobsConfig, OAuthConfig, SessionConfig};
pub use error::{Error, ErrorKind, FieldErrors, Result, size_text, wait_text};
pub use host::{
    Access, ActivityQuery, Ads, Analytics, Authorization, AuthorizeError, AuthorizeRequest,
    Caching, Delivery, Download, DownloadAnswer, DownloadRedirect, DownloadUrl, Enclosure,
    EpisodeFiles, Fediverse, FediverseDocument, FeedExport, INVITATION_LIFETIME, Inbound,
    InboxError, InvitationView, Listener, LoginHolder, OAuthError, PodcastHost, Podcasts, Private,
    Received, Refusal, RetimedText, ServerState, StagedUpload, StitchedEnclosure, StoreStatus,
    StoreUpgrade, StreamAd, StreamChoice, StreamFile, SweepReport, TokenRequest, TokenResponse,
    UploadTarget, WaveformFormat, WebhookRun, Work, WorkPass, random_secret,
};
pub use ids::{
    AccountId, CampaignId, ClientId, EpisodeId, FeedId, GrantId, JobId, Login, MAX_SAFE_ID,
    MediaId, MemberId, SessionId, SubscriberId, TokenId,
};
pub use lease::{LeaseConfig, LeaseHeld, LeaseWitness};
pub use locale::Locale;
pub use model::{Metadata, MetadataPatch, Session, SignedIn};
pub use principal::Principal;
pub use request::{MAX_REQUEST_ID, RequestContext};
pub use scope::{Scope, Scopes, UnknownScope};
pub use store::format as store_format;
pub use store::mapping::{FileSlice, file_behind};
#[cfg(feature = "s3")]
pub use store::open_s3_with;
pub use store::{DEFAULT_STORE, OpenedStore, Presigner, check_conditional_writes, open_store};
pub use urls::{FeedLinks, FileLink, Urls, measured};
