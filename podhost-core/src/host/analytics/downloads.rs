//! Download statistics: recording deliveries, flushing them as salted records, closing days and
//! answering queries. The rules are in [`crate::stats`].

use crate::lock::Locked;
use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, atomic::Ordering},
};

use jiff::{Timestamp, ToSpan, civil::Date, tz::TimeZone};

use super::Analytics;
use crate::stats::{listener_address, parts_digest};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{AccountId, EpisodeId, FeedId},
    principal::Principal,
    probe::MediaKind,
    stats::{
        CLOSE_GRACE, ClosedDay, Count, DEFAULT_DAYS, DayCounts, Delivery, MAX_DAYS, MAX_PENDING,
        Pending, StatsQuery, StatsReport, agents,
        counting::{AdBytes, Record, Row},
        ledger,
    },
};

/// Bytes per minute assumed for audio whose duration is unknown (128 kbit/s).
const UNKNOWN_RATE_BYTES_PER_MINUTE: u64 = 128_000 / 8 * 60;

pub(in crate::host) fn day_of(t: Timestamp) -> Date {
    t.to_zoned(TimeZone::UTC).date()
}

/// Whether `day` may be closed at `now`: its grace period after midnight is over.
fn is_due(day: Date, now: Timestamp) -> bool {
    day < day_of(now - jiff::SignedDuration::try_from(CLOSE_GRACE).unwrap_or_default())
}

/// The bytes a listener must have been sent for a download to count: a minute of the audio
/// after the file's leading ID3 tag, plus the tag, which is sent first (IAB v2.3); the whole
/// file when that is less. Without a known duration, a conservative rate stands in.
pub(crate) fn minute_threshold(size: u64, tag_bytes: u64, duration_ms: Option<u64>) -> u64 {
    let tag = tag_bytes.min(size);
    let audio = size - tag;
    let minute = match duration_ms {
        Some(ms) if ms > 0 => (u128::from(audio) * 60_000).div_ceil(u128::from(ms)) as u64,
        _ => UNKNOWN_RATE_BYTES_PER_MINUTE,
    };
    minute.saturating_add(tag).min(size).max(1)
}

/// The listener and episode of a delivery, salted: a record's `id`.
fn listener_hash(salt: &[u8], delivery: &Delivery, feed: &FeedId, episode: EpisodeId) -> String {
    let address = listener_address(delivery.client).to_string();
    let episode = episode.number().to_string();
    let parts = [
        address.as_bytes(),
        delivery.user_agent.as_bytes(),
        feed.as_str().as_bytes(),
        episode.as_bytes(),
    ];
    hex::encode(&parts_digest(salt, &parts)[..16])
}

/// The listener alone (IAB: address and user agent), salted: whose ad impressions a record's
/// are, whatever the episode.
fn listener_only_hash(salt: &[u8], delivery: &Delivery) -> String {
    let address = listener_address(delivery.client).to_string();
    let parts = [address.as_bytes(), delivery.user_agent.as_bytes()];
    hex::encode(&parts_digest(salt, &parts)[..16])
}

