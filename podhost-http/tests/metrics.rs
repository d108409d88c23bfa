//! `GET /metrics`: what the server did, in Prometheus' text format, behind the `metrics` scope,
//! checked by Prometheus' own `promtool`.

mod common;

use std::collections::HashSet;

use common::Fixture;
use http::{Method, StatusCode, header};
use serde_json::json;
use wiremock::{Mock, MockServer, ResponseTemplate, matchers::method};

/// The value of the series `name{labels}` (labels as printed, in order), if it is there.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

/// A webhook receiver answering `status`, subscribed to alice's `feed.created`.
async fn subscribe(fx: &Fixture, status: u16) -> MockServer {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(status))
        .mount(&receiver)
        .await;
    let hook = fx
        .call(
            Method::POST,
            "/api/webhooks",
            &fx.alice,
            Some(json!({"url": receiver.uri(), "events": ["feed.created"]})),
        )
        .await;
    assert_eq!(hook.status, StatusCode::CREATED, "{}", hook.body);
    receiver
}

async fn metrics(fx: &Fixture) -> String {
    let token = fx.token("metrics").await;
    let answer = fx.call(Method::GET, "/metrics", &token, None).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.headers[header::CONTENT_TYPE],
        podhost_http::METRICS_CONTENT_TYPE
    );
    String::from_utf8(answer.raw.to_vec()).unwrap()
}

#[tokio::test]
async fn metrics_need_a_token_of_the_metrics_scope() {
    let fx = Fixture::new().await;
    let none = fx.call(Method::GET, "/metrics", "", None).await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);
    let feeds = fx.token("feeds").await;
    let other = fx.call(Method::GET, "/metrics", &feeds, None).await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
    assert!(other.body["message"].as_str().unwrap().contains("metrics"));
    let text = metrics(&fx).await;
    assert!(
        text.contains("# TYPE podhost_http_requests_total counter\n"),
        "{text}"
    );
}

