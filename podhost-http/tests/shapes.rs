//! Each endpoint's answer, field by field, as the API documents its shapes: names, nesting,
//! order, formats.

mod common;

use common::{Fixture, keys, shaped};
use http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn the_openapi_document_has_exactly_the_api_and_oauth_routes_of_the_table() {
    let fx = Fixture::new().await;
    let doc = fx.call(Method::GET, "/api/openapi.json", "", None).await;
    assert_eq!(doc.status, StatusCode::OK);
    assert_eq!(doc.body["openapi"], "3.0.3");
    assert_eq!(doc.body["info"]["version"], "1.0.0");
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc.body["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    let mut routed: Vec<(String, String)> = podhost_http::routes()
        .filter(|r| r.surface.documented())
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    documented.sort();
    routed.sort();
    assert_eq!(documented, routed);
    for (path, item) in doc.body["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path} documents its responses"
            );
        }
    }
    assert_eq!(
        doc.body["paths"]["/api/feeds"]["post"]["x-podhost-addition"],
        true
    );
}

/// The reference page for people: every operation and shape, linked from the home page, a
/// page of the site (no script, its strict policy).
#[tokio::test]
async fn the_api_reference_is_a_page() {
    let fx = Fixture::new().await;
    let page = fx.public(Method::GET, "/api/docs", &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.headers[http::header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    let csp = page.headers[http::header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        csp.contains("script-src 'none'") || !csp.contains("script-src"),
        "{csp}"
    );
    let html = String::from_utf8_lossy(&page.raw);
    assert!(!html.contains("<script"), "no script");
    for routed in podhost_http::routes().filter(|r| r.surface.documented()) {
        let heading = format!("<code>{} {}</code>", routed.method, routed.path);
        assert!(html.contains(&heading), "{heading} on the page");
    }
    for shape in ["MediaRecord", "EpisodeFields", "Job", "ValidationError"] {
        assert!(html.contains(&format!("id=\"shape-{shape}\"")), "{shape}");
    }
    let home = fx.public(Method::GET, "/", &[]).await;
    assert!(String::from_utf8_lossy(&home.raw).contains("href=\"/api/docs\""));
}

#[tokio::test]
async fn media_list_and_record() {
    let fx = Fixture::new().await;
    let id = fx.upload_wav("talk.wav").await;
    let list = fx.get("/api/media").await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(keys(&list.body), ["count", "items"]);
    assert_eq!(list.body["count"], 1);
    let item = &list.body["items"][0];
    assert_eq!(
        keys(item),
        [
            "id",
            "name",
            "byte",
            "created",
            "size",
            "last",
            "cat",
            "url",
            "extension",
            "mimetype",
            "type",
            "created_date",
            "created_time",
            // An addition: whether its public URL is kept from the public.
            "private"
        ]
    );
    assert_eq!(item["id"], id.to_string(), "a string of digits in the list");
    assert_eq!(item["name"], "talk.wav");
    assert_eq!(item["byte"], 16_044);
    assert_eq!(item["size"], "15.7 KB");
    assert!(
        shaped(item["created"].as_str().unwrap(), "99.99.9999 99:99:99"),
        "{}",
        item["created"]
    );
    assert!(
        shaped(item["last"].as_str().unwrap(), "99:99:99 99.99.9999"),
        "{}",
        item["last"]
    );
    assert!(shaped(item["created_date"].as_str().unwrap(), "99.99.9999"));
    assert!(shaped(item["created_time"].as_str().unwrap(), "99:99"));
    assert_eq!(item["cat"], "_default_");
    assert_eq!(item["private"], false);
    assert_eq!(
        (
            item["extension"].as_str(),
            item["mimetype"].as_str(),
            item["type"].as_str()
        ),
        (Some("wav"), Some("audio/wav"), Some("audio"))
    );
    assert!(
        item["url"]
            .as_str()
            .unwrap()
            .starts_with("https://pod.test/media/alice/")
    );

    let record = fx.get(&format!("/api/media/{id}")).await;
    assert_eq!(record.status, StatusCode::OK);
    assert_eq!(
        &keys(&record.body)[..11],
        [
            "id", "name", "byte", "size", "time", "last", "cat", "mimetype", "type", "info", "mime"
        ]
    );
    assert_eq!(record.body["id"], id, "an integer in the single record");
    assert!(record.body["cat"].is_null());
    assert!(shaped(
        record.body["time"].as_str().unwrap(),
        "99.99.9999 99:99:99"
    ));
    assert!(shaped(
        record.body["last"].as_str().unwrap(),
        "99.99.9999 99:99:99"
    ));
    assert_eq!(record.body["info"], "WAVE PCM, 16 bit, 8 kHz, Mono");
    assert_eq!(record.body["mime"], "audio/wav");

    let copy = fx
        .call(
            Method::POST,
            &format!("/api/media/{id}/copy"),
            &fx.alice,
            Some(json!({"label": "talk.wav", "category": "archive"})),
        )
        .await;
    assert_eq!(copy.status, StatusCode::CREATED);
    assert_eq!(copy.body["name"], "talk (2).wav");
    assert_eq!(copy.body["cat"], "archive");
    assert_eq!(
        copy.headers["location"],
        format!("https://pod.test/api/media/{}", copy.body["id"])
    );
    let deleted = fx
        .call(
            Method::DELETE,
            &format!("/api/media/{}", copy.body["id"]),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(
        (deleted.status, deleted.raw.len()),
        (StatusCode::NO_CONTENT, 0)
    );
}

/// One upload of a video: the record says `type: video`, and what its container says of the
/// picture (codec, size, frame rate, duration, bitrate) beside the soundtrack's description.
#[tokio::test]
async fn a_video_upload_is_a_video_with_its_picture() {
    let fx = Fixture::new().await;
    let clip = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../podhost-core/tests/fixtures/h264_aac.mp4"
    ))
    .unwrap();
    let id = fx.upload("clip.mp4", clip).await;
    let record = fx.get(&format!("/api/media/{id}")).await;
    assert_eq!(record.status, StatusCode::OK);
    assert_eq!(record.body["type"], "video");
    assert_eq!(record.body["mime"], "video/mp4");
    assert_eq!(
        record.body["info"],
        "MPEG-4 video, H.264, 320 x 180, 29.97 fps, AAC audio, 48 kHz, Stereo"
    );
    assert_eq!(record.body["duration"], "00:00:01");
    let video = &record.body["video"];
    assert_eq!(
        keys(video),
        [
            "codec",
            "width",
            "height",
            "frame_rate",
            "duration_ms",
            "bitrate"
        ]
    );
    assert_eq!(
        (&video["codec"], &video["width"], &video["height"]),
        (&json!("h264"), &json!(320), &json!(180))
    );
    assert_eq!(video["frame_rate"], 29.97);
    assert_eq!(video["duration_ms"], 1001);
    assert!(video["bitrate"].as_u64().unwrap() > 0, "{video}");

    let list = fx.get("/api/media").await;
    assert_eq!(list.body["items"][0]["type"], "video");
    // An audio file's record has no picture.
    let talk = fx.upload_wav("talk.wav").await;
    let record = fx.get(&format!("/api/media/{talk}")).await;
    assert!(record.body["video"].is_null(), "{}", record.body);
}

#[tokio::test]
async fn feed_list_and_single_differ_in_order_and_directory_objects() {
    let fx = Fixture::new().await;
    let logo = fx.upload_png("cover.png").await;
    let created = fx
        .call(Method::POST, "/api/feeds", &fx.alice, Some(json!({
            "id": "my show", "title": "My Show", "description": "About", "copyright": "© me", "logo": logo,
            "itunes": {"subtitle": "Sub", "author": "Me", "category": "Technology"},
            "googleplay": {"author": "Me on Play", "description": "Play text"},
        })))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(
        created.headers["location"],
        "https://pod.test/api/feeds/my%20show"
    );
    fx.episode("my%20show", &[("title", "One")]).await;

    let list = fx.get("/api/feeds").await;
    let item = &list.body["data"][0];
    assert_eq!(
        keys(item),
        [
            "type",
            "id",
            "links",
            "attributes",
            "shows_count",
            "relationships"
        ]
    );
    assert_eq!(item["type"], "feed");
    assert_eq!(item["id"], "my show");
    assert_eq!(keys(&item["links"]), ["self", "rss", "web", "logo"]);
    assert_eq!(
        item["links"]["self"],
        "https://pod.test/api/feeds/my%20show"
    );
    assert_eq!(item["links"]["rss"], "https://pod.test/feeds/my%20show/rss");
    assert!(
        item["links"]["logo"]
            .as_str()
            .unwrap()
            .ends_with("/cover.png")
    );
    assert_eq!(
        keys(&item["attributes"]),
        ["rss", "logo"],
        "no directory objects in the list"
    );
    assert_eq!(
        item["attributes"]["rss"],
        json!({"title": "My Show", "description": "About", "copyright": "© me"})
    );
    assert_eq!(item["shows_count"], 1);
    assert_eq!(item["relationships"], json!(["entry"]));

    let single = fx.get("/api/feeds/my%20show").await;
    let feed = &single.body["data"];
    assert_eq!(
        keys(feed),
        [
            "type",
            "id",
            "attributes",
            "links",
            "shows_count",
            "relationships",
            "warnings"
        ]
    );
    assert_eq!(feed["attributes"]["itunes"]["subtitle"], "Sub");
    assert_eq!(
        feed["attributes"]["googleplay"],
        json!({"author": "Me on Play", "description": "Play text"})
    );
    assert_eq!(feed["attributes"]["rss"]["title"], "My Show");

    let both = fx
        .call(
            Method::PUT,
            "/api/feeds/my%20show",
            &fx.alice,
            Some(json!({"title": "Flat", "rss": {"title": "Nested"}})),
        )
        .await;

    assert_eq!(
        both.status,
        StatusCode::OK,
        "both spellings are known: {}",
        both.body
    );

    assert_eq!(both.body["data"]["attributes"]["rss"]["title"], "Flat");

    let updated = fx
        .call(
            Method::PUT,
            "/api/feeds/my%20show",
            &fx.alice,
            Some(json!({"title": "Renamed", "dirA": {"explicit": true}})),
        )
        .await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    assert_eq!(
        updated.body["data"]["attributes"]["rss"]["title"],
        "Renamed"
    );
    assert_eq!(
        updated.body["data"]["attributes"]["itunes"]["explicit"], true,
        "dirA is an alias of itunes"
    );
    let deleted = fx
        .call(Method::DELETE, "/api/feeds/my%20show", &fx.alice, None)
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(
        fx.get("/api/feeds/my%20show").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn episodes_create_list_get_update_copy_delete() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    fx.feed("other").await;
    let cover = fx.upload_png("cover.png").await.to_string();
    let created = fx
        .multipart(
            "/api/feed/show/show",
            &fx.alice,
            &[
                ("title", "Pilot"),
                ("author", "Me"),
                ("copyright", "© me"),
                ("is_public", "1"),
                ("description", "<p>Notes</p>"),
                ("itunes[title]", "Pilot!"),
                ("itunes[subtitle]", "Sub"),
                ("itunes[summary]", "Sum"),
                ("itunes[author]", "Me"),
                ("itunes[episode]", "1"),
                ("itunes[episodeType]", "full"),
                ("itunes[season]", "2"),
                ("itunes[logo]", &cover),
                ("itunes[explicit]", "false"),
                ("publishing_date", "2025-05-01"),
                ("publishing_time", "06:30:00"),
                ("link", "https://example.com/1"),
                ("write_metadata", "false"),
                ("guid", "urn:old:1"),
            ],
            &[(
                "media",
                "pilot.wav",
                podhost_testkit::fixtures::wav(125.0, 8000),
            )],
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let data = &created.body["data"];
    assert_eq!(
        &keys(data)[..],
        ["type", "id", "feed_id", "attributes", "warnings"]
    );
    assert_eq!(
        &keys(&data["attributes"])[..8],
        [
            "title",
            "subtitle",
            "link",
            "description",
            "author",
            "email",
            "copyright",
            "itunes"
        ]
    );
    let id = data["id"].as_str().unwrap().to_string();
    assert!(shaped(&id, "pod-9"), "{id}");
    assert_eq!(data["attributes"]["guid"], "urn:old:1");
    assert_eq!(data["attributes"]["itunes"]["duration"], "00:02:05");

    let list = fx.get("/api/feed/show/shows").await;
    assert_eq!(list.status, StatusCode::OK);
    let item = &list.body["data"][0];
    assert_eq!(
        keys(item),
        [
            "type",
            "id",
            "feed_id",
            "links",
            "attributes",
            "relationships"
        ]
    );
    assert_eq!(keys(&item["links"]), ["self", "web", "logo", "media"]);
    let a = &item["attributes"];
    assert_eq!(
        &keys(a)[..15],
        [
            "title",
            "description",
            "author",
            "link",
            "copyright",
            "logo",
            "guid",
            "publish_date",
            "publish_date_formatted",
            "is_published",
            "file",
            "enclosure_url",
            "itunes",
            "type",
            "duration_formatted"
        ]
    );
    assert_eq!(a["publish_date"], "1746081000", "Unix seconds as digits");
    assert_eq!(a["publish_date_formatted"], "01.05.2025, 06:30 Uhr");
    assert_eq!(a["is_published"], 1);
    assert_eq!(a["file"], "pilot.wav");
    assert_eq!(a["duration_formatted"], "2m 5s");
    assert_eq!(
        keys(&a["itunes"])[..9],
        [
            "title",
            "subtitle",
            "logo",
            "summary",
            "episodeType",
            "author",
            "duration",
            "season",
            "episode"
        ]
    );
    assert_eq!(
        (
            a["itunes"]["season"].as_str(),
            a["itunes"]["episode"].as_str()
        ),
        (Some("2"), Some("1"))
    );
    assert_eq!(item["relationships"], json!(["entry"]));

    let got = fx
        .get(&format!("/api/feed/show/show/{id}?feed_id=show"))
        .await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.body["data"]["attributes"]["title"], "Pilot");

    let updated = fx
        .call(Method::PUT, &format!("/api/feed/show/show/{id}"), &fx.alice, Some(json!({
            "title": "Pilot (remastered)", "is_public": 0, "itunes": {"episode": 3, "season": "4", "logo": null, "explicit": true},
            "podcast": {"transcript": null},
        })))
        .await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    let attrs = &updated.body["data"]["attributes"];
    assert_eq!(
        (attrs["title"].as_str(), attrs["is_published"].as_u64()),
        (Some("Pilot (remastered)"), Some(0))
    );
    assert_eq!(
        (
            attrs["itunes"]["episode"].as_str(),
            attrs["itunes"]["logo"].as_str()
        ),
        (Some("3"), Some(""))
    );

    let copy = fx
        .call(
            Method::POST,
            &format!("/api/feed/show/show/{id}/copy?feed_id_to=other"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(copy.status, StatusCode::CREATED, "{}", copy.body);
    assert_eq!(copy.body["data"]["feed_id"], "other");
    assert_eq!(copy.body["data"]["attributes"]["is_public"], 0);
    assert_ne!(copy.body["data"]["id"], json!(id));

    let deleted = fx
        .call(
            Method::DELETE,
            &format!("/api/feed/show/show/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(
        fx.get(&format!("/api/feed/show/show/{id}")).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn episode_list_paging_sorting_and_filter_in_query_or_body() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    for (title, date) in [
        ("Alpha", "2025-01-01"),
        ("Beta", "2025-02-01"),
        ("Gamma", "2025-03-01"),
    ] {
        fx.episode(
            "show",
            &[
                ("title", title),
                ("publishing_date", date),
                ("is_public", "1"),
            ],
        )
        .await;
    }
    let titles = |a: &common::Answer| {
        a.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["attributes"]["title"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        titles(&fx.get("/api/feed/show/shows").await),
        ["Gamma", "Beta", "Alpha"]
    );
    assert_eq!(
        titles(
            &fx.get("/api/feed/show/shows?page%5Bnumber%5D=2&page%5Bsize%5D=2")
                .await
        ),
        ["Alpha"]
    );
    assert_eq!(
        titles(&fx.get("/api/feed/show/shows?filter=bet").await),
        ["Beta"]
    );
    let by_body = fx
        .call(
            Method::GET,
            "/api/feed/show/shows",
            &fx.alice,
            Some(json!({"filter": "gam"})),
        )
        .await;
    assert_eq!(titles(&by_body), ["Gamma"]);
    assert_eq!(
        titles(
            &fx.get("/api/feed/show/shows?sortBy=lastUpdate&sortDesc=false")
                .await
        ),
        ["Alpha", "Beta", "Gamma"]
    );
}

#[tokio::test]
async fn every_api_answer_carries_the_standard_headers_and_the_rate_limit() {
    let fx = Fixture::with_rate_limit(3).await;
    for (i, path) in ["/api/feeds", "/api/nope", "/api/media/abc"]
        .iter()
        .enumerate()
    {
        let answer = fx.get(path).await;
        assert_eq!(
            answer.headers["cache-control"], "no-cache, private",
            "{path}"
        );
        assert_eq!(answer.headers["content-type"], "application/json");
        assert_eq!(answer.headers["access-control-allow-origin"], "*");
        if i == 0 {
            assert_eq!(answer.headers["x-ratelimit-limit"], "3");
            assert_eq!(answer.headers["x-ratelimit-remaining"], "2");
        }
    }
    fx.get("/api/feeds").await;
    fx.get("/api/feeds").await;
    let limited = fx.get("/api/feeds").await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.headers["x-ratelimit-remaining"], "0");
    let retry: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
    assert!(limited.headers.contains_key("x-ratelimit-reset"));
    assert!(limited.body["message"].is_string());
    // Another token has its own window.
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &fx.mallory, None)
            .await
            .status,
        StatusCode::OK
    );

    let preflight = fx.call(Method::OPTIONS, "/api/feeds", "", None).await;
    assert_eq!(preflight.status, StatusCode::NO_CONTENT);
    assert!(
        preflight.headers["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("PUT")
    );
    assert!(
        preflight.headers["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("authorization")
    );
}

#[tokio::test]
async fn list_answers_are_never_staler_than_the_account() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let count = |a: &common::Answer| a.body["data"].as_array().unwrap().len();
    assert_eq!(count(&fx.get("/api/feed/show/shows").await), 0);
    fx.episode("show", &[("title", "One")]).await;
    assert_eq!(
        count(&fx.get("/api/feed/show/shows").await),
        1,
        "a write shows at once"
    );
    assert_eq!(fx.get("/api/media").await.body["count"], 0);
    fx.upload_wav("a.wav").await;
    assert_eq!(fx.get("/api/media").await.body["count"], 1);
    fx.feed("second").await;
    assert_eq!(count(&fx.get("/api/feeds").await), 2);

    // A scheduled episode publishes when its time comes, with no write in between.
    let tomorrow = (fx.host.now() + jiff::SignedDuration::from_hours(24))
        .strftime("%Y-%m-%d")
        .to_string();
    let id = fx
        .episode(
            "show",
            &[
                ("title", "Tomorrow"),
                ("is_public", "1"),
                ("publishing_date", &tomorrow),
            ],
        )
        .await;
    let published = |a: &common::Answer| {
        a.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["id"] == json!(id))
            .unwrap()["attributes"]["is_published"]
            .clone()
    };
    assert_eq!(published(&fx.get("/api/feed/show/shows").await), 0);
    assert_eq!(
        published(&fx.get("/api/feed/show/shows").await),
        0,
        "from the cache, still right"
    );
    fx.clock.advance(jiff::SignedDuration::from_hours(48));
    assert_eq!(
        published(&fx.get("/api/feed/show/shows").await),
        1,
        "published by the clock alone"
    );
}

/// `PUT /api/media/{media_id}` (an addition): a rename keeps the download URL, so links already
/// published stay valid; a clash gets a numbered suffix; null moves back to the default category.
#[tokio::test]
async fn a_renamed_file_keeps_its_url() {
    let fx = Fixture::new().await;
    let id = fx.upload_wav("talk.wav").await;
    fx.upload_wav("taken.wav").await;
    let before = fx.get(&format!("/api/media/{id}")).await.body;
    let put = |body: serde_json::Value| {
        let fx = &fx;
        async move {
            fx.call(
                http::Method::PUT,
                &format!("/api/media/{id}"),
                &fx.alice,
                Some(body),
            )
            .await
        }
    };
    let renamed = put(json!({"name": "taken.wav", "category": "archive"})).await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.body);
    assert_eq!(renamed.body["name"], "taken (2).wav");
    assert_eq!(renamed.body["cat"], "archive");
    assert_eq!(renamed.body["url"], before["url"], "the URL stays");
    let listed = fx.get("/api/media?filter=taken%20(2)").await;
    assert_eq!(listed.body["items"][0]["url"], before["url"]);
    let back = put(json!({"category": null})).await;
    assert_eq!(back.body["cat"], serde_json::Value::Null);
    assert_eq!(back.body["name"], "taken (2).wav");
    for (body, field) in [
        (json!({"name": "  "}), "name"),
        (json!({"size": 3}), "size"),
        (json!({"category": "x\u{7}"}), "category"),
    ] {
        let refused = put(body).await;
        assert_eq!(refused.status.as_u16(), 422, "{}", refused.body);
        assert!(refused.body["errors"][field].is_array(), "{}", refused.body);
    }
}

/// A page no cached answer covers is put together from each episode's JSON as a list item,
/// kept while the episode is unchanged: it follows an edit, a rename of its file and the
/// moment a scheduled episode publishes, and it is byte for byte what a server that keeps
/// nothing answers.
#[tokio::test]
async fn list_items_kept_between_pages_follow_every_change() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let file = fx.upload_wav("talk.wav").await.to_string();
    let id = fx
        .episode(
            "show",
            &[
                ("title", "Pilot"),
                ("is_public", "1"),
                ("show_media", &file),
            ],
        )
        .await;
    // Tomorrow's: scheduled.
    use podhost_core::Clock;
    let tomorrow = (fx.clock.now() + jiff::SignedDuration::from_hours(24))
        .strftime("%Y-%m-%d")
        .to_string();
    fx.episode(
        "show",
        &[
            ("title", "Later"),
            ("is_public", "1"),
            ("publishing_date", &tomorrow),
            ("publishing_time", "00:00:00"),
        ],
    )
    .await;
    let nothing_kept = podhost_http::Api::new(
        fx.another_process().0,
        podhost_http::HttpConfig {
            cache_lists: false,
            cache_list_items: false,
            ..Default::default()
        },
    );
    // Each read asks for another page size, so that no whole answer is reused.
    let sizes = std::cell::Cell::new(10);
    let list = || async {
        let size = sizes.get();
        sizes.set(size + 1);
        let path = format!("/api/feed/show/shows?page%5Bsize%5D={size}");
        let kept = fx.get(&path).await;
        let request = http::Request::builder()
            .uri(&path)
            .header("authorization", format!("Bearer {}", fx.alice))
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap();
        let fresh = common::send_to(&nothing_kept, request).await;
        assert_eq!(
            kept.raw, fresh.raw,
            "the kept items are what is rendered now"
        );
        kept.body["data"].as_array().unwrap().clone()
    };
    let item = |items: &[serde_json::Value], title: &str| {
        items
            .iter()
            .find(|i| i["attributes"]["title"] == title)
            .cloned()
            .unwrap_or_else(|| panic!("{title} in {items:?}"))
    };

    let items = list().await;
    assert_eq!(item(&items, "Pilot")["attributes"]["file"], "talk.wav");
    assert_eq!(item(&items, "Later")["attributes"]["is_published"], 0);

    let edited = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{id}"),
            &fx.alice,
            Some(json!({"title": "Pilot (remastered)"})),
        )
        .await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.body);
    item(&list().await, "Pilot (remastered)");

    let renamed = fx
        .call(
            Method::PUT,
            &format!("/api/media/{file}"),
            &fx.alice,
            Some(json!({"name": "talk-v2.wav"})),
        )
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.body);
    let items = list().await;
    assert_eq!(
        item(&items, "Pilot (remastered)")["attributes"]["file"],
        "talk-v2.wav"
    );

    fx.clock.advance(jiff::SignedDuration::from_hours(48));
    assert_eq!(
        item(&list().await, "Later")["attributes"]["is_published"],
        1
    );
}
