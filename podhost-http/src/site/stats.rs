//! The site's statistics pages, signed in: the account's (`/account/stats`), a podcast's
//! (`/account/stats/podcasts/{feed_id}`) and a campaign's (`/account/stats/campaigns/{id}`).
//! Each chart is drawn on the server by the core's [`chart`](podhost_core::publish::page::chart)
//! with its numbers as a table beside it; the numbers are the API's (the same core calls as
//! `GET /api/stats...`), so the tables equal its JSON. A period picker (presets and two dates)
//! is a plain GET form: nothing needs a script.

use http::{Response, StatusCode};
use jiff::{ToSpan, civil::Date};
use maud::{Markup, html};
use podhost_core::{
    CampaignId, Error, FeedId, Principal,
    publish::page::chart::{BarChart, Bars, Line, LineChart},
    stats::{StatsQuery, StatsReport, curves::Curves},
};

use super::{
    answers::{failure, html},
    paths, views,
    visit::Page,
};
use crate::{context::Api, response::Body};

/// The newest episodes the curve charts draw against the podcast's median.
const CURVE_EPISODES: usize = 5;
/// The picker's preset periods, ending today: days and name.
const PRESETS: [(i32, &str); 4] = [
    (7, "7 days"),
    (30, "30 days"),
    (90, "90 days"),
    (365, "12 months"),
];

/// Who looks at a statistics page, and the request.
pub(super) struct Viewer<'v> {
    /// The signed-in member.
    pub(super) who: &'v Principal,
    /// The request's query (`from`, `to`).
    pub(super) query: &'v str,
    /// Today (UTC), for the picker's presets.
    pub(super) today: Date,
}

/// A statistics page to answer: its status, its title and its `main`.
pub(super) struct Shown {
    pub(super) status: StatusCode,
    pub(super) title: String,
    pub(super) main: Markup,
}

/// Why there is no page: not there (404), or a failure (an error page).
pub(super) enum Refusal {
    NotFound,
    Failed(Error),
}

type Answer = Result<Shown, Refusal>;

/// The period asked for in the query (`from`, `to`: days as `YYYY-MM-DD`; empty: the default).
fn asked_period(query: &str) -> Result<(Option<Date>, Option<Date>), String> {
    let mut period = (None, None);
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "from" => &mut period.0,
            "to" => &mut period.1,
            _ => continue,
        };
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        *slot = Some(
            value
                .parse::<Date>()
                .map_err(|_| format!("{name}: must be a day as YYYY-MM-DD"))?,
        );
    }
    Ok(period)
}