#[tokio::test]
async fn metrics_count_what_the_server_did() {
    let fx = Fixture::new().await;
    let _receiver = subscribe(&fx, 200).await;
    fx.feed("f").await;
    let media = fx.upload_wav("talk.wav").await;
    let show = fx
        .multipart(
            "/api/feed/f/show",
            &fx.alice,
            &[
                ("title", "One"),
                ("is_public", "1"),
                ("show_media", &media.to_string()),
            ],
            &[],
        )
        .await;
    assert_eq!(show.status, StatusCode::CREATED, "{}", show.body);
    let enclosure = show.body["data"]["attributes"]["enclosure_url"]
        .as_str()
        .unwrap();
    let enclosure = &enclosure[enclosure.find("/media/").unwrap()..];
    // The feed twice (a miss, then a hit), the enclosure once, a job, a delivery.
    for _ in 0..2 {
        let feed = fx.public(Method::GET, "/feeds/f/rss", &[]).await;
        assert_eq!(feed.status, StatusCode::OK);
    }
    let download = fx
        .public(Method::GET, enclosure, &[("user-agent", "Overcast/3.0")])
        .await;
    assert_eq!(download.status, StatusCode::OK);
    let job = fx
        .call(
            Method::POST,
            &format!("/api/generate/waveform/{media}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(job.status, StatusCode::ACCEPTED, "{}", job.body);
    let _workers = fx.start_workers();
    fx.until_done(job.body["data"]["id"].as_str().unwrap())
        .await;
    let run = fx
        .call(Method::POST, "/api/webhooks-processing", &fx.alice, None)
        .await;
    assert_eq!(run.body["data"]["delivered"], 1, "{}", run.body);

    let text = metrics(&fx).await;
    let at_least = |series: &str, least: f64| {
        let found = value(&text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"));
        assert!(
            found >= least,
            "{series} = {found}, expected at least {least}"
        );
    };
    at_least(
        r#"podhost_http_requests_total{route="/api/feeds",method="POST",status="201"}"#,
        1.0,
    );
    at_least(
        r#"podhost_http_requests_total{route="/feeds/{feed_id}/rss",method="GET",status="200"}"#,
        2.0,
    );
    at_least(
        r#"podhost_http_request_duration_seconds_count{route="/feeds/{feed_id}/rss"}"#,
        2.0,
    );
    at_least(r#"podhost_http_sent_bytes_total{kind="feed"}"#, 200.0);
    at_least(
        r#"podhost_http_sent_bytes_total{kind="enclosure"}"#,
        download.raw.len() as f64,
    );
    at_least(
        r#"podhost_cache_requests_total{cache="feeds",result="miss"}"#,
        1.0,
    );
    at_least(
        r#"podhost_cache_requests_total{cache="feeds",result="hit"}"#,
        1.0,
    );
    at_least(r#"podhost_catalog_commits_total{outcome="committed"}"#, 5.0);
    at_least(
        r#"podhost_store_request_duration_seconds_count{operation="put"}"#,
        5.0,
    );
    at_least(
        r#"podhost_jobs_total{kind="waveform",state="started"}"#,
        1.0,
    );
    at_least(
        r#"podhost_jobs_total{kind="waveform",state="succeeded"}"#,
        1.0,
    );
    at_least(
        r#"podhost_job_duration_seconds_count{kind="waveform"}"#,
        1.0,
    );
    at_least(
        r#"podhost_deliveries_total{channel="webhook",outcome="delivered"}"#,
        1.0,
    );
    at_least("podhost_downloads_total", 1.0);

    // Routes are named by their template from the route table, never by the path.
    let templates: HashSet<&str> = podhost_http::routes().map(|r| r.path).collect();
    for line in text.lines().filter(|l| l.contains("route=\"")) {
        let route = line
            .split("route=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(
            templates.contains(route) || route == "(unmatched)",
            "{route} is not a template: {line}"
        );
    }
}

#[tokio::test]
async fn pending_and_failed_deliveries_are_shown() {
    let fx = Fixture::new().await;
    let _receiver = subscribe(&fx, 500).await;
    fx.feed("f").await;
    // The delivery loop makes one pass: the attempt fails and waits for its retry.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let host = fx.host.clone();
    let loop_ = tokio::spawn(async move {
        host.work()
            .run_webhooks(
                std::sync::Arc::new(podhost_http::HttpWebhookSender::new()),
                std::sync::Arc::new(podhost_http::wire::WireEvents::new(host.clone())),
                async {
                    let _ = stopped.await;
                },
            )
            .await
    });
    let text = loop {
        let text = metrics(&fx).await;
        if value(&text, r#"podhost_deliveries_pending{channel="webhook"}"#)
            .is_some_and(|v| v >= 1.0)
        {
            break text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let _ = stop.send(());
    loop_.await.unwrap();
    assert!(
        value(
            &text,
            r#"podhost_deliveries_total{channel="webhook",outcome="failed"}"#
        )
        .is_some_and(|v| v >= 1.0),
        "{text}"
    );
    assert_eq!(
        value(&text, r#"podhost_deliveries_pending{channel="websub"}"#),
        Some(0.0)
    );
}

#[tokio::test]
async fn promtool_accepts_the_metrics() {
    let Some(promtool) = podhost_testkit::or_skip(
        "promtool_accepts_the_metrics",
        "promtool (Debian package prometheus)",
        which("promtool"),
    ) else {
        return;
    };
    let fx = Fixture::new().await;
    fx.feed("f").await;
    let _ = fx.public(Method::GET, "/feeds/f/rss", &[]).await;
    let _ = fx.public(Method::GET, "/nowhere", &[]).await;
    let text = metrics(&fx).await;
    let mut check = std::process::Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    check
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = check.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool check metrics: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn which(tool: &str) -> Result<std::path::PathBuf, String> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(tool))
        .find(|path| path.is_file())
        .ok_or_else(|| format!("{tool} is not on PATH"))
}

/// The downloads the statistics count are a metric of their own, equal to them: range requests
/// of one listener summed to one download, a probe none; each answer of the media URL is
/// counted apart, as a media response (and under the old name, `podhost_downloads_total`).
#[tokio::test]
async fn the_downloads_the_statistics_count_are_a_metric_equal_to_them() {
    let fx = Fixture::with_config(podhost_http::HttpConfig {
        trust_forwarded_for: true,
        ..podhost_http::HttpConfig::default()
    })
    .await;
    fx.clock.set("2026-01-01T10:00:00Z".parse().unwrap());
    // 120 s of 16-bit mono at 8 kHz: a minute is 960,000 bytes.
    let audio = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[(
                "media",
                "talk.wav",
                podhost_testkit::fixtures::wav(120.0, 8000),
            )],
        )
        .await;
    assert_eq!(audio.status, StatusCode::CREATED, "{}", audio.body);
    let url = audio.body["url"].as_str().unwrap();
    let enclosure = url.strip_prefix(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    let media = audio.body["id"].as_u64().unwrap().to_string();
    fx.feed("show").await;
    fx.episode(
        "show",
        &[
            ("title", "One"),
            ("is_public", "1"),
            ("publishing_date", "2025-12-01"),
            ("show_media", &media),
        ],
    )
    .await;

    const APPLE: &str = "Podcasts/1410.53 CFNetwork/1111 Darwin/19.0.0 (x86_64)";
    let get = |ip: &'static str, range: Option<String>| {
        let fx = &fx;
        async move {
            let headers: Vec<(&str, &str)> = range.iter().map(|r| ("range", r.as_str())).collect();
            let status =
                common::download(&fx.api, enclosure, Method::GET, ip, APPLE, &headers).await;
            assert!(status.is_success(), "{status}");
        }
    };
    // One listener: a probe, then 6 ranges of a quarter of a minute each (a minute and a
    // half: one download); another listener: the whole file (one more).
    get("203.0.113.7", Some("bytes=0-1".into())).await;
    let quarter = 240_000;
    for n in 0..6 {
        let range = format!("bytes={}-{}", n * quarter, (n + 1) * quarter - 1);
        get("203.0.113.7", Some(range)).await;
    }
    get("203.0.113.8", None).await;
    // The statistics loop stores the reports every few seconds.
    fx.host.analytics().flush_stats().await.unwrap();

    let report = fx.get("/api/stats?from=2026-01-01").await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.body);
    let counted = report.body["data"]["total"].as_f64().unwrap();
    assert_eq!(counted, 2.0, "{}", report.body);
    let text = metrics(&fx).await;
    let metric = |series: &str| value(&text, series).unwrap_or_else(|| panic!("no {series}"));
    assert_eq!(metric("podhost_downloads_counted_total"), counted, "{text}");
    assert_eq!(metric("podhost_media_responses_total"), 7.0, "{text}");
    assert_eq!(metric("podhost_downloads_total"), 7.0, "{text}");
    for family in [
        "podhost_downloads_counted_total",
        "podhost_media_responses_total",
    ] {
        assert!(
            text.contains(&format!("# HELP {family} One ")),
            "its help says what one increment is: {text}"
        );
    }
}
