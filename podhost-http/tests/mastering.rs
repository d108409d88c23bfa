//! A podcast that masters, through the API: its `audio` setting, episodes that wait for their
//! mastered audio before they are published, an enclosure that is the mastered MP3 from the
//! first time the feed shows it, and a published episode that keeps its enclosure while new
//! audio is mastered.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// A mono 16-bit WAV at 8 kHz: tones and silences.
fn wav(seconds: f64) -> Vec<u8> {
    podhost_testkit::fixtures::tone_and_silence(&[(seconds, true), (0.5, false)], 8000)
}

async fn episode(fx: &Fixture, id: &str) -> Value {
    let got = fx.get(&format!("/api/feed/radio/show/{id}")).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    got.body["data"]["attributes"].clone()
}

/// Makes the podcast `radio` with this audio setting; returns the answer.
async fn radio(fx: &Fixture, audio: Value) -> common::Answer {
    let asked = json!({"id": "radio", "title": "Radio", "audio": audio});
    fx.call(Method::POST, "/api/feeds", &fx.alice, Some(asked))
        .await
}

/// An episode of `radio`, public since 2025, with audio `media`; returns its id.
async fn published(fx: &Fixture, title: &str, media: u64) -> String {
    let media = media.to_string();
    let texts = [
        ("title", title),
        ("is_public", "1"),
        ("publishing_date", "2025-01-01"),
        ("show_media", media.as_str()),
    ];
    fx.episode("radio", &texts).await
}

/// Turns mastering on for `radio`.
async fn start_mastering(fx: &Fixture) {
    let audio = json!({"audio": {"master": true}});
    let set = fx
        .call(Method::PUT, "/api/feeds/radio", &fx.alice, Some(audio))
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
}