impl Analytics<'_> {
    /// Reports one finished response body of a public media URL. Only appends to memory: it
    /// never waits and never fails (beyond `MAX_PENDING` unflushed reports the newest are
    /// dropped and logged). Probes and empty answers are ignored.
    pub fn record_download(&self, delivery: Delivery) {
        if delivery.is_probe() {
            return;
        }
        self.host.metrics().media_responses.inc();
        let at = self.host.now();
        let recorder = &self.state().recorder;
        let mut pending = recorder.pending.locked();
        if pending.len() >= MAX_PENDING {
            recorder.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        pending.push(Pending { at, delivery });
    }

    /// Stores the reported deliveries as records: one batch per account and day, episode and
    /// app resolved, addresses replaced by salted hashes, bots dropped. Returns how many
    /// records were stored. On a store error the reports stay in memory for the next flush.
    pub async fn flush_stats(&self) -> Result<usize> {
        let recorder = &self.state().recorder;
        let _one_at_a_time = recorder.flushing.write().await;
        let taken = std::mem::take(&mut *recorder.pending.locked());
        let dropped = recorder.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!(
                dropped,
                "download reports dropped: too many waiting for the store"
            );
        }
        let mut by_account: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
        for report in taken {
            by_account
                .entry(report.delivery.account.clone())
                .or_default()
                .push(report);
        }
        let mut stored = 0;
        let mut failure = None;
        for (account, reports) in by_account {
            match self.flush_account(&account, &reports).await {
                Ok(n) => stored += n,
                Err(e) => {
                    let mut pending = recorder.pending.locked();
                    let room = MAX_PENDING.saturating_sub(pending.len());
                    pending.extend(reports.into_iter().take(room));
                    failure = Some(e);
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(stored),
        }
    }

    async fn flush_account(&self, account: &str, reports: &[Pending]) -> Result<usize> {
        let Ok(account) = AccountId::new(account) else {
            return Ok(0);
        };
        let Some(catalog) = self.host.existing_catalog(&account).await? else {
            return Ok(0);
        };
        let by_day = self
            .records_of(&catalog, reports, &mut Salts::Stored)
            .await?;
        if by_day.values().flatten().any(|r| !r.ads.is_empty()) {
            let delivered = &self.state().recorder.ads_delivered;
            let mut delivered = delivered.locked();
            delivered.insert(account.as_str().to_string());
        }
        let now = self.host.now();
        let mut stored = 0;
        for (day, records) in by_day {
            let n = self
                .state()
                .recorder
                .batches
                .fetch_add(1, Ordering::Relaxed);
            let name = format!(
                "{:013}-{}-{n}",
                now.as_millisecond(),
                self.state().recorder.writer
            );
            stored += records.len();
            ledger::put_batch(self.host.store(), &account, day, &name, records.clone()).await?;
            // What the statistics count of them, counted once they are stored (a batch that
            // failed is flushed again, and counted then).
            let counted = {
                let mut tally = self.state().recorder.tally.locked();
                tally.add(day, records.iter().collect())
            };
            self.host.metrics().downloads_counted.inc_by(counted);
        }
        Ok(stored)
    }

    /// The records `reports` make, by day: episode and app resolved, addresses replaced by
    /// salted hashes, bots dropped. What a flush stores and what a read merges are made here
    /// alike.
    async fn records_of(
        &self,
        catalog: &crate::host::catalogs::AccountCatalog,
        reports: &[Pending],
        salts: &mut Salts,
    ) -> Result<BTreeMap<Date, Vec<Record>>> {
        let now = self.host.now();
        // Which episode and how many bytes make a minute, for each report of an episode's audio.
        let resolved: Vec<(&Pending, FeedId, EpisodeId, u64)> = catalog
            .read(|state| {
                reports
                    .iter()
                    .filter_map(|report| {
                        let media = state.media_by_blob(&report.delivery.blob)?;
                        if !matches!(media.kind(), MediaKind::Audio | MediaKind::Video) {
                            return None;
                        }
                        let (feed, episode) = state
                            .heard_or_seen(media.id, now)
                            .map(|(feed, e)| (feed.clone(), e.id))?;
                        // A stitched answer's minute is a minute of it (IAB: the file sent).
                        let need = match &report.delivery.stitched {
                            Some(s) => minute_threshold(s.len, s.tag_bytes, Some(s.duration_ms)),
                            None => {
                                let duration = media.facts.audio.as_ref().map(|a| a.duration_ms);
                                minute_threshold(media.size, media.facts.tag_bytes, duration)
                            }
                        };
                        Some((report, feed, episode, need))
                    })
                    .collect()
            })
            .await;
        let mut by_day: BTreeMap<Date, Vec<Record>> = BTreeMap::new();
        for (report, feed, episode, need) in resolved {
            let agent = agents::classify(&report.delivery.user_agent);
            if matches!(agent, agents::Agent::Bot(_)) {
                continue;
            }
            let day = day_of(report.at);
            let salt = self.salt_of(salts, day).await?;
            let delivery = &report.delivery;
            let sent = delivery.range.start..delivery.range.start + delivery.delivered;
            let ads = delivery
                .stitched
                .as_ref()
                .map(|s| AdBytes::sent(&s.ads, sent))
                .unwrap_or_default();
            let previous = self
                .salt_of(
                    salts,
                    day.yesterday().map_err(|e| Error::storage(e.to_string()))?,
                )
                .await?;
            by_day.entry(day).or_default().push(Record {
                t: report.at.as_millisecond(),
                id: listener_hash(&salt, &report.delivery, &feed, episode),
                prev: listener_hash(&previous, &report.delivery, &feed, episode),
                feed,
                episode,
                app: agent.app().to_string(),
                bytes: report.delivery.delivered,
                need,
                platform: agents::platform(&report.delivery.user_agent).to_string(),
                subscriber: report
                    .delivery
                    .subscriber
                    .as_deref()
                    .and_then(|s| s.parse().ok()),
                country: match &self.host.config().countries {
                    Some(countries) => countries.of(report.delivery.client),
                    None => crate::stats::geo::UNKNOWN_COUNTRY.to_string(),
                },
                listener: match &ads.is_empty() {
                    true => String::new(),
                    false => listener_only_hash(&salt, &report.delivery),
                },
                ads,
            });
        }
        Ok(by_day)
    }

    /// The salt of `day` for records made the `salts` way.
    async fn salt_of(&self, salts: &mut Salts, day: Date) -> Result<Vec<u8>> {
        let unstored = match salts {
            Salts::Stored => return self.salt(day).await,
            Salts::Unstored(unstored) => unstored,
        };
        if let Some(salt) = self.state().recorder.salts.locked().get(&day) {
            return Ok(salt.clone());
        }
        if let Some(salt) = unstored.get(&day) {
            return Ok(salt.clone());
        }
        // No salt stored means no record of the day stored: any salt links this read's own
        // records alike.
        let salt = match ledger::salt_if_present(self.host.store(), day).await? {
            Some(salt) => salt,
            None => rand::random::<[u8; 32]>().to_vec(),
        };
        unstored.insert(day, salt.clone());
        Ok(salt)
    }

    async fn salt(&self, day: Date) -> Result<Vec<u8>> {
        let salts = &self.state().recorder.salts;
        if let Some(salt) = salts.locked().get(&day) {
            return Ok(salt.clone());
        }
        let salt = ledger::salt(self.host.store(), day).await?;
        let mut salts = salts.locked();
        salts.retain(|d, _| (day - 3.days()) < *d);
        salts.insert(day, salt.clone());
        Ok(salt)
    }

    /// The accounts whose ads this process delivered since the last call (their campaigns'
    /// goals are checked after a flush), forgotten here.
    pub(in crate::host) fn take_ads_delivered(&self) -> BTreeSet<String> {
        std::mem::take(&mut *self.state().recorder.ads_delivered.locked())
    }

    /// Asks for `account`'s goals to be checked again after the next flush.
    pub(in crate::host) fn ads_delivered_again(&self, account: String) {
        self.state().recorder.ads_delivered.locked().insert(account);
    }

    /// Closes every day whose grace period is over, for every account with records, oldest
    /// first, and forgets the salts no open day needs (after that, stored hashes cannot be
    /// linked to anyone). Servers call it now and then; queries close what they read anyway.
    /// Returns the number of days closed.
    pub async fn close_stats_days(&self) -> Result<usize> {
        let now = self.host.now();
        let mut closed = 0;
        let mut failed: BTreeSet<AccountId> = BTreeSet::new();
        let mut first_error = None;
        for (day, account) in ledger::pending(self.host.store()).await? {
            if !is_due(day, now) || failed.contains(&account) {
                continue;
            }
            match ledger::close_day(self.host.store(), &account, day).await {
                Ok(()) => closed += 1,
                Err(e) => {
                    tracing::warn!(%account, %day, error = %e, "closing a statistics day failed");
                    failed.insert(account);
                    first_error.get_or_insert(e);
                }
            }
        }
        // A day's salt hashes its own records and, as `prev`, the next day's.
        let open_from =
            day_of(now - jiff::SignedDuration::try_from(CLOSE_GRACE).unwrap_or_default());
        let keep_from = open_from
            .yesterday()
            .map_err(|e| Error::storage(e.to_string()))?;
        ledger::forget_salts(self.host.store(), keep_from).await?;
        match first_error {
            Some(e) => Err(e),
            None => Ok(closed),
        }
    }

    /// Downloads of the caller's podcasts over a period, by feed, episode, day and app (scope
    /// `stats`). `Invalid` for a period that is reversed or longer than `MAX_DAYS`; `NotFound`
    /// for a feed that is not the caller's.
    pub async fn download_stats(&self, who: &Principal, query: &StatsQuery) -> Result<StatsReport> {
        let (from, to, rows) = self.period_rows(who, query).await?;
        Ok(report(from, to, &rows, query))
    }

    /// The counted downloads of a period as rows, oldest day first (scope `stats`): one per day,
    /// hour, podcast, episode, app, device and subscriber, with its count (the CSV export).
    /// Checked as [`download_stats`](Self::download_stats).
    pub async fn download_rows(
        &self,
        who: &Principal,
        query: &StatsQuery,
    ) -> Result<Vec<crate::stats::StatsRow>> {
        let (_, _, days) = self.period_rows(who, query).await?;
        let mut out = Vec::new();
        for (date, counts) in days {
            for row in counts.rows.iter().filter(|row| wanted(query, row)) {
                out.push(crate::stats::StatsRow {
                    date,
                    hour: row.hour,
                    feed_id: row.feed.clone(),
                    episode_id: row.episode,
                    app: row.app.clone(),
                    platform: row.platform.clone(),
                    country: row.country.clone(),
                    subscriber_id: row.subscriber.clone(),
                    downloads: row.downloads,
                });
            }
        }
        out.sort_by_key(|a| (a.date, a.hour));
        Ok(out)
    }

    /// The period of a query and each of its days' rows (closing what is due first).
    async fn period_rows(
        &self,
        who: &Principal,
        query: &StatsQuery,
    ) -> Result<(Date, Date, Vec<(Date, ClosedDay)>)> {
        who.authorize(Action::ReadStatistics)?;
        let today = day_of(self.host.now());
        let (from, to) = period(query, today)?;
        let account = who.account().clone();
        let catalog = self.host.catalog(&account).await?;
        if let Some(feed) = &query.feed {
            who.require_feed(feed)?;
            let known = catalog
                .read(|state| {
                    state.feeds.contains_key(feed) || state.deleted_feeds.contains_key(feed)
                })
                .await;
            if !known {
                return Err(Error::not_found("feed", feed));
            }
        }
        let mut rows = self.counted_days(&account, from, to).await?;
        // A member restricted to some podcasts counts theirs alone.
        if !who.sees_all() {
            for (_, day) in &mut rows {
                let day = std::sync::Arc::make_mut(day);
                day.rows.retain(|row| who.sees(&row.feed));
                day.ads.retain(|row| who.sees(&row.feed));
            }
        }
        Ok((from, to, rows))
    }

    /// The counts of days `from..=to` of `account`: the stored records and this process's
    /// reports not stored yet, counted alike. Reads only: nothing is flushed or closed here
    /// (`run_stats` does both), so every statistics read sees the same counts at a moment.
    pub(in crate::host) async fn counted_days(
        &self,
        account: &AccountId,
        from: Date,
        to: Date,
    ) -> Result<Vec<(Date, ClosedDay)>> {
        // A flush under way holds reports that are neither in memory nor stored yet: the read
        // waits for it, and no flush begins until the read has what it counts.
        let _no_flush = self.state().recorder.flushing.read().await;
        let pending = match self.host.existing_catalog(account).await? {
            Some(catalog) => self.pending_records(account, &catalog).await?,
            None => BTreeMap::new(),
        };
        // Raw days first, then closed ones: a day another server closes meanwhile is in one
        // listing or the other (its close writes the day before deleting its records).
        let raw = ledger::raw_days(self.host.store(), account).await?;
        let closed = ledger::closed_days(self.host.store(), account).await?;
        let mut days = Vec::new();
        let mut day = from;
        while day <= to {
            let counts = if closed.contains(&day) {
                self.day_counts(account, day, false, &pending).await?
            } else if raw.contains(&day) || pending.contains_key(&day) {
                self.open_counts(account, day, &closed, &pending).await?
            } else {
                Arc::new(DayCounts::default())
            };
            days.push((day, counts));
            day = day.tomorrow().map_err(|e| Error::storage(e.to_string()))?;
        }
        Ok(days)
    }

    /// An open day's counts, counted again only when what they are counted from changed: the
    /// stored batches of the day and of the two before it (their carry), which of those are
    /// closed, and this process's records not stored yet. Stored batches never change, so the
    /// same names and the same pending records give the same counts; a read of a period that
    /// nothing was added to since the last one costs its listings, not a count.
    async fn open_counts(
        &self,
        account: &AccountId,
        day: Date,
        closed: &std::collections::BTreeSet<Date>,
        pending: &BTreeMap<Date, Vec<Record>>,
    ) -> Result<ClosedDay> {
        let mut read = Vec::new();
        let mut on = day;
        for _ in 0..3 {
            read.push((
                on,
                closed.contains(&on),
                ledger::raw_batches(self.host.store(), account, on).await?,
                pending.get(&on).map_or(0, Vec::len),
            ));
            on = on.yesterday().map_err(|e| Error::storage(e.to_string()))?;
        }
        let key = (account.clone(), day);
        if let Some((seen, counts)) = self.state().recorder.open.locked().get(&key)
            && *seen == read
        {
            return Ok(counts.clone());
        }
        let counts = self.day_counts(account, day, true, pending).await?;
        let mut open = self.state().recorder.open.locked();
        if open.len() > 10_000 {
            open.clear();
        }
        open.insert(key, (read, counts.clone()));
        Ok(counts)
    }

    /// This process's reports of `account` that no flush has stored yet, as the records a flush
    /// would store.
    async fn pending_records(
        &self,
        account: &AccountId,
        catalog: &crate::host::catalogs::AccountCatalog,
    ) -> Result<BTreeMap<Date, Vec<Record>>> {
        let reports: Vec<Pending> = self
            .state()
            .recorder
            .pending
            .locked()
            .iter()
            .filter(|p| p.delivery.account == account.as_str())
            .cloned()
            .collect();
        if reports.is_empty() {
            return Ok(BTreeMap::new());
        }
        self.records_of(catalog, &reports, &mut Salts::Unstored(Default::default()))
            .await
    }

    /// A day's counts: closed (cached: closed days never change) or counted now, from its
    /// stored records and `pending`.
    pub(super) async fn day_counts(
        &self,
        account: &AccountId,
        day: Date,
        open: bool,
        pending: &BTreeMap<Date, Vec<Record>>,
    ) -> Result<ClosedDay> {
        if let Some(rows) = self.closed_counts(account, day).await? {
            return Ok(rows);
        }
        if !open {
            return Ok(Arc::new(DayCounts::default()));
        }
        let (counts, _) = ledger::open_day(self.host.store(), account, day, 2, pending).await?;
        // Another server may have closed the day (and deleted its records) while they were
        // read: its close counted them all.
        if let Some(rows) = self.closed_counts(account, day).await? {
            return Ok(rows);
        }
        Ok(Arc::new(counts))
    }

    /// A closed day's counts (kept: closed days never change); `None` while it is open.
    async fn closed_counts(&self, account: &AccountId, day: Date) -> Result<Option<ClosedDay>> {
        let key = (account.clone(), day);
        let closed = &self.state().recorder.closed;
        if let Some(rows) = closed.locked().get(&key) {
            return Ok(Some(rows.clone()));
        }
        let Some(rows) = ledger::closed_day(self.host.store(), account, day).await? else {
            return Ok(None);
        };
        let rows = Arc::new(rows);
        let mut closed = closed.locked();
        if closed.len() > 100_000 {
            closed.clear();
        }
        closed.insert(key, rows.clone());
        Ok(Some(rows))
    }
}

/// Where the records of a flush or a read get their day salts.
enum Salts {
    /// The stored salts, made by the first process that needs one (a flush).
    Stored,
    /// The stored salts where they exist, else salts of this read alone (never stored).
    Unstored(std::collections::HashMap<Date, Vec<u8>>),
}

/// The period of a query, checked.
pub(in crate::host) fn period(query: &StatsQuery, today: Date) -> Result<(Date, Date)> {
    let to = query.to.unwrap_or(today);
    let from = match query.from {
        Some(from) => from,
        None => to
            .checked_sub((DEFAULT_DAYS - 1).days())
            .map_err(|e| Error::invalid("from", e.to_string()))?,
    };
    let mut errors = FieldErrors::default();
    if from > to {
        errors.add("from", "must not be after `to`");
    } else if (to - from).get_days() >= MAX_DAYS {
        errors.add("to", format!("a period covers at most {MAX_DAYS} days"));
    }
    if errors.is_empty() {
        Ok((from, to))
    } else {
        Err(Error::Invalid(errors))
    }
}

/// Whether a counted row is of the podcast and episode a query narrows to.
fn wanted(query: &StatsQuery, row: &Row) -> bool {
    query.feed.as_ref().is_none_or(|f| *f == row.feed)
        && query.episode.is_none_or(|e| e == row.episode)
}

fn report(from: Date, to: Date, days: &[(Date, ClosedDay)], query: &StatsQuery) -> StatsReport {
    let mut feeds: BTreeMap<&FeedId, u64> = BTreeMap::new();
    let mut episodes: BTreeMap<(&FeedId, EpisodeId), u64> = BTreeMap::new();
    let mut apps: BTreeMap<&str, u64> = BTreeMap::new();
    let mut subscribers: BTreeMap<&crate::ids::SubscriberId, u64> = BTreeMap::new();
    let mut platforms: BTreeMap<&str, u64> = BTreeMap::new();
    let mut countries: BTreeMap<&str, u64> = BTreeMap::new();
    let mut hours = vec![0u64; 24];
    let mut day_counts = Vec::with_capacity(days.len());
    for (date, counts) in days {
        let mut downloads = 0;
        for row in counts.rows.iter().filter(|r| wanted(query, r)) {
            downloads += row.downloads;
            *feeds.entry(&row.feed).or_default() += row.downloads;
            *episodes.entry((&row.feed, row.episode)).or_default() += row.downloads;
            *apps.entry(&row.app).or_default() += row.downloads;
            *platforms.entry(&row.platform).or_default() += row.downloads;
            *countries.entry(&row.country).or_default() += row.downloads;
            if let Some(slot) = hours.get_mut(usize::from(row.hour)) {
                *slot += row.downloads;
            }
            if let Some(subscriber) = &row.subscriber {
                *subscribers.entry(subscriber).or_default() += row.downloads;
            }
        }
        day_counts.push(Count {
            of: *date,
            downloads,
        });
    }
    // Most first; ties in key order (the maps are sorted and the sort is stable).
    fn most_first<K, T>(map: BTreeMap<K, u64>, key: impl Fn(K) -> T) -> Vec<Count<T>> {
        let mut pairs: Vec<_> = map.into_iter().collect();
        pairs.sort_by_key(|pair| std::cmp::Reverse(pair.1));
        pairs
            .into_iter()
            .map(|(k, downloads)| Count {
                of: key(k),
                downloads,
            })
            .collect()
    }
    StatsReport {
        from,
        to,
        total: day_counts.iter().map(|d| d.downloads).sum(),
        days: day_counts,
        feeds: most_first(feeds, FeedId::clone),
        episodes: most_first(episodes, |(feed, episode)| (feed.clone(), episode)),
        apps: most_first(apps, str::to_string),
        hours,
        countries: most_first(countries, str::to_string),
        platforms: most_first(platforms, str::to_string),
        subscribers: most_first(subscribers, crate::ids::SubscriberId::clone),
    }
}

impl Analytics<'_> {
    /// The names a statistics report's ids stand for, as the caller may see them (scope
    /// `stats`): the titles of their podcasts and, for `feed`, of its episodes. Ids without a
    /// title (a deleted podcast or episode) are absent.
    pub async fn stats_names(
        &self,
        who: &Principal,
        feed: Option<&FeedId>,
    ) -> Result<crate::stats::StatsNames> {
        who.authorize(Action::ReadStatistics)?;
        if let Some(feed) = feed {
            who.require_feed(feed)?;
        }
        let catalog = self.host.catalog(who.account()).await?;
        Ok(catalog
            .read(|state| {
                let feeds = state
                    .feeds
                    .values()
                    .filter(|entry| who.sees(&entry.feed.id))
                    .map(|entry| (entry.feed.id.clone(), entry.feed.title.clone()))
                    .collect();
                let episodes = feed
                    .and_then(|f| state.feeds.get(f))
                    .map(|entry| {
                        entry
                            .episodes
                            .values()
                            .map(|e| (e.id, e.title.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                crate::stats::StatsNames { feeds, episodes }
            })
            .await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_minute_threshold() {
        // (size, leading ID3 tag, duration, bytes needed)
        let cases = [
            // 120 s of 16 kB/s: a minute is half the file.
            (1_920_000, 0, Some(120_000), 960_000),
            // The same audio after a 100 kB ID3 tag (a cover image): the tag is added (v2.3).
            (2_020_000, 100_000, Some(120_000), 1_060_000),
            // Shorter than a minute: the whole file.
            (500_000, 50_000, Some(30_000), 500_000),
            // A tag larger than the file is the file.
            (1_000, 5_000, Some(120_000), 1_000),
            // No duration known: a conservative rate (the whole file when smaller).
            (10, 0, None, 10),
            (0, 0, Some(1_000), 1),
        ];
        for (size, tag, duration, need) in cases {
            assert_eq!(
                minute_threshold(size, tag, duration),
                need,
                "{size} {tag} {duration:?}"
            );
        }
    }

    #[test]
    fn listeners_are_known_by_their_ipv6_64() {
        let at = |s: &str| listener_address(s.parse().unwrap()).to_string();
        assert_eq!(at("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(at("2001:db8:1:2::1"), at("2001:db8:1:2:ffff::"));
        assert_ne!(at("2001:db8:1:2::1"), at("2001:db8:1:3::1"));
        assert_eq!(at("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(at("203.0.113.7"), "203.0.113.7");
    }
}
