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

/// The `height` attribute of the first `<iframe` in `text` (the embed code, escaped as in a
/// `<textarea>` or not).
fn iframe_height(text: &str) -> Option<u32> {
    let text = text.replace("&quot;", "\"").replace("&lt;", "<");
    let iframe = &text[text.find("<iframe ")?..];
    let iframe = &iframe[..iframe.find('>')?];
    let at = iframe.find(" height=\"")? + " height=\"".len();
    iframe[at..].split('"').next()?.parse().ok()
}

#[tokio::test]
async fn a_video_episodes_player_plays_the_video_and_oembed_gives_its_real_height() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let video = fx.upload("clip.mp4", clip()).await;
    let audio = fx.upload_wav("talk.wav").await;
    let watched = fx
        .episode(
            "show",
            &[
                ("title", "On camera"),
                ("show_media", &audio.to_string()),
                ("video_media", &video.to_string()),
                ("is_public", "1"),
            ],
        )
        .await;
    let heard = fx
        .episode(
            "show",
            &[
                ("title", "On air"),
                ("show_media", &audio.to_string()),
                ("is_public", "1"),
            ],
        )
        .await;
    let file = fx.get(&format!("/api/media/{video}")).await.body["url"]
        .as_str()
        .unwrap()
        .to_string();

    // The player of a video episode plays the video (the uploaded file until it is packaged),
    // sized by its picture, under the cover; an audio episode's plays the audio.
    let player = fx
        .public(Method::GET, &format!("/embed/show/{watched}"), &[])
        .await;
    assert_eq!(player.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&player.raw).into_owned();
    let element = html
        .split("<video id=\"media\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no <video> in the player: {html}"));
    let element = &element[..element.find("</video>").unwrap()];
    assert!(
        element.contains(&format!("<source src=\"{file}\" type=\"video/mp4\">")),
        "{element}"
    );
    assert!(
        element.contains(" width=\"") && element.contains(" height=\""),
        "{element}"
    );
    assert!(!html.contains("<audio id="), "{html}");
    let audio_player = fx
        .public(Method::GET, &format!("/embed/show/{heard}"), &[])
        .await;
    let audio_html = String::from_utf8_lossy(&audio_player.raw).into_owned();
    assert!(audio_html.contains("<audio id=\"media\""), "{audio_html}");
    assert!(!audio_html.contains("<video id="), "{audio_html}");

    // oEmbed's height is the player's: the iframe the episode's page gives to copy and the one
    // oEmbed gives, 420 px for the video (docs/features.md), 180 for audio alone.
    for (episode, height) in [(&watched, 420), (&heard, 180)] {
        let page = fx
            .public(Method::GET, &format!("/podcasts/show/{episode}"), &[])
            .await;
        let page = String::from_utf8_lossy(&page.raw).into_owned();
        let code = &page[page.find("id=\"embed-code\"").expect("the embed code")..];
        assert_eq!(iframe_height(code), Some(height), "{code}");
        let url = format!("https://pod.test/podcasts/show/{episode}");
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("url", &url)
            .append_pair("format", "json")
            .finish();
        let answer = fx
            .public(Method::GET, &format!("/oembed?{query}"), &[])
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.body["height"], height, "{}", answer.body);
        assert_eq!(
            iframe_height(answer.body["html"].as_str().unwrap()),
            Some(height),
            "{}",
            answer.body
        );
    }
}