/// The page of a refusal: a period the core refuses (422, with the picker to choose another),
/// a role without statistics (403); not found and failures as they are.
fn refused(viewer: &Viewer<'_>, base: &str, error: Error) -> Answer {
    let problems: Vec<String> = match &error {
        Error::Invalid(fields) => fields
            .fields()
            .iter()
            .flat_map(|(field, messages)| messages.iter().map(move |m| format!("{field}: {m}")))
            .collect(),
        Error::Forbidden { message } => vec![message.clone()],
        Error::NotFound { .. } => return Err(Refusal::NotFound),
        _ => return Err(Refusal::Failed(error)),
    };
    let status = match error {
        Error::Forbidden { .. } => StatusCode::FORBIDDEN,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    Ok(Shown {
        status,
        title: "Statistics".into(),
        main: html! {
            h1 { "Statistics" }
            (views::problems("The statistics cannot be shown.", &problems))
            @if status == StatusCode::UNPROCESSABLE_ENTITY {
                (picker(base, None, viewer.today))
            }
        },
    })
}

/// The period picker: the presets ending today, and two days to choose.
fn picker(base: &str, shown: Option<(Date, Date)>, today: Date) -> Markup {
    let link = |from: Date, to: Date| format!("{base}?from={from}&to={to}");
    html! {
        section.panel aria-label="Period" {
            nav.periods aria-label="Preset periods" {
                @for (days, name) in PRESETS {
                    @let from = today.checked_sub((days - 1).days()).unwrap_or(today);
                    @let current = shown == Some((from, today));
                    a href=(link(from, today)) aria-current=[current.then_some("page")] { "Last " (name) }
                }
            }
            form.periods method="get" action=(base) {
                label { "From " input type="date" name="from" value=[shown.map(|s| s.0.to_string())]; }
                label { "To " input type="date" name="to" value=[shown.map(|s| s.1.to_string())]; }
                button type="submit" { "Show" }
            }
        }
    }
}

/// What a report's period says.
fn summary(report: &StatsReport) -> Markup {
    html! {
        p.muted {
            strong { (report.total) } " downloads from " (report.from) " to " (report.to)
            " (UTC days), counted by the IAB Podcast Measurement guidelines v2.3."
        }
    }
}

/// Downloads on each day of the period.
fn per_day(report: &StatsReport) -> LineChart {
    LineChart {
        id: "days".into(),
        title: "Downloads per day".into(),
        axis: "Day".into(),
        points: report.days.iter().map(|d| d.of.to_string()).collect(),
        ticks: Some(
            report
                .days
                .iter()
                .map(|d| d.of.strftime("%b %-d").to_string())
                .collect(),
        ),
        unit: "downloads".into(),
        lines: vec![Line {
            name: "Downloads".into(),
            values: report
                .days
                .iter()
                .map(|d| Some(d.downloads as f64))
                .collect(),
            reference: false,
        }],
    }
}

/// Ranked rows: apps, devices, countries, podcasts, episodes.
fn ranked(id: &str, title: &str, axis: &str, unit: &str, bars: Vec<(String, u64)>) -> BarChart {
    BarChart {
        id: id.into(),
        title: title.into(),
        axis: axis.into(),
        unit: unit.into(),
        bars: bars.into_iter().map(|(n, v)| (n, v as f64)).collect(),
        layout: Bars::Rows,
    }
}

/// The charts every report has: apps, devices, countries, hours of the day.
fn audience(report: &StatsReport) -> Markup {
    let apps = ranked(
        "apps",
        "Apps",
        "App",
        "downloads",
        report
            .apps
            .iter()
            .map(|a| (a.of.clone(), a.downloads))
            .collect(),
    );
    let platforms = ranked(
        "platforms",
        "Platforms",
        "Platform",
        "downloads",
        report
            .platforms
            .iter()
            .map(|p| (p.of.clone(), p.downloads))
            .collect(),
    );
    let countries = ranked(
        "countries",
        "Countries",
        "Country",
        "downloads",
        report
            .countries
            .iter()
            .map(|c| (c.of.clone(), c.downloads))
            .collect(),
    );
    let hours = BarChart {
        id: "hours".into(),
        title: "Hour of day (UTC)".into(),
        axis: "Hour".into(),
        unit: "downloads".into(),
        bars: report
            .hours
            .iter()
            .enumerate()
            .map(|(h, n)| (format!("{h:02}:00"), *n as f64))
            .collect(),
        layout: Bars::Columns,
    };
    html! {
        section.panel { (apps.render()) }
        section.panel { (platforms.render()) }
        section.panel { (countries.render()) }
        section.panel { (hours.render()) }
    }
}

/// `GET /account/stats`: every podcast the member sees.
pub(super) async fn account(api: &Api, viewer: &Viewer<'_>) -> Answer {
    let base = paths::STATS;
    let (from, to) = match asked_period(viewer.query) {
        Ok(period) => period,
        Err(problem) => {
            return refused(viewer, base, Error::invalid("period", problem));
        }
    };
    let query = StatsQuery {
        from,
        to,
        ..Default::default()
    };
    let report = match api
        .host
        .analytics()
        .download_stats(viewer.who, &query)
        .await
    {
        Ok(report) => report,
        Err(e) => return refused(viewer, base, e),
    };
    let names = api
        .host
        .analytics()
        .stats_names(viewer.who, None)
        .await
        .map_err(Refusal::Failed)?;
    let campaigns = match api.host.ads().list_campaigns(viewer.who).await {
        Ok(campaigns) => campaigns,
        Err(Error::Forbidden { .. }) => Vec::new(),
        Err(e) => return Err(Refusal::Failed(e)),
    };
    let title = |id: &FeedId| {
        names
            .feeds
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    };
    let podcasts = ranked(
        "podcasts",
        "Podcasts",
        "Podcast",
        "downloads",
        report
            .feeds
            .iter()
            .map(|f| (title(&f.of), f.downloads))
            .collect(),
    );
    let mut listed: Vec<(&FeedId, &String)> = names.feeds.iter().collect();
    listed.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(b.0)));
    let main = html! {
        h1 { "Statistics" }
        (summary(&report))
        (picker(base, Some((report.from, report.to)), viewer.today))
        section.panel { (per_day(&report).render()) }
        section.panel { (podcasts.render()) }
        (audience(&report))
        section.panel aria-labelledby="each-podcast" {
            h2 #each-podcast { "Each podcast" }
            @if listed.is_empty() {
                p.muted { "No podcasts yet." }
            } @else {
                ul {
                    @for (id, name) in &listed {
                        li { a href=(format!("{}?from={}&to={}", paths::podcast_stats(id.as_str()), report.from, report.to)) { (name) } }
                    }
                }
            }
        }
        @if !campaigns.is_empty() {
            section.panel aria-labelledby="campaigns" {
                h2 #campaigns { "Campaigns" }
                ul {
                    @for c in &campaigns {
                        li {
                            a href=(paths::campaign_stats(c.campaign.id.as_str())) { (c.campaign.name) }
                            span.muted { " · " (c.impressions) " impressions" }
                        }
                    }
                }
            }
        }
    };
    Ok(Shown {
        status: StatusCode::OK,
        title: "Statistics".into(),
        main,
    })
}

