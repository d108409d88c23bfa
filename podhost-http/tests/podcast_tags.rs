//! Podcasting 2.0 tags through the API: written under `podcast` (JSON, and multipart as JSON
//! text), shown by GET as written, refused with 422 naming the tag when they are wrong.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn tags_are_written_shown_and_emitted() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let person = json!([{"name": "Alice Host", "role": "host", "href": "https://alice.example/"}]);
    let answer = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(json!({"podcast": {
                "person": person,
                "license": {"name": "CC-BY-4.0"},
                "txt": [{"text": "verify-me", "purpose": "verify"}],
            }})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let podcast = &answer.body["data"]["attributes"]["podcast"];
    assert_eq!(podcast["person"], person);
    assert_eq!(podcast["license"], json!({"name": "CC-BY-4.0"}));
    assert_eq!(podcast["medium"], "podcast", "the other fields stay");
    // An episode made with multipart: a tag's JSON as the text of `podcast[...]`.
    let created = fx
        .multipart(
            "/api/feed/show/show",
            &fx.alice,
            &[
                ("title", "Pilot"),
                ("is_public", "1"),
                (
                    "podcast[soundbite]",
                    r#"[{"startTime": 10, "duration": 30, "text": "Hook"}]"#,
                ),
            ],
            &[],
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let id = created.body["data"]["id"].as_str().unwrap().to_string();
    let path = format!("/api/feed/show/show/{id}");
    let updated = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"podcast": {
                "person": [{"name": "Carol Guest", "role": "guest"}],
                "transcripts": [{"url": "https://pod.test/t.vtt", "type": "text/vtt", "language": "en", "rel": "captions"}],
                "season": {"number": 2, "name": "Second"},
            }})),
        )
        .await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    let shown = fx.get(&path).await.body["data"]["attributes"]["podcast"].clone();
    assert_eq!(shown["soundbite"][0]["text"], "Hook");
    assert_eq!(shown["transcripts"][0]["rel"], "captions");
    assert_eq!(shown["season"]["name"], "Second");
    // null removes a tag.
    let removed = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"podcast": {"season": null}})),
        )
        .await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.body);
    assert!(
        removed.body["data"]["attributes"]["podcast"]
            .get("season")
            .is_none()
    );
    // The episode's page shows its soundbites and transcripts.
    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{id}"), &[])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.raw);
    for text in [
        "Soundbites",
        "Hook",
        "Captions (WebVTT, en)",
        "https://pod.test/t.vtt",
        "Carol Guest",
    ] {
        assert!(html.contains(text), "{text} in {html}");
    }
    let xml = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&xml.raw);
    for element in [
        "<podcast:person role=\"host\" href=\"https://alice.example/\">Alice Host</podcast:person>",
        "<podcast:license>CC-BY-4.0</podcast:license>",
        "<podcast:txt purpose=\"verify\">verify-me</podcast:txt>",
        "<podcast:soundbite startTime=\"10\" duration=\"30\">Hook</podcast:soundbite>",
        "<podcast:transcript url=\"https://pod.test/t.vtt\" type=\"text/vtt\" language=\"en\" rel=\"captions\"/>",
    ] {
        assert!(xml.contains(element), "{element} in {xml}");
    }
}

