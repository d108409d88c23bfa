//! A podcast's public statistics page (`/podcasts/{feed_id}/stats`), published only when its
//! podcaster asked for it (`public_stats`): downloads per month and the apps listeners use,
//! drawn as [`chart`]s, like OP3's show pages. Nothing about subscribers or listeners.

use jiff::civil::Date;
use maud::html;

use super::{
    Show, Site,
    chart::{BarChart, Bars},
    document, show_bar,
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
    let locale = site.locale;
    let en = locale.mark(lang);
    let urls = site.urls;
    let podcast_page = urls.feed_page(&feed.id);
    let feed_url = show.subscribe_url(urls);
    let title = format!("{} · {}", locale.text("statistics"), feed.title);
    let here = urls.feed_stats_page(&feed.id);
    let total: u64 = stats.months.iter().map(|(_, n)| n).sum();
    let head = document::Head {
        lang,
        locale,
        title: &title,
        description: "",
        canonical: Some(&here),
        feed: Some((&feed_url, &feed.title)),
        image: None,
        kind: "website",
        prev: None,
        next: None,
        audio: None,
        linked_data: None,
        player: None,
    };
    let unit = locale.text("chart-unit-downloads");
    let months = BarChart {
        id: "months".into(),
        title: locale.text("downloads-per-month"),
        axis: locale.text("chart-axis-month"),
        unit: unit.clone(),
        bars: stats
            .months
            .iter()
            .map(|(month, n)| (locale.month(*month), *n as f64))
            .collect(),
        layout: Bars::Columns,
    };
    let apps = BarChart {
        id: "apps".into(),
        title: locale.text("apps"),
        axis: locale.text("chart-axis-app"),
        unit,
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
            h1 { (locale.text("download-statistics")) }
            p.meta {
                span { (locale.text_with("stats-period", &[
                    ("count", total.into()),
                    ("from", locale.day(stats.from).into()),
                    ("to", locale.day(stats.to).into()),
                ])) }
            }
            p {
                (locale.text("stats-downloads-of")) " " a href=(podcast_page) lang=(lang) { (feed.title) } (locale.text("stats-counted-how"))
            }
            section.card aria-label=(months.title) { (months.render(locale)) }
            section.card aria-label=(apps.title) { (apps.render(locale)) }
        }
        (document::footer(locale, lang, &feed.copyright, Some(&feed_url), Some(&here)))
    };
    document::document(&head, body).into_string()
}