/// The curves of the newest episodes over their first `days` days, against the median.
fn curves_chart(id: &str, curves: &Curves, days: usize) -> LineChart {
    let mut lines: Vec<Line> = curves
        .episodes
        .iter()
        .take(CURVE_EPISODES)
        .map(|e| Line {
            name: e.title.clone(),
            values: (0..days)
                .map(|d| e.downloads.get(d).map(|n| *n as f64))
                .collect(),
            reference: false,
        })
        .collect();
    lines.push(Line {
        name: "Median".into(),
        values: curves.median.iter().take(days).copied().collect(),
        reference: true,
    });
    LineChart {
        id: id.into(),
        title: format!("Episodes' first {days} days against the median"),
        axis: "Day".into(),
        points: (1..=days).map(|d| d.to_string()).collect(),
        ticks: None,
        unit: "downloads".into(),
        lines,
    }
}

/// `GET /account/stats/podcasts/{feed_id}`: one podcast, its episodes and their curves.
pub(super) async fn podcast(api: &Api, viewer: &Viewer<'_>, feed: &FeedId) -> Answer {
    let base = paths::podcast_stats(feed.as_str());
    let (from, to) = match asked_period(viewer.query) {
        Ok(period) => period,
        Err(problem) => {
            return refused(viewer, &base, Error::invalid("period", problem));
        }
    };
    let query = StatsQuery {
        feed: Some(feed.clone()),
        episode: None,
        from,
        to,
    };
    let report = match api
        .host
        .analytics()
        .download_stats(viewer.who, &query)
        .await
    {
        Ok(report) => report,
        Err(e) => return refused(viewer, &base, e),
    };
    let curves = match api.host.analytics().episode_curves(viewer.who, feed).await {
        Ok(curves) => Some(curves),
        // A deleted podcast keeps its counts, not its episodes.
        Err(Error::NotFound { .. }) => None,
        Err(e) => return refused(viewer, &base, e),
    };
    let names = api
        .host
        .analytics()
        .stats_names(viewer.who, Some(feed))
        .await
        .map_err(Refusal::Failed)?;
    let name = names
        .feeds
        .get(feed)
        .cloned()
        .unwrap_or_else(|| feed.to_string());
    let episodes = ranked(
        "episodes",
        "Episodes",
        "Episode",
        "downloads",
        report
            .episodes
            .iter()
            .map(|e| {
                let (_, episode) = &e.of;
                let title = names.episodes.get(episode).cloned();
                (title.unwrap_or_else(|| episode.to_string()), e.downloads)
            })
            .collect(),
    );
    let main = html! {
        p.muted { a href=(paths::STATS) { "Statistics" } " › " (name) }
        h1 { (name) }
        (summary(&report))
        (picker(&base, Some((report.from, report.to)), viewer.today))
        section.panel { (per_day(&report).render()) }
        section.panel { (episodes.render()) }
        @if let Some(curves) = &curves {
            section.panel aria-labelledby="curves" {
                h2 #curves { "Episodes at the same age" }
                p.muted {
                    "The newest episodes' downloads on each day after publication (day 1: their first 24 hours), \
                     against the median of the podcast's episodes of the last year that lived that day. \
                     Not bound to the period above."
                }
                @if curves.episodes.is_empty() {
                    p.muted { "No episode was published in the last year." }
                } @else {
                    (curves_chart("first-7", curves, 7).render())
                    (curves_chart("first-30", curves, podhost_core::stats::curves::CURVE_DAYS).render())
                }
            }
        }
        (audience(&report))
    };
    Ok(Shown {
        status: StatusCode::OK,
        title: name,
        main,
    })
}

