//! Private podcasts: no public feed or pages, a feed URL per subscriber whose media URLs carry
//! the subscriber too, nothing of one subscriber in another's feed, and revocation answering
//! 410 for the feed and its files on another process at once.

mod common;

use common::Fixture;
use http::{Method, StatusCode, header};
use podhost_core::Clock;
use podhost_core::model::{FeedPatch, NewEpisode};
use serde_json::json;

/// alice's private podcast `secret-show` with one published episode with audio; returns the
/// episode's media id.
async fn private_podcast(fx: &Fixture) -> u64 {
    fx.feed("secret-show").await;
    let media = fx.upload_wav("members.wav").await;
    let who = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let feed = "secret-show".parse().unwrap();
    let mut episode = NewEpisode::titled("Members only");
    episode.fields.is_public = Some(true);
    episode.fields.media = Some(Some(podhost_core::MediaId::new(media).unwrap()));
    episode.fields.publish_at = Some(fx.clock.now() - jiff::SignedDuration::from_hours(1));
    fx.host
        .podcasts()
        .create_episode(&who, &feed, episode)
        .await
        .unwrap();
    let patch = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    fx.host
        .podcasts()
        .update_feed(&who, &feed, &patch)
        .await
        .unwrap();
    media
}

async fn add(fx: &Fixture, label: &str) -> serde_json::Value {
    let answer = fx
        .call(
            Method::POST,
            "/api/feeds/secret-show/subscribers",
            &fx.alice,
            Some(json!({ "label": label })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.body["data"].clone()
}

fn by_label<'a>(list: &'a serde_json::Value, label: &str) -> &'a serde_json::Value {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == label)
        .unwrap()
}

/// The path of a URL of the fixture's deployment.
fn path_of(url: &str) -> &str {
    url.strip_prefix("https://pod.test").unwrap()
}

fn enclosure(xml: &str) -> String {
    let at = xml.find("<enclosure url=\"").unwrap() + 16;
    xml[at..at + xml[at..].find('"').unwrap()].replace("&amp;", "&")
}

