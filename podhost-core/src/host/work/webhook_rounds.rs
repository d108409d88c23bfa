//! Webhooks: subscriptions, and delivering the outbox's events to them.

use super::Work;
use std::sync::Arc;

use jiff::Timestamp;

use crate::host::{PodcastHost, user_text, views::snapshot};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::AccountId,
    principal::Principal,
    state::Change,
    webhooks::{
        SendOutcome, WebhookRequest, WebhookSender,
        attempts::{self, Attempt, Claim, Delivery, DeliveryStatus},
        event::{Event, EventKind, EventRenderer},
        signature::{self, Secret},
        subscription::{NewWebhook, SubscriptionKind, Webhook},
        target,
    },
};

/// Deliveries listed per subscription.
const RECENT_DELIVERIES: usize = 50;

/// What one delivery round did (`POST /api/webhooks-processing`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookRun {
    /// Attempts made.
    pub attempted: usize,
    /// Attempts answered 2xx.
    pub delivered: usize,
    /// Attempts that failed (an error status or no answer).
    pub failed: usize,
    /// Events still waiting for a subscription after the round.
    pub pending: usize,
}

impl std::ops::AddAssign for WebhookRun {
    fn add_assign(&mut self, other: WebhookRun) {
        self.attempted += other.attempted;
        self.delivered += other.delivered;
        self.failed += other.failed;
        self.pending += other.pending;
    }
}

/// `Forbidden` for a member restricted to some podcasts: a subscription hears every podcast's
/// events.
fn require_every_podcast(who: &Principal) -> Result<()> {
    if who.sees_all() {
        Ok(())
    } else {
        Err(Error::Forbidden {
            message: "a member restricted to some podcasts cannot manage webhooks (they carry every podcast's events)".into(),
        })
    }
}

/// How late a scheduled publication is still recorded in the activity (a server that was down
/// longer does not record the ones it missed as done now).
const RECORD_PUBLICATIONS_WITHIN: jiff::SignedDuration = jiff::SignedDuration::from_hours(24);

fn webhook_not_found(id: &str) -> Error {
    Error::not_found("webhook", id)
}

impl PodcastHost {
    /// Records `episode.published` for episodes whose scheduled time has come since they were
    /// last written (an immediate publication is recorded with its write): in the activity, as
    /// podhost's doing, and as an event for the webhook subscriptions. Serial in the
    /// catalog, so two processes never announce one publication twice.
    pub(crate) async fn announce_publications(&self, account: &AccountId) -> Result<()> {
        let Some(catalog) = self.existing_catalog(account).await? else {
            return Ok(());
        };
        let now = self.now();
        // Each scheduled episode that came out and was not yet said to: the change that says
        // so (the activity's `episode.published` by podhost, for a publication of the last
        // day), and its event for the webhook subscriptions older than it.
        let due = |state: &crate::state::AccountState| {
            let since = state.webhooks.values().map(|w| w.created).min();
            let mut changes = Vec::new();
            let mut events = Vec::new();
            for entry in state.feeds.values() {
                for episode in entry.episodes.values() {
                    if !episode.is_published(now) || state.publication_said(episode, now) {
                        continue;
                    }
                    if now.duration_since(episode.publish_at) <= RECORD_PUBLICATIONS_WITHIN {
                        changes.push(crate::state::Change::Announced {
                            feed: episode.feed.clone(),
                            id: episode.id,
                            publish_at: episode.publish_at,
                        });
                    }
                    if since.is_some_and(|since| episode.publish_at > since) {
                        events.push((EventKind::EpisodePublished, snapshot(state, episode, now)));
                    }
                }
            }
            (changes, events)
        };
        let nothing =
            |(changes, events): &(Vec<_>, Vec<_>)| changes.is_empty() && events.is_empty();
        if catalog.read(|state| nothing(&due(state))).await {
            return Ok(());
        }
        catalog
            .commit(now, &crate::model::Actor::podhost(), |state| {
                let (mut changes, events) = due(state);
                changes.extend(state.record(now, events));
                Ok((changes, ()))
            })
            .await
    }