async fn rss(fx: &Fixture) -> String {
    let answer = fx.public(Method::GET, "/feeds/radio/rss", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    String::from_utf8(answer.raw.to_vec()).unwrap()
}

#[tokio::test]
async fn the_audio_setting_is_shown_and_checked() {
    let fx = Fixture::new().await;
    let created = radio(&fx, Value::Null).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let shown = fx.get("/api/feeds/radio").await;
    assert_eq!(
        shown.body["data"]["attributes"]["audio"],
        json!({"master": false, "target": null, "true_peak": -1.0, "format": "mp3",
               "bitrate": null, "alternates": []})
    );
    let set = fx
        .call(
            Method::PUT,
            "/api/feeds/radio",
            &fx.alice,
            Some(json!({"audio": {"master": true, "target": -18, "bitrate": 96}})),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    let audio = &set.body["data"]["attributes"]["audio"];
    assert_eq!(
        (&audio["master"], &audio["target"], &audio["bitrate"]),
        (&json!(true), &json!(-18.0), &json!(96))
    );
    // A field left out stays; null returns one to its default.
    let cleared = fx
        .call(
            Method::PUT,
            "/api/feeds/radio",
            &fx.alice,
            Some(json!({"audio": {"target": null}})),
        )
        .await;
    let audio = &cleared.body["data"]["attributes"]["audio"];
    assert_eq!(
        (&audio["master"], &audio["target"], &audio["bitrate"]),
        (&json!(true), &Value::Null, &json!(96))
    );

    for (audio, field) in [
        (json!({"target": -3}), "audio.target"),
        (json!({"true_peak": 0.5}), "audio.true_peak"),
        (json!({"format": "flac"}), "audio.format"),
        (json!({"bitrate": 100}), "audio.bitrate"),
        (json!({"alternates": ["mp3"]}), "audio.alternates"),
        (json!({"alternates": ["wav"]}), "audio.alternates"),
    ] {
        let refused = fx
            .call(
                Method::PUT,
                "/api/feeds/radio",
                &fx.alice,
                Some(json!({ "audio": audio })),
            )
            .await;
        assert_eq!(
            refused.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{audio}: {}",
            refused.body
        );
        assert!(
            refused.body.to_string().contains(field),
            "{audio}: {}",
            refused.body
        );
    }
    // Refused changes left the setting as it was.
    let shown = fx.get("/api/feeds/radio").await;
    assert_eq!(shown.body["data"]["attributes"]["audio"]["bitrate"], 96);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_waits_for_its_mastered_audio_and_keeps_its_enclosure() {
    let fx = Fixture::new().await;
    let created = radio(&fx, json!({"master": true})).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let original = fx.upload("take.wav", wav(2.0)).await;
    let id = published(&fx, "One", original).await;

    // Public and due, but waiting for its audio: not published, not in the feed.
    let waiting = episode(&fx, &id).await;
    assert_eq!(waiting["is_published"], 0, "{waiting}");
    assert_eq!(waiting["show_media"], original);
    assert_eq!(waiting["mastering"]["media_id"], original);
    let job = waiting["mastering"]["job_id"].as_str().unwrap().to_string();
    let feed = rss(&fx).await;
    assert!(!feed.contains("<item>"), "{feed}");
    let asked = fx.get(&format!("/api/jobs/{job}")).await;
    assert_eq!(asked.body["data"]["kind"], "master");

    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let mastered = done["result"]["media_id"].as_u64().unwrap();
    let published = episode(&fx, &id).await;
    assert_eq!(published["is_published"], 1, "{published}");
    assert_eq!(published["show_media"], mastered);
    assert_eq!(published["mastering"], Value::Null);
    let enclosure = published["enclosure_url"].as_str().unwrap().to_string();
    assert!(enclosure.ends_with("/take.mp3"), "{enclosure}");
    let feed = rss(&fx).await;
    assert!(feed.contains(&enclosure), "{feed}");
    assert!(feed.contains("type=\"audio/mpeg\""), "{feed}");
    assert!(!feed.contains("audio/wav"), "{feed}");

    // New audio for the published episode: it stays in the feed with the enclosure it has
    // until the new audio is mastered.
    let replacement = fx.upload("retake.wav", wav(3.0)).await;
    let changed = fx
        .call(
            Method::PUT,
            &format!("/api/feed/radio/show/{id}"),
            &fx.alice,
            Some(json!({"show_media": replacement})),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
    let attrs = &changed.body["data"]["attributes"];
    assert_eq!(attrs["is_published"], 1, "{attrs}");
    assert_eq!(attrs["show_media"], mastered);
    assert_eq!(attrs["mastering"]["media_id"], replacement);
    assert!(rss(&fx).await.contains(&enclosure));
    let job = attrs["mastering"]["job_id"].as_str().unwrap().to_string();
    assert_eq!(fx.until_done(&job).await["status"], "succeeded");
    let remastered = episode(&fx, &id).await;
    assert_eq!(remastered["is_published"], 1);
    assert!(
        remastered["enclosure_url"]
            .as_str()
            .unwrap()
            .ends_with("/retake.mp3"),
        "{remastered}"
    );

    // Naming the mastered file it has again changes nothing and asks for no job.
    let same = fx
        .call(
            Method::PUT,
            &format!("/api/feed/radio/show/{id}"),
            &fx.alice,
            Some(json!({"show_media": remastered["show_media"]})),
        )
        .await;
    assert_eq!(same.body["data"]["attributes"]["mastering"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_podcast_that_starts_mastering_masters_its_unpublished_episodes() {
    let fx = Fixture::new().await;
    fx.feed("radio").await;
    let take = fx.upload("draft.wav", wav(1.0)).await;
    let live = fx.upload("live.wav", wav(1.0)).await;
    let draft = fx
        .episode(
            "radio",
            &[("title", "Draft"), ("show_media", &take.to_string())],
        )
        .await;
    let out = published(&fx, "Out", live).await;
    start_mastering(&fx).await;
    // The draft waits for its mastering; the published episode keeps what the feed carries.
    let waiting = episode(&fx, &draft).await;
    let job = waiting["mastering"]["job_id"].as_str().unwrap().to_string();
    assert_eq!(episode(&fx, &out).await["mastering"], Value::Null);
    assert!(rss(&fx).await.contains("live.wav"));

    let _workers = fx.start_workers();
    assert_eq!(fx.until_done(&job).await["status"], "succeeded");
    let mastered = episode(&fx, &draft).await;
    assert!(
        mastered["enclosure_url"]
            .as_str()
            .unwrap()
            .ends_with("/draft.mp3"),
        "{mastered}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opus_alternate_goes_beside_the_mastered_enclosure() {
    let fx = Fixture::new().await;
    let created = radio(&fx, json!({"master": true, "alternates": ["opus"]})).await;
    if podhost_core::master::Format::from_name("opus").is_err() {
        // A build without libopus names the feature it lacks.
        assert_eq!(created.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            created.body.to_string().contains("`opus` feature"),
            "{}",
            created.body
        );
        return;
    }
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(
        created.body["data"]["attributes"]["audio"]["alternates"],
        json!(["opus"])
    );
    let original = fx.upload("take.wav", wav(2.0)).await;
    let id = published(&fx, "One", original).await;
    let job = episode(&fx, &id).await["mastering"]["job_id"]
        .as_str()
        .unwrap()
        .to_string();
    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let opus = done["result"]["alternates"][0]["media_id"]
        .as_u64()
        .unwrap();
    let published = episode(&fx, &id).await;
    assert_eq!(published["is_published"], 1, "{published}");
    let alternates = &published["podcast"]["alternateEnclosure"];
    assert_eq!(alternates[0]["media"], opus, "{published}");
    let feed = rss(&fx).await;
    let alternate = &feed[feed.find("<podcast:alternateEnclosure").expect(&feed)..];
    let alternate = &alternate[..alternate.find("</podcast:alternateEnclosure>").unwrap()];
    assert!(alternate.contains("type=\"audio/opus\""), "{alternate}");
    assert!(alternate.contains("codecs=\"opus\""), "{alternate}");
    assert!(alternate.contains("/take.opus\""), "{alternate}");
    assert!(
        alternate.contains("<podcast:integrity type=\"sri\" value=\"sha384-"),
        "{alternate}"
    );
}

#[tokio::test]
async fn a_published_episode_given_its_audio_again_keeps_it() {
    let fx = Fixture::new().await;
    fx.feed("radio").await;
    let live = fx.upload("live.wav", wav(1.0)).await;
    let id = published(&fx, "Out", live).await;
    start_mastering(&fx).await;
    let path = format!("/api/feed/radio/show/{id}");
    let retake = fx.upload("retake.wav", wav(1.0)).await;
    let changed = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"show_media": retake})),
        )
        .await;
    let attrs = &changed.body["data"]["attributes"];
    assert_eq!(
        (attrs["show_media"].as_u64(), attrs["is_published"].as_u64()),
        (Some(live), Some(1))
    );
    assert_eq!(attrs["mastering"]["media_id"], retake);
    // Changed their mind: the audio it is published with, again. No mastering replaces it.
    let back = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"show_media": live})),
        )
        .await;
    let attrs = &back.body["data"]["attributes"];
    assert_eq!(attrs["show_media"], live);
    assert_eq!(attrs["mastering"], Value::Null, "{attrs}");
}