#[tokio::test]
async fn a_private_podcast_has_no_public_feed_or_pages() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    for path in ["/feeds/secret-show/rss", "/podcasts/secret-show"] {
        let answer = fx.public(Method::GET, path, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
    let home = fx.public(Method::GET, "/", &[]).await;
    assert!(!String::from_utf8_lossy(&home.raw).contains("secret-show"));
    // The API shows it private; public again, it is listed again.
    let feed = fx.get("/api/feeds/secret-show").await;
    assert_eq!(feed.body["data"]["attributes"]["private"], true);
    let made_public = fx
        .call(
            Method::PUT,
            "/api/feeds/secret-show",
            &fx.alice,
            Some(json!({"private": false})),
        )
        .await;
    assert_eq!(made_public.status, StatusCode::OK, "{}", made_public.body);
    let answer = fx.public(Method::GET, "/feeds/secret-show/rss", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn each_subscriber_has_a_feed_of_their_own() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    let jane = add(&fx, "Jane").await;
    let joe = add(&fx, "Joe").await;
    let jane_url = jane["feed_url"].as_str().unwrap();
    let joe_url = joe["feed_url"].as_str().unwrap();
    assert!(
        jane_url.starts_with("https://pod.test/private/secret-show/sub_"),
        "{jane_url}"
    );
    assert_ne!(jane_url, joe_url);
    let listed = fx.get("/api/feeds/secret-show/subscribers").await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 2);
    let listed_jane = by_label(&listed.body, "Jane");
    assert_eq!(listed_jane["feed_url"], jane_url);
    assert_eq!(listed_jane["id"], jane["id"]);

    let mut feeds = Vec::new();
    for url in [jane_url, joe_url] {
        let answer = fx.public(Method::GET, path_of(url), &[]).await;
        assert_eq!(answer.status, StatusCode::OK, "{url}");
        assert_eq!(
            answer.headers[header::CACHE_CONTROL],
            "private, max-age=300"
        );
        feeds.push(String::from_utf8_lossy(&answer.raw).into_owned());
    }
    let key = |url: &str| url.split('/').nth(5).unwrap().to_string();
    for (xml, own, other) in [
        (&feeds[0], key(jane_url), key(joe_url)),
        (&feeds[1], key(joe_url), key(jane_url)),
    ] {
        assert!(xml.contains("<itunes:block>Yes</itunes:block>"), "{xml}");
        assert!(xml.contains("<podcast:block>yes</podcast:block>"), "{xml}");
        assert!(xml.contains("Members only"));
        assert!(xml.contains(&own));
        assert!(!xml.contains(&other), "no subscriber sees another's URLs");
        let audio = enclosure(xml);
        assert!(
            audio.contains(&format!("/private/secret-show/{own}/media/")),
            "{audio}"
        );
        let file = fx
            .public(Method::GET, path_of(&audio), &[("range", "bytes=0-3")])
            .await;
        assert_eq!(file.status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(&file.raw[..], b"RIFF");
    }
    // A key with a wrong secret, or for another podcast, names nobody.
    let forged = format!("{}{}", &key(jane_url)[..21], "x".repeat(43));
    for path in [
        format!("/private/secret-show/{forged}/rss"),
        format!("/private/other-show/{}/rss", key(jane_url)),
        "/private/secret-show/garbage/rss".to_string(),
    ] {
        let answer = fx.public(Method::GET, &path, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
    // Only the podcast's own files open with its keys.
    let other = fx.upload_wav("not-in-the-podcast.wav").await;
    let other = fx.get(&format!("/api/media/{other}")).await.body["url"]
        .as_str()
        .unwrap()
        .to_string();
    let blob_and_name: Vec<&str> = other.rsplitn(3, '/').collect();
    let path = format!(
        "/private/secret-show/{}/media/{}/{}",
        key(jane_url),
        blob_and_name[1],
        blob_and_name[0]
    );
    assert_eq!(
        fx.public(Method::GET, &path, &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_revoked_subscriber_gets_410_on_every_process() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    let jane = add(&fx, "Jane").await;
    let joe = add(&fx, "Joe").await;
    let feed = fx
        .public(
            Method::GET,
            path_of(jane["feed_url"].as_str().unwrap()),
            &[],
        )
        .await;
    let audio = enclosure(&String::from_utf8_lossy(&feed.raw));
    let (_, other) = fx.another_process();
    // The other process has served Jane (its caches hold her feed).
    let before = common::send_to(
        &other,
        http::Request::get(path_of(jane["feed_url"].as_str().unwrap()))
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap(),
    )
    .await;
    assert_eq!(before.status, StatusCode::OK);
    let id = jane["id"].as_str().unwrap();
    let revoked = fx
        .call(
            Method::DELETE,
            &format!("/api/feeds/secret-show/subscribers/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    for path in [path_of(jane["feed_url"].as_str().unwrap()), path_of(&audio)] {
        let answer = common::send_to(
            &other,
            http::Request::get(path)
                .body(http_body_util::Full::new(bytes::Bytes::new()))
                .unwrap(),
        )
        .await;
        assert_eq!(answer.status, StatusCode::GONE, "{path}");
    }
    // Joe is not affected; the list shows Jane revoked.
    let joe_feed = fx
        .public(Method::GET, path_of(joe["feed_url"].as_str().unwrap()), &[])
        .await;
    assert_eq!(joe_feed.status, StatusCode::OK);
    let listed = fx.get("/api/feeds/secret-show/subscribers").await;
    assert!(by_label(&listed.body, "Jane")["revoked"].is_string());
    assert!(by_label(&listed.body, "Joe")["revoked"].is_null());
    // A change to the podcast reaches Joe's feed (his cache is per version).
    let who = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let feed_id = "secret-show".parse().unwrap();
    let mut episode = NewEpisode::titled("Second for members");
    episode.fields.is_public = Some(true);
    episode.fields.publish_at = Some(fx.clock.now() - jiff::SignedDuration::from_mins(1));
    fx.host
        .podcasts()
        .create_episode(&who, &feed_id, episode)
        .await
        .unwrap();
    let joe_feed = fx
        .public(Method::GET, path_of(joe["feed_url"].as_str().unwrap()), &[])
        .await;
    assert!(String::from_utf8_lossy(&joe_feed.raw).contains("Second for members"));
}

#[tokio::test]
async fn subscribers_are_validated_and_kept_to_their_account() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    let long = "x".repeat(300);
    for (body, field) in [
        (json!({"label": long}), "label"),
        (json!({"label": "ok", "extra": true}), "extra"),
    ] {
        let answer = fx
            .call(
                Method::POST,
                "/api/feeds/secret-show/subscribers",
                &fx.alice,
                Some(body),
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(answer.body["errors"][field].is_array(), "{}", answer.body);
    }
    let answer = fx
        .call(Method::POST, "/api/feeds/nope/subscribers", &fx.alice, None)
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let jane = add(&fx, "Jane").await;
    let id = jane["id"].as_str().unwrap();
    for (token, path) in [
        (
            fx.mallory.clone(),
            format!("/api/feeds/secret-show/subscribers/{id}"),
        ),
        (
            fx.alice.clone(),
            "/api/feeds/secret-show/subscribers/sub_aaaaaaaaaaaaaaaa".into(),
        ),
        (
            fx.alice.clone(),
            "/api/feeds/secret-show/subscribers/garbage".into(),
        ),
    ] {
        let answer = fx.call(Method::DELETE, &path, &token, None).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn downloads_are_counted_per_subscriber() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    let jane = add(&fx, "Jane").await;
    let joe = add(&fx, "Joe").await;
    let mut audio = Vec::new();
    for subscriber in [&jane, &joe] {
        let feed = fx
            .public(
                Method::GET,
                path_of(subscriber["feed_url"].as_str().unwrap()),
                &[],
            )
            .await;
        audio.push(enclosure(&String::from_utf8_lossy(&feed.raw)));
    }
    // Jane's app downloads the episode twice (one download in 24 hours), Joe's (another app:
    // another listener behind the same address) once; the body is read to the end.
    let jane_app = [(
        "user-agent",
        "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X; en_us)",
    )];
    let joe_app = [(
        "user-agent",
        "Overcast/3.0 (+http://overcast.fm/; iOS podcast app)",
    )];
    for (path, agent) in [
        (&audio[0], &jane_app),
        (&audio[0], &jane_app),
        (&audio[1], &joe_app),
    ] {
        let answer = fx.public(Method::GET, path_of(path), agent).await;
        assert_eq!(answer.status, StatusCode::OK);
    }
    let report = fx.get("/api/stats/feeds/secret-show").await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.body);
    let data = &report.body["data"];
    assert_eq!(data["total"], 2, "{data}");
    let mut per: Vec<(String, u64)> = data["subscribers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["subscriber_id"].as_str().unwrap().to_string(),
                s["downloads"].as_u64().unwrap(),
            )
        })
        .collect();
    per.sort();
    let mut expected = vec![
        (jane["id"].as_str().unwrap().to_string(), 1),
        (joe["id"].as_str().unwrap().to_string(), 1),
    ];
    expected.sort();
    assert_eq!(per, expected);
}

/// Uploaded files share the site's origin, whose session cookie signs in the key-management
/// site: an HTML transcript or an SVG must not run as a page of it.
#[tokio::test]
async fn uploaded_documents_are_sandboxed() {
    let fx = Fixture::new().await;
    let html = b"<!DOCTYPE html><html><head><title>Transcript</title></head><body><p>Hello</p><script>fetch('/account')</script></body></html>";
    let uploaded = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[("media", "transcript.html", html.to_vec())],
        )
        .await;
    assert_eq!(uploaded.status, StatusCode::CREATED, "{}", uploaded.body);
    let url = uploaded.body["url"].as_str().unwrap();
    let answer = fx.public(Method::GET, path_of(url), &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    let csp = answer.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.starts_with("sandbox;"), "{csp}");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert_eq!(answer.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
}

/// Every URL of the deployment that `xml` carries (attributes and texts), `&amp;` decoded.
fn deployment_urls(xml: &str) -> Vec<String> {
    xml.match_indices("https://pod.test")
        .map(|(at, _)| {
            let rest = &xml[at..];
            let end = rest.find(['"', '<']).unwrap_or(rest.len());
            rest[..end].replace("&amp;", "&")
        })
        .collect()
}

/// alice's episode of `secret-show` with every kind of file a feed links: audio with chapters
/// (written by the tag job), a cover, a transcript and an alternate enclosure; the podcast has
/// artwork too. Returns the media ids.
async fn episode_with_every_file(fx: &Fixture) -> Vec<u64> {
    let audio = fx.upload_wav("chaptered.wav").await;
    let put = put_ok(
        fx,
        &format!("/api/media/{audio}/metadata"),
        json!({"chapters": [{"start": 0, "title": "Hello"}]}),
    )
    .await;
    let job = put["data"]["job"]["id"].as_str().unwrap().to_string();
    let workers = fx.start_workers();
    assert_eq!(fx.until_done(&job).await["status"], "succeeded");
    drop(workers);
    let cover = fx.upload_png("cover.png").await;
    let artwork = fx.upload_png("artwork.png").await;
    let transcript = fx
        .upload(
            "talk.vtt",
            b"WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n".to_vec(),
        )
        .await;
    let alternate = fx.upload_wav("lossless.wav").await;
    put_ok(fx, "/api/feeds/secret-show", json!({"logo": artwork})).await;
    let episode = fx
        .episode(
            "secret-show",
            &[
                ("title", "Everything"),
                ("is_public", "1"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let fields = json!({
        "itunes": {"logo": cover},
        "podcast": {
            "transcript": transcript,
            "alternateEnclosure": [{"media": alternate, "title": "Lossless"}],
        },
    });
    put_ok(fx, &format!("/api/feed/secret-show/show/{episode}"), fields).await;
    vec![audio, cover, artwork, transcript, alternate]
}

/// The public path of a subscriber's file URL: `/media/alice/{blob}/{name}` or
/// `/chapters/alice/{blob}.json`.
fn keyless(path: &str) -> String {
    let (_, file) = path.split_once("/sub_").unwrap();
    let (_, file) = file.split_once('/').unwrap();
    format!("/{}", file.replacen('/', "/alice/", 1))
}

#[tokio::test]
async fn every_link_of_a_subscribers_feed_carries_their_key_and_dies_with_it() {
    let fx = Fixture::new().await;
    private_podcast(&fx).await;
    episode_with_every_file(&fx).await;
    let jane = add(&fx, "Jane").await;
    let feed_url = jane["feed_url"].as_str().unwrap();
    let prefix = feed_url.strip_suffix("/rss").unwrap();
    let feed = fx.public(Method::GET, path_of(feed_url), &[]).await;
    let xml = String::from_utf8_lossy(&feed.raw).into_owned();
    for tag in [
        "<enclosure ",
        "<podcast:chapters ",
        "<podcast:transcript ",
        "<podcast:source ",
        "<itunes:image ",
        "<image>",
    ] {
        assert!(xml.contains(tag), "{tag} in {xml}");
    }
    let urls = deployment_urls(&xml);
    assert!(urls.len() >= 8, "{urls:?}");
    for url in &urls {
        assert!(
            url.starts_with(&format!("{prefix}/")),
            "a keyless link {url} in {xml}"
        );
    }
    let files: Vec<&String> = urls.iter().filter(|u| !u.ends_with("/rss")).collect();
    assert!(files.iter().any(|u| u.contains("/chapters/")), "{files:?}");
    for url in &files {
        let answer = fx.public(Method::GET, path_of(url), &[]).await;
        assert_eq!(answer.status, StatusCode::OK, "{url}");
        let cache = answer.headers[header::CACHE_CONTROL].to_str().unwrap();
        assert!(cache.starts_with("private"), "{url}: {cache}");
        // Without the key, nothing: the public path does not serve a private podcast's files.
        let public = keyless(path_of(url));
        let answer = fx.public(Method::GET, &public, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{public}");
    }
    let id = jane["id"].as_str().unwrap();
    let revoked = fx
        .call(
            Method::DELETE,
            &format!("/api/feeds/secret-show/subscribers/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    for url in &urls {
        let answer = fx.public(Method::GET, path_of(url), &[]).await;
        assert_eq!(answer.status, StatusCode::GONE, "{url}");
    }
}

/// alice's `PUT` of `body` at `path`, answered 200.
async fn put_ok(fx: &Fixture, path: &str, body: serde_json::Value) -> serde_json::Value {
    let answer = fx.call(Method::PUT, path, &fx.alice, Some(body)).await;
    assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.body);
    answer.body
}

/// The status a `GET` of `path` gets from `api` (another process's, say).
async fn status_on(api: &podhost_http::Api, path: &str) -> StatusCode {
    let request = http::Request::get(path)
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    common::send_to(api, request).await.status
}

/// Asserts that no path of `paths` is served on the public path.
async fn closed(fx: &Fixture, paths: &[String], when: &str) {
    for path in paths {
        let answer = fx.public(Method::GET, path, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{when}: {path}");
    }
}

#[tokio::test]
async fn deleting_a_private_episode_or_podcast_makes_none_of_its_files_public() {
    let fx = Fixture::new().await;
    let audio = private_podcast(&fx).await;
    let mut files = episode_with_every_file(&fx).await;
    files.push(audio);
    let mut paths = Vec::new();
    for id in &files {
        let record = fx.get(&format!("/api/media/{id}")).await;
        paths.push(path_of(record.body["url"].as_str().unwrap()).to_string());
    }
    closed(&fx, &paths, "while the episodes exist").await;
    // The first episode (the plain audio) deleted, then the whole podcast.
    let list = fx.get("/api/feed/secret-show/shows").await;
    let first = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attributes"]["title"] == "Members only")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let deleted = fx
        .call(
            Method::DELETE,
            &format!("/api/feed/secret-show/show/{first}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.body);
    closed(&fx, &paths, "after deleting an episode").await;
    let deleted = fx
        .call(Method::DELETE, "/api/feeds/secret-show", &fx.alice, None)
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.body);
    closed(&fx, &paths, "after deleting the podcast").await;
    let (_, other) = fx.another_process();
    for path in &paths {
        let request = http::Request::get(path.as_str())
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap();
        let answer = common::send_to(&other, request).await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "another process: {path}"
        );
    }
    // The API says why: a private podcast used them.
    for id in &files {
        let record = fx.get(&format!("/api/media/{id}")).await;
        assert_eq!(record.body["private"], true, "{}", record.body);
    }
    // Public again when the podcaster says so.
    let opened = put_ok(
        &fx,
        &format!("/api/media/{audio}"),
        json!({"private": false}),
    )
    .await;
    assert_eq!(opened["private"], false);
    let path = path_of(opened["url"].as_str().unwrap()).to_string();
    assert_eq!(
        fx.public(Method::GET, &path, &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_podcast_turning_private_closes_its_files_until_a_public_one_publishes_them() {
    let fx = Fixture::new().await;
    fx.feed("open-show").await;
    let audio = fx.upload_wav("talk.wav").await;
    let episode = fx
        .episode(
            "open-show",
            &[
                ("title", "Hello"),
                ("is_public", "1"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let record = fx.get(&format!("/api/media/{audio}")).await;
    assert_eq!(record.body["private"], false);
    let path = path_of(record.body["url"].as_str().unwrap()).to_string();
    let (_, other) = fx.another_process();
    for page in [&path, "/feeds/open-show/rss", "/podcasts/open-show"] {
        assert_eq!(status_on(&other, page).await, StatusCode::OK, "{page}");
    }
    put_ok(&fx, "/api/feeds/open-show", json!({"private": true})).await;
    for page in [&path, "/feeds/open-show/rss", "/podcasts/open-show"] {
        assert_eq!(
            status_on(&other, page).await,
            StatusCode::NOT_FOUND,
            "{page}"
        );
    }
    // Public again: the published episode's file is public again with it, at the same URL.
    put_ok(&fx, "/api/feeds/open-show", json!({"private": false})).await;
    assert_eq!(status_on(&other, &path).await, StatusCode::OK);
    // Unpublished, it is private again (a private podcast used it).
    put_ok(
        &fx,
        &format!("/api/feed/open-show/show/{episode}"),
        json!({"is_public": 0}),
    )
    .await;
    assert_eq!(status_on(&other, &path).await, StatusCode::NOT_FOUND);
}
