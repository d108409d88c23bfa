//! How the log builds an account's state: each change applied, and the state split into
//! the parts of a snapshot and joined again.

use std::collections::HashMap;

use super::{AccountState, Change, FeedEntry, KEEP_EVENTS, KEEP_JOBS, order, parts};
use crate::{
    catalog::Journal,
    webhooks::event::{EventKind, Subject},
};

impl Journal for AccountState {
    type Change = Change;

    fn keyed_step(&self, key: &str, n: u32) -> Option<&serde_json::Value> {
        self.keys.get(key)?.steps.get(&n)
    }

    fn keyed_step_change(key: &str, n: u32, value: serde_json::Value) -> Option<Change> {
        Some(Change::Key(crate::idempotency::KeyChange::Step {
            key: key.to_string(),
            n,
            value,
        }))
    }

    fn apply(&mut self, change: &Change) {
        self.apply_one(change);
    }

    fn apply_entry(&mut self, at: jiff::Timestamp, changes: &[Change]) {
        self.apply_recorded(at, changes);
    }

    type Part = parts::Part;

    fn into_parts(self) -> Vec<parts::Part> {
        parts::split(self)
    }

    fn from_parts(parts: Vec<parts::Part>) -> Result<Self, String> {
        parts::join(parts)
    }

    fn weight(&self) -> usize {
        use super::weight::RECORD;
        // The podcasts' and episodes' share is kept as they change (`Sizes`); the other
        // records are counted, not walked.
        let records = self.tokens.len()
            + self.clients.len()
            + self.grants.len()
            + self.subscribers.len()
            + 2 * self.media.len()
            + self.jobs.len()
            + self.webhooks.len()
            + 2 * self.events.len()
            + self.announced.len()
            + self.keys.len()
            + self.members.len()
            + self.activity.len()
            + self.fediverse.records();
        8 * RECORD + self.sizes.bytes + records * RECORD
    }

    fn after_load(&mut self) {
        self.rebuild_derived();
    }
}

