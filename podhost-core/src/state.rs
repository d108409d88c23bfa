//! An account's state as its log builds it: the [`Journal`] of the account partition.

mod activity;
mod counted;
pub(crate) mod federation;
mod order;
mod parts;
mod replay;
mod served;
mod uses;
mod weight;

pub(crate) use counted::Counted;
pub(crate) use uses::{Use, Uses};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    ids::{
        CampaignId, ClientId, EpisodeId, FeedId, GrantId, JobId, MediaId, MemberId, SubscriberId,
        TokenId,
    },
    model::{
        Account, Activity, Actor, AdAudio, AdStream, Campaign, Episode, Feed, Grant, Job, Media,
        Member, OAuthClient, Subscriber, Token,
    },
    webhooks::{
        event::{Event, EventKind, Subject},
        subscription::Webhook,
    },
};

/// One change to an account; a log entry holds a list of them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Change {
    /// Who made the entry's changes: first in every entry a host operation writes.
    By(Actor),
    AccountCreated(Account),
    /// A member invited, changed or joined.
    MemberPut(Member),
    MemberRemoved {
        id: MemberId,
    },
    /// The account's password (its Argon2id PHC string), or none.
    PasswordSet {
        hash: Option<String>,
    },
    TokenPut(Token),
    ClientPut(OAuthClient),
    ClientRemoved {
        id: ClientId,
    },
    GrantPut(Grant),
    SubscriberPut(Subscriber),
    CampaignPut(Box<Campaign>),
    CampaignRemoved {
        id: CampaignId,
    },
    /// An ad's encoding to one shape: asked for, or stored (replaces the one of that shape).
    AdAudioPut {
        media: MediaId,
        audio: AdAudio,
    },
    /// An ad's package for one stream shape: asked for, or stored (replaces the one of that
    /// shape).
    AdStreamPut {
        media: MediaId,
        stream: AdStream,
    },
    MediaPut(Box<Media>),
    MediaRemoved {
        id: MediaId,
    },
    FeedPut(Box<Feed>),
    FeedRemoved {
        id: FeedId,
        at: Timestamp,
    },
    EpisodePut(Box<Episode>),
    EpisodeRemoved {
        feed: FeedId,
        id: EpisodeId,
        #[serde(default)]
        at: Option<Timestamp>,
    },
    JobPut(Job),
    WebhookPut(Webhook),
    WebhookRemoved {
        id: String,
    },
    EventRecorded(Event),
    /// A scheduled episode came out at `publish_at` and was said to (the activity and the
    /// events record it once).
    Announced {
        feed: FeedId,
        id: EpisodeId,
        publish_at: Timestamp,
    },
    /// A keyed request began, took a step, was answered or released.
    Key(crate::idempotency::KeyChange),
    /// The fediverse: actor keys, followers, comments, reactions, blocks.
    Fediverse(federation::FediverseChange),
}

/// Events kept per account for delivery (a subscriber further behind than this loses the
/// oldest).
pub(crate) const KEEP_EVENTS: usize = 10_000;

/// Changes kept in an account's record of who did what (the oldest go first).
pub(crate) const KEEP_ACTIVITY: usize = 20_000;

/// Finished jobs kept per account (the oldest finished go first).
const KEEP_JOBS: usize = 1_000;

/// A feed with its episodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FeedEntry {
    pub(crate) feed: Feed,
    pub(crate) episodes: Counted<EpisodeId, Episode>,
    /// When an episode was last removed: the feed changed then too.
    #[serde(default)]
    pub(crate) removed_at: Option<Timestamp>,
    /// The episodes in each list order (derived: rebuilt on load, kept on every change).
    #[serde(skip)]
    pub(crate) order: order::EpisodeOrder,
    /// Each episode's show notes as the feed carries them (derived: cleaned when an episode's
    /// notes change, kept in snapshot parts with the cleaning policy's version), so rendering a
    /// feed cleans no HTML.
    #[serde(skip)]
    pub(crate) feed_notes: HashMap<EpisodeId, String>,
    /// Its public episodes without audio, which apps skip (derived: kept on every change), so
    /// that the podcast's answer names them without reading its episodes.
    #[serde(skip)]
    pub(crate) silent: BTreeSet<EpisodeId>,
}

impl FeedEntry {
    /// Keeps [`silent`](Self::silent) for `episode`, as put or (`None`) removed.
    fn put_silent(&mut self, id: EpisodeId, episode: Option<&Episode>) {
        match episode.is_some_and(|e| e.is_public && e.media.is_none()) {
            true => self.silent.insert(id),
            false => self.silent.remove(&id),
        };
    }

    /// Keeps [`feed_notes`](Self::feed_notes) for `new`, which replaces `old`.
    fn put_notes(&mut self, old: Option<&Episode>, new: &Episode) {
        if old.is_some_and(|o| o.description == new.description)
            && self.feed_notes.contains_key(&new.id)
        {
            return;
        }
        self.feed_notes
            .insert(new.id, crate::publish::notes::feed_notes(&new.description));
    }
}

