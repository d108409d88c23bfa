//! The statistics pages as a podcaster reads them: the site's pages of the account and of a
//! podcast (signed in), each chart an SVG that parses as XML on its own and draws something,
//! its table equal to what `GET /api/stats...` answers for the same period; the period picker;
//! and a podcast's public statistics page, there only when its podcaster asks for it.

mod common;

use std::collections::HashMap;

use common::{
    Answer, Browser,
    charts::{drawings, tables},
    history::{self, FIRST, LAST, PASSWORD},
};
use http::{Method, StatusCode, header};
use serde_json::{Value, json};

fn text(answer: &Answer) -> String {
    String::from_utf8_lossy(&answer.raw).into_owned()
}

/// A table's body rows as (first cell, second cell).
fn pairs(table: &[Vec<String>]) -> Vec<(String, String)> {
    table[1..]
        .iter()
        .map(|row| (row[0].clone(), row[1].clone()))
        .collect()
}

/// A report's list as (name, count) pairs, as the tables show them.
fn listed(report: &Value, list: &str, name: &str) -> Vec<(String, String)> {
    report[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item[name].as_str().unwrap().to_string(),
                item["downloads"].to_string(),
            )
        })
        .collect()
}

/// A country as the English pages name it: by CLDR's name, the unknown one "Unknown".
fn country_name(code: &str) -> String {
    match code {
        "ZZ" => "Unknown".to_string(),
        code => podhost_core::Locale::ENGLISH
            .country(code)
            .unwrap_or_else(|| code.to_string()),
    }
}

/// Checks the charts every report has against the report's JSON (countries by their names).
fn assert_audience(page: &HashMap<String, Vec<Vec<String>>>, report: &Value) {
    assert_eq!(pairs(&page["days"]), listed(report, "days", "date"));
    assert_eq!(pairs(&page["apps"]), listed(report, "apps", "app"));
    assert_eq!(
        pairs(&page["platforms"]),
        listed(report, "platforms", "platform")
    );
    let countries: Vec<(String, String)> = listed(report, "countries", "country")
        .into_iter()
        .map(|(code, n)| (country_name(&code), n))
        .collect();
    assert_eq!(pairs(&page["countries"]), countries);
    let hours: Vec<(String, String)> = report["hours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let hour = h["hour"].as_u64().unwrap();
            (format!("{hour:02}:00"), h["downloads"].to_string())
        })
        .collect();
    assert_eq!(pairs(&page["hours"]), hours);
}

