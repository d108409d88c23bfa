//! The public pages at `links.web`: the podcast page and the episode pages, as HTML with the
//! feed's caching rules, hostile text escaped, show notes sanitized, only published episodes.

mod common;

use common::{Answer, Fixture};
use http::{Method, StatusCode};
use serde_json::json;

const BASE: &str = "https://pod.test";

fn html(answer: &Answer) -> String {
    String::from_utf8(answer.raw.to_vec()).expect("pages are UTF-8")
}

const DATA_BLOCK: &str = "<script type=\"application/ld+json\">";

/// The page's schema.org JSON-LD, parsed; and the page without it (a data block, never run: the
/// rest must have no script at all).
fn linked_data(body: &str) -> (serde_json::Value, String) {
    let (before, rest) = body.split_once(DATA_BLOCK).expect("a JSON-LD data block");
    let (data, after) = rest.split_once("</script>").expect("closed");
    let data = serde_json::from_str(data).expect("JSON-LD is JSON");
    (data, format!("{before}{after}"))
}

/// A podcast `show` with a cover, a description and one published episode with audio; returns
/// the episode id and the audio's public URL.
async fn podcast_with_an_episode(fx: &Fixture) -> (String, String) {
    let (id, url, _) = podcast_with_an_episode_and_its_audio(fx).await;
    (id, url)
}