/// Everything an account owns.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct AccountState {
    pub(crate) account: Option<Account>,
    pub(crate) tokens: BTreeMap<TokenId, Token>,
    /// The password's Argon2id PHC string; none: the account cannot sign in.
    #[serde(default)]
    pub(crate) password: Option<String>,
    /// OAuth clients the account registered.
    #[serde(default)]
    pub(crate) clients: BTreeMap<ClientId, OAuthClient>,
    /// Grants the account gave to OAuth clients.
    #[serde(default)]
    pub(crate) grants: BTreeMap<GrantId, Grant>,
    /// Subscribers of the account's private podcasts (revoked ones kept).
    #[serde(default)]
    pub(crate) subscribers: BTreeMap<SubscriberId, Subscriber>,
    /// Ad campaigns.
    #[serde(default)]
    pub(crate) campaigns: BTreeMap<CampaignId, Campaign>,
    /// Ads encoded like the episodes they go into, by the ad's media id; removed with it.
    #[serde(default)]
    pub(crate) ad_audio: BTreeMap<MediaId, Vec<AdAudio>>,
    /// Ads packaged like the video streams they go into, by the ad's media id; removed with it.
    #[serde(default)]
    pub(crate) ad_streams: BTreeMap<MediaId, Vec<AdStream>>,
    pub(crate) media: Counted<MediaId, Media>,
    pub(crate) feeds: Counted<FeedId, FeedEntry>,
    /// Deleted feeds and when; their ids stay taken and their RSS URLs answer 410.
    pub(crate) deleted_feeds: BTreeMap<FeedId, Timestamp>,
    pub(crate) next_media: u64,
    pub(crate) next_episode: u64,
    /// Background jobs, recent ones.
    #[serde(default)]
    pub(crate) jobs: BTreeMap<JobId, Job>,
    /// Webhook subscriptions by id.
    #[serde(default)]
    pub(crate) webhooks: BTreeMap<String, Webhook>,
    /// Recent events by sequence number (the outbox).
    #[serde(default)]
    pub(crate) events: BTreeMap<u64, Event>,
    /// The next event's sequence number.
    #[serde(default)]
    pub(crate) next_event: u64,
    /// For each episode, the publication time its `episode.published` event announced.
    #[serde(default)]
    pub(crate) announced: BTreeMap<EpisodeId, Timestamp>,
    /// The Idempotency-Keys of the last 24 hours' requests.
    #[serde(default)]
    pub(crate) keys: BTreeMap<String, crate::idempotency::KeyRecord>,
    /// The people of the account, with their roles (the founding owner from its creation).
    #[serde(default)]
    pub(crate) members: BTreeMap<MemberId, Member>,
    /// Who did what, the newest [`KEEP_ACTIVITY`] changes by sequence number.
    #[serde(default)]
    pub(crate) activity: BTreeMap<u64, Activity>,
    /// The next activity's sequence number.
    #[serde(default)]
    pub(crate) next_activity: u64,
    /// The podcasts' actor keys, followers, comments and reactions, and the blocks.
    #[serde(default)]
    pub(crate) fediverse: federation::Fediverse,
    /// Derived: the media records of each blob (copies share one).
    #[serde(skip)]
    blobs: HashMap<String, BTreeSet<MediaId>>,
    /// Derived: which podcasts use each media file, and how.
    #[serde(skip)]
    uses: Uses,
    /// Derived: what the podcasts and episodes weigh in memory.
    #[serde(skip)]
    sizes: weight::Sizes,
    /// Derived: the media files in each order of the media list.
    #[serde(skip)]
    pub(crate) media_order: order::MediaOrder,
}

/// What a decision reads of an account: its state, seen together with the media records the
/// same decision creates before they are written (so an episode and the files uploaded with it
/// are checked and announced in one commit).
pub(crate) trait Records {
    /// The state as written.
    fn state(&self) -> &AccountState;
    /// A media record, written or about to be.
    fn media(&self, id: MediaId) -> Option<&Media>;
}

impl Records for AccountState {
    fn state(&self) -> &AccountState {
        self
    }

    fn media(&self, id: MediaId) -> Option<&Media> {
        self.media.get(&id)
    }
}

/// An account's state with media records a decision is about to write.
pub(crate) struct WithMedia<'a> {
    pub(crate) state: &'a AccountState,
    pub(crate) media: &'a [Media],
}

impl Records for WithMedia<'_> {
    fn state(&self) -> &AccountState {
        self.state
    }

    fn media(&self, id: MediaId) -> Option<&Media> {
        self.media
            .iter()
            .find(|m| m.id == id)
            .or_else(|| self.state.media.get(&id))
    }
}

