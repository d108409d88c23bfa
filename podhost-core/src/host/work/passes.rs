//! The background work of deliveries and scheduled publications, found through the work index
//! ([`crate::work_index`]) rather than by scanning accounts: what each commit adds to the index, one
//! pass of a server over what is due (shared with the other servers by leases), and the repair
//! that finds, once per period, what the index missed.

use super::Work;
use std::{collections::BTreeMap, sync::Arc};

use jiff::Timestamp;
use object_store::ObjectStore;

use crate::host::{PodcastHost, WebhookRun};
use crate::lock::Locked;
use crate::{
    catalog::AfterCommit,
    error::Result,
    ids::AccountId,
    state::Change,
    webhooks::{WebhookSender, event::EventRenderer, subscription::SubscriptionKind},
    work_index,
};

/// What one commit adds to the work index: a delivery marker when it recorded events (or, with
/// feed-change notifiers configured, changed a podcast: its account needs their
/// subscriptions), a due key for each publication it scheduled.
/// It also keeps the podcast's entry in the deployment's directory.
pub(crate) struct WorkIndex {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) account: AccountId,
    pub(crate) notify: bool,
    pub(crate) directory: Arc<crate::directory::Directory>,
}

#[async_trait::async_trait]
impl AfterCommit<Change> for WorkIndex {
    async fn committed(&self, at: Timestamp, changes: &[Change]) {
        let mut deliver = false;
        let mut scheduled = Vec::new();
        let mut listed = Vec::new();
        for change in changes {
            match change {
                Change::EventRecorded(_) => deliver = true,
                Change::FeedPut(feed) => {
                    deliver |= self.notify;
                    listed.push((feed.id.clone(), (!feed.private).then(|| feed.title.clone())));
                }
                Change::FeedRemoved { id, .. } => listed.push((id.clone(), None)),
                Change::EpisodePut(episode) if episode.is_public && episode.publish_at > at => {
                    scheduled.push(episode.publish_at);
                }
                _ => {}
            }
        }
        scheduled.sort();
        scheduled.dedup();
        let written = async {
            for (feed, title) in listed {
                list(
                    &self.store,
                    &self.directory,
                    &self.account,
                    &feed,
                    title,
                    true,
                )
                .await?;
            }
            for at in scheduled {
                work_index::schedule(&self.store, &self.account, at).await?;
            }
            if deliver {
                work_index::mark_delivery(&self.store, &self.account).await?;
            }
            Ok::<_, crate::Error>(())
        };
        if let Err(e) = written.await {
            // The entry landed; the repair finds what this missed.
            tracing::warn!(account = %self.account, error = %e, "could not write the work index; the next repair will");
        }
    }
}

/// Writes a podcast's directory entry (`title` some: public) or removes it.
async fn list(
    store: &Arc<dyn ObjectStore>,
    directory: &crate::directory::Directory,
    account: &AccountId,
    feed: &crate::ids::FeedId,
    title: Option<String>,
    changed: bool,
) -> Result<()> {
    match &title {
        Some(title) => {
            let entry = crate::directory::Entry {
                account: account.clone(),
                title: title.clone(),
            };
            crate::directory::put(store, feed, &entry).await?;
        }
        // Just made private or deleted: out of the index at once too.
        None if changed => crate::directory::unlist(store, feed).await?,
        None => crate::directory::remove(store, feed).await?,
    }
    directory.wrote(feed, title.as_deref());
    Ok(())
}

/// What one pass of a server over the work index did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkPass {
    /// Accounts whose due publications this server announced.
    pub announced: usize,
    /// Accounts whose deliveries this server made.
    pub delivered: usize,
    /// Units another server held.
    pub held_elsewhere: usize,
    /// The deliveries' attempts, summed.
    pub run: WebhookRun,
    /// Events still waiting after the pass, by channel (`webhook`, `websub`, `podping`).
    pub pending: BTreeMap<&'static str, usize>,
    /// Accounts the repair looked at, when this server repaired the index in this pass.
    pub repaired: Option<usize>,
}

impl Work<'_> {
    /// Statistics housekeeping for a server, until `stop` completes: flushes every
    /// [`FLUSH_EVERY`](crate::stats::FLUSH_EVERY) and closes due days every minute (errors are
    /// logged and retried), then flushes once more.
    pub async fn run_stats(self, stop: impl std::future::Future<Output = ()>) {
        let mut stop = std::pin::pin!(stop);
        let mut flush = tokio::time::interval(crate::stats::FLUSH_EVERY);
        let mut close = tokio::time::interval(std::time::Duration::from_secs(60));
        flush.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        close.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = flush.tick() => {
                    // Flushes, then stops the campaigns the flushed impressions brought to
                    // their goal.
                    if let Err(e) = self.host.ads().check_campaign_goals().await {
                        tracing::warn!(error = %e, "storing download statistics or checking campaign goals failed; will retry");
                    }
                }
                _ = close.tick() => {
                    if let Err(e) = self.host.analytics().close_stats_days().await {
                        tracing::warn!(error = %e, "closing statistics days failed; will retry");
                    }
                }
                () = &mut stop => break,
            }
        }
        if let Err(e) = self.host.analytics().flush_stats().await {
            tracing::warn!(error = %e, "storing download statistics at shutdown failed");
        }
    }
}

