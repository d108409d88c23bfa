//! Download statistics, end to end: downloads of the public enclosure URL, counted by the IAB
//! rules (docs/features.md, "Download statistics"), read back at `GET /api/stats/...`.

mod common;

use bytes::Bytes;
use common::{Fixture, download};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use jiff::{SignedDuration, Timestamp};
use podhost_http::{Api, HttpConfig};
use serde_json::{Value, json};

const APPLE: &str = "Podcasts/1410.53 CFNetwork/1111 Darwin/19.0.0 (x86_64)";
const SPOTIFY: &str = "Spotify/8.7.10 iOS/15.3.1 (iPhone13,2)";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const WATCH: &str = "atc/1.0 watchOS/7.0.2 model/Watch5,10 hwp/t8006 build/18R402 (6; dt:233)";
/// 10:00 UTC on the first day of the tests.
const MORNING: &str = "2026-01-01T10:00:00Z";
/// The test audio: 120 s of 16-bit mono at 8 kHz, so one minute is half the file.
const SECONDS: f64 = 120.0;
const MINUTE_BYTES: u64 = 960_000;

struct Podcast {
    fx: Fixture,
    /// The enclosure's path on this server.
    enclosure: String,
    episode: String,
}

async fn podcast() -> Podcast {
    podcast_on(
        Fixture::with_config(HttpConfig {
            trust_forwarded_for: true,
            ..HttpConfig::default()
        })
        .await,
    )
    .await
}

/// The podcast `show` on `fx`: one episode "One" of a 120 s file, published 2025-12-01; the
/// clock at `MORNING`.
async fn podcast_on(fx: Fixture) -> Podcast {
    fx.clock.set(MORNING.parse().unwrap());
    let audio = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[(
                "media",
                "talk.wav",
                podhost_testkit::fixtures::wav(SECONDS, 8000),
            )],
        )
        .await;
    assert_eq!(audio.status, StatusCode::CREATED, "{}", audio.body);
    let enclosure = path_of(audio.body["url"].as_str().unwrap());
    let media = audio.body["id"].as_u64().unwrap().to_string();
    fx.feed("show").await;
    let episode = fx
        .episode(
            "show",
            &[
                ("title", "One"),
                ("is_public", "1"),
                ("publishing_date", "2025-12-01"),
                ("show_media", &media),
            ],
        )
        .await;
    Podcast {
        fx,
        enclosure,
        episode,
    }
}

fn path_of(url: &str) -> String {
    url.strip_prefix(podhost_testkit::TEST_PUBLIC_URL)
        .unwrap()
        .to_string()
}

async fn stats(fx: &Fixture, path: &str) -> Value {
    let answer = fx.get(path).await;
    assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.body);
    answer.body["data"].clone()
}

/// One download in a case: minutes after `MORNING`, client, agent, method, `Range`.
type Hit = (
    i64,
    &'static str,
    &'static str,
    Method,
    Option<&'static str>,
);

fn get(minutes: i64, ip: &'static str, agent: &'static str) -> Hit {
    (minutes, ip, agent, Method::GET, None)
}

fn ranged(minutes: i64, ip: &'static str, range: &'static str) -> Hit {
    (minutes, ip, APPLE, Method::GET, Some(range))
}

const DAY: i64 = 24 * 60;
/// 23:50 on the first day.
const BEFORE_MIDNIGHT: i64 = 13 * 60 + 50;