async fn signed_in(fx: &common::Fixture) -> Browser {
    let mut browser = Browser::default();
    let answer = browser.sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    browser
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_statistics_pages_draw_the_apis_numbers() {
    let history::History { fx, episodes, .. } = history::history().await;
    let mut browser = signed_in(&fx).await;
    let period = format!("from={FIRST}&to={LAST}");

    // The account's page.
    let page = browser
        .get(&fx.api, &format!("/account/stats?{period}"))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", text(&page));
    let policy = page.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        policy.starts_with("default-src 'none'; style-src 'sha256-") && !policy.contains("script")
    );
    let html = text(&page);
    assert!(!html.contains("<script"), "no script");
    let report = fx.get(&format!("/api/stats?{period}")).await.body["data"].clone();
    let charts = drawings(&html);
    let table = tables(&html);
    for id in [
        "days",
        "podcasts",
        "apps",
        "platforms",
        "countries",
        "hours",
    ] {
        assert!(charts[id] > 0, "{id} draws something: {charts:?}");
        assert!(table[id].len() > 1, "{id} has rows");
    }
    assert_audience(&table, &report);
    // Podcasts by title, most first.
    let titled: Vec<(String, String)> = listed(&report, "feeds", "feed_id")
        .into_iter()
        .map(|(id, n)| {
            let title = history::TITLES.iter().find(|t| t.0 == id).unwrap().1;
            (title.to_string(), n)
        })
        .collect();
    assert_eq!(pairs(&table["podcasts"]), titled);
    assert_eq!(table["days"].len(), 21, "20 days and the header");
    let countries: Vec<&str> = table["countries"][1..]
        .iter()
        .map(|r| r[0].as_str())
        .collect();
    for country in ["United States", "Netherlands", "Japan", "Unknown"] {
        assert!(countries.contains(&country), "{countries:?}");
    }
    assert!(
        html.contains("href=\"/account/stats/podcasts/show?"),
        "links each podcast"
    );

    // The podcast's page: its episodes, and their first days against the median.
    let page = browser
        .get(&fx.api, &format!("/account/stats/podcasts/show?{period}"))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", text(&page));
    let html = text(&page);
    let report = fx
        .get(&format!("/api/stats/feeds/show?{period}"))
        .await
        .body["data"]
        .clone();
    let curves = fx.get("/api/stats/feeds/show/curves").await.body["data"].clone();
    let charts = drawings(&html);
    let table = tables(&html);
    for id in [
        "days",
        "episodes",
        "first-7",
        "first-30",
        "apps",
        "platforms",
        "countries",
        "hours",
    ] {
        assert!(charts[id] > 0, "{id} draws something: {charts:?}");
    }
    assert_audience(&table, &report);
    let title_of: HashMap<&str, &str> = episodes
        .iter()
        .map(|(id, title)| (id.as_str(), title.as_str()))
        .collect();
    let by_title: Vec<(String, String)> = report["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let title = title_of[e["show_id"].as_str().unwrap()];
            (title.to_string(), e["downloads"].to_string())
        })
        .collect();
    assert_eq!(pairs(&table["episodes"]), by_title);
    for (id, days) in [("first-7", 7), ("first-30", 30)] {
        let t = &table[id];
        let curves_episodes = curves["episodes"].as_array().unwrap();
        // Day, the newest episodes (newest first), the median.
        let mut header = vec!["Day".to_string()];
        header.extend(
            curves_episodes
                .iter()
                .map(|e| e["title"].as_str().unwrap().to_string()),
        );
        header.push("Median".into());
        assert_eq!(t[0], header, "{id}");
        assert_eq!(t.len(), days + 1, "{id}");
        for day in 0..days {
            let row = &t[day + 1];
            assert_eq!(row[0], (day + 1).to_string());
            for (k, e) in curves_episodes.iter().enumerate() {
                let expected = match &e["downloads"][day] {
                    Value::Null => "—".to_string(),
                    n => n.to_string(),
                };
                assert_eq!(
                    row[k + 1],
                    expected,
                    "{id} day {} of {}",
                    day + 1,
                    e["title"]
                );
            }
            let median = match curves["median"][day].as_f64() {
                None => "—".to_string(),
                Some(m) if m.fract() == 0.0 => format!("{}", m as i64),
                Some(m) => m.to_string(),
            };
            assert_eq!(
                row.last().unwrap(),
                &median,
                "{id} median of day {}",
                day + 1
            );
        }
    }

    // The period picker: 30 days to today by default, presets ending today, dates checked.
    let page = browser.get(&fx.api, "/account/stats").await;
    let table = tables(&text(&page));
    assert_eq!(table["days"].len(), 31);
    assert_eq!(table["days"][30][0], LAST);
    assert!(text(&page).contains(&format!(
        "href=\"/account/stats?from=2026-03-14&amp;to={LAST}\""
    )));
    for (query, problem) in [
        ("from=yesterday", "must be a day as YYYY-MM-DD"),
        ("from=2026-03-20&to=2026-03-01", "must not be after"),
        ("from=2024-01-01&to=2026-03-20", "at most 366 days"),
    ] {
        let page = browser
            .get(&fx.api, &format!("/account/stats?{query}"))
            .await;
        assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        assert!(text(&page).contains(problem), "{query}: {}", text(&page));
    }

    // Signed out: the sign-in form, coming back here. Not alice's podcast: not found.
    let mut stranger = Browser::default();
    let page = stranger.get(&fx.api, "/account/stats/podcasts/show").await;
    assert_eq!(page.status, StatusCode::OK, "the sign-in form, as /account");
    assert!(text(&page).contains("Sign in to see the statistics."));
    assert!(text(&page).contains("value=\"/account/stats/podcasts/show\""));
    let theirs = fx
        .call(
            Method::POST,
            "/api/feeds",
            &fx.mallory,
            Some(json!({"id": "mallorys", "title": "Mallory's"})),
        )
        .await;
    assert_eq!(theirs.status, StatusCode::CREATED);
    for path in [
        "/account/stats/podcasts/mallorys",
        "/account/stats/podcasts/nobody",
        "/account/stats/campaigns/cmp_unknown",
    ] {
        let page = browser.get(&fx.api, path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
    }

    // In German: the same numbers, the countries by their German names, the words German.
    let page = browser
        .get(&fx.api, &format!("/account/stats?{period}&lang=de"))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let html = text(&page);
    assert!(html.contains("<html lang=\"de\""), "{html}");
    for german in [
        "Downloads pro Tag",
        "Länder",
        "Tageszeit (UTC)",
        "Letzte 30 Tage",
    ] {
        assert!(html.contains(german), "{german} in {html}");
    }
    let table = tables(&html);
    let countries: Vec<&str> = table["countries"][1..]
        .iter()
        .map(|r| r[0].as_str())
        .collect();
    for country in ["Vereinigte Staaten", "Niederlande", "Japan", "Unbekannt"] {
        assert!(countries.contains(&country), "{countries:?}");
    }
    let report = fx.get(&format!("/api/stats?{period}")).await.body["data"].clone();
    assert_eq!(pairs(&table["days"]), listed(&report, "days", "date"));
}

