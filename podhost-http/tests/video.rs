//! Video podcasts through the API: an episode takes a video file (`video_media`) beside its
//! audio or instead of it, and only a video.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::json;

fn clip() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../podhost-core/tests/fixtures/h264_aac.mp4"
    ))
    .unwrap()
}

#[tokio::test]
async fn an_episode_takes_a_video_beside_its_audio_or_instead_of_it() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let video = fx.upload("clip.mp4", clip()).await;
    let audio = fx.upload_wav("talk.wav").await;

    // Beside its audio.
    let both = fx
        .episode(
            "show",
            &[
                ("title", "Both"),
                ("show_media", &audio.to_string()),
                ("video_media", &video.to_string()),
            ],
        )
        .await;
    let got = fx.get(&format!("/api/feed/show/show/{both}")).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    let attributes = &got.body["data"]["attributes"];
    assert_eq!(attributes["show_media"], audio, "{}", got.body);
    assert_eq!(attributes["video_media"], video, "{}", got.body);

    // Instead of it.
    let only = fx
        .episode(
            "show",
            &[("title", "Only video"), ("video_media", &video.to_string())],
        )
        .await;
    let got = fx.get(&format!("/api/feed/show/show/{only}")).await;
    let attributes = &got.body["data"]["attributes"];
    assert!(attributes["show_media"].is_null(), "{}", got.body);
    assert_eq!(attributes["video_media"], video);

    // An episode without one says null.
    let none = fx.episode("show", &[("title", "Audio only")]).await;
    let got = fx.get(&format!("/api/feed/show/show/{none}")).await;
    assert!(got.body["data"]["attributes"]["video_media"].is_null());

    // Null takes it away.
    let cleared = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{both}"),
            &fx.alice,
            Some(json!({"video_media": null})),
        )
        .await;
    assert_eq!(cleared.status, StatusCode::OK, "{}", cleared.body);
    assert!(cleared.body["data"]["attributes"]["video_media"].is_null());
    assert_eq!(cleared.body["data"]["attributes"]["show_media"], audio);
}

#[tokio::test]
async fn only_a_video_file_of_the_account_is_an_episodes_video() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let audio = fx.upload_wav("talk.wav").await;
    let cover = fx.upload_png("cover.png").await;
    let id = fx.episode("show", &[("title", "Pilot")]).await;
    for (what, value) in [
        ("an audio file", json!(audio)),
        ("an image", json!(cover)),
        ("no file at all", json!(999)),
        ("not a media id", json!("clip")),
    ] {
        let refused = fx
            .call(
                Method::PUT,
                &format!("/api/feed/show/show/{id}"),
                &fx.alice,
                Some(json!({"title": "Changed", "video_media": value})),
            )
            .await;
        assert_eq!(
            refused.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{what}: {}",
            refused.body
        );
        assert!(
            refused.body["errors"]["video_media"].is_array(),
            "{what}: {}",
            refused.body
        );
    }
    // Nothing of a refused change was kept.
    let got = fx.get(&format!("/api/feed/show/show/{id}")).await;
    assert_eq!(got.body["data"]["attributes"]["title"], "Pilot");
}