#[tokio::test]
async fn the_counting_rules() {
    let half = "bytes=0-479999";
    let cases: Vec<(&str, Vec<Hit>, u64)> = vec![
        ("one whole download", vec![get(0, "203.0.113.7", APPLE)], 1),
        (
            "the same listener again the same day",
            vec![get(0, "203.0.113.7", APPLE), get(120, "203.0.113.7", APPLE)],
            1,
        ),
        (
            "two addresses",
            vec![get(0, "203.0.113.7", APPLE), get(0, "203.0.113.8", APPLE)],
            2,
        ),
        (
            "two apps behind one address",
            vec![get(0, "203.0.113.7", APPLE), get(0, "203.0.113.7", SPOTIFY)],
            2,
        ),
        ("a bot", vec![get(0, "203.0.113.7", GOOGLEBOT)], 0),
        (
            "an Apple Watch's own download, which duplicates the phone's (v2.3)",
            vec![get(0, "203.0.113.7", WATCH)],
            0,
        ),
        (
            "two IPv6 addresses of one /64 are one listener (v2.3)",
            vec![
                get(0, "2001:db8:1:2::a", APPLE),
                get(5, "2001:db8:1:2:ffff:1:2:3", APPLE),
            ],
            1,
        ),
        (
            "two /64s are two listeners",
            vec![
                get(0, "2001:db8:1:2::a", APPLE),
                get(5, "2001:db8:1:3::a", APPLE),
            ],
            2,
        ),
        (
            "an IPv4 address written inside IPv6 is that IPv4 address",
            vec![
                get(0, "203.0.113.7", APPLE),
                get(5, "::ffff:203.0.113.7", APPLE),
            ],
            1,
        ),
        (
            "a bytes=0-1 probe alone",
            vec![ranged(0, "203.0.113.7", "bytes=0-1")],
            0,
        ),
        (
            "a probe, then the file",
            vec![
                ranged(0, "203.0.113.7", "bytes=0-1"),
                get(1, "203.0.113.7", APPLE),
            ],
            1,
        ),
        (
            "exactly a minute of audio (1,920,044 bytes for 120 s: 960,022)",
            vec![ranged(0, "203.0.113.7", "bytes=0-960021")],
            1,
        ),
        (
            "a byte short of a minute",
            vec![ranged(0, "203.0.113.7", "bytes=0-960020")],
            0,
        ),
        (
            "a probe's two bytes do not count toward the minute",
            vec![
                ranged(0, "203.0.113.7", "bytes=0-1"),
                ranged(1, "203.0.113.7", "bytes=2-960021"),
            ],
            0,
        ),
        (
            "half a minute of audio",
            vec![ranged(0, "203.0.113.7", half)],
            0,
        ),
        (
            "ranges summed to a minute",
            vec![
                ranged(0, "203.0.113.7", "bytes=0-479999"),
                ranged(1, "203.0.113.7", "bytes=480000-959999"),
                ranged(2, "203.0.113.7", "bytes=960000-1000000"),
            ],
            1,
        ),
        (
            "HEAD only",
            vec![(0, "203.0.113.7", APPLE, Method::HEAD, None)],
            0,
        ),
        (
            "across midnight, within 24 hours",
            vec![
                get(BEFORE_MIDNIGHT, "203.0.113.7", APPLE),
                get(BEFORE_MIDNIGHT + 20, "203.0.113.7", APPLE),
            ],
            1,
        ),
        (
            "again after 24 hours",
            vec![
                get(0, "203.0.113.7", APPLE),
                get(DAY + 1, "203.0.113.7", APPLE),
            ],
            2,
        ),
    ];
    for (name, hits, expected) in cases {
        let p = podcast().await;
        let start: Timestamp = MORNING.parse().unwrap();
        for (minutes, ip, agent, method, range) in &hits {
            p.fx.clock.set(start + SignedDuration::from_mins(*minutes));
            let headers: Vec<(&str, &str)> = range.iter().map(|r| ("range", *r)).collect();
            let status =
                download(&p.fx.api, &p.enclosure, method.clone(), ip, agent, &headers).await;
            assert!(status.is_success(), "{name}: {status}");
        }
        let url = "/api/stats/feeds/show?from=2026-01-01&to=2026-01-05";
        // Counted while the days are open...
        let open = stats(&p.fx, url).await;
        assert_eq!(open["total"], expected, "{name}, open days: {open}");
        // ... and the same once they are closed and the raw records are gone.
        p.fx.clock.set(start + SignedDuration::from_hours(96));
        let closed = stats(&p.fx, url).await;
        assert_eq!(closed["total"], expected, "{name}, closed days: {closed}");
        assert_eq!(
            closed["episodes"][0]["show_id"]
                .as_str()
                .unwrap_or(&p.episode),
            p.episode
        );
    }
}