/// `GET /account/stats/campaigns/{campaign_id}`: a campaign's impressions per day and episode.
pub(super) async fn campaign(api: &Api, viewer: &Viewer<'_>, id: &CampaignId) -> Answer {
    let base = paths::campaign_stats(id.as_str());
    let (view, stats) = match api.host.ads().get_campaign(viewer.who, id).await {
        Ok(view) => match api.host.ads().campaign_stats(viewer.who, id).await {
            Ok(stats) => (view, stats),
            Err(e) => return refused(viewer, &base, e),
        },
        Err(e) => return refused(viewer, &base, e),
    };
    // The episodes' titles, podcast by podcast.
    let mut titles = std::collections::HashMap::new();
    let mut feeds: Vec<&FeedId> = stats.episodes.iter().map(|e| &e.feed_id).collect();
    feeds.sort();
    feeds.dedup();
    for feed in feeds {
        if let Ok(names) = api
            .host
            .analytics()
            .stats_names(viewer.who, Some(feed))
            .await
        {
            let podcast = names.feeds.get(feed).cloned().unwrap_or_default();
            for (episode, title) in names.episodes {
                titles.insert((feed.clone(), episode), format!("{title} ({podcast})"));
            }
        }
    }
    let days = LineChart {
        id: "impressions".into(),
        title: "Impressions per day".into(),
        axis: "Day".into(),
        points: stats.days.iter().map(|d| d.date.to_string()).collect(),
        ticks: Some(
            stats
                .days
                .iter()
                .map(|d| d.date.strftime("%b %-d").to_string())
                .collect(),
        ),
        unit: "impressions".into(),
        lines: vec![Line {
            name: "Impressions".into(),
            values: stats
                .days
                .iter()
                .map(|d| Some(d.impressions as f64))
                .collect(),
            reference: false,
        }],
    };
    let episodes = ranked(
        "episodes",
        "Episodes",
        "Episode",
        "impressions",
        stats
            .episodes
            .iter()
            .map(|e| {
                let key = (e.feed_id.clone(), e.episode_id);
                let title = titles
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| format!("{} / {}", e.feed_id, e.episode_id));
                (title, e.impressions)
            })
            .collect(),
    );
    let c = &view.campaign;
    let main = html! {
        p.muted { a href=(paths::STATS) { "Statistics" } " › " (c.name) }
        h1 { (c.name) }
        p.muted {
            strong { (stats.impressions) } " impressions since it was created ("
            (c.created.strftime("%Y-%m-%d")) "), counted by the IAB guidelines v2.3: every byte of the ad reached the listener."
        }
        section.panel { (days.render()) }
        section.panel { (episodes.render()) }
    };
    Ok(Shown {
        status: StatusCode::OK,
        title: c.name.clone(),
        main,
    })
}

impl super::visit::Visit<'_> {
    /// The viewer of a statistics page, or (signed out) the sign-in form that comes back to it,
    /// answered 200 as `/account` answers it.
    pub(super) fn stats_viewer(&self) -> Result<Viewer<'_>, Response<Body>> {
        let Some((who, _)) = &self.session else {
            let here = self
                .parts
                .uri
                .path_and_query()
                .map_or(paths::STATS, |p| p.as_str());
            return Err(self.sign_in_page(
                StatusCode::OK,
                here,
                "",
                Some("Sign in to see the statistics."),
            ));
        };
        Ok(Viewer {
            who,
            query: self.parts.uri.query().unwrap_or(""),
            today: self.api.host.now().to_zoned(jiff::tz::TimeZone::UTC).date(),
        })
    }

    /// A statistics page in the site's layout, or why there is none.
    pub(super) fn stats_page(&self, viewer: &Viewer<'_>, shown: Result<Shown, Refusal>) -> Page {
        let csrf = self.session.as_ref().map(|(_, s)| s.csrf.as_str());
        match shown {
            Ok(shown) => Ok(html(
                shown.status,
                views::page(
                    &format!("{} · podhost", shown.title),
                    Some((viewer.who.account().as_str(), views::Menu::of(viewer.who))),
                    csrf,
                    shown.main,
                ),
                &[],
            )),
            Err(Refusal::NotFound) => Err(self.not_found()),
            Err(Refusal::Failed(e)) => Err(failure(&e)),
        }
    }
}
