//! Metadata (`GET`/`PUT /api/media/{id}/metadata`) and `write_metadata`: facts and tags read from the file, ad breaks
//! stored at once, tags, chapters and cover written by a job into a new file with a new URL,
//! published as `podcast:chapters`.

mod common;

use std::time::Duration;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// Publishes `media` as the one episode of a new feed, and returns the JSON chapters its
/// `podcast:chapters` points at.
async fn published_chapters(fx: &Fixture, media: u64) -> Value {
    fx.feed("show").await;
    fx.episode(
        "show",
        &[
            ("title", "Pilot"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
            ("show_media", &media.to_string()),
        ],
    )
    .await;
    let rss = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&rss.raw).to_string();
    let start = xml
        .find("<podcast:chapters url=\"")
        .unwrap_or_else(|| panic!("no podcast:chapters in {xml}"))
        + 23;
    let url = &xml[start..start + xml[start..].find('"').unwrap()];
    assert!(xml.contains("type=\"application/json+chapters\""), "{xml}");
    let doc = fx
        .public(
            Method::GET,
            url.strip_prefix("https://pod.test").unwrap(),
            &[],
        )
        .await;
    assert_eq!(doc.status, StatusCode::OK);
    assert_eq!(doc.headers["content-type"], "application/json+chapters");
    serde_json::from_slice(&doc.raw).unwrap()
}

#[tokio::test]
async fn tags_chapters_and_cover_are_written_into_a_new_file() {
    let fx = Fixture::new().await;
    let audio = fx.upload_wav("talk.wav").await;
    let cover = fx.upload_png("cover.png").await;
    let before = fx.get(&format!("/api/media/{audio}")).await.body["url"].clone();

    let read = fx.get(&format!("/api/media/{audio}/metadata")).await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.body);
    let m = &read.body["data"];
    assert_eq!(m["type"], "audio");
    assert_eq!(m["duration"], 1.0);
    assert_eq!(m["sample_rate"], 8000);
    assert_eq!(m["channels"], 1);
    assert_eq!(m["tags"]["title"], Value::Null);
    assert_eq!(m["tags"]["chapters"], json!([]));
    assert_eq!(m["adbreak"], Value::Null);

    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({
                "title": "Pilot",
                "artist": "Alice",
                "album": "The Show",
                "year": 2026,
                "comment": "first one",
                "chapters": [
                    {"start": 0, "title": "Hello"},
                    {"start": 0.5, "title": "News", "url": "https://example.com/news"},
                ],
                "image": cover,
                "adbreak": {"preroll": true, "postroll": false, "midrolls": [0.5]},
            })),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    let job = put.body["data"]["job"]["id"].as_str().unwrap().to_string();
    assert_eq!(put.body["data"]["job"]["kind"], "write_tags");
    // The ad breaks are stored at once; the file's tags change when the job has run.
    assert_eq!(
        put.body["data"]["adbreak"],
        json!({"preroll": true, "postroll": false, "midrolls": [0.5]})
    );
    let second = fx
        .call(
            Method::PUT,
            &format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"title": "Other"})),
        )
        .await;
    assert_eq!(second.status, StatusCode::CONFLICT, "{}", second.body);

    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");

    let read = fx.get(&format!("/api/media/{audio}/metadata")).await;
    let tags = &read.body["data"]["tags"];
    assert_eq!(tags["title"], "Pilot", "{}", read.body);
    assert_eq!(tags["artist"], "Alice");
    assert_eq!(tags["album"], "The Show");
    assert_eq!(tags["year"], 2026);
    assert_eq!(tags["comment"], "first one");
    assert_eq!(tags["cover"]["mime"], "image/png");
    assert_eq!(tags["chapters"][0]["title"], "Hello");
    assert_eq!(tags["chapters"][1]["start"], 0.5);
    assert_eq!(tags["chapters"][1]["url"], "https://example.com/news");
    assert_eq!(read.body["data"]["duration"], 1.0, "the audio is unchanged");
    // A new file, a new URL; the new bytes are served there.
    let after = fx.get(&format!("/api/media/{audio}")).await.body["url"].clone();
    assert_ne!(after, before);
    let path = after
        .as_str()
        .unwrap()
        .strip_prefix("https://pod.test")
        .unwrap()
        .to_string();
    let served = fx.public(Method::GET, &path, &[]).await;
    assert_eq!(served.status, StatusCode::OK);
    assert!(
        served.raw.windows(5).any(|w| w == b"Pilot"),
        "the tag is in the file"
    );

    // An episode with that audio publishes the chapters.
    let doc = published_chapters(&fx, audio).await;
    assert_eq!(doc["version"], "1.2.0");
    assert_eq!(
        doc["chapters"][0],
        json!({"startTime": 0.0, "endTime": 0.5, "title": "Hello"})
    );
    assert_eq!(doc["chapters"][1]["startTime"], 0.5);
    let page = fx.public(Method::GET, "/podcasts/show/pod-1", &[]).await;
    let html = String::from_utf8_lossy(&page.raw);
    assert!(html.contains("Chapters") && html.contains("News"), "{html}");
}

