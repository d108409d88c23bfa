//! The site's statistics pages, signed in: the account's (`/account/stats`), a podcast's
//! (`/account/stats/podcasts/{feed_id}`) and a campaign's (`/account/stats/campaigns/{id}`).
//! Each chart is drawn on the server by the core's [`chart`](podhost_core::publish::page::chart)
//! with its numbers as a table beside it; the numbers are the API's (the same core calls as
//! `GET /api/stats...`), so the tables equal its JSON. A period picker (presets and two dates)
//! is a plain GET form: nothing needs a script.

use http::{Response, StatusCode};
use jiff::{Timestamp, ToSpan, civil::Date, tz::TimeZone};
use maud::{Markup, html};
use podhost_core::{
    CampaignId, Error, FeedId, Principal,
    publish::page::chart::{BarChart, Bars, Line, LineChart},
    stats::{StatsQuery, StatsReport, curves::Curves, geo::UNKNOWN_COUNTRY},
};

use super::{paths, views, visit::Page, words::Words};
use crate::{context::Api, response::Body};

/// The newest episodes the curve charts draw against the podcast's median.
const CURVE_EPISODES: usize = 5;

/// A preset period of the picker, ending today.
enum Preset {
    Days(i32),
    Months(i32),
}

/// The picker's preset periods.
const PRESETS: [Preset; 4] = [
    Preset::Days(7),
    Preset::Days(30),
    Preset::Days(90),
    Preset::Months(12),
];

impl Preset {
    /// How many days it spans (a year's months: 365 days).
    fn days(&self) -> i32 {
        match self {
            Preset::Days(days) => *days,
            Preset::Months(months) => months * 365 / 12,
        }
    }

    fn name(&self, w: &Words) -> String {
        match self {
            Preset::Days(days) => w.text_with("site-stats-last-days", &[("days", (*days).into())]),
            Preset::Months(months) => {
                w.text_with("site-stats-last-months", &[("months", (*months).into())])
            }
        }
    }
}

/// A day as the language writes it in full ("March 14, 2026", "14. März 2026").
fn long_day(w: &Words, day: Date) -> String {
    day.to_zoned(TimeZone::UTC)
        .map(|at| w.locale().date(at.timestamp(), &TimeZone::UTC).0)
        .unwrap_or_else(|_| day.to_string())
}

/// A moment's day (UTC) as the language writes it in full.
fn long_day_of(w: &Words, at: Timestamp) -> String {
    w.locale().date(at, &TimeZone::UTC).0
}

/// A day as the language writes it under a chart's axis ("Mar 14", "14. März").
fn tick(w: &Words, day: Date) -> String {
    let month = w.text(&format!("site-month-{}", day.month()));
    w.text_with(
        "site-stats-day-tick",
        &[
            ("month", month.into()),
            ("day", i32::from(day.day()).into()),
        ],
    )
}

/// A country by its name in the language; its code when CLDR has no name for it.
fn country(w: &Words, code: &str) -> String {
    if code == UNKNOWN_COUNTRY {
        return w.text("site-stats-country-unknown");
    }
    w.locale().country(code).unwrap_or_else(|| code.to_string())
}

/// Who looks at a statistics page, and the request.
pub(super) struct Viewer<'v> {
    /// The signed-in member.
    pub(super) who: &'v Principal,
    /// The language of the page.
    pub(super) words: &'v Words,
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
fn asked_period(w: &Words, query: &str) -> Result<(Option<Date>, Option<Date>), String> {
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
        *slot =
            Some(value.parse::<Date>().map_err(|_| {
                w.text_with("site-stats-bad-day", &[("field", name.as_ref().into())])
            })?);
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
    let w = viewer.words;
    let statistics = w.text("site-statistics");
    Ok(Shown {
        status,
        main: html! {
            h1 { (statistics) }
            (views::problems(&w.text("site-stats-not-shown"), &problems))
            @if status == StatusCode::UNPROCESSABLE_ENTITY {
                (picker(w, base, None, viewer.today))
            }
        },
        title: statistics,
    })
}

/// The period picker: the presets ending today, and two days to choose.
fn picker(w: &Words, base: &str, shown: Option<(Date, Date)>, today: Date) -> Markup {
    let link = |from: Date, to: Date| format!("{base}?from={from}&to={to}");
    html! {
        section.panel aria-label=(w.text("site-stats-period")) {
            nav.periods aria-label=(w.text("site-stats-presets")) {
                @for preset in &PRESETS {
                    @let from = today.checked_sub((preset.days() - 1).days()).unwrap_or(today);
                    @let current = shown == Some((from, today));
                    a href=(link(from, today)) aria-current=[current.then_some("page")] { (preset.name(w)) }
                }
            }
            form.periods method="get" action=(base) {
                label { (w.text("site-stats-from")) " " input type="date" name="from" value=[shown.map(|s| s.0.to_string())]; }
                label { (w.text("site-stats-to")) " " input type="date" name="to" value=[shown.map(|s| s.1.to_string())]; }
                button type="submit" { (w.text("site-stats-show")) }
            }
        }
    }
}