    /// Makes the account's subscriptions for the configured notifiers (WebSub hubs, Podping)
    /// match the configuration: each configured one exists (from the account's next event on),
    /// none that is no longer configured remains. Only accounts with a podcast need them.
    async fn ensure_notifiers(&self, catalog: &crate::host::AccountCatalog) -> Result<()> {
        let wanted = self.config().notify.subscriptions();
        let differs = |state: &crate::state::AccountState| {
            if state.feeds.is_empty() && state.deleted_feeds.is_empty() {
                return false;
            }
            let present: Vec<(&str, &str)> = state
                .webhooks
                .values()
                .filter(|w| w.kind.is_notifier())
                .map(|w| (w.id.as_str(), w.url.as_str()))
                .collect();
            present.len() != wanted.len()
                || wanted
                    .iter()
                    .any(|(id, _, url)| !present.contains(&(id.as_str(), url.as_str())))
        };
        if !catalog.read(differs).await {
            return Ok(());
        }
        let now = self.now();
        catalog
            .commit(now, &crate::model::Actor::podhost(), |state| {
                if !differs(state) {
                    return Ok((Vec::new(), ()));
                }
                let mut changes: Vec<Change> = state
                    .webhooks
                    .values()
                    .filter(|w| {
                        w.kind.is_notifier()
                            && !wanted
                                .iter()
                                .any(|(id, _, url)| *id == w.id && *url == w.url)
                    })
                    .map(|w| Change::WebhookRemoved { id: w.id.clone() })
                    .collect();
                for (id, kind, url) in &wanted {
                    if state.webhooks.get(id).is_some_and(|w| w.url == *url) {
                        continue;
                    }
                    changes.push(Change::WebhookPut(Webhook {
                        id: id.clone(),
                        url: url.clone(),
                        events: crate::webhooks::notify::FEED_CHANGES.to_vec(),
                        description: "the deployment's feed-change notifier".into(),
                        secret: String::new(),
                        created: now,
                        after_seq: state.next_event.saturating_sub(1),
                        kind: *kind,
                        feed: None,
                    }));
                }
                Ok((changes, ()))
            })
            .await
    }