/// A member's session on the site, as `role`, restricted to `feeds` (null: all).
async fn member(fx: &common::Fixture, login: &str, role: &str, feeds: Value) -> Browser {
    let (_, invitation) = fx.invite(login, role, feeds).await;
    let signed_in = fx
        .host
        .access()
        .accept_invitation(
            invitation.rsplit('/').next().unwrap(),
            PASSWORD,
            None,
            "192.0.2.7",
        )
        .await
        .unwrap();
    Browser {
        cookies: vec![("podhost_session".into(), signed_in.cookie)],
        ..Browser::default()
    }
}

/// Members see what their role and podcasts allow: an author no statistics (403), a member
/// restricted to one podcast only that podcast's numbers, the other one not found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_see_the_statistics_of_their_podcasts_only() {
    let history::History { fx, .. } = history::history().await;
    let period = format!("from={FIRST}&to={LAST}");
    let mut author = member(&fx, "ann", "author", Value::Null).await;
    let page = author.get(&fx.api, "/account/stats").await;
    assert_eq!(page.status, StatusCode::FORBIDDEN, "{}", text(&page));
    assert!(text(&page).contains("stats"), "{}", text(&page));
    // The site's menu offers what the role may reach, as the core's table says.
    let statistics_link = "href=\"/account/stats\"";
    let account = author.get(&fx.api, "/account").await;
    assert_eq!(account.status, StatusCode::OK);
    assert!(
        !text(&account).contains(statistics_link),
        "no statistics for an author"
    );
    let mut analyst = member(&fx, "ada", "analyst", Value::Null).await;
    let account = analyst.get(&fx.api, "/account").await;
    assert!(
        text(&account).contains(statistics_link),
        "{}",
        text(&account)
    );

    let mut editor = member(&fx, "eve", "editor", json!(["other"])).await;
    let page = editor
        .get(&fx.api, &format!("/account/stats?{period}"))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", text(&page));
    let table = tables(&text(&page));
    let all = fx
        .get(&format!("/api/stats/feeds/other?{period}"))
        .await
        .body["data"]
        .clone();
    assert_eq!(
        pairs(&table["podcasts"]),
        [("Another Show".to_string(), all["total"].to_string())]
    );
    assert_eq!(pairs(&table["days"]), listed(&all, "days", "date"));
    assert!(
        !text(&page).contains("The Show"),
        "the other podcast is not named"
    );
    let theirs = editor
        .get(&fx.api, &format!("/account/stats/podcasts/show?{period}"))
        .await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND);
    let own = editor
        .get(&fx.api, &format!("/account/stats/podcasts/other?{period}"))
        .await;
    assert_eq!(own.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_statistics_page_only_when_asked_for() {
    let history::History { fx, downloads, .. } = history::history().await;
    let stats_page = "/podcasts/show/stats";
    let get = |path: &'static str| fx.public(Method::GET, path, &[]);
    assert_eq!(get(stats_page).await.status, StatusCode::NOT_FOUND);
    assert!(!text(&get("/podcasts/show").await).contains("/podcasts/show/stats"));

    let set = |fields: Value| {
        let fx = &fx;
        async move {
            let answer = fx
                .call(Method::PUT, "/api/feeds/show", &fx.alice, Some(fields))
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            answer
        }
    };
    let answer = set(json!({"public_stats": true})).await;
    assert_eq!(answer.body["data"]["attributes"]["public_stats"], true);
    let page = get(stats_page).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = text(&page);
    assert!(text(&get("/podcasts/show").await).contains("https://pod.test/podcasts/show/stats"));
    // Downloads per month over the last twelve, this one included; the top apps.
    let report = fx
        .get(&format!("/api/stats/feeds/show?from=2026-03-01&to={LAST}"))
        .await
        .body["data"]
        .clone();
    let table = tables(&html);
    let charts = drawings(&html);
    assert!(charts["months"] > 0 && charts["apps"] > 0, "{charts:?}");
    let mut months: Vec<(String, String)> = [
        "Apr 2025", "May 2025", "Jun 2025", "Jul 2025", "Aug 2025", "Sep 2025", "Oct 2025",
        "Nov 2025", "Dec 2025", "Jan 2026", "Feb 2026",
    ]
    .iter()
    .map(|m| (m.to_string(), "0".to_string()))
    .collect();
    months.push(("Mar 2026".into(), report["total"].to_string()));
    assert_eq!(pairs(&table["months"]), months);
    assert_eq!(pairs(&table["apps"]), listed(&report, "apps", "app"));
    for private in ["ubscriber", "193.0.6", "8.8.8.8"] {
        assert!(
            !html.contains(private),
            "{private} is not on the public page"
        );
    }
    // The page's validators work like the other pages'.
    assert_eq!(
        page.headers[header::CACHE_CONTROL],
        "no-cache",
        "asked again each time"
    );
    let etag = page.headers[header::ETAG].to_str().unwrap().to_string();
    let again = fx
        .public(Method::GET, stats_page, &[("if-none-match", &etag)])
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    // A download is on the page as soon as the report counts it, nothing flushed.
    let status = common::download(
        &fx.api,
        &downloads[2],
        Method::GET,
        "203.0.113.77",
        "AppleCoreMedia/1.0.0.20E252 (iPhone; U; CPU OS 16_4 like Mac OS X; en_us)",
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let total = fx
        .get(&format!("/api/stats/feeds/show?from=2026-03-01&to={LAST}"))
        .await
        .body["data"]["total"]
        .clone();
    assert_eq!(
        total,
        report["total"].as_u64().unwrap() + 1,
        "counted by the report"
    );
    let page = get(stats_page).await;
    let table = tables(&text(&page));
    assert_eq!(
        table["months"].last().map(|row| row[1].clone()),
        Some(total.to_string()),
        "the page counts what the report counts, at once"
    );
    assert_ne!(page.headers[header::ETAG].to_str().unwrap(), etag);

    // A private podcast has none; taken back, the page is gone at once.
    set(json!({"private": true})).await;
    assert_eq!(get(stats_page).await.status, StatusCode::NOT_FOUND);
    set(json!({"private": false})).await;
    assert_eq!(get(stats_page).await.status, StatusCode::OK);
    set(json!({"public_stats": false})).await;
    assert_eq!(get(stats_page).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        get("/podcasts/other/stats").await.status,
        StatusCode::NOT_FOUND
    );
}