/// What a report's period says.
fn summary(w: &Words, report: &StatsReport) -> Markup {
    html! {
        p.muted {
            (w.rich(
                "site-stats-summary",
                &[
                    ("total", report.total.into()),
                    ("from", long_day(w, report.from).into()),
                    ("to", long_day(w, report.to).into()),
                ],
                &[("shown", html! { strong { (w.locale().number(report.total)) } })],
            ))
        }
    }
}

/// A period without a download, said once (instead of a chart and an empty table each).
fn nothing_counted(w: &Words) -> Markup {
    html! { p.panel.empty role="status" { (w.text("site-stats-nothing-counted")) } }
}

/// Downloads on each day of the period.
fn per_day(w: &Words, report: &StatsReport) -> LineChart {
    LineChart {
        id: "days".into(),
        title: w.text("site-stats-downloads-per-day"),
        axis: w.text("site-stats-day"),
        points: report.days.iter().map(|d| d.of.to_string()).collect(),
        ticks: Some(report.days.iter().map(|d| tick(w, d.of)).collect()),
        unit: w.text("site-stats-downloads-unit"),
        lines: vec![Line {
            name: w.text("site-stats-downloads"),
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
fn audience(w: &Words, report: &StatsReport) -> Markup {
    let unit = w.text("site-stats-downloads-unit");
    let apps = ranked(
        "apps",
        &w.text("site-stats-apps"),
        &w.text("site-stats-app"),
        &unit,
        report
            .apps
            .iter()
            .map(|a| (a.of.clone(), a.downloads))
            .collect(),
    );
    let platforms = ranked(
        "platforms",
        &w.text("site-stats-platforms"),
        &w.text("site-stats-platform"),
        &unit,
        report
            .platforms
            .iter()
            .map(|p| (p.of.clone(), p.downloads))
            .collect(),
    );
    let countries = ranked(
        "countries",
        &w.text("site-stats-countries"),
        &w.text("site-stats-country"),
        &unit,
        report
            .countries
            .iter()
            .map(|c| (country(w, &c.of), c.downloads))
            .collect(),
    );
    let hours = BarChart {
        id: "hours".into(),
        title: w.text("site-stats-hours"),
        axis: w.text("site-stats-hour"),
        unit: unit.clone(),
        bars: report
            .hours
            .iter()
            .enumerate()
            .map(|(h, n)| (format!("{h:02}:00"), *n as f64))
            .collect(),
        layout: Bars::Columns,
    };
    html! {
        section.panel { (apps.render(w.locale())) }
        section.panel { (platforms.render(w.locale())) }
        section.panel { (countries.render(w.locale())) }
        section.panel { (hours.render(w.locale())) }
    }
}

/// `GET /account/stats`: every podcast the member sees.
pub(super) async fn account(api: &Api, viewer: &Viewer<'_>) -> Answer {
    let w = viewer.words;
    let base = paths::STATS;
    let (from, to) = match asked_period(w, viewer.query) {
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
        &w.text("site-podcasts"),
        &w.text("site-stats-podcast"),
        &w.text("site-stats-downloads-unit"),
        report
            .feeds
            .iter()
            .map(|f| (title(&f.of), f.downloads))
            .collect(),
    );
    let mut listed: Vec<(&FeedId, &String)> = names.feeds.iter().collect();
    listed.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(b.0)));
    let statistics = w.text("site-statistics");
    let main = html! {
        h1 { (statistics) }
        (summary(w, &report))
        (picker(w, base, Some((report.from, report.to)), viewer.today))
        @if report.total == 0 {
            (nothing_counted(w))
        } @else {
            section.panel { (per_day(w, &report).render(w.locale())) }
            section.panel { (podcasts.render(w.locale())) }
            (audience(w, &report))
        }
        section.panel aria-labelledby="each-podcast" {
            h2 #each-podcast { (w.text("site-stats-each-podcast")) }
            @if listed.is_empty() {
                p.muted { (w.text("site-stats-no-podcasts")) }
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
                h2 #campaigns { (w.text("site-stats-campaigns")) }
                ul {
                    @for c in &campaigns {
                        li {
                            a href=(paths::campaign_stats(c.campaign.id.as_str())) { (c.campaign.name) }
                            span.muted { " · " (w.text_with("site-stats-impressions-count", &[("count", c.impressions.into())])) }
                        }
                    }
                }
            }
        }
    };
    Ok(Shown {
        status: StatusCode::OK,
        title: statistics,
        main,
    })
}

/// The curves of the newest episodes over their first `days` days, against the median.
fn curves_chart(w: &Words, id: &str, curves: &Curves, days: usize) -> LineChart {
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
        name: w.text("site-stats-median"),
        values: curves.median.iter().take(days).copied().collect(),
        reference: true,
    });
    LineChart {
        id: id.into(),
        title: w.text_with("site-stats-first-days", &[("days", days.into())]),
        axis: w.text("site-stats-day"),
        points: (1..=days).map(|d| d.to_string()).collect(),
        ticks: None,
        unit: w.text("site-stats-downloads-unit"),
        lines,
    }
}