#[tokio::test]
async fn wrong_tags_are_refused_by_name_and_change_nothing() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let before = fx.get("/api/feeds/show").await.body;
    let recipient = |split: serde_json::Value| json!({"type": "lightning", "method": "keysend", "recipients": [{"type": "node", "address": "abc", "split": split}]});
    let cases = [
        (
            json!({"value": recipient(json!("ninety"))}),
            "podcast.value",
        ),
        (json!({"value": recipient(json!(-1))}), "podcast.value"),
        (
            json!({"person": [{"name": "A", "href": "javascript:alert(1)"}]}),
            "podcast.person",
        ),
        (json!({"person": [{"name": ""}]}), "podcast.person"),
        (json!({"person": {"name": "not a list"}}), "podcast.person"),
        (
            json!({"liveItem": [{"status": "soon", "start": "2027-01-01T00:00:00Z", "title": "T", "guid": "g", "url": "https://x.example/s", "type": "audio/mpeg"}]}),
            "podcast.liveItem",
        ),
        (
            json!({"trailer": [{"title": "T", "pubdate": "yesterday", "url": "https://x.example/t.mp3"}]}),
            "podcast.trailer",
        ),
        (json!({"soundbite": []}), "podcast.soundbite"),
        (json!({"bogus": []}), "podcast.bogus"),
        // Roles and groups are the Podcast Taxonomy's, the role one of its group's.
        (
            json!({"person": [{"name": "A", "role": "chief vibes officer"}]}),
            "podcast.person",
        ),
        (
            json!({"person": [{"name": "A", "role": "producer", "group": "cast"}]}),
            "podcast.person",
        ),
        (
            json!({"liveItem": [{"status": "live", "start": "2027-01-01T00:00:00Z", "title": "T", "guid": "g", "url": "https://x.example/s", "type": "audio/mpeg", "liveValue": {"uri": "https://x.example/v", "protocol": "carrier pigeon"}}]}),
            "podcast.liveItem",
        ),
        (
            json!({"id": [{"platform": "apple", "url": "podcasts.apple.com/1"}]}),
            "podcast.id",
        ),
        (
            json!({"social": [{"platform": "activitypub", "url": "https://x.example/@a", "socialSignUp": [{"homeUrl": "https://x.example", "signUpUrl": "ftp://x.example"}]}]}),
            "podcast.social",
        ),
        (
            json!({"recommendations": [{"url": "https://x.example/r.json"}]}),
            "podcast.recommendations",
        ),
    ];
    for (podcast, field) in cases {
        let answer = fx
            .call(
                Method::PUT,
                "/api/feeds/show",
                &fx.alice,
                Some(json!({"podcast": podcast.clone()})),
            )
            .await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{podcast}: {}",
            answer.body
        );
        assert!(
            answer.body["errors"][field].is_array(),
            "{podcast}: {}",
            answer.body
        );
    }
    assert_eq!(
        fx.get("/api/feeds/show").await.body,
        before,
        "nothing changed"
    );
    // On an episode: a transcript type podhost cannot serve, a soundbite out of range.
    let created = fx
        .call(Method::POST, "/api/feed/show/show", &fx.alice, None)
        .await;
    let id = match created.status {
        StatusCode::CREATED => created.body["data"]["id"].as_str().unwrap().to_string(),
        _ => {
            let made = fx
                .multipart("/api/feed/show/show", &fx.alice, &[("title", "E")], &[])
                .await;
            made.body["data"]["id"].as_str().unwrap().to_string()
        }
    };
    for (podcast, field) in [
        (
            json!({"transcripts": [{"url": "https://x.example/t.docx", "type": "application/msword"}]}),
            "podcast.transcripts",
        ),
        (
            json!({"soundbite": [{"startTime": -5, "duration": 30}]}),
            "podcast.soundbite",
        ),
        (json!({"podroll": []}), "podcast.podroll"),
        (
            json!({"recommendations": [{"url": "javascript:alert(1)", "type": "application/json"}]}),
            "podcast.recommendations",
        ),
    ] {
        let answer = fx
            .call(
                Method::PUT,
                &format!("/api/feed/show/show/{id}"),
                &fx.alice,
                Some(json!({"podcast": podcast.clone()})),
            )
            .await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{podcast}: {}",
            answer.body
        );
        assert!(
            answer.body["errors"][field].is_array(),
            "{podcast}: {}",
            answer.body
        );
    }
}

/// An alternate enclosure may name a file podhost holds: the feed gives its URL, type, size
/// and the SHA-384 podhost computed as it was uploaded (Subresource Integrity).
#[tokio::test]
async fn an_alternate_enclosure_podhost_holds_carries_its_integrity() {
    use base64::Engine;
    use sha2::Digest;
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let main = fx.upload_wav("main.wav").await;
    let alternate = fx.upload_wav("alternate.wav").await;
    let made = fx
        .multipart(
            "/api/feed/show/show",
            &fx.alice,
            &[
                ("title", "Pilot"),
                ("is_public", "1"),
                ("show_media", &main.to_string()),
            ],
            &[],
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let path = format!(
        "/api/feed/show/show/{}",
        made.body["data"]["id"].as_str().unwrap()
    );
    let set = |media: u64| json!({"podcast": {"alternateEnclosure": [{"media": media, "title": "Lossless"}]}});
    let refused = fx.call(Method::PUT, &path, &fx.alice, Some(set(999))).await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.body
    );
    assert!(refused.body["errors"]["podcast.alternateEnclosure"].is_array());
    let answer = fx
        .call(Method::PUT, &path, &fx.alice, Some(set(alternate)))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let record = fx.get(&format!("/api/media/{alternate}")).await.body;
    let url = record["url"].as_str().unwrap().to_string();
    let bytes = fx
        .public(
            Method::GET,
            url.strip_prefix("https://pod.test").unwrap(),
            &[],
        )
        .await
        .raw;
    let sri = format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(&bytes))
    );
    let xml = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    // The feed is indented: compare without the line breaks and indents between elements.
    let xml: String = String::from_utf8_lossy(&xml.raw)
        .lines()
        .map(str::trim)
        .collect();
    let expected = format!(
        "<podcast:alternateEnclosure type=\"audio/wav\" length=\"{}\" title=\"Lossless\"><podcast:source uri=\"{url}\"/><podcast:integrity type=\"sri\" value=\"{sri}\"/></podcast:alternateEnclosure>",
        bytes.len()
    );
    assert!(xml.contains(&expected), "{expected} in {xml}");
    // The file is in use now.
    let delete = fx
        .call(
            Method::DELETE,
            &format!("/api/media/{alternate}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(delete.status, StatusCode::CONFLICT);
}