impl AccountState {
    /// Whether `episode` (as stored) is published and its publication was said (its
    /// `episode.published` recorded): by the write that published it (its publication time not
    /// after that write), or, for one scheduled later, by the pass that announced it. Every
    /// write of an episode says a publication not said yet: the write moves `updated` past the
    /// publication time, after which the pass no longer takes it for a scheduled one (a rename
    /// between a scheduled time and its announcement lost the announcement).
    pub(crate) fn publication_said(&self, episode: &crate::model::Episode, now: Timestamp) -> bool {
        episode.is_published(now)
            && (episode.publish_at <= episode.updated
                || self.announced.get(&episode.id) == Some(&episode.publish_at))
    }

    /// The changes that record `events` (kind, subject) at `at`, numbered after the account's
    /// last event; none when the account has no webhook subscription (nobody would read them).
    pub(crate) fn record(
        &self,
        at: jiff::Timestamp,
        events: Vec<(EventKind, Subject)>,
    ) -> Vec<Change> {
        if self.webhooks.is_empty() {
            return Vec::new();
        }
        events
            .into_iter()
            .enumerate()
            .map(|(i, (kind, subject))| {
                let seq = self.next_event.max(1) + i as u64;
                Change::EventRecorded(Event {
                    seq,
                    id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
                    kind,
                    at,
                    subject,
                    request_id: crate::request::RequestContext::current_id(),
                    // The entry's actor, given as it applies.
                    actor: None,
                })
            })
            .collect()
    }

    pub(crate) fn next_media_id(&self) -> u64 {
        self.next_media.max(1)
    }

    pub(crate) fn next_episode_id(&self) -> u64 {
        self.next_episode.max(1)
    }

    pub(crate) fn episode(&self, feed: &FeedId, id: EpisodeId) -> Option<&Episode> {
        self.feeds.get(feed)?.episodes.get(&id)
    }

    /// What uses a media file, as `feed …`, `episode … of feed …` and `campaign …` names.
    pub(crate) fn media_users(&self, media: MediaId) -> Vec<String> {
        let mut users: Vec<String> = self
            .uses
            .of(media)
            .map(|u| match u {
                Use::Artwork(feed) => format!("feed {feed}"),
                Use::Episode(feed, episode) => format!("episode {episode} of feed {feed}"),
            })
            .collect();
        for campaign in self.campaigns.values().filter(|c| c.media == media) {
            users.push(format!("campaign {}", campaign.id));
        }
        users
    }

    /// The media records of a blob (copies share the bytes).
    pub(crate) fn blob_records(&self, blob: &str) -> impl Iterator<Item = &Media> {
        self.blobs
            .get(blob)
            .into_iter()
            .flatten()
            .filter_map(|id| self.media.get(id))
    }

    /// Whether some media record still points at the blob.
    pub(crate) fn blob_in_use(&self, blob: &str) -> bool {
        self.blobs.contains_key(blob)
            || self
                .ad_audio
                .values()
                .flatten()
                .any(|a| a.blob.as_ref().is_some_and(|b| b.as_str() == blob))
    }

    /// The encoding of ad `media` to `shape`: asked for or stored.
    pub(crate) fn ad_audio(
        &self,
        media: MediaId,
        shape: &crate::model::AdShape,
    ) -> Option<&AdAudio> {
        self.ad_audio
            .get(&media)?
            .iter()
            .find(|a| a.shape == *shape)
    }

    /// The package of ad `media` for streams of `shape`: asked for or stored.
    pub(crate) fn ad_stream(
        &self,
        media: MediaId,
        shape: &crate::model::StreamShape,
    ) -> Option<&AdStream> {
        self.ad_streams
            .get(&media)?
            .iter()
            .find(|a| a.shape == *shape)
    }

    /// A media record of the blob (any of its copies: they share the bytes).
    pub(crate) fn media_by_blob(&self, blob: &str) -> Option<&Media> {
        self.blobs
            .get(blob)?
            .iter()
            .next()
            .and_then(|id| self.media.get(id))
    }

    fn unlink_blob(&mut self, old: &Media) {
        if let Some(ids) = self.blobs.get_mut(old.blob.as_str()) {
            ids.remove(&old.id);
            if ids.is_empty() {
                self.blobs.remove(old.blob.as_str());
            }
        }
    }
}

impl AccountState {
    /// A podcast that is an ActivityPub actor, with its key: public, its `fediverse` setting on,
    /// its key made. None otherwise: a private podcast is no actor, nor one turned off.
    pub(crate) fn actor(
        &self,
        feed: &FeedId,
    ) -> Option<(&FeedEntry, &crate::activitypub::keys::ActorKey)> {
        let entry = self
            .feeds
            .get(feed)
            .filter(|e| !e.feed.private && e.feed.fediverse)?;
        Some((entry, self.fediverse.keys.get(feed)?))
    }
}