/// [`podcast_with_an_episode`], and the audio's media id.
async fn podcast_with_an_episode_and_its_audio(fx: &Fixture) -> (String, String, u64) {
    fx.feed("show").await;
    let cover = fx.upload_png("cover.png").await;
    let changed = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(json!({
                "title": "The Show", "description": "<p>Talk about <b>things</b>.</p>",
                "language": "de", "logo": cover, "copyright": "© 2026 Alice",
                "itunes": {"author": "Alice", "category": "Technology"}
            })),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
    let audio = fx.upload_wav("pilot.wav").await;
    let id = fx
        .episode(
            "show",
            &[
                ("title", "Pilot"),
                ("description", "<p>Our <em>first</em> episode.</p>"),
                ("is_public", "1"),
                ("publishing_date", "2025-01-01"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let media = fx.get(&format!("/api/media/{audio}")).await;
    (id, media.body["url"].as_str().unwrap().to_string(), audio)
}

#[tokio::test]
async fn the_podcast_page_shows_the_podcast_and_its_episodes() {
    let fx = Fixture::new().await;
    let (id, _) = podcast_with_an_episode(&fx).await;
    let page = fx.public(Method::GET, "/podcasts/show", &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.headers["content-type"], "text/html; charset=utf-8");
    let body = html(&page);
    assert!(
        body.starts_with("<!DOCTYPE html><html lang=\"de\">"),
        "{body}"
    );
    assert!(body.contains("<title>The Show</title>"));
    assert!(body.contains("<h1>The Show</h1>"));
    assert!(body.contains("Alice"));
    assert!(body.contains("<p>Talk about <b>things</b>.</p>"));
    assert!(body.contains(&format!(
        "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"The Show\" href=\"{BASE}/feeds/show/rss\">"
    )));
    assert!(
        body.contains(&format!("value=\"{BASE}/feeds/show/rss\"")),
        "the feed URL to copy"
    );
    assert!(body.contains("alt=\"Cover art of The Show\""));
    assert!(body.contains(&format!("<a href=\"{BASE}/podcasts/show/{id}\">Pilot</a>")));
    assert!(body.contains("<time datetime=\"2025-01-01\">January 1, 2025</time>"));
    assert!(
        body.contains("<time datetime=\"PT0H0M1S\">1 s</time>"),
        "the duration"
    );
    let (data, rest) = linked_data(&body);
    assert!(!rest.contains("<script"), "pages have no script");
    assert_eq!(data["@type"], "PodcastSeries");
    assert_eq!(data["name"], "The Show");
    assert_eq!(data["url"], format!("{BASE}/podcasts/show"));
    assert_eq!(data["webFeed"], format!("{BASE}/feeds/show/rss"));
    assert_eq!(data["author"]["name"], "Alice");
    assert_eq!(data["inLanguage"], "de");
    for (property, value) in [
        ("og:type", "website"),
        ("og:title", "The Show"),
        ("og:description", "Talk about things."),
    ] {
        assert!(
            body.contains(&format!(
                "<meta property=\"{property}\" content=\"{value}\">"
            )),
            "{property}: {body}"
        );
    }
    let cover = data["image"].as_str().expect("the cover");
    assert!(body.contains(&format!("<meta property=\"og:image\" content=\"{cover}\">")));
    assert!(body.contains(&format!(
        "<meta name=\"twitter:image\" content=\"{cover}\">"
    )));
    assert!(body.contains("<meta name=\"twitter:card\" content=\"player\">"));
}

#[tokio::test]
async fn the_episode_page_plays_the_enclosure() {
    let fx = Fixture::new().await;
    let (id, audio_url) = podcast_with_an_episode(&fx).await;
    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{id}"), &[])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let body = html(&page);
    assert!(body.contains("<title>Pilot · The Show</title>"));
    assert!(body.contains("<h1 id=\"title\">Pilot</h1>"));
    assert!(body.contains(&format!(
        "<a class=\"show-link\" href=\"{BASE}/podcasts/show\">"
    )));
    assert!(body.contains("<audio controls preload=\"metadata\" aria-label=\"Listen to Pilot\">"));
    assert!(body.contains(&format!("<source src=\"{audio_url}\" type=\"audio/wav\">")));
    assert!(body.contains(&format!("<a href=\"{audio_url}\" download>Download</a>")));
    assert!(
        body.contains("<p>Our <em>first</em> episode.</p>"),
        "show notes"
    );
    // Link previews and search engines: the episode, its audio, its podcast.
    assert!(body.contains(&format!(
        "<meta property=\"og:audio\" content=\"{audio_url}\">"
    )));
    assert!(body.contains("<meta property=\"og:audio:type\" content=\"audio/wav\">"));
    let (data, _) = linked_data(&body);
    assert_eq!(data["@type"], "PodcastEpisode");
    assert_eq!(data["name"], "Pilot");
    assert_eq!(data["url"], format!("{BASE}/podcasts/show/{id}"));
    assert_eq!(data["datePublished"], "2025-01-01");
    assert_eq!(data["timeRequired"], "PT0H0M1S");
    assert_eq!(data["associatedMedia"]["contentUrl"], audio_url);
    assert_eq!(data["associatedMedia"]["encodingFormat"], "audio/wav");
    assert_eq!(data["partOfSeries"]["@type"], "PodcastSeries");
    assert_eq!(data["partOfSeries"]["url"], format!("{BASE}/podcasts/show"));
    // The link in the API is this page.
    let api = fx.get("/api/feed/show/shows").await;
    assert_eq!(
        api.body["data"][0]["links"]["web"],
        format!("{BASE}/podcasts/show/{id}")
    );
}

#[tokio::test]
async fn pages_are_cached_like_the_feed() {
    let fx = Fixture::new().await;
    let (id, _) = podcast_with_an_episode(&fx).await;
    for url in ["/podcasts/show".to_string(), format!("/podcasts/show/{id}")] {
        let page = fx.public(Method::GET, &url, &[]).await;
        let h = &page.headers;
        assert_eq!(h["cache-control"], "public, max-age=300", "{url}");
        assert_eq!(h["x-content-type-options"], "nosniff");
        let csp = h["content-security-policy"].to_str().unwrap();
        for directive in [
            "default-src 'none'",
            "style-src 'sha256-",
            "img-src 'self' data: https://pod.test/media/",
            "media-src 'self' https://pod.test/media/",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{csp} has {directive}");
        }
        let etag = h["etag"].to_str().unwrap().to_string();
        let last_modified = h["last-modified"].to_str().unwrap().to_string();
        for conditional in [
            ("if-none-match", etag.as_str()),
            ("if-modified-since", &last_modified),
        ] {
            let again = fx.public(Method::GET, &url, &[conditional]).await;
            assert_eq!(
                again.status,
                StatusCode::NOT_MODIFIED,
                "{url} {conditional:?}"
            );
            assert!(again.raw.is_empty());
        }
        let zipped = fx
            .public(Method::GET, &url, &[("accept-encoding", "gzip")])
            .await;
        assert_eq!(zipped.headers["content-encoding"], "gzip");
        assert_ne!(zipped.headers["etag"].to_str().unwrap(), etag);
        let head = fx.public(Method::HEAD, &url, &[]).await;
        assert_eq!(head.status, StatusCode::OK);
        assert_eq!(head.headers["etag"].to_str().unwrap(), etag);
        let post = fx.public(Method::POST, &url, &[]).await;
        assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(post.headers["allow"], "GET, HEAD");
    }
    // A change of the podcast changes its pages.
    let before = fx.public(Method::GET, "/podcasts/show", &[]).await;
    fx.call(
        Method::PUT,
        "/api/feeds/show",
        &fx.alice,
        Some(json!({"title": "The Renamed Show"})),
    )
    .await;
    let etag = before.headers["etag"].to_str().unwrap();
    let after = fx
        .public(Method::GET, "/podcasts/show", &[("if-none-match", etag)])
        .await;
    assert_eq!(after.status, StatusCode::OK);
    assert!(html(&after).contains("<h1>The Renamed Show</h1>"));
}

#[tokio::test]
async fn hostile_text_is_escaped_and_show_notes_are_sanitized() {
    let fx = Fixture::new().await;
    fx.feed("evil").await;
    let changed = fx
        .call(
            Method::PUT,
            "/api/feeds/evil",
            &fx.alice,
            Some(json!({
                "title": "<script>alert('feed')</script>",
                "description": "<p onmouseover=\"alert(1)\">About<style>body{display:none}</style></p>",
            })),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
    let id = fx
        .episode(
            "evil",
            &[
                ("title", "</title><script>alert(4)</script>"),
                (
                    "description",
                    "<p>Notes<script>alert(5)</script><iframe src=\"https://x.example\"></iframe>\
                     <a href=\"javascript:alert(6)\">bad</a> <a href=\" JAVASCRIPT:alert(7)\">bad</a> \
                     <a href=\"https://good.example/\" onclick=\"alert(8)\">good</a>\
                     <img src=\"https://tracker.example/x.gif\" onerror=\"alert(9)\"></p>",
                ),
                ("is_public", "1"),
                ("publishing_date", "2025-01-01"),
            ],
        )
        .await;
    for url in ["/podcasts/evil".to_string(), format!("/podcasts/evil/{id}")] {
        let page = html(&fx.public(Method::GET, &url, &[]).await);
        // The JSON-LD holds the text as it is, and no text of it closes the data block.
        let (data, body) = linked_data(&page);
        assert!(
            data["name"].as_str().unwrap().contains("<script>"),
            "{data}"
        );
        assert!(!body.contains("<script"), "{url}: {body}");
        assert!(
            !body.to_lowercase().contains("javascript:"),
            "{url}: {body}"
        );
        for gone in [
            "onmouseover",
            "onclick",
            "onerror",
            "<iframe",
            "<img src=\"https://tracker",
            "display:none",
        ] {
            assert!(!body.contains(gone), "{url} has no {gone}: {body}");
        }
        assert!(
            body.contains("&lt;script&gt;alert('feed')&lt;/script&gt;"),
            "{url}: the title, escaped"
        );
    }
    let episode = html(
        &fx.public(Method::GET, &format!("/podcasts/evil/{id}"), &[])
            .await,
    );
    assert!(
        episode
            .contains("<h1 id=\"title\">&lt;/title&gt;&lt;script&gt;alert(4)&lt;/script&gt;</h1>")
    );
    assert!(
        episode
            .contains("<a href=\"https://good.example/\" rel=\"noopener nofollow ugc\">good</a>")
    );
}

#[tokio::test]
async fn only_published_episodes_have_pages() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    fx.feed("other").await;
    let draft = fx
        .episode("show", &[("title", "Draft"), ("is_public", "0")])
        .await;
    // The fixture's clock stands at 2026-01-01.
    let scheduled = fx
        .episode(
            "show",
            &[
                ("title", "Soon"),
                ("is_public", "1"),
                ("publishing_date", "2026-01-02"),
            ],
        )
        .await;
    let deleted = fx
        .episode(
            "show",
            &[
                ("title", "Gone"),
                ("is_public", "1"),
                ("publishing_date", "2025-06-01"),
            ],
        )
        .await;
    let elsewhere = fx
        .episode(
            "other",
            &[
                ("title", "Other"),
                ("is_public", "1"),
                ("publishing_date", "2025-06-01"),
            ],
        )
        .await;
    fx.call(
        Method::DELETE,
        &format!("/api/feed/show/show/{deleted}"),
        &fx.alice,
        None,
    )
    .await;
    for url in [
        format!("/podcasts/show/{draft}"),
        format!("/podcasts/show/{scheduled}"),
        format!("/podcasts/show/{deleted}"),
        format!("/podcasts/show/{elsewhere}"),
        "/podcasts/show/pod-999999".into(),
        "/podcasts/show/not-an-id".into(),
        "/podcasts/show/pod-1/more".into(),
        "/podcasts/nobody".into(),
    ] {
        let answer = fx.public(Method::GET, &url, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{url}");
        assert_eq!(
            answer.headers["content-type"], "text/html; charset=utf-8",
            "{url}"
        );
        assert!(html(&answer).contains("<h1>Not found</h1>"), "{url}");
    }
    let podcast = html(&fx.public(Method::GET, "/podcasts/show", &[]).await);
    for title in ["Draft", "Soon", "Gone", "Other"] {
        assert!(
            !podcast.contains(&format!(">{title}</a>")),
            "{title} is not listed"
        );
    }
    assert!(podcast.contains("No episodes have been published yet."));

    // The scheduled episode's time comes: both pages show it by themselves.
    fx.clock.advance(jiff::SignedDuration::from_hours(25));
    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{scheduled}"), &[])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let podcast = html(&fx.public(Method::GET, "/podcasts/show", &[]).await);
    assert!(podcast.contains(&format!(
        "<a href=\"{BASE}/podcasts/show/{scheduled}\">Soon</a>"
    )));
}

#[tokio::test]
async fn moved_and_deleted_podcasts() {
    let fx = Fixture::new().await;
    fx.feed("old").await;
    let id = fx
        .episode(
            "old",
            &[
                ("title", "Kept"),
                ("is_public", "1"),
                ("publishing_date", "2025-01-01"),
            ],
        )
        .await;
    fx.call(
        Method::PUT,
        "/api/feeds/old",
        &fx.alice,
        Some(json!({"itunes": {"new-feed-url": "https://new.example/rss"}})),
    )
    .await;
    // A moved podcast's pages stay for listeners who follow old links, and send them on to
    // the new feed.
    let page = fx.public(Method::GET, "/podcasts/old", &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    let body = html(&page);
    assert!(body.contains("This podcast has moved"));
    assert!(body.contains("href=\"https://new.example/rss\" type=\"application/rss+xml\""));
    assert!(!body.contains(&format!("{BASE}/feeds/old/rss")));
    let episode = format!("/podcasts/old/{id}");
    assert_eq!(
        fx.public(Method::GET, &episode, &[]).await.status,
        StatusCode::OK
    );

    fx.call(Method::DELETE, "/api/feeds/old", &fx.alice, None)
        .await;
    for url in ["/podcasts/old", episode.as_str()] {
        let gone = fx.public(Method::GET, url, &[]).await;
        assert_eq!(gone.status, StatusCode::GONE, "{url}");
        assert!(html(&gone).contains("<h1>This podcast was deleted</h1>"));
        assert!(gone.headers.contains_key("content-security-policy"));
    }
}

#[tokio::test]
async fn the_podcast_page_lists_twenty_episodes_and_pages_through_the_rest() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    for n in 1..=45 {
        let date = format!("2025-{:02}-{:02}", 1 + (n - 1) / 28, 1 + (n - 1) % 28);
        fx.episode(
            "show",
            &[
                ("title", &format!("Episode {n}")),
                ("is_public", "1"),
                ("publishing_date", &date),
            ],
        )
        .await;
    }
    let listed = |body: &str| -> Vec<u32> {
        body.split(">Episode ")
            .skip(1)
            .filter_map(|rest| rest.split('<').next()?.parse().ok())
            .collect()
    };
    let link = |rel: &str, query: &str| {
        format!("<link rel=\"{rel}\" href=\"{BASE}/podcasts/show{query}\">")
    };
    // (query, episodes listed newest first, the list's first number, prev, next)
    let cases = [
        ("", 26..=45, None, None, Some("?page=2")),
        ("?page=2", 6..=25, Some("21"), Some(""), Some("?page=3")),
        ("?page=3", 1..=5, Some("41"), Some("?page=2"), None),
    ];
    for (query, episodes, start, prev, next) in cases {
        let answer = fx
            .public(Method::GET, &format!("/podcasts/show{query}"), &[])
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{query}");
        let body = html(&answer);
        assert_eq!(listed(&body), episodes.rev().collect::<Vec<_>>(), "{query}");
        assert!(
            body.contains("<span class=\"count\">(45)</span>"),
            "{query}"
        );
        assert!(
            body.contains(&format!(
                "<link rel=\"canonical\" href=\"{BASE}/podcasts/show{query}\">"
            )),
            "{query}: the page's own address"
        );
        match start {
            Some(n) => assert!(
                body.contains(&format!("<ol class=\"episodes\" start=\"{n}\">")),
                "{query}"
            ),
            None => assert!(body.contains("<ol class=\"episodes\">"), "{query}"),
        }
        for (rel, to) in [("prev", prev), ("next", next)] {
            match to {
                Some(to) => assert!(body.contains(&link(rel, to)), "{query}: rel={rel} to {to}"),
                None => assert!(
                    !body.contains(&format!("rel=\"{rel}\"")),
                    "{query}: no {rel}"
                ),
            }
        }
    }
    for (query, status) in [
        ("?page=4", StatusCode::NOT_FOUND),
        ("?page=0", StatusCode::BAD_REQUEST),
        ("?page=two", StatusCode::BAD_REQUEST),
        ("?page=-1", StatusCode::BAD_REQUEST),
    ] {
        let answer = fx
            .public(Method::GET, &format!("/podcasts/show{query}"), &[])
            .await;
        assert_eq!(answer.status, status, "{query}");
        assert_eq!(answer.headers["content-type"], "text/html; charset=utf-8");
    }
    // A podcast of no episodes has its one page.
    fx.feed("empty").await;
    let empty = fx.public(Method::GET, "/podcasts/empty", &[]).await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(!html(&empty).contains("rel=\"next\""));
}

/// The `'sha256-…'` CSP source of an inline text.
fn hash_source(text: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The text between `open` and the next `close` in `body`.
fn between<'a>(body: &'a str, open: &str, close: &str) -> &'a str {
    let (_, rest) = body
        .split_once(open)
        .unwrap_or_else(|| panic!("{open}: {body}"));
    rest.split_once(close).expect("closed").0
}

#[tokio::test]
async fn the_player_plays_the_newest_episode_or_the_one_asked_for() {
    let fx = Fixture::new().await;
    let (pilot, pilot_url) = podcast_with_an_episode(&fx).await;
    let player = fx.public(Method::GET, "/embed/show", &[]).await;
    assert_eq!(player.status, StatusCode::OK);
    assert_eq!(player.headers["content-type"], "text/html; charset=utf-8");
    let body = html(&player);
    assert!(
        body.starts_with("<!DOCTYPE html><html lang=\"de\">"),
        "{body}"
    );
    assert!(body.contains("<title>Pilot · The Show</title>"));
    assert!(body.contains(&format!(
        "<link rel=\"canonical\" href=\"{BASE}/podcasts/show/{pilot}\">"
    )));
    assert!(body.contains(&format!(
        "<audio id=\"media\" controls preload=\"metadata\" aria-label=\"Listen to Pilot\" src=\"{pilot_url}\">"
    )));
    assert!(body.contains("<button id=\"play\" type=\"button\" aria-label=\"Play\""));
    assert!(body.contains("<input id=\"seek\" type=\"range\" min=\"0\" max=\"1\""));
    assert!(body.contains("<button id=\"speed\" type=\"button\""));
    // Its own script and stylesheet only, allowed by their hashes; any site may frame it.
    let policy = player.headers["content-security-policy"].to_str().unwrap();
    let script = between(&body, "<script>", "</script>");
    let style = between(&body, "<style>", "</style>");
    assert!(
        policy.starts_with(&format!(
            "default-src 'none'; script-src {}; style-src {};",
            hash_source(script),
            hash_source(style)
        )),
        "{policy}"
    );
    assert!(policy.ends_with("frame-ancestors *"), "{policy}");
    assert!(!policy.contains("unsafe"));
    assert!(player.headers.get("x-frame-options").is_none());
    assert_eq!(body.matches("<script").count(), 1, "one script: its own");
    assert!(
        !body.contains("http://") && !body.contains("//cdn"),
        "nothing from elsewhere"
    );

    // One episode's player; the podcast's moves to a newer episode.
    let audio = fx.upload_wav("second.wav").await;
    let second = fx
        .episode(
            "show",
            &[
                ("title", "Second"),
                ("is_public", "1"),
                ("publishing_date", "2025-02-01"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let newest = html(&fx.public(Method::GET, "/embed/show", &[]).await);
    assert!(
        newest.contains("<title>Second · The Show</title>"),
        "{newest}"
    );
    assert!(newest.contains(&format!(
        "<link rel=\"canonical\" href=\"{BASE}/podcasts/show/{second}\">"
    )));
    let one = fx
        .public(Method::GET, &format!("/embed/show/{pilot}"), &[])
        .await;
    assert_eq!(one.status, StatusCode::OK);
    assert!(html(&one).contains("<title>Pilot · The Show</title>"));
    // Answered like the pages: a validator, 304 while unchanged.
    let etag = one.headers["etag"].to_str().unwrap().to_string();
    let again = fx
        .public(
            Method::GET,
            &format!("/embed/show/{pilot}"),
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn only_a_published_episode_of_a_public_podcast_has_a_player() {
    let fx = Fixture::new().await;
    let (pilot, _) = podcast_with_an_episode(&fx).await;
    let draft = fx
        .episode("show", &[("title", "Draft"), ("is_public", "0")])
        .await;
    fx.feed("empty").await;
    fx.feed("hidden").await;
    let audio = fx.upload_wav("secret.wav").await;
    let secret = fx
        .episode(
            "hidden",
            &[
                ("title", "Secret"),
                ("is_public", "1"),
                ("publishing_date", "2025-01-01"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let private = fx
        .call(
            Method::PUT,
            "/api/feeds/hidden",
            &fx.alice,
            Some(json!({"private": true})),
        )
        .await;
    assert_eq!(private.status, StatusCode::OK, "{}", private.body);
    let cases = [
        (format!("/embed/show/{pilot}"), StatusCode::OK),
        (format!("/embed/show/{draft}"), StatusCode::NOT_FOUND),
        ("/embed/empty".to_string(), StatusCode::NOT_FOUND),
        ("/embed/hidden".to_string(), StatusCode::NOT_FOUND),
        (format!("/embed/hidden/{secret}"), StatusCode::NOT_FOUND),
        ("/embed/nobody".to_string(), StatusCode::NOT_FOUND),
        (format!("/embed/empty/{pilot}"), StatusCode::NOT_FOUND),
    ];
    for (path, status) in cases {
        let answer = fx.public(Method::GET, &path, &[]).await;
        assert_eq!(answer.status, status, "{path}");
        // Its notices may be framed too: the framing site shows why there is no player.
        let policy = answer.headers["content-security-policy"].to_str().unwrap();
        assert!(policy.ends_with("frame-ancestors *"), "{path}: {policy}");
    }
    let deleted = fx
        .call(Method::DELETE, "/api/feeds/show", &fx.alice, None)
        .await;
    assert!(deleted.status.is_success(), "{}", deleted.body);
    let gone = fx.public(Method::GET, "/embed/show", &[]).await;
    assert_eq!(gone.status, StatusCode::GONE);
}

#[tokio::test]
async fn the_player_lists_chapters_and_follows_a_transcript() {
    let fx = Fixture::new().await;
    let _workers = fx.start_workers();
    let (pilot, _, audio) = podcast_with_an_episode_and_its_audio(&fx).await;
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{audio}/metadata"),
            &fx.alice,
            Some(json!({"chapters": [
                {"start": 0, "title": "Hello"},
                {"start": 0.5, "title": "News <b>&</b>"},
            ]})),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    let job = put.body["data"]["job"]["id"].as_str().unwrap().to_string();
    assert_eq!(fx.until_done(&job).await["status"], "succeeded");
    let vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:00.500\nHello\n";
    let transcript = fx.upload("talk.vtt", vtt.as_bytes().to_vec()).await;
    let attached = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{pilot}"),
            &fx.alice,
            Some(json!({"podcast": {"transcript": transcript}})),
        )
        .await;
    assert_eq!(attached.status, StatusCode::OK, "{}", attached.body);
    let body = html(&fx.public(Method::GET, "/embed/show", &[]).await);
    let record = fx.get(&format!("/api/media/{audio}")).await;
    let blob = record.body["url"]
        .as_str()
        .unwrap()
        .split('/')
        .nth(5)
        .unwrap()
        .to_string();
    // The listener's chapters (moved by their ads) are fetched from the chapters URL.
    assert!(
        body.contains(&format!(
            "data-chapters=\"{BASE}/chapters/alice/{blob}.json\""
        )),
        "{body}"
    );
    assert!(body.contains(
        "<button type=\"button\" data-start=\"0\"><span class=\"time\">0:00</span><span>Hello</span></button>"
    ));
    assert!(body.contains(
        "<button type=\"button\" data-start=\"500\"><span class=\"time\">0:00</span><span>News &lt;b&gt;&amp;&lt;/b&gt;</span></button>"
    ));
    let vtt_url = fx.get(&format!("/api/media/{transcript}")).await.body["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        body.contains(&format!("data-src=\"{vtt_url}\" data-type=\"text/vtt\"")),
        "{body}"
    );
    // A player with chapters is the taller one, in the page's code and its card.
    let page = html(
        &fx.public(Method::GET, &format!("/podcasts/show/{pilot}"), &[])
            .await,
    );
    assert!(page.contains("<meta name=\"twitter:player:height\" content=\"420\">"));
}

#[tokio::test]
async fn pages_give_the_players_code_and_announce_it_to_link_previews() {
    let fx = Fixture::new().await;
    let (pilot, _) = podcast_with_an_episode(&fx).await;
    for (path, player, title) in [
        (
            format!("/podcasts/show/{pilot}"),
            format!("{BASE}/embed/show/{pilot}"),
            "Pilot",
        ),
        (
            "/podcasts/show".to_string(),
            format!("{BASE}/embed/show"),
            "The Show",
        ),
    ] {
        let body = html(&fx.public(Method::GET, &path, &[]).await);
        let code = format!(
            "&lt;iframe src=\"{player}\" title=\"Player: {title}\" width=\"600\" height=\"{}\" loading=\"lazy\" style=\"border:0;max-width:100%;width:600px\"&gt;&lt;/iframe&gt;",
            if path == "/podcasts/show" { 420 } else { 180 }
        );
        let textarea = between(
            &body,
            "<textarea id=\"embed-code\" readonly rows=\"3\" spellcheck=\"false\">",
            "</textarea>",
        );
        assert_eq!(textarea, code.replace('"', "&quot;"), "{path}");
        assert!(body.contains("<label for=\"embed-code\">"), "{path}");
        assert!(
            body.contains("<meta name=\"twitter:card\" content=\"player\">"),
            "{path}"
        );
        assert!(
            body.contains(&format!(
                "<meta name=\"twitter:player\" content=\"{player}\">"
            )),
            "{path}"
        );
        let page_url = format!("{BASE}{path}");
        let oembed = format!(
            "{BASE}/oembed?url={}&amp;format=json",
            percent_encoding::utf8_percent_encode(&page_url, percent_encoding::NON_ALPHANUMERIC)
        );
        assert!(
            body.contains(&format!(
                "<link rel=\"alternate\" type=\"application/json+oembed\" title=\"{}\" href=\"{oembed}\">",
                if path == "/podcasts/show" { "The Show".to_string() } else { "Pilot · The Show".to_string() }
            )),
            "{path}: {body}"
        );
    }
}

#[tokio::test]
async fn oembed_answers_the_rich_type_for_the_pages_of_public_podcasts() {
    let fx = Fixture::new().await;
    let (pilot, _) = podcast_with_an_episode(&fx).await;
    let fx = &fx;
    let ask = |query: String| async move {
        fx.public(Method::GET, &format!("/oembed?{query}"), &[])
            .await
    };
    let url = |u: &str| {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("url", u)
            .finish()
    };
    let episode_page = format!("{BASE}/podcasts/show/{pilot}");
    let answer = ask(format!("{}&format=json", url(&episode_page))).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.headers["access-control-allow-origin"], "*");
    let e = &answer.body;
    assert_eq!(e["version"], "1.0");
    assert_eq!(e["type"], "rich");
    assert_eq!(e["title"], "Pilot");
    assert_eq!(e["author_name"], "Alice");
    assert_eq!(e["author_url"], format!("{BASE}/podcasts/show"));
    assert_eq!(e["provider_url"], BASE);
    assert_eq!(e["width"], 600);
    assert_eq!(e["height"], 180);
    assert!(
        e["html"]
            .as_str()
            .unwrap()
            .starts_with(&format!("<iframe src=\"{BASE}/embed/show/{pilot}\"")),
        "{e}"
    );
    assert!(
        e["thumbnail_url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{BASE}/media/alice/"))
    );
    assert!(e["thumbnail_width"].as_u64().unwrap() > 0);

    // The podcast's page (any of its pages), its player, within the consumer's size.
    let podcast = ask(format!(
        "{}&maxwidth=320&maxheight=200",
        url(&format!("{BASE}/podcasts/show?page=1"))
    ))
    .await;
    assert_eq!(podcast.status, StatusCode::OK, "{}", podcast.body);
    assert_eq!(podcast.body["title"], "The Show");
    assert_eq!(podcast.body["width"], 320);
    assert_eq!(podcast.body["height"], 200);
    assert!(
        podcast.body["html"]
            .as_str()
            .unwrap()
            .contains(&format!("src=\"{BASE}/embed/show\""))
    );
    let player = ask(url(&format!("{BASE}/embed/show/{pilot}"))).await;
    assert_eq!(player.status, StatusCode::OK, "{}", player.body);

    for (query, status) in [
        (
            url("https://elsewhere.test/podcasts/show"),
            StatusCode::NOT_FOUND,
        ),
        (
            url(&format!("{BASE}/podcasts/show/stats")),
            StatusCode::NOT_FOUND,
        ),
        (
            url(&format!("{BASE}/podcasts/nobody")),
            StatusCode::NOT_FOUND,
        ),
        (
            url(&format!("{BASE}/podcasts/show/pod-999999")),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("{}&format=xml", url(&episode_page)),
            StatusCode::NOT_IMPLEMENTED,
        ),
        (
            format!("{}&maxwidth=wide", url(&episode_page)),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("{}&maxheight=0", url(&episode_page)),
            StatusCode::BAD_REQUEST,
        ),
        ("format=json".to_string(), StatusCode::BAD_REQUEST),
    ] {
        let answer = ask(query.clone()).await;
        assert_eq!(answer.status, status, "{query}: {}", answer.body);
    }
    let private = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(json!({"private": true})),
        )
        .await;
    assert_eq!(private.status, StatusCode::OK, "{}", private.body);
    let hidden = ask(url(&episode_page)).await;
    assert_eq!(
        hidden.status,
        StatusCode::NOT_FOUND,
        "a private podcast is not embedded"
    );
}

#[tokio::test]
async fn robots_may_read_the_pages_and_players_but_not_the_api_or_private_feeds() {
    let fx = Fixture::new().await;
    let robots = fx.public(Method::GET, "/robots.txt", &[]).await;
    assert_eq!(robots.status, StatusCode::OK);
    assert_eq!(robots.headers["content-type"], "text/plain; charset=utf-8");
    let rules = String::from_utf8(robots.raw.to_vec()).unwrap();
    let disallowed: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.strip_prefix("Disallow: "))
        .collect();
    assert!(rules.starts_with("User-agent: *\n"), "{rules}");
    for path in [
        "/api/feeds",
        "/private/show/key/rss",
        "/account",
        "/oauth/authorize",
    ] {
        assert!(
            disallowed.iter().any(|d| path.starts_with(d)),
            "{path}: {rules}"
        );
    }
    for path in [
        "/podcasts/show",
        "/embed/show/pod-1",
        "/feeds/show/rss",
        "/media/a/b/c.mp3",
    ] {
        assert!(
            !disallowed.iter().any(|d| path.starts_with(d)),
            "{path}: {rules}"
        );
    }
}

/// The `Vary` values of an answer, joined.
fn vary(answer: &Answer) -> String {
    answer
        .headers
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A case of a table: what, the path, the request's headers, words that must be there and words
/// that must not.
type Case<'a> = (
    &'a str,
    &'a str,
    &'a [(&'a str, &'a str)],
    &'a [&'a str],
    &'a [&'a str],
);

#[tokio::test]
async fn pages_speak_the_language_the_browser_asks_for_and_a_switch_keeps_it() {
    let fx = Fixture::new().await;
    let (id, _) = podcast_with_an_episode(&fx).await;
    let german = [("accept-language", "de-DE,de;q=0.9,en;q=0.5")];
    let french = [("accept-language", "fr-FR,fr;q=0.9")];
    // (what, path, headers, words that must be there, words that must not)
    let podcast = "/podcasts/show".to_string();
    let episode = format!("/podcasts/show/{id}");
    let player = format!("/embed/show/{id}");
    let cases: [Case<'_>; 7] = [
        (
            "podcast page, German browser",
            &podcast,
            &german,
            &[
                ">Abonnieren<",
                "<h2 id=\"episodes\">Folgen",
                "<time datetime=\"2025-01-01\">1. Januar 2025</time>",
                "alt=\"Cover von The Show\"",
                "Gehostet mit podhost",
                // The switch: German is the page's, English is a link to this page.
                "<span aria-current=\"true\" lang=\"de\">Deutsch</span>",
                "href=\"https://pod.test/podcasts/show?lang=en\" hreflang=\"en\" lang=\"en\">English</a>",
            ],
            &["Subscribe", "January"],
        ),
        (
            "podcast page, no language asked: English, marked inside the German podcast's page",
            &podcast,
            &[],
            &[
                "lang=\"en\">",
                "Subscribe",
                "January 1, 2025",
                "href=\"https://pod.test/podcasts/show?lang=de\" hreflang=\"de\" lang=\"de\">Deutsch</a>",
            ],
            &["Abonnieren"],
        ),
        (
            "a language podhost does not speak: English",
            &podcast,
            &french,
            &["Subscribe"],
            &["Abonnieren"],
        ),
        (
            "episode page, German browser",
            &episode,
            &german,
            &[
                ">Shownotes<",
                ">Herunterladen<",
                "Player einbetten",
                "?lang=en\" hreflang=\"en\"",
            ],
            &["Show notes"],
        ),
        (
            "the player, German browser",
            &player,
            &german,
            &[
                "data-play=\"Abspielen\"",
                "data-pause=\"Pause\"",
                "aria-label=\"Pilot anhören\"",
            ],
            &["data-play=\"Play\""],
        ),
        (
            "the player asked for German by its URL",
            &format!("{player}?lang=de"),
            &[],
            &["data-play=\"Abspielen\""],
            &[],
        ),
        (
            "a page that is not there, German browser",
            "/podcasts/nothing-here",
            &german,
            &["<h1>Nicht gefunden</h1>", "<html lang=\"de\">"],
            &["Not found"],
        ),
    ];
    for (what, path, headers, present, absent) in cases {
        let answer = fx.public(Method::GET, path, headers).await;
        let body = html(&answer);
        for words in present {
            assert!(body.contains(words), "{what}: {words:?} missing in {body}");
        }
        for words in absent {
            assert!(!body.contains(words), "{what}: {words:?} in {body}");
        }
        assert!(vary(&answer).contains("Accept-Language"), "{what}");
    }

    // Each language is its own document: its own validator, never the other's 304.
    let english = fx.public(Method::GET, &podcast, &[]).await;
    let in_german = fx.public(Method::GET, &podcast, &german).await;
    assert_ne!(english.headers["etag"], in_german.headers["etag"]);
    let etag = english.headers["etag"].to_str().unwrap();
    let revalidated = fx
        .public(Method::GET, &podcast, &[("if-none-match", etag), german[0]])
        .await;
    assert_eq!(
        revalidated.status,
        StatusCode::OK,
        "German is not English's 304"
    );

    // The switch: `?lang=de` answers in German and remembers it; the cookie alone then
    // chooses German over the browser's English, and `?lang=en` switches back.
    let switched = fx
        .public(
            Method::GET,
            "/podcasts/show?lang=de",
            &[("accept-language", "en")],
        )
        .await;
    assert!(html(&switched).contains(">Abonnieren<"));
    let cookie = switched.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("podhost_lang=de;"), "{cookie}");
    assert!(
        cookie.contains("Max-Age=31536000") && cookie.contains("Path=/"),
        "{cookie}"
    );
    let remembered = fx
        .public(
            Method::GET,
            &episode,
            &[("accept-language", "en"), ("cookie", "podhost_lang=de")],
        )
        .await;
    assert!(html(&remembered).contains(">Shownotes<"));
    assert!(remembered.headers.get("set-cookie").is_none());
    let back = fx
        .public(
            Method::GET,
            "/podcasts/show?lang=en",
            &[("cookie", "podhost_lang=de")],
        )
        .await;
    assert!(html(&back).contains("Subscribe"));
    assert!(
        back.headers["set-cookie"]
            .to_str()
            .unwrap()
            .starts_with("podhost_lang=en;")
    );
}