#[tokio::test]
async fn reports_by_day_episode_and_app() {
    let p = podcast().await;
    let api = &p.fx.api;
    download(api, &p.enclosure, Method::GET, "203.0.113.7", APPLE, &[]).await;
    download(api, &p.enclosure, Method::GET, "203.0.113.8", SPOTIFY, &[]).await;
    p.fx.clock.set("2026-01-02T09:00:00Z".parse().unwrap());
    download(api, &p.enclosure, Method::GET, "203.0.113.9", SPOTIFY, &[]).await;
    download(api, &p.enclosure, Method::GET, "203.0.113.10", "", &[]).await;

    let report = stats(&p.fx, "/api/stats?from=2025-12-31&to=2026-01-02").await;
    assert_eq!(report["from"], "2025-12-31");
    assert_eq!(report["to"], "2026-01-02");
    assert_eq!(report["total"], 4);
    assert_eq!(
        report["days"],
        json!([
            {"date": "2025-12-31", "downloads": 0},
            {"date": "2026-01-01", "downloads": 2},
            {"date": "2026-01-02", "downloads": 2},
        ])
    );
    assert_eq!(
        report["feeds"],
        json!([{"feed_id": "show", "downloads": 4}])
    );
    assert_eq!(
        report["episodes"],
        json!([{"feed_id": "show", "show_id": p.episode, "downloads": 4}])
    );
    assert_eq!(
        report["apps"],
        json!([
            {"app": "Spotify", "downloads": 2},
            {"app": "Apple Podcasts", "downloads": 1},
            {"app": "Unknown", "downloads": 1},
        ])
    );
    // The method the report follows; by hour of day (UTC) and by device (OPAWG devices).
    assert_eq!(
        report["method"],
        serde_json::json!({"guideline": "IAB Podcast Measurement Technical Guidelines v2.3", "window": "rolling 24 hours"})
    );
    let hours = report["hours"].as_array().unwrap();
    assert_eq!(hours.len(), 24);
    assert_eq!(
        hours[9],
        serde_json::json!({"hour": 9, "downloads": 2}),
        "the second day's two, at 09:00 UTC"
    );
    assert_eq!(
        hours
            .iter()
            .map(|h| h["downloads"].as_u64().unwrap())
            .sum::<u64>(),
        4
    );
    assert_eq!(
        report["platforms"],
        json!([
            {"platform": "Apple iPhone", "downloads": 3},
            {"platform": "Unknown", "downloads": 1},
        ])
    );
    // The same rows as CSV, one per day, hour, episode, app, device and subscriber.
    let csv =
        p.fx.get("/api/stats/csv?from=2025-12-31&to=2026-01-02")
            .await;
    assert_eq!(csv.status, StatusCode::OK);
    assert_eq!(csv.headers["content-type"], "text/csv; charset=utf-8");
    let text = String::from_utf8(csv.raw.to_vec()).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "date,hour,feed_id,show_id,app,platform,subscriber_id,downloads,campaign_id,impressions,country"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 11), "{text}");
    assert_eq!(
        rows.iter()
            .map(|r| r[7].parse::<u64>().unwrap())
            .sum::<u64>(),
        4,
        "{text}"
    );
    assert!(
        rows.iter()
            .any(|r| r[0] == "2026-01-02" && r[1] == "9" && r[4] == "Spotify"),
        "{text}"
    );
    let episode = stats(
        &p.fx,
        &format!(
            "/api/stats/feeds/show/shows/{}?from=2026-01-02&to=2026-01-02",
            p.episode
        ),
    )
    .await;
    assert_eq!(episode["total"], 2);
    let other = stats(
        &p.fx,
        "/api/stats/feeds/show/shows/pod-999999?from=2026-01-01",
    )
    .await;
    assert_eq!(other["total"], 0);
}

#[tokio::test]
async fn the_default_period_is_the_last_30_days() {
    let p = podcast().await;
    let report = stats(&p.fx, "/api/stats").await;
    assert_eq!(report["to"], "2026-01-01");
    assert_eq!(report["from"], "2025-12-03");
    assert_eq!(report["days"].as_array().unwrap().len(), 30);
}

#[tokio::test]
async fn ranges_through_two_processes_sum_to_one_download() {
    let p = podcast().await;
    let (second_host, second) = p.fx.another_process();
    let half = MINUTE_BYTES / 2;
    let first_half = format!("bytes=0-{}", half - 1);
    let second_half = format!("bytes={half}-{}", MINUTE_BYTES + 1000);
    download(
        &p.fx.api,
        &p.enclosure,
        Method::GET,
        "203.0.113.7",
        APPLE,
        &[("range", &first_half)],
    )
    .await;
    download(
        &second,
        &p.enclosure,
        Method::GET,
        "203.0.113.7",
        APPLE,
        &[("range", &second_half)],
    )
    .await;
    // The first process has not flushed: a query at the second shows nothing of it yet (the
    // second's own half, which it merges unflushed, is less than a minute).
    let early = stats_via(&second, &p.fx.alice, "/api/stats?from=2026-01-01").await;
    assert_eq!(early["total"], 0, "{early}");
    // Each process stores its reports (as its statistics loop does every few seconds); a
    // query only reads.
    p.fx.host.analytics().flush_stats().await.unwrap();
    second_host.analytics().flush_stats().await.unwrap();
    for api in [&p.fx.api, &second] {
        let report = stats_via(api, &p.fx.alice, "/api/stats?from=2026-01-01").await;
        assert_eq!(report["total"], 1, "{report}");
    }
}