impl PodcastHost {
    /// The work index hook of an account's catalog.
    pub(crate) fn work_index(&self, account: &AccountId) -> Arc<WorkIndex> {
        Arc::new(WorkIndex {
            store: self.store().clone(),
            account: account.clone(),
            notify: self.config().notify.any(),
            directory: self.delivery().directory().clone(),
        })
    }

    /// Runs `work` on the unit `{kind}/{account}` when this server gets the unit's lease, and
    /// gives the lease back after: `None` when another server holds it (or the lease ran out
    /// under the work, which was then dropped: see [`crate::lease`]), else what `work` did (a
    /// failure is logged and left for the next pass). Each outcome is counted.
    async fn leased<T>(
        &self,
        kind: &'static str,
        account: &AccountId,
        work: impl std::future::Future<Output = Result<T>>,
    ) -> Result<Option<Result<T>>> {
        let unit = format!("{kind}/{account}");
        let kernel = &self.inner.kernel;
        let Some(held) = crate::lease::take(
            self.store(),
            kernel.clock.as_ref(),
            &kernel.config.leases,
            &unit,
            &kernel.owner,
        )
        .await?
        else {
            self.metrics().work(kind, "held_elsewhere");
            return Ok(None);
        };
        let Some(done) = held.run(work).await? else {
            // The lease ran out under the work (this server paused, or the store stalled):
            // whoever holds the unit now does the rest.
            self.metrics().work(kind, "lost");
            tracing::warn!(%account, kind, "a unit of work's lease ran out before the work was done; left to its next holder");
            return Ok(None);
        };
        match &done {
            Ok(_) => self.metrics().work(kind, "done"),
            Err(e) => {
                self.metrics().work(kind, "failed");
                tracing::warn!(%account, kind, error = %e, "background work failed; will retry");
            }
        }
        Ok(Some(done))
    }