impl AccountState {
    /// Applies one change (see [`AccountState::apply_recorded`] for a whole entry).
    pub(super) fn apply_one(&mut self, change: &Change) {
        match change {
            Change::Key(change) => change.apply(&mut self.keys),
            Change::Fediverse(change) => self.fediverse.apply(change),
            // Recorded by `apply_recorded`, for the changes beside it.
            Change::By(_) => {}
            Change::AccountCreated(account) => {
                self.account = Some(account.clone());
                let founder = Self::founder(account);
                self.members.insert(founder.id.clone(), founder);
            }
            Change::MemberPut(member) => {
                self.members.insert(member.id.clone(), member.clone());
            }
            Change::MemberRemoved { id } => {
                self.members.remove(id);
            }
            Change::PasswordSet { hash } => self.password.clone_from(hash),
            Change::TokenPut(token) => {
                // An access token of a grant makes the grant's tokens that expired before it
                // was made unneeded: the map holds live ones (and personal ones, revoked too).
                if let Some(grant) = &token.grant {
                    self.tokens.retain(|_, t| {
                        t.grant.as_ref() != Some(grant)
                            || t.expires.is_none_or(|e| e > token.created)
                    });
                }
                self.tokens.insert(token.id.clone(), token.clone());
            }
            Change::ClientPut(client) => {
                self.clients.insert(client.id.clone(), client.clone());
            }
            Change::ClientRemoved { id } => {
                self.clients.remove(id);
            }
            Change::GrantPut(grant) => {
                self.grants.insert(grant.id.clone(), grant.clone());
            }
            Change::CampaignPut(campaign) => {
                self.campaigns
                    .insert(campaign.id.clone(), (**campaign).clone());
            }
            Change::CampaignRemoved { id } => {
                self.campaigns.remove(id);
            }
            Change::AdAudioPut { media, audio } => {
                let list = self.ad_audio.entry(*media).or_default();
                list.retain(|a| a.shape != audio.shape);
                list.push(audio.clone());
            }
            Change::AdStreamPut { media, stream } => {
                let list = self.ad_streams.entry(*media).or_default();
                list.retain(|a| a.shape != stream.shape);
                list.push(stream.clone());
            }
            Change::SubscriberPut(subscriber) => {
                self.subscribers
                    .insert(subscriber.id.clone(), subscriber.clone());
            }
            Change::MediaPut(media) => {
                self.next_media = self.next_media.max(media.id.get() + 1);
                let old = self.media.insert(media.id, (**media).clone());
                if let Some(old) = &old {
                    self.unlink_blob(old);
                }
                self.media_order.put(old.as_ref(), Some(media));
                self.blobs
                    .entry(media.blob.as_str().to_string())
                    .or_default()
                    .insert(media.id);
                // A record written in the same entry as the episode of a private podcast that
                // uses it (in either order) is marked all the same.
                self.mark_if_used_privately(media.id);
            }
            Change::MediaRemoved { id } => {
                if let Some(old) = self.media.remove(id) {
                    self.unlink_blob(&old);
                    self.media_order.put(Some(&old), None);
                }
                // Its encodings go with it (their blobs are left to the sweep).
                self.ad_audio.remove(id);
                self.ad_streams.remove(id);
            }
            Change::FeedPut(feed) => {
                self.deleted_feeds.remove(&feed.id);
                let old = self
                    .feeds
                    .get(&feed.id)
                    .map(|e| (e.feed.logo, e.feed.private));
                self.uses.put_artwork(old.and_then(|(logo, _)| logo), feed);
                match self.feeds.get_mut(&feed.id) {
                    Some(entry) => {
                        self.sizes.put_feed(Some(&entry.feed), Some(feed));
                        entry.feed = (**feed).clone();
                    }
                    None => {
                        self.sizes.put_feed(None, Some(feed));
                        self.feeds.insert(
                            feed.id.clone(),
                            FeedEntry {
                                feed: (**feed).clone(),
                                episodes: Default::default(),
                                removed_at: None,
                                order: Default::default(),
                                feed_notes: HashMap::new(),
                                silent: Default::default(),
                            },
                        );
                    }
                }
                // A podcast that turns private marks every file it uses; a private one its new
                // artwork.
                match old {
                    Some((_, true)) => feed
                        .logo
                        .into_iter()
                        .for_each(|m| self.mark_if_used_privately(m)),
                    _ => self.mark_feed_files(&feed.id),
                }
            }
            Change::FeedRemoved { id, at } => {
                if let Some(entry) = self.feeds.remove(id) {
                    self.fediverse
                        .forget_feed(id, entry.episodes.keys().copied());
                    self.drop_uses_of(&entry);
                    self.sizes.put_feed(Some(&entry.feed), None);
                    for episode in entry.episodes.values() {
                        self.sizes.put_episode(Some(episode), None);
                    }
                }
                self.deleted_feeds.insert(id.clone(), *at);
            }
            Change::EpisodePut(episode) => {
                self.next_episode = self.next_episode.max(episode.id.number() + 1);
                if let Some(entry) = self.feeds.get_mut(&episode.feed) {
                    let old = entry.episodes.insert(episode.id, (**episode).clone());
                    entry.order.put(old.as_ref(), episode);
                    entry.put_notes(old.as_ref(), episode);
                    entry.put_silent(episode.id, Some(episode));
                    self.uses.put_episode(old.as_ref(), Some(episode));
                    self.sizes.put_episode(old.as_ref(), Some(episode));
                    for media in episode.media_ids() {
                        self.mark_if_used_privately(media);
                    }
                }
            }
            Change::EpisodeRemoved { feed, id, at } => {
                if let Some(entry) = self.feeds.get_mut(feed) {
                    if let Some(old) = entry.episodes.remove(id) {
                        entry.order.remove(&old);
                        entry.feed_notes.remove(id);
                        entry.put_silent(*id, None);
                        self.uses.put_episode(Some(&old), None);
                        self.sizes.put_episode(Some(&old), None);
                    }
                    entry.removed_at = entry.removed_at.max(*at);
                }
                self.announced.remove(id);
                self.fediverse.forget_episode(*id);
            }
            Change::Announced { id, publish_at, .. } => {
                self.announced.insert(*id, *publish_at);
            }
            Change::WebhookPut(webhook) => {
                self.webhooks.insert(webhook.id.clone(), webhook.clone());
            }
            Change::WebhookRemoved { id } => {
                self.webhooks.remove(id);
            }
            Change::EventRecorded(event) => {
                if let (EventKind::EpisodePublished, Subject::Episode(view)) =
                    (event.kind, &event.subject)
                {
                    self.announced
                        .insert(view.episode.id, view.episode.publish_at);
                }
                self.next_event = self.next_event.max(event.seq + 1);
                self.events.insert(event.seq, event.clone());
                while self.events.len() > KEEP_EVENTS {
                    self.events.pop_first();
                }
            }
            Change::JobPut(job) => {
                self.jobs.insert(job.id.clone(), job.clone());
                if self.jobs.len() > KEEP_JOBS {
                    let oldest = self
                        .jobs
                        .values()
                        .filter(|j| j.status.is_final())
                        .min_by_key(|j| (j.finished, j.id.clone()))
                        .map(|j| j.id.clone());
                    if let Some(oldest) = oldest {
                        self.jobs.remove(&oldest);
                    }
                }
            }
        }
    }
}

impl AccountState {
    /// Rebuilds the derived indexes after the state was read from a snapshot.
    fn rebuild_derived(&mut self) {
        // A snapshot of an account from before members: its founder owns it.
        if self.members.is_empty()
            && let Some(account) = &self.account
        {
            let founder = Self::founder(account);
            self.members.insert(founder.id.clone(), founder);
        }
        self.fediverse.reindex();
        for entry in self.feeds.values_mut() {
            entry.order = order::EpisodeOrder::of(entry.episodes.values());
            entry.silent = entry
                .episodes
                .values()
                .filter(|e| e.is_public && e.media.is_none())
                .map(|e| e.id)
                .collect();
            // Notes a snapshot did not carry (an older snapshot, another cleaning policy).
            let FeedEntry {
                episodes,
                feed_notes,
                ..
            } = entry;
            feed_notes.retain(|id, _| episodes.contains_key(id));
            for episode in episodes.values() {
                feed_notes
                    .entry(episode.id)
                    .or_insert_with(|| crate::publish::notes::feed_notes(&episode.description));
            }
        }
        self.blobs.clear();
        self.media_order = Default::default();
        for media in self.media.values() {
            self.media_order.put(None, Some(media));
            self.blobs
                .entry(media.blob.as_str().to_string())
                .or_default()
                .insert(media.id);
        }
        self.rebuild_uses();
        self.sizes = Default::default();
        for entry in self.feeds.values() {
            self.sizes.put_feed(None, Some(&entry.feed));
            for episode in entry.episodes.values() {
                self.sizes.put_episode(None, Some(episode));
            }
        }
        // A snapshot written before files were marked: the files private podcasts use now
        // (a state kept by this code has them marked already, so this changes nothing).
        let feeds: Vec<_> = self.feeds.keys().cloned().collect();
        for feed in feeds {
            self.mark_feed_files(&feed);
        }
    }
}
