//! A podcast's public statistics page, for anyone, when its podcaster asked for it
//! (`public_stats`): downloads per month over the last year and the top apps, counted as every
//! other statistics read counts them (the stored days and the reports not flushed yet), at the
//! moment of the request. Turning it off (or making the podcast private) is a new version of the
//! account, which takes it down at once.

use std::{
    collections::{BTreeMap, HashMap},
    sync::atomic::Ordering,
};

use jiff::ToSpan;

use super::{Analytics, downloads::day_of, in_memory::PublicCounts};
use crate::{
    error::{Error, Result},
    ids::FeedId,
    locale::Locale,
    publish::{PublicPage, RenderedPage, page},
};

/// The months a public statistics page shows, this one included.
pub const PUBLIC_MONTHS: i32 = 12;
/// The apps a public statistics page names.
pub const PUBLIC_APPS: usize = 10;

impl Analytics<'_> {
    /// The public statistics page of a podcast (`/podcasts/{feed_id}/stats`), in `locale`:
    /// `NotFound` unless the podcast is public and asked for it, `Gone` once deleted.
    ///
    /// The counts are those of this moment, as every other statistics read's: a count begun
    /// after this request arrived answers it (requests that arrive while one is under way wait
    /// for the next and share it), and the page is rendered again only when they or the podcast
    /// changed.
    pub async fn public_stats_page(&self, id: &FeedId, locale: Locale) -> Result<PublicPage> {
        let key = (id.clone(), locale);
        let arrived = self.state().public_counts_begun.load(Ordering::SeqCst);
        let (account, catalog) = self.host.public_catalog(id).await?;
        let now = self.host.now();
        // Any change of the podcast (public_stats turned off, made private) is a new version.
        let version = catalog.fresh_seq().await;
        let fresh = || {
            self.state()
                .public_stats
                .get(&key, &version, now)
                .filter(|counted| counted.begun > arrived)
                .map(|counted| PublicPage::Live(counted.page))
        };
        if let Some(page) = fresh() {
            return Ok(page);
        }
        let shown = catalog
            .read(|state| {
                if state.deleted_feeds.contains_key(id) {
                    return Ok(None);
                }
                let entry = state
                    .feeds
                    .get(id)
                    .filter(|entry| !entry.feed.private && entry.feed.public_stats)
                    .ok_or_else(|| Error::not_found("feed statistics", id))?;
                let logo = entry.feed.logo.and_then(|m| state.media.get(&m)).cloned();
                Ok::<_, Error>(Some((entry.feed.clone(), logo)))
            })
            .await?;
        let Some((feed, logo)) = shown else {
            return Ok(PublicPage::Gone);
        };
        // One count at a time: those who waited for it take its page if it began after them.
        let _counting = self.state().public_counting.lock().await;
        if let Some(page) = fresh() {
            return Ok(page);
        }
        let begun = self
            .state()
            .public_counts_begun
            .fetch_add(1, Ordering::SeqCst)
            + 1;
        let stats = self.count_public_stats(&account, id, now).await?;
        let before = self
            .state()
            .public_stats
            .get(&key, &version, now)
            .filter(|counted| counted.stats == stats);
        let page = match before {
            // The same counts of the same podcast: the same page, its validators unchanged.
            Some(counted) => counted.page,
            None => {
                let urls = self.host.urls().clone();
                let time_zone = self.host.config().display_time_zone.clone();
                let site = page::Site {
                    urls: &urls,
                    account: &account,
                    time_zone: &time_zone,
                    locale,
                };
                let show = page::Show {
                    feed: &feed,
                    logo: logo.as_ref(),
                };
                let html = page::stats_page(&site, &show, &stats);
                RenderedPage {
                    etag: crate::host::rendering::etag_of(html.as_bytes()),
                    html: html.into(),
                    last_modified: now,
                    changes_at: None,
                }
            }
        };
        self.state().public_stats.put(
            key,
            version,
            None,
            PublicCounts {
                begun,
                stats,
                page: page.clone(),
            },
        );
        Ok(PublicPage::Live(page))
    }

    /// Counts a podcast's downloads per month since the first of the month
    /// [`PUBLIC_MONTHS`]` - 1` months ago, and its top apps over that period.
    async fn count_public_stats(
        &self,
        account: &crate::ids::AccountId,
        feed: &FeedId,
        now: jiff::Timestamp,
    ) -> Result<page::PublicStats> {
        let to = day_of(now);
        let from = to
            .first_of_month()
            .checked_sub((PUBLIC_MONTHS - 1).months())
            .map_err(|e| Error::storage(e.to_string()))?;
        let days = self.counted_days(account, from, to).await?;
        let mut months: BTreeMap<jiff::civil::Date, u64> = BTreeMap::new();
        let mut month = from;
        while month <= to {
            months.insert(month, 0);
            month = month
                .checked_add(1.month())
                .map_err(|e| Error::storage(e.to_string()))?;
        }
        let mut apps: HashMap<&str, u64> = HashMap::new();
        for (date, counts) in &days {
            for row in counts.rows.iter().filter(|r| &r.feed == feed) {
                *months.entry(date.first_of_month()).or_default() += row.downloads;
                *apps.entry(row.app.as_str()).or_default() += row.downloads;
            }
        }
        let mut apps: Vec<(String, u64)> = apps
            .into_iter()
            .map(|(app, n)| (app.to_string(), n))
            .collect();
        apps.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        apps.truncate(PUBLIC_APPS);
        Ok(page::PublicStats {
            from,
            to,
            months: months.into_iter().collect(),
            apps,
        })
    }
}