    /// Delivers a marked account's due events; when none is left waiting its marker goes, and
    /// the store is read once more (an event committed meanwhile may have written the marker
    /// just removed): what that finds is delivered, and waiting events put the marker back.
    async fn drain(
        &self,
        account: &AccountId,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<Vec<(SubscriptionKind, WebhookRun)>> {
        let store = self.store();
        let Some(catalog) = self.existing_catalog(account).await? else {
            return work_index::unmark_delivery(store, account)
                .await
                .map(|()| Vec::new());
        };
        catalog.catch_up().await?;
        let mut runs = self.deliver_channels(account, sender, renderer).await?;
        if runs.iter().all(|(_, run)| run.pending == 0) {
            work_index::unmark_delivery(store, account).await?;
            let again = async {
                catalog.catch_up().await?;
                self.deliver_channels(account, sender, renderer).await
            }
            .await;
            let again = match again {
                Ok(again) => again,
                Err(e) => {
                    // Events may wait that no marker names now.
                    self.restore_marker(account).await;
                    return Err(e);
                }
            };
            if again.iter().any(|(_, run)| run.pending > 0) {
                self.restore_marker(account).await;
            }
            // The second round's waiting events are the ones still waiting.
            for (_, run) in &mut runs {
                run.pending = 0;
            }
            runs.extend(again);
        }
        Ok(runs)
    }

    /// Puts an account's delivery marker back; when the store refuses, this process tries
    /// again at each pass until it takes.
    async fn restore_marker(&self, account: &AccountId) {
        if let Err(e) = work_index::mark_delivery(self.store(), account).await {
            tracing::warn!(%account, error = %e, "could not mark the account's waiting deliveries; trying again at the next pass");
            self.inner
                .work
                .markers_to_restore
                .locked()
                .insert(account.clone());
        }
    }

    async fn repair_account(
        &self,
        account: &AccountId,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<bool> {
        let Some(catalog) = self.existing_catalog(account).await? else {
            return Ok(false);
        };
        catalog.catch_up().await?;
        let now = self.now();
        let (podcasts, later, delivering) = catalog
            .read(|state| {
                let podcasts: Vec<_> = state
                    .feeds
                    .values()
                    .map(|entry| {
                        let listed = !entry.feed.private
                            && !state.deleted_feeds.contains_key(&entry.feed.id);
                        (
                            entry.feed.id.clone(),
                            listed.then(|| entry.feed.title.clone()),
                        )
                    })
                    .chain(state.deleted_feeds.keys().map(|id| (id.clone(), None)))
                    .collect();
                let later: Vec<Timestamp> = state
                    .feeds
                    .values()
                    .flat_map(|entry| entry.episodes.values())
                    .filter(|e| e.is_public && e.publish_at > now)
                    .map(|e| e.publish_at)
                    .collect();
                let delivering = !state.webhooks.is_empty()
                    || (self.config().notify.any() && !state.feeds.is_empty());
                (podcasts, later, delivering)
            })
            .await;
        for (feed, title) in podcasts {
            list(
                self.store(),
                self.delivery().directory(),
                account,
                &feed,
                title,
                false,
            )
            .await?;
        }
        // What a process killed between a change and its preparation left unasked.
        if let Err(e) = self.ads().prepare_all_ads(account).await {
            tracing::warn!(%account, error = %e, "preparing ads in the repair failed");
        }
        if !delivering {
            return Ok(true);
        }
        self.announce_publications(account).await?;
        for at in later {
            work_index::schedule(self.store(), account, at).await?;
        }
        // Unless another server is delivering the account right now (a failure is logged).
        let delivered = self.deliver_channels(account, sender, renderer);
        if let Some(Ok(runs)) = self.leased("deliver", account, delivered).await?
            && runs.iter().any(|(_, run)| run.pending > 0)
        {
            work_index::mark_delivery(self.store(), account).await?;
        }
        Ok(true)
    }
}

impl Work<'_> {
    /// One pass over the work index: the scheduled publications that came due are announced
    /// (recorded as `episode.published`), and the accounts marked as having events are
    /// delivered, each unit by one server at a time (a unit another server holds is left to
    /// it). Once per [`HostConfig::work_repair_every`](crate::HostConfig), the first server to
    /// pass also repairs the index ([`repair_work`](Self::repair_work)). An account's failure
    /// is logged and leaves its index entry for the next pass.
    pub async fn work_pass(
        self,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<WorkPass> {
        let store = self.host.store();
        let owner = self.host.inner.kernel.owner.as_str();
        let mut pass = WorkPass::default();
        for kind in SubscriptionKind::ALL {
            pass.pending.insert(kind.channel(), 0);
        }
        let restore: Vec<AccountId> =
            std::mem::take(&mut *self.host.inner.work.markers_to_restore.locked())
                .into_iter()
                .collect();
        for account in restore {
            self.host.restore_marker(&account).await;
        }
        if work_index::repair_due(
            store,
            owner,
            self.host.now(),
            self.host.config().work_repair_every,
        )
        .await?
        {
            pass.repaired = Some(self.host.work().repair_work(sender, renderer).await?);
        }

        // Due publications, by account, in a random order so that servers spread out.
        let mut due: BTreeMap<AccountId, Vec<work_index::Due>> = BTreeMap::new();
        for key in work_index::due(store, self.host.now()).await? {
            due.entry(key.account.clone()).or_default().push(key);
        }
        let mut due: Vec<_> = due.into_iter().collect();
        due.sort_by_cached_key(|_| rand::random::<u64>());
        for (account, keys) in due {
            let announced = async {
                if let Some(catalog) = self.host.existing_catalog(&account).await? {
                    // Announced from what the store holds now, not from this server's copy.
                    catalog.catch_up().await?;
                    self.host.announce_publications(&account).await?;
                }
                for key in &keys {
                    work_index::done(store, key).await?;
                }
                Ok(())
            };
            match self.host.leased("due", &account, announced).await? {
                None => pass.held_elsewhere += 1,
                Some(Ok(())) => pass.announced += 1,
                Some(Err(_)) => {}
            }
        }

        let mut marked = work_index::marked_deliveries(store).await?;
        marked.sort_by_cached_key(|_| rand::random::<u64>());
        for account in marked {
            let drained = self.host.drain(&account, sender, renderer);
            match self.host.leased("deliver", &account, drained).await? {
                None => pass.held_elsewhere += 1,
                Some(Ok(runs)) => {
                    pass.delivered += 1;
                    for (kind, run) in runs {
                        *pass.pending.entry(kind.channel()).or_default() += run.pending;
                        pass.run += run;
                    }
                }
                Some(Err(_)) => {}
            }
        }
        Ok(pass)
    }

    /// Repairs the work index from the accounts themselves: for every account, writes the
    /// directory entries of its podcasts; for those deliveries are made for (with webhook
    /// subscriptions; every account with a podcast when feed-change notifiers are configured),
    /// announces what came due, writes the due keys of publications scheduled later, and
    /// delivers what waits (marking the account when something still does). What a crash
    /// between a commit and its index writes, or a lost index object, left out is found here.
    /// Costs a look at every account: [`work_pass`](Self::work_pass) runs it once per period
    /// on one server (the open catalogs stay within their bound meanwhile). Returns how many
    /// accounts it looked at.
    pub async fn repair_work(
        self,
        sender: &dyn WebhookSender,
        renderer: &dyn EventRenderer,
    ) -> Result<usize> {
        let mut looked = 0;
        for account in crate::host::catalogs::account_ids(self.host.store().as_ref()).await? {
            match self.host.repair_account(&account, sender, renderer).await {
                Ok(true) => looked += 1,
                Ok(false) => {}
                Err(e) => tracing::warn!(%account, error = %e, "repairing the work index failed"),
            }
        }
        Ok(looked)
    }
}
