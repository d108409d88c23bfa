//! A podcast's public statistics page, for anyone, when its podcaster asked for it
//! (`public_stats`): downloads per month over the last year and the top apps. The counts are
//! reused for a few minutes, the page rendered once per version of the account while they are:
//! turning it off (or making the podcast private) is a new version, which takes it down at once.

use std::collections::{BTreeMap, HashMap};

use jiff::{SignedDuration, ToSpan};

use super::{Analytics, downloads::day_of};
use crate::{
    error::{Error, Result},
    ids::FeedId,
    publish::{PublicPage, RenderedPage, page},
};

/// How long counted months are reused before they are counted again.
const COUNTED_FOR: SignedDuration = SignedDuration::from_mins(10);
/// The months a public statistics page shows, this one included.
pub const PUBLIC_MONTHS: i32 = 12;
/// The apps a public statistics page names.
pub const PUBLIC_APPS: usize = 10;

impl Analytics<'_> {
    /// The public statistics page of a podcast (`/podcasts/{feed_id}/stats`): `NotFound` unless
    /// the podcast is public and asked for it, `Gone` once deleted.
    pub async fn public_stats_page(&self, id: &FeedId) -> Result<PublicPage> {
        let (account, catalog) = self.host.public_catalog(id).await?;
        let now = self.host.now();
        // Rendered once per version of the account and while its counts are reused: any change
        // of the podcast (public_stats turned off, made private) is a new version.
        let version = catalog.fresh_seq().await;
        if let Some(rendered) = self.state().stats_pages.get(id, &version, now) {
            return Ok(PublicPage::Live(rendered));
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
        let (stats, until) = self.public_counts(&account, id, now).await?;
        let urls = self.host.urls().clone();
        let time_zone = self.host.config().display_time_zone.clone();
        let site = page::Site {
            urls: &urls,
            account: &account,
            time_zone: &time_zone,
        };
        let show = page::Show {
            feed: &feed,
            logo: logo.as_ref(),
        };
        let html = page::stats_page(&site, &show, &stats);
        let rendered = RenderedPage {
            etag: crate::host::rendering::etag_of(html.as_bytes()),
            html: html.into(),
            last_modified: now,
            changes_at: Some(until),
        };
        self.state()
            .stats_pages
            .put(id.clone(), version, Some(until), rendered.clone());
        Ok(PublicPage::Live(rendered))
    }

    /// A podcast's counts and until when they are reused: the cached ones, else counted now.
    /// One count at a time: those who waited for it find its counts.
    async fn public_counts(
        &self,
        account: &crate::ids::AccountId,
        id: &FeedId,
        now: jiff::Timestamp,
    ) -> Result<(page::PublicStats, jiff::Timestamp)> {
        let cached = || self.state().public_stats.get(id, &(), now);
        if let Some(counted) = cached() {
            return Ok(counted);
        }
        let _counting = self.state().public_counting.lock().await;
        if let Some(counted) = cached() {
            return Ok(counted);
        }
        let until = now + COUNTED_FOR;
        let stats = self.count_public_stats(account, id, now).await?;
        self.state()
            .public_stats
            .put(id.clone(), (), Some(until), (stats.clone(), until));
        Ok((stats, until))
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
