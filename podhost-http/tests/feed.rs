//! The public RSS URL: validators, conditional requests, gzip, moved and deleted podcasts.

mod common;

use std::io::Read;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn conditional_requests_and_encodings() {
    let fx = Fixture::new().await;
    fx.feed("my show").await;
    fx.episode(
        "my%20show",
        &[
            ("title", "Pilot"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
        ],
    )
    .await;
    let url = "/feeds/my%20show/rss";
    let plain = fx.public(Method::GET, url, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(
        plain.headers["content-type"],
        "application/rss+xml; charset=utf-8"
    );
    assert_eq!(plain.headers["cache-control"], "public, max-age=300");
    assert!(
        plain
            .raw
            .starts_with(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    );
    assert!(String::from_utf8_lossy(&plain.raw).contains("<title>Pilot</title>"));
    let etag = plain.headers["etag"].to_str().unwrap().to_string();
    let last_modified = plain.headers["last-modified"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert!(last_modified.ends_with(" GMT"), "{last_modified}");

    let cases: Vec<(Vec<(&str, &str)>, StatusCode)> = vec![
        (vec![("if-none-match", &etag)], StatusCode::NOT_MODIFIED),
        (
            vec![("if-none-match", "\"other\", W/\"x\"")],
            StatusCode::OK,
        ),
        (vec![("if-none-match", "*")], StatusCode::NOT_MODIFIED),
        (
            vec![("if-modified-since", &last_modified)],
            StatusCode::NOT_MODIFIED,
        ),
        (
            vec![("if-modified-since", "Mon, 01 Jan 2024 00:00:00 GMT")],
            StatusCode::OK,
        ),
        (vec![("if-modified-since", "not a date")], StatusCode::OK),
        // If-None-Match decides when both are there.
        (
            vec![
                ("if-none-match", "\"other\""),
                ("if-modified-since", &last_modified),
            ],
            StatusCode::OK,
        ),
    ];
    for (headers, status) in cases {
        let answer = fx.public(Method::GET, url, &headers).await;
        assert_eq!(answer.status, status, "{headers:?}");
        assert_eq!(
            answer.headers["etag"].to_str().unwrap(),
            etag,
            "{headers:?}"
        );
        if status == StatusCode::NOT_MODIFIED {
            assert!(answer.raw.is_empty());
        }
    }

    let zipped = fx
        .public(Method::GET, url, &[("accept-encoding", "gzip, br")])
        .await;
    assert_eq!(zipped.headers["content-encoding"], "gzip");
    let zipped_etag = zipped.headers["etag"].to_str().unwrap().to_string();
    assert_ne!(zipped_etag, etag, "each encoding has its own validator");
    let revalidated = fx
        .public(
            Method::GET,
            url,
            &[("accept-encoding", "gzip"), ("if-none-match", &zipped_etag)],
        )
        .await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert_eq!(
        fx.public(Method::GET, url, &[("if-none-match", &zipped_etag)])
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(zipped.headers["vary"], "accept-encoding");
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped.raw[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain.raw.to_vec());
    assert!(
        fx.public(Method::GET, url, &[("accept-encoding", "gzip;q=0")])
            .await
            .headers
            .get("content-encoding")
            .is_none()
    );

    let head = fx.public(Method::HEAD, url, &[]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(head.headers["etag"].to_str().unwrap(), etag);
    assert_eq!(
        fx.public(Method::POST, url, &[]).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        fx.public(Method::GET, "/feeds/nothing/rss", &[])
            .await
            .status,
        StatusCode::NOT_FOUND
    );

    // A change rebuilds the feed: a new validator.
    fx.episode(
        "my%20show",
        &[
            ("title", "Second"),
            ("is_public", "1"),
            ("publishing_date", "2025-02-01"),
        ],
    )
    .await;
    let changed = fx
        .public(Method::GET, url, &[("if-none-match", &etag)])
        .await;
    assert_eq!(changed.status, StatusCode::OK);
    assert_ne!(changed.headers["etag"].to_str().unwrap(), etag);
}

#[tokio::test]
async fn moved_and_deleted_podcasts() {
    let fx = Fixture::new().await;
    fx.feed("old").await;
    let moved = fx
        .call(
            Method::PUT,
            "/api/feeds/old",
            &fx.alice,
            Some(json!({"itunes": {"new-feed-url": "https://new.example/rss"}})),
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
    let answer = fx.public(Method::GET, "/feeds/old/rss", &[]).await;
    assert_eq!(answer.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(answer.headers["location"], "https://new.example/rss");
    fx.call(Method::DELETE, "/api/feeds/old", &fx.alice, None)
        .await;
    assert_eq!(
        fx.public(Method::GET, "/feeds/old/rss", &[]).await.status,
        StatusCode::GONE
    );
}

#[tokio::test]
async fn removing_an_episode_moves_last_modified_forward() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    fx.episode(
        "show",
        &[
            ("title", "One"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
        ],
    )
    .await;
    let two = fx
        .episode(
            "show",
            &[
                ("title", "Two"),
                ("is_public", "1"),
                ("publishing_date", "2025-02-01"),
            ],
        )
        .await;
    let before = fx.public(Method::GET, "/feeds/show/rss", &[]).await.headers["last-modified"]
        .to_str()
        .unwrap()
        .to_string();
    fx.clock.advance(jiff::SignedDuration::from_hours(1));
    fx.call(
        Method::DELETE,
        &format!("/api/feed/show/show/{two}"),
        &fx.alice,
        None,
    )
    .await;
    let after = fx
        .public(
            Method::GET,
            "/feeds/show/rss",
            &[("if-modified-since", &before)],
        )
        .await;
    assert_eq!(
        after.status,
        StatusCode::OK,
        "an app that asks since then gets the feed without the episode"
    );
    assert!(!String::from_utf8_lossy(&after.raw).contains("<title>Two</title>"));
    assert_ne!(after.headers["last-modified"].to_str().unwrap(), before);
}
