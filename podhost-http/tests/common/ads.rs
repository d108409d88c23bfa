//! A podcast with ad breaks and a campaign (the ad insertion tests' world, and the statistics
//! pages' campaign): a podcast `radio` that masters to MP3, an episode with breaks, an ad.

use http::{Method, Request, StatusCode};
use http_body_util::Full;
use serde_json::json;

use super::{Answer, Fixture};

/// A mono WAV: tones and silences at `rate` Hz.
pub fn wav(seconds: f64, rate: u32) -> Vec<u8> {
    podhost_testkit::fixtures::tone_and_silence(&[(seconds, true), (0.25, false)], rate)
}

/// A GET of a public URL by the listener with user agent `agent` and these headers.
pub fn get(path: &str, agent: &str, headers: &[(&str, &str)]) -> Request<Full<bytes::Bytes>> {
    let mut request = Request::builder()
        .method(Method::GET)
        .uri(path)
        .header("user-agent", agent);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.body(Full::new(bytes::Bytes::new())).unwrap()
}

pub fn etag(answer: &Answer) -> String {
    answer.headers["etag"].to_str().unwrap().to_string()
}

/// A podcast `radio` that masters to MP3, a published episode of 6 s with ad breaks (preroll,
/// a midroll at 3 s, postroll), and a campaign with a 1.5 s ad at 16 kHz in every position.
/// Returns the enclosure's path, the episode's id and the campaign's id.
pub async fn world(fx: &Fixture, goal: Option<u64>) -> (String, String, String) {
    let (path, episode) = episode_with_breaks(fx).await;
    let ad = fx.upload("ad.wav", wav(1.5, 16000)).await;
    let campaign = new_campaign(fx, ad, goal).await;
    (path, episode, campaign)
}

/// A campaign of the ad `ad` in every position of every podcast; its id.
pub async fn new_campaign(fx: &Fixture, ad: u64, goal: Option<u64>) -> String {
    let campaign = fx
        .call(
            Method::POST,
            "/api/campaigns",
            &fx.alice,
            Some(json!({"name": "Spring", "media_id": ad,
                        "positions": ["preroll", "midroll", "postroll"],
                        "impressions_goal": goal})),
        )
        .await;
    assert_eq!(campaign.status, StatusCode::CREATED, "{}", campaign.body);
    campaign.body["data"]["id"].as_str().unwrap().to_string()
}

/// The podcast and episode of [`world`], without a campaign: the enclosure's path and the
/// episode's id.
pub async fn episode_with_breaks(fx: &Fixture) -> (String, String) {
    let asked = json!({"id": "radio", "title": "Radio", "audio": {"master": true}});
    let created = fx
        .call(Method::POST, "/api/feeds", &fx.alice, Some(asked))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let take = fx.upload("take.wav", wav(6.0, 8000)).await;
    let texts = [
        ("title", "One"),
        ("is_public", "1"),
        ("publishing_date", "2025-01-01"),
        ("show_media", &take.to_string()),
    ];
    let episode = fx.episode("radio", &texts).await;
    let shown = fx.get(&format!("/api/feed/radio/show/{episode}")).await;
    let job = shown.body["data"]["attributes"]["mastering"]["job_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(fx.until_done(&job).await["status"], "succeeded");
    let shown = fx.get(&format!("/api/feed/radio/show/{episode}")).await;
    let attrs = &shown.body["data"]["attributes"];
    let mastered = attrs["show_media"].as_u64().unwrap();
    let enclosure = attrs["enclosure_url"].as_str().unwrap();
    let path = enclosure[enclosure.find("/media/").unwrap()..].to_string();

    let adbreak = json!({"preroll": true, "postroll": true, "midrolls": [3.0]});
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{mastered}/metadata"),
            &fx.alice,
            Some(json!({ "adbreak": adbreak })),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    (path, episode)
}

/// Asks for `path` until the answer is stitched (its ads encoded by the background jobs the
/// campaign's creation asked for); returns the plain answer and the stitched one.
pub async fn until_stitched(fx: &Fixture, path: &str, agent: &str) -> (Answer, Answer) {
    let plain = fx.send(get(path, agent, &[])).await;
    assert_eq!(plain.status, StatusCode::OK);
    for _ in 0..2400 {
        let answer = fx.send(get(path, agent, &[])).await;
        if etag(&answer) != etag(&plain) {
            return (plain, answer);
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the episode was never answered with its ads");
}