async fn stats_via(api: &Api, token: &str, path: &str) -> Value {
    let request = Request::builder()
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = api.handle(request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice::<Value>(&body).unwrap()["data"].clone()
}

#[tokio::test]
async fn statistics_survive_a_restart_and_keep_no_address() {
    let p = podcast().await;
    download(
        &p.fx.api,
        &p.enclosure,
        Method::GET,
        "203.0.113.77",
        APPLE,
        &[],
    )
    .await;
    p.fx.host.analytics().flush_stats().await.unwrap();
    // A new process on the same store (the old one is gone) sees the download.
    let (_, restarted) = p.fx.another_process();
    let report = stats_via(&restarted, &p.fx.alice, "/api/stats?from=2026-01-01").await;
    assert_eq!(report["total"], 1);

    // Nothing in the store holds the address or the user agent, open day or closed.
    let everything = store_text(&p.fx).await;
    assert!(
        !everything.contains("203.0.113.77"),
        "an address was stored"
    );
    assert!(!everything.contains("CFNetwork"), "a user agent was stored");

    // Once the days are closed, their salts are gone: the hashes can no longer be linked.
    let (later_host, _) = p.fx.another_process();
    p.fx.clock.set("2026-01-04T00:30:00Z".parse().unwrap());
    assert_eq!(later_host.analytics().close_stats_days().await.unwrap(), 1);
    let salts = paths_under(&p.fx, "stats/salts").await;
    assert!(
        salts
            .iter()
            .all(|s| s.ends_with("2026-01-02") || s.ends_with("2026-01-03")),
        "{salts:?}"
    );
    assert!(
        paths_under(&p.fx, "accounts/alice/stats/raw")
            .await
            .is_empty()
    );
    let closed = stats_via(&restarted, &p.fx.alice, "/api/stats?from=2026-01-01").await;
    assert_eq!(closed["total"], 1);
}

async fn paths_under(fx: &Fixture, prefix: &str) -> Vec<String> {
    use futures::TryStreamExt;
    let prefix = object_store::path::Path::from(prefix);
    let listed: Vec<_> = fx.store.list(Some(&prefix)).try_collect().await.unwrap();
    listed.into_iter().map(|m| m.location.to_string()).collect()
}

async fn store_text(fx: &Fixture) -> String {
    use object_store::ObjectStoreExt;
    let mut text = String::new();
    for path in paths_under(fx, "").await {
        if path.contains("/blobs/") {
            continue;
        }
        let bytes = fx
            .store
            .get(&path.as_str().into())
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&bytes));
    }
    text
}

#[tokio::test]
async fn access_and_bad_input() {
    let p = podcast().await;
    let fx = &p.fx;
    let feeds_only = fx.token("feeds").await;
    let cases: Vec<(&str, &str, StatusCode)> = vec![
        ("/api/stats", &feeds_only, StatusCode::FORBIDDEN),
        ("/api/stats", "", StatusCode::UNAUTHORIZED),
        ("/api/stats/feeds/show", &fx.mallory, StatusCode::NOT_FOUND),
        ("/api/stats/feeds/nope", &fx.alice, StatusCode::NOT_FOUND),
        (
            "/api/stats?from=yesterday",
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/stats?from=2026-01-05&to=2026-01-01",
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/stats?from=2024-01-01&to=2026-01-01",
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/stats?day=2026-01-01",
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/stats/feeds/show/shows/42",
            &fx.alice,
            StatusCode::BAD_REQUEST,
        ),
        (
            "/api/stats/feeds/show?from=2026-01-01",
            &fx.alice,
            StatusCode::OK,
        ),
    ];
    for (path, token, expected) in cases {
        let answer = fx.call(Method::GET, path, token, None).await;
        assert_eq!(answer.status, expected, "{path}: {}", answer.body);
    }
    let post = fx.call(Method::POST, "/api/stats", &fx.alice, None).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
}

