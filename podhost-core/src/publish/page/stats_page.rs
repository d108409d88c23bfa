//! A podcast's public statistics page (`/podcasts/{feed_id}/stats`), published only when its
//! podcaster asked for it (`public_stats`): downloads per month and the apps listeners use,
//! drawn as [`chart`]s, like OP3's show pages. Nothing about subscribers or listeners.

use jiff::civil::Date;
use maud::html;

use super::{
    Show, Site,
    chart::{BarChart, Bars},
    document,
    document::english,
    show_bar,
};

/// What a public statistics page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicStats {
    /// The first day counted (the first of a month).
    pub from: Date,
    /// The last day counted (today).
    pub to: Date,
    /// Downloads in each month of the period, by its first day, oldest first.
    pub months: Vec<(Date, u64)>,
    /// The apps with the most downloads in the period, most first.
    pub apps: Vec<(String, u64)>,
}

/// Renders the page.
pub(crate) fn render(site: &Site<'_>, show: &Show<'_>, stats: &PublicStats) -> String {
    let feed = show.feed;
    let lang = show.lang();
    let en = english(lang);
    let urls = site.urls;
    let podcast_page = urls.feed_page(&feed.id);
    let feed_url = show.subscribe_url(urls);
    let title = format!("Statistics · {}", feed.title);
    let total: u64 = stats.months.iter().map(|(_, n)| n).sum();
    let head = document::Head {
        lang,
        title: &title,
        description: "",
        canonical: Some(&urls.feed_stats_page(&feed.id)),
        feed: Some((&feed_url, &feed.title)),
        image: None,
        kind: "website",
        prev: None,
        next: None,
        audio: None,
        linked_data: None,
        player: None,
    };
    let months = BarChart {
        id: "months".into(),
        title: "Downloads per month".into(),
        axis: "Month".into(),
        unit: "downloads".into(),
        bars: stats
            .months
            .iter()
            .map(|(month, n)| (month.strftime("%b %Y").to_string(), *n as f64))
            .collect(),
        layout: Bars::Columns,
    };
    let apps = BarChart {
        id: "apps".into(),
        title: "Apps".into(),
        axis: "App".into(),
        unit: "downloads".into(),
        bars: stats
            .apps
            .iter()
            .map(|(app, n)| (app.clone(), *n as f64))
            .collect(),
        layout: Bars::Rows,
    };
    let body = html! {
        (show_bar(site, show))
        main #main .wrap .below-hero lang=[en] {
            h1 { "Download statistics" }
            p.meta {
                span { (total) " downloads from " (stats.from) " to " (stats.to) " (UTC)" }
            }
            p {
                "Downloads of " a href=(podcast_page) { (feed.title) } "'s episodes, counted by the IAB \
                 Podcast Measurement guidelines (v2.3): a listener's repeated requests count \
                 once, bots not at all. Published by the podcaster; no data about listeners is shown."
            }
            section.card aria-label="Downloads per month" { (months.render()) }
            section.card aria-label="Apps" { (apps.render()) }
        }
        (document::footer(lang, &feed.copyright, Some(&feed_url)))
    };
    document::document(&head, body).into_string()
}