/// `GET /account/stats/podcasts/{feed_id}`: one podcast, its episodes and their curves.
pub(super) async fn podcast(api: &Api, viewer: &Viewer<'_>, feed: &FeedId) -> Answer {
    let w = viewer.words;
    let base = paths::podcast_stats(feed.as_str());
    let (from, to) = match asked_period(w, viewer.query) {
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
        &w.text("site-stats-episodes"),
        &w.text("site-stats-episode"),
        &w.text("site-stats-downloads-unit"),
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
        p.muted { a href=(paths::STATS) { (w.text("site-statistics")) } " › " (name) }
        h1 { (name) }
        (summary(w, &report))
        (picker(w, &base, Some((report.from, report.to)), viewer.today))
        @if report.total == 0 {
            (nothing_counted(w))
        } @else {
            section.panel { (per_day(w, &report).render(w.locale())) }
            section.panel { (episodes.render(w.locale())) }
        }
        @if let Some(curves) = &curves {
            section.panel aria-labelledby="curves" {
                h2 #curves { (w.text("site-stats-curves")) }
                p.muted { (w.text("site-stats-curves-help")) }
                @if curves.episodes.is_empty() {
                    p.muted { (w.text("site-stats-no-recent-episode")) }
                } @else {
                    (curves_chart(w, "first-7", curves, 7).render(w.locale()))
                    (curves_chart(w, "first-30", curves, podhost_core::stats::curves::CURVE_DAYS).render(w.locale()))
                }
            }
        }
        @if report.total > 0 {
            (audience(w, &report))
        }
    };
    Ok(Shown {
        status: StatusCode::OK,
        title: name,
        main,
    })
}

/// `GET /account/stats/campaigns/{campaign_id}`: a campaign's impressions per day and episode.
pub(super) async fn campaign(api: &Api, viewer: &Viewer<'_>, id: &CampaignId) -> Answer {
    let w = viewer.words;
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
                let shown = w.text_with(
                    "site-stats-episode-of",
                    &[("episode", title.into()), ("podcast", (&podcast).into())],
                );
                titles.insert((feed.clone(), episode), shown);
            }
        }
    }
    let days = LineChart {
        id: "impressions".into(),
        title: w.text("site-stats-impressions-per-day"),
        axis: w.text("site-stats-day"),
        points: stats.days.iter().map(|d| d.date.to_string()).collect(),
        ticks: Some(stats.days.iter().map(|d| tick(w, d.date)).collect()),
        unit: w.text("site-stats-impressions-unit"),
        lines: vec![Line {
            name: w.text("site-stats-impressions"),
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
        &w.text("site-stats-episodes"),
        &w.text("site-stats-episode"),
        &w.text("site-stats-impressions-unit"),
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
        p.muted { a href=(paths::STATS) { (w.text("site-statistics")) } " › " (c.name) }
        h1 { (c.name) }
        p.muted {
            (w.rich(
                "site-stats-campaign-summary",
                &[
                    ("count", stats.impressions.into()),
                    ("created", long_day_of(w, c.created).into()),
                ],
                &[("shown", html! { strong { (w.locale().number(stats.impressions)) } })],
            ))
        }
        @if stats.impressions == 0 {
            p.panel.empty role="status" { (w.text("site-stats-no-impressions")) }
        } @else {
            section.panel { (days.render(w.locale())) }
            section.panel { (episodes.render(w.locale())) }
        }
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
                Some(&self.text("site-stats-sign-in")),
            ));
        };
        Ok(Viewer {
            who,
            words: &self.words,
            query: self.parts.uri.query().unwrap_or(""),
            today: self.api.host.now().to_zoned(jiff::tz::TimeZone::UTC).date(),
        })
    }

    /// A statistics page in the site's layout, or why there is none.
    pub(super) fn stats_page(&self, viewer: &Viewer<'_>, shown: Result<Shown, Refusal>) -> Page {
        let csrf = self.session.as_ref().map(|(_, s)| s.csrf.as_str());
        match shown {
            Ok(shown) => Ok(self.html(
                shown.status,
                views::page(
                    &self.words,
                    &views::title(&shown.title),
                    self.session
                        .as_ref()
                        .map(|(_, session)| views::SignedIn::of(viewer.who, session)),
                    csrf,
                    shown.main,
                ),
                &[],
            )),
            Err(Refusal::NotFound) => Err(self.not_found()),
            Err(Refusal::Failed(e)) => Err(self.failure(&e)),
        }
    }
}