    async fn deliver_account(
        &self,
        account: &AccountId,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<WebhookRun> {
        Ok(self
            .deliver_channels(account, sender, renderer)
            .await?
            .into_iter()
            .fold(WebhookRun::default(), |mut total, (_, run)| {
                total += run;
                total
            }))
    }

    /// Delivers an account's due events; what each subscription's round did, by its channel.
    pub(crate) async fn deliver_channels(
        &self,
        account: &AccountId,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<Vec<(SubscriptionKind, WebhookRun)>> {
        let Some(catalog) = self.existing_catalog(account).await? else {
            return Ok(Vec::new());
        };
        self.ensure_notifiers(&catalog).await?;
        let webhooks: Vec<Webhook> = catalog
            .read(|state| state.webhooks.values().cloned().collect())
            .await;
        let rounds = webhooks.iter().map(|webhook| async {
            let run = self
                .deliver_subscription(account, webhook, sender, renderer)
                .await?;
            Ok::<_, Error>((webhook.kind, run))
        });
        futures::future::join_all(rounds)
            .await
            .into_iter()
            .collect()
    }

    /// Delivers a subscription's due events in order, stopping at the first that must wait.
    async fn deliver_subscription(
        &self,
        account: &AccountId,
        webhook: &Webhook,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<WebhookRun> {
        let store = self.store();
        let catalog = self.catalog(account).await?;
        let mut run = WebhookRun::default();
        let mut done = attempts::cursor(store, account, &webhook.id)
            .await?
            .max(webhook.after_seq);
        loop {
            let next: Option<Event> = catalog
                .read(|state| {
                    state
                        .events
                        .range(done + 1..)
                        .map(|(_, e)| e)
                        .find(|e| webhook.wants_event(e))
                        .cloned()
                })
                .await;
            let Some(event) = next else { break };
            let now = self.now();
            let mut record = attempts::read(store, account, &webhook.id, event.seq)
                .await?
                .unwrap_or_else(|| fresh(&event, now));
            if record.status != DeliveryStatus::Pending {
                attempts::advance(store, account, &webhook.id, event.seq).await?;
                done = event.seq;
                continue;
            }
            if now < record.next_at {
                // Later events of this subscription wait for this one: order is kept.
                run.pending += 1;
                break;
            }
            let number = record.scheduled_attempts() + 1;
            match attempts::claim(store, account, &webhook.id, event.seq, number, now).await? {
                Claim::Held => {
                    run.pending += 1;
                    break;
                }
                Claim::Stale => {
                    // Its sender died before recording it: count it as failed and go on.
                    record.record(Attempt {
                        at: now,
                        status: None,
                        excerpt: "the sending process stopped before an answer".into(),
                        manual: false,
                    });
                    attempts::write(store, account, &webhook.id, &record).await?;
                    continue;
                }
                Claim::Won => {}
            }
            let attempt = {
                use tracing::Instrument;
                // The delivery's log lines carry the id of the request that made the event.
                let span = tracing::info_span!(
                    "delivery",
                    request_id = event.request_id.as_deref().unwrap_or("-"),
                    %account,
                    webhook = %webhook.id,
                    event = event.seq,
                );
                async {
                    let attempt = self
                        .attempt(account, webhook, &event, sender, renderer)
                        .await;
                    tracing::info!(
                        number,
                        status = attempt.status,
                        excerpt = attempt.excerpt.as_str(),
                        "delivery attempted"
                    );
                    attempt
                }
                .instrument(span)
                .await
            };
            let success = attempt.status.is_some_and(|s| (200..300).contains(&s));
            self.metrics().delivered(webhook.kind.channel(), success);
            run.attempted += 1;
            if success {
                run.delivered += 1;
            } else {
                run.failed += 1;
            }
            record.record(attempt);
            attempts::write(store, account, &webhook.id, &record).await?;
            if record.status == DeliveryStatus::Pending {
                run.pending += 1;
                break;
            }
            attempts::advance(store, account, &webhook.id, event.seq).await?;
            done = event.seq;
        }
        Ok(run)
    }

    /// Sends one attempt: the body `{type, timestamp, data}`, signed.
    async fn attempt(
        &self,
        account: &AccountId,
        webhook: &Webhook,
        event: &Event,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Attempt {
        let now = self.now();
        match webhook.kind {
            SubscriptionKind::Webhook => {}
            SubscriptionKind::WebSub | SubscriptionKind::Podping => {
                return self.notify(account, webhook, event, sender).await;
            }
            SubscriptionKind::ActivityPub => {
                let outcome = self.post_activity(account, webhook, event, sender).await;
                return attempt_of(now, outcome);
            }
        }
        let mut body = serde_json::json!({
            "type": event.kind.as_str(),
            "timestamp": event.at.to_string(),
            "data": renderer.render(account, &event.subject),
        });
        // Who made the change (events recorded before podhost kept it have none).
        if let (Some(actor), Some(fields)) = (&event.actor, body.as_object_mut()) {
            fields.insert("actor".into(), renderer.render_actor(actor));
        }
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let timestamp = now.as_second();
        let signature = match Secret::parse(&webhook.secret) {
            Ok(secret) => signature::sign(&secret, &event.id, timestamp, &body),
            Err(e) => {
                let reason = format!("the subscription's secret is unusable: {e}");
                return attempt_of(now, SendOutcome::Failed { reason });
            }
        };
        let request = WebhookRequest {
            method: crate::webhooks::RequestMethod::Post,
            url: webhook.url.clone(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("user-agent".into(), "podhost-webhooks".into()),
                ("webhook-id".into(), event.id.clone()),
                ("webhook-timestamp".into(), timestamp.to_string()),
                ("webhook-signature".into(), signature),
            ],
            body: body.into(),
            allow_private: self.config().allow_private_webhooks,
        };
        attempt_of(now, sender.send(request).await)
    }
}

impl Work<'_> {
    /// Subscribes `new.url` to the caller's events (scope `webhooks`). The secret is generated
    /// when not given; it is in the returned record and never shown again.
    pub async fn create_webhook(self, who: &Principal, new: NewWebhook) -> Result<Webhook> {
        who.authorize(Action::ManageWebhooks)?;
        require_every_podcast(who)?;
        let mut errors = FieldErrors::default();
        if let Err(message) = target::check_url(&new.url, self.host.config().allow_private_webhooks)
        {
            errors.add("url", message);
        }
        let mut events = Vec::new();
        for name in &new.events {
            match EventKind::parse(name) {
                Some(kind) if !events.contains(&kind) => events.push(kind),
                Some(_) => {}
                None => errors.add(
                    "events",
                    format!(
                        "unknown event \"{name}\" (known: {})",
                        EventKind::ALL.map(EventKind::as_str).join(", ")
                    ),
                ),
            }
        }
        let description = new.description.clone().unwrap_or_default();
        user_text::check_line(&mut errors, "description", &description);
        let secret = match &new.secret {
            None => Some(Secret::generate()),
            Some(given) => match Secret::parse(given) {
                Ok(secret) => Some(secret),
                Err(e) => {
                    errors.add("secret", e.to_string());
                    None
                }
            },
        };
        errors.into_result()?;
        let secret = secret.ok_or_else(|| Error::invalid("secret", "missing"))?;
        // A release before could not read a subscription to it.
        if events.contains(&EventKind::FollowerAdded) {
            self.host
                .require_format(crate::store::format::FEDIVERSE, "the follower.added event")
                .await?;
        }
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let id = crate::ids::random_id("wh_", 20);
        catalog
            .commit(now, &who.actor(), |state| {
                let webhook = Webhook {
                    kind: SubscriptionKind::Webhook,
                    id: id.clone(),
                    url: new.url.trim().to_string(),
                    events: events.clone(),
                    description: description.clone(),
                    secret: secret.as_str().to_string(),
                    created: now,
                    after_seq: state.next_event.max(1) - 1,
                    feed: None,
                };
                Ok((vec![Change::WebhookPut(webhook.clone())], webhook))
            })
            .await
    }

    /// The caller's subscriptions (scope `webhooks`).
    pub async fn list_webhooks(self, who: &Principal) -> Result<Vec<Webhook>> {
        who.authorize(Action::ManageWebhooks)?;
        require_every_podcast(who)?;
        let catalog = self.host.catalog(who.account()).await?;
        Ok(catalog
            .read(|state| {
                state
                    .webhooks
                    .values()
                    .filter(|w| w.kind == SubscriptionKind::Webhook)
                    .cloned()
                    .collect()
            })
            .await)
    }

    /// One of the caller's subscriptions (scope `webhooks`).
    pub async fn get_webhook(self, who: &Principal, id: &str) -> Result<Webhook> {
        who.authorize(Action::ManageWebhooks)?;
        require_every_podcast(who)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| {
                state
                    .webhooks
                    .get(id)
                    .filter(|w| w.kind == SubscriptionKind::Webhook)
                    .cloned()
                    .ok_or_else(|| webhook_not_found(id))
            })
            .await
    }

    /// Removes one of the caller's subscriptions (scope `webhooks`); nothing more is sent to it.
    pub async fn delete_webhook(self, who: &Principal, id: &str) -> Result<()> {
        who.authorize(Action::ManageWebhooks)?;
        require_every_podcast(who)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .commit(self.host.now(), &who.actor(), |state| {
                if !state
                    .webhooks
                    .get(id)
                    .is_some_and(|w| w.kind == SubscriptionKind::Webhook)
                {
                    return Err(webhook_not_found(id));
                }
                Ok((vec![Change::WebhookRemoved { id: id.to_string() }], ()))
            })
            .await
    }

    /// The recent deliveries of one of the caller's subscriptions, newest first.
    pub async fn webhook_deliveries(self, who: &Principal, id: &str) -> Result<Vec<Delivery>> {
        self.host.work().get_webhook(who, id).await?;
        attempts::recent(self.host.store(), who.account(), id, RECENT_DELIVERIES).await
    }

    /// Sends event `seq` to one of the caller's subscriptions again, now, outside the
    /// schedule; the attempt is recorded with the delivery.
    pub async fn redeliver(
        self,
        who: &Principal,
        id: &str,
        seq: u64,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<Delivery> {
        let webhook = self.host.work().get_webhook(who, id).await?;
        let account = who.account();
        let catalog = self.host.catalog(account).await?;
        let event = catalog
            .read(|state| state.events.get(&seq).cloned())
            .await
            .ok_or_else(|| Error::not_found("event", seq))?;
        let mut record = attempts::read(self.host.store(), account, id, seq)
            .await?
            .unwrap_or_else(|| fresh(&event, self.host.now()));
        let attempt = self
            .host
            .attempt(account, &webhook, &event, sender, renderer)
            .await;
        record.record(Attempt {
            manual: true,
            ..attempt
        });
        attempts::write(self.host.store(), account, id, &record).await?;
        Ok(record)
    }

    /// Delivers the caller's due events now (scope `webhooks`) and says what happened.
    pub async fn process_webhooks(
        self,
        who: &Principal,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<WebhookRun> {
        who.authorize(Action::ManageWebhooks)?;
        require_every_podcast(who)?;
        self.host.announce_publications(who.account()).await?;
        self.host
            .deliver_account(who.account(), sender, renderer)
            .await
    }

    /// Does the background work of webhooks until `stop` completes: a
    /// [`work_pass`](Self::work_pass) once a second (announcing scheduled publications as they
    /// come due, delivering the accounts with events waiting, repairing the index once per
    /// period), shared with the other servers on the store.
    pub async fn run_webhooks(
        self,
        sender: Arc<dyn WebhookSender>,
        renderer: Arc<dyn EventRenderer>,
        stop: impl std::future::Future<Output = ()>,
    ) {
        let mut stop = std::pin::pin!(stop);
        loop {
            match self
                .host
                .work()
                .work_pass(sender.as_ref(), renderer.as_ref())
                .await
            {
                Ok(pass) => {
                    for (channel, pending) in pass.pending {
                        self.host.metrics().pending(channel, pending);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the pass over the work index failed; will retry")
                }
            }
            tokio::select! {
                () = &mut stop => break,
                () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            }
        }
    }
}

impl PodcastHost {
    /// Tells a WebSub hub or Podping that the feed `event` is about changed: nothing is sent
    /// (and the delivery is done) when the podcast is private, or the event is about no feed.
    async fn notify(
        &self,
        account: &AccountId,
        webhook: &Webhook,
        event: &Event,
        sender: &dyn WebhookSender,
    ) -> Attempt {
        let now = self.now();
        let done = |excerpt: &str| {
            let excerpt = excerpt.to_string();
            attempt_of(
                now,
                SendOutcome::Answered {
                    status: 204,
                    excerpt,
                },
            )
        };
        let Some(feed) = crate::webhooks::notify::feed_of(event) else {
            return done("not about a podcast: nothing to notify");
        };
        let current = match self.catalog(account).await {
            Ok(catalog) => {
                catalog
                    .read(|state| {
                        let entry = state.feeds.get(feed)?;
                        let reason = crate::webhooks::notify::reason(&state.events, event);
                        Some((
                            entry.feed.private,
                            entry.feed.podcast.medium.clone(),
                            reason,
                        ))
                    })
                    .await
            }
            Err(e) => {
                let reason = format!("the account could not be read: {e}");
                return attempt_of(now, SendOutcome::Failed { reason });
            }
        };
        let (medium, reason) = match current {
            Some((true, _, _)) => return done("a private podcast: nothing to notify"),
            Some((false, medium, reason)) => (medium, reason),
            // Deleted: the hub and Podping learn it from the feed's 410.
            None => (String::new(), "update"),
        };
        let feed_url = self.urls().rss(feed);
        let Some(request) = crate::webhooks::notify::request(
            webhook,
            &feed_url,
            &medium,
            reason,
            &self.config().notify,
            self.config().allow_private_webhooks,
        ) else {
            return done("nothing to notify");
        };
        attempt_of(now, sender.send(request).await)
    }
}

/// The attempt an outcome of a send at `now` was.
fn attempt_of(now: Timestamp, outcome: SendOutcome) -> Attempt {
    let (status, excerpt) = match outcome {
        SendOutcome::Answered { status, excerpt } => (Some(status), excerpt),
        SendOutcome::Failed { reason } => (None, reason),
    };
    Attempt {
        at: now,
        status,
        excerpt,
        manual: false,
    }
}

/// A delivery not yet attempted, due now.
fn fresh(event: &Event, now: Timestamp) -> Delivery {
    Delivery {
        seq: event.seq,
        event_id: event.id.clone(),
        kind: event.kind.as_str().to_string(),
        status: DeliveryStatus::Pending,
        attempts: Vec::new(),
        next_at: now,
    }
}