#[tokio::test]
async fn write_metadata_of_an_episode() {
    let fx = Fixture::new().await;
    let audio = fx.upload_wav("talk.wav").await;
    fx.feed("show").await;
    let answer = fx
        .multipart(
            "/api/feed/show/show",
            &fx.alice,
            &[
                ("title", "Episode one"),
                ("author", "Bob"),
                ("show_media", &audio.to_string()),
                ("write_metadata", "1"),
            ],
            &[],
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let jobs = fx
        .host
        .podcasts()
        .get_media(&alice, podhost_core::MediaId::new(audio).unwrap())
        .await
        .unwrap();
    assert_eq!(jobs.facts.kind, podhost_core::probe::MediaKind::Audio);
    let _workers = fx.start_workers();
    for _ in 0..2400 {
        let tags =
            fx.get(&format!("/api/media/{audio}/metadata")).await.body["data"]["tags"].clone();
        if tags["title"] == "Episode one" {
            assert_eq!(tags["artist"], "Bob");
            assert_eq!(tags["album"], "show");
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the tags were not written");
}

#[tokio::test]
async fn refusals() {
    let fx = Fixture::new().await;
    let audio = fx.upload_wav("talk.wav").await;
    let png = fx.upload_png("cover.png").await;
    let read_only = fx.token("media-read-only").await;
    let cases: Vec<(Method, String, &str, Option<Value>, StatusCode)> = vec![
        (
            Method::GET,
            format!("/api/media/{audio}/metadata"),
            &fx.mallory,
            None,
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            format!("/api/media/{audio}/metadata"),
            &read_only,
            None,
            StatusCode::OK,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &read_only,
            Some(json!({"title": "x"})),
            StatusCode::FORBIDDEN,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"image": audio})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"chapters": [{"title": "no start"}]})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"year": 123456})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"colour": "red"})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("/api/media/{png}/metadata"),
            &fx.alice,
            Some(json!({"title": "x"})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"adbreak": {"midrolls": [-1]}})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ];
    for (method, path, token, body, expected) in cases {
        let answer = fx.call(method.clone(), &path, token, body.clone()).await;
        assert_eq!(
            answer.status, expected,
            "{method} {path} {body:?}: {}",
            answer.body
        );
    }
    // What the file's tag format cannot hold is refused before a job is queued: chapters out of
    // order anywhere, and past the MP4 `chpl` limits (255 chapters, 255-byte titles) in M4A.
    let m4a = fx.upload_m4a("talk.m4a").await;
    let many: Vec<Value> = (0..256)
        .map(|i| json!({"start": i, "title": "c"}))
        .collect();
    let webp = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[("media", "cover.webp", lossless_webp(1400, 1400))],
        )
        .await;
    assert_eq!(webp.status, StatusCode::CREATED, "{}", webp.body);
    assert_eq!(webp.body["mime"], "image/webp", "{}", webp.body);
    let webp = webp.body["id"].as_u64().unwrap();
    let out_of_order =
        json!({"chapters": [{"start": 2, "title": "b"}, {"start": 1, "title": "a"}]});
    let cases = [
        (audio, "chapters", out_of_order),
        (m4a, "chapters", json!({"chapters": many})),
        (
            m4a,
            "chapters",
            json!({"chapters": [{"start": 0, "title": "x".repeat(256)}]}),
        ),
        (m4a, "image", json!({"image": webp})),
    ];
    for (id, field, body) in cases {
        let answer = fx
            .call(
                Method::PUT,
                &format!("/api/media/{id}/metadata"),
                &fx.alice,
                Some(body),
            )
            .await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            answer.body
        );
        assert!(answer.body["errors"][field].is_array(), "{}", answer.body);
    }
    let at_the_limit = fx
        .call(
            Method::PUT,
            &format!("/api/media/{m4a}/metadata"),
            &fx.alice,
            Some(json!({"chapters": [{"start": 0, "title": "x".repeat(255)}]})),
        )
        .await;
    assert_eq!(at_the_limit.status, StatusCode::OK, "{}", at_the_limit.body);

    // An image's metadata says whether it meets Apple's artwork rule.
    let small = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[(
                "media",
                "small.png",
                podhost_testkit::fixtures::png(600, 400),
            )],
        )
        .await;
    let id = small.body["id"].as_u64().unwrap();
    let m = fx.get(&format!("/api/media/{id}/metadata")).await;
    assert_eq!(
        m.body["data"]["artwork"]["meets_apple_rule"], false,
        "{}",
        m.body
    );
    assert_eq!(
        m.body["data"]["artwork"]["problems"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let m = fx.get(&format!("/api/media/{png}/metadata")).await;
    assert_eq!(
        m.body["data"]["artwork"]["meets_apple_rule"], true,
        "{}",
        m.body
    );
}

#[tokio::test]
async fn m4a_chapters_are_written_and_published_with_their_links() {
    let fx = Fixture::new().await;
    let m4a = fx.upload_m4a("talk.m4a").await;
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{m4a}/metadata"),
            &fx.alice,
            Some(json!({
                "title": "Pilot",
                "chapters": [
                    {"start": 0, "title": "Hello"},
                    {"start": 0.25, "title": "News ✓", "url": "https://example.com/news"},
                ],
            })),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    let job = put.body["data"]["job"]["id"].as_str().unwrap().to_string();
    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");

    // Read back from the file: the Nero chapters hold starts and titles.
    let read = fx.get(&format!("/api/media/{m4a}/metadata")).await;
    let tags = &read.body["data"]["tags"];
    assert_eq!(tags["title"], "Pilot", "{}", read.body);
    let chapters: Vec<(f64, &str)> = tags["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["start"].as_f64().unwrap(), c["title"].as_str().unwrap()))
        .collect();
    assert_eq!(
        chapters,
        [(0.0, "Hello"), (0.25, "News ✓")],
        "{}",
        read.body
    );

    // Published: the link the file cannot hold is kept in the JSON chapters.
    let doc = published_chapters(&fx, m4a).await;
    assert_eq!(
        doc["chapters"][1],
        json!({"startTime": 0.25, "title": "News ✓", "url": "https://example.com/news"}),
        "{doc}"
    );
}

/// A file that arrives with chapters (from an editor such as Hindenburg or Auphonic) is
/// published with them, without a metadata write.
#[tokio::test]
async fn chapters_already_in_an_uploaded_file_are_published() {
    use podhost_core::tags::{Chapter, Tags, write_tags};
    let fx = Fixture::new().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.wav");
    std::fs::write(&path, podhost_testkit::fixtures::wav(1.0, 8000)).unwrap();
    let chapter = |start_ms, title: &str| Chapter {
        start_ms,
        end_ms: None,
        title: title.into(),
        url: None,
    };
    let tags = Tags {
        chapters: vec![chapter(0, "Cold open"), chapter(400, "Interview")],
        ..Tags::default()
    };
    write_tags(&path, "audio/wav", &tags, Some(1000)).unwrap();
    let uploaded = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[("media", "edited.wav", std::fs::read(&path).unwrap())],
        )
        .await;
    assert_eq!(uploaded.status, StatusCode::CREATED, "{}", uploaded.body);
    let id = uploaded.body["id"].as_u64().unwrap();

    let doc = published_chapters(&fx, id).await;
    assert_eq!(
        doc["chapters"],
        json!([
            {"startTime": 0.0, "endTime": 0.4, "title": "Cold open"},
            {"startTime": 0.4, "endTime": 1.0, "title": "Interview"},
        ]),
        "{doc}"
    );
}

/// The header of a lossless WebP image of `width` x `height` (enough to be recognised and
/// measured).
fn lossless_webp(width: u32, height: u32) -> Vec<u8> {
    let size = (width - 1) | ((height - 1) << 14);
    let mut vp8l = vec![0x2f];
    vp8l.extend_from_slice(&size.to_le_bytes());
    vp8l.extend_from_slice(&[0; 11]);
    let mut chunk = b"VP8L".to_vec();
    chunk.extend_from_slice(&u32::try_from(vp8l.len()).unwrap().to_le_bytes());
    chunk.extend_from_slice(&vp8l);
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&u32::try_from(chunk.len() + 4).unwrap().to_le_bytes());
    out.extend_from_slice(b"WEBP");
    out.extend_from_slice(&chunk);
    out
}