/// A podcast measured by OP3: its public feed's enclosure goes through the prefix, an http
/// prefix (and a query, a repeat) is refused, and an app that follows the service's redirect to
/// podhost is counted once.
#[tokio::test]
async fn a_download_through_a_measurement_prefix_is_counted_once() {
    let p = podcast().await;
    for (prefixes, status) in [
        (
            json!(["http://op3.dev/e/"]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!(["https://op3.dev/e/?x=1"]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!(["https://op3.dev/e/", "https://op3.dev/e/"]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (json!(["https://op3.dev/e/"]), StatusCode::OK),
    ] {
        let answer =
            p.fx.call(
                Method::PUT,
                "/api/feeds/show",
                &p.fx.alice,
                Some(json!({"prefixes": prefixes})),
            )
            .await;
        assert_eq!(answer.status, status, "{prefixes}: {}", answer.body);
    }
    let shown = p.fx.get("/api/feeds/show").await;
    assert_eq!(
        shown.body["data"]["attributes"]["prefixes"],
        json!(["https://op3.dev/e/"]),
        "{}",
        shown.body
    );
    let feed = p.fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&feed.raw).into_owned();
    let at = xml.find("<enclosure url=\"").unwrap() + "<enclosure url=\"".len();
    let enclosure = &xml[at..at + xml[at..].find('"').unwrap()];
    let bare = podhost_testkit::TEST_PUBLIC_URL
        .strip_prefix("https://")
        .unwrap();
    assert_eq!(
        enclosure,
        format!("https://op3.dev/e/{bare}{}", p.enclosure),
        "{xml}"
    );
    // What OP3 answers the app: a redirect to the URL after its prefix (OP3 is not reachable
    // from here; its answer is this, as its documentation describes it). The app then asks
    // podhost, from its own address and with its own agent.
    let location = format!(
        "https://{}",
        enclosure.strip_prefix("https://op3.dev/e/").unwrap()
    );
    let status = download(
        &p.fx.api,
        &path_of(&location),
        Method::GET,
        "203.0.113.7",
        APPLE,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    p.fx.host.analytics().flush_stats().await.unwrap();
    let report = stats(&p.fx, "/api/stats?from=2026-01-01").await;
    assert_eq!(report["total"], 1, "{report}");
}

/// Episode curves of a scripted history: three episodes published at known times, downloads at
/// known ages, and the curves and medians worked out by hand below.
#[tokio::test]
async fn episode_curves_are_downloads_by_day_of_age() {
    let p = podcast().await; // "One", published 2025-12-01: more than 30 days old now.
    let fx = &p.fx;
    let owner = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let show: podhost_core::FeedId = "show".parse().unwrap();
    let at = |s: &str| -> Timestamp { s.parse().unwrap() };
    // An episode of its own file (downloads are told apart by their file), published at `when`.
    let publish = |title: &'static str, when: &'static str, seconds: f64| {
        let (fx, owner, show) = (fx, owner.clone(), show.clone());
        async move {
            let media = fx
                .upload(
                    &format!("{title}.wav"),
                    podhost_testkit::fixtures::wav(seconds, 8000),
                )
                .await;
            let mut new = podhost_core::model::NewEpisode::titled(title);
            new.fields.is_public = Some(true);
            new.fields.publish_at = Some(when.parse().unwrap());
            new.fields.media = Some(Some(podhost_core::MediaId::new(media).unwrap()));
            let view = fx
                .host
                .podcasts()
                .create_episode(&owner, &show, new)
                .await
                .unwrap();
            let media = fx
                .host
                .podcasts()
                .get_media(&owner, podhost_core::MediaId::new(media).unwrap())
                .await
                .unwrap();
            (
                view.episode.id.to_string(),
                path_of(&fx.host.urls().media(owner.account(), &media)),
            )
        }
    };
    let (two, two_file) = publish("Two", "2026-01-01T09:30:00Z", SECONDS + 1.0).await;
    let hit = |when: &'static str, ip: &'static str, path: String| async move {
        fx.clock.set(at(when));
        let status = download(&fx.api, &path, Method::GET, ip, APPLE, &[]).await;
        assert_eq!(status, StatusCode::OK, "{when} {path}");
    };
    hit("2026-01-01T10:00:00Z", "203.0.113.1", two_file.clone()).await; // day 1
    hit("2026-01-01T10:20:00Z", "203.0.113.2", two_file.clone()).await; // day 1
    hit("2026-01-02T12:00:00Z", "203.0.113.3", two_file.clone()).await; // 26.5 h: day 2
    hit("2026-01-03T09:10:00Z", "203.0.113.4", two_file.clone()).await; // the 09:00 hour, 47.5 h: day 2
    hit("2026-01-03T09:40:00Z", "203.0.113.9", p.enclosure.clone()).await; // "One": day 34, no curve
    fx.clock.set(at("2026-01-03T12:00:00Z"));
    let (three, three_file) = publish("Three", "2026-01-03T12:00:00Z", SECONDS + 2.0).await;
    hit("2026-01-03T12:30:00Z", "203.0.113.5", three_file.clone()).await; // day 1
    hit("2026-01-04T13:00:00Z", "203.0.113.6", three_file.clone()).await; // 25 h: day 2
    fx.clock.set(at("2026-01-04T14:00:00Z"));

    let curves = stats(fx, "/api/stats/feeds/show/curves").await;
    assert_eq!(curves["days"], 30);
    let by_id = |id: &str| {
        curves["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["show_id"] == id)
            .unwrap_or_else(|| panic!("{id} in {curves}"))
            .clone()
    };
    // Newest first; each curve as long as the days it has begun.
    let order: Vec<&str> = curves["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["show_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [three.as_str(), two.as_str(), p.episode.as_str()]);
    assert_eq!(by_id(&three)["downloads"], json!([1, 1]));
    assert_eq!(by_id(&two)["downloads"], json!([2, 2, 0, 0]));
    assert_eq!(by_id(&p.episode)["downloads"], json!(vec![0; 30]));
    // The median of the episodes that lived the whole day: day 1 of One, Two, Three (0, 2, 1);
    // day 2 of One and Two (0, 2); then One and Two (0, 0), then One alone.
    let mut median = vec![json!(1.0), json!(1.0), json!(0.0), json!(0.0)];
    median.extend(std::iter::repeat_n(json!(0.0), 26));
    assert_eq!(curves["median"], json!(median));

    // Not the caller's: 404.
    let other = fx
        .call(
            Method::GET,
            "/api/stats/feeds/show/curves",
            &fx.mallory,
            None,
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

/// Downloads through a trusted proxy from addresses of known countries are counted under those
/// countries, in the report and the CSV; an address the database does not place is `ZZ`, and
/// so is every download of a server without a database.
#[tokio::test]
async fn downloads_are_counted_under_their_listeners_countries() {
    let Podcast { fx, enclosure, .. } =
        podcast_on(common::history::behind_a_proxy_with_countries().await).await;
    // Behind the proxy: the last X-Forwarded-For address is the listener's.
    for ip in [
        "8.8.8.8",
        "8.8.4.4",
        "193.0.6.139",
        "133.1.1.1",
        "192.0.2.1",
    ] {
        let status = download(&fx.api, &enclosure, Method::GET, ip, APPLE, &[]).await;
        assert_eq!(status, StatusCode::OK);
    }
    let report = stats(&fx, "/api/stats?from=2026-01-01").await;
    assert_eq!(
        report["countries"],
        json!([
            {"country": "US", "downloads": 2},
            {"country": "JP", "downloads": 1},
            {"country": "NL", "downloads": 1},
            {"country": "ZZ", "downloads": 1},
        ]),
        "{report}"
    );
    let csv = fx.get("/api/stats/csv?from=2026-01-01").await;
    let text = String::from_utf8_lossy(&csv.raw).into_owned();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header
        .iter()
        .position(|c| *c == "country")
        .expect("a country column");
    let mut by_country: Vec<(String, u64)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let downloads = cells[header.iter().position(|c| *c == "downloads").unwrap()];
            (cells[at].to_string(), downloads.parse().unwrap())
        })
        .collect();
    by_country.sort();
    let total = |c: &str| -> u64 {
        by_country
            .iter()
            .filter(|(k, _)| k == c)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(
        [total("US"), total("NL"), total("JP"), total("ZZ")],
        [2, 1, 1, 1],
        "{text}"
    );

    // A server without a database: every country is ZZ.
    let p = podcast().await;
    download(&p.fx.api, &p.enclosure, Method::GET, "8.8.8.8", APPLE, &[]).await;
    let report = stats(&p.fx, "/api/stats?from=2026-01-01").await;
    assert_eq!(
        report["countries"],
        json!([{"country": "ZZ", "downloads": 1}])
    );
}
