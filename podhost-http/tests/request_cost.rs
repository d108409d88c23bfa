//! No request does work that grows with the account: the records of accounts a request touches
//! (podcasts, episodes, media files: `RequestContext::touched`, measured per route in
//! `podhost_http_request_records`) are the same on an account of 10 episodes as on one of
//! 10,000, for the requests podcast apps and API clients make most. Counted, not timed: the
//! same requests touch the same records on any machine.

mod common;

use common::Fixture;
use http::{Method, StatusCode, header};
use podhost_core::{
    PodcastHost, Principal,
    model::{EpisodePatch, NewCampaign, NewEpisode, NewFeed, NewMedia, Position},
};

/// An account's podcast with `episodes` published episodes, each with an audio file of its
/// own; returns the podcast's id.
async fn podcast(host: &PodcastHost, who: &Principal, id: &str, episodes: usize) -> String {
    let feed = host
        .podcasts()
        .create_feed(who, NewFeed::titled(id, id))
        .await
        .unwrap()
        .feed
        .id;
    let audio = podhost_testkit::fixtures::wav(0.1, 8000);
    for n in 0..episodes {
        let media = host
            .podcasts()
            .upload_media(
                who,
                NewMedia {
                    name: format!("{id}-{n}.wav"),
                    category: None,
                },
                podhost_testkit::body(audio.clone(), 1 << 16),
            )
            .await
            .unwrap();
        let fields = EpisodePatch {
            title: Some(format!("Episode {n}: a title of ordinary length")),
            description: Some(
                "<p>Show notes with <a href=\"https://example.com\">a link</a>.</p>".into(),
            ),
            is_public: Some(true),
            media: Some(Some(media.id)),
            ..Default::default()
        };
        host.podcasts()
            .create_episode(who, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
    }
    feed.to_string()
}

/// A campaign of the account that runs in `feed` only: every download of the account's other
/// podcasts asks which episode plays the file and whether an ad goes in it.
async fn campaign_elsewhere(host: &PodcastHost, who: &Principal, feed: &str) {
    let ad = host
        .podcasts()
        .upload_media(
            who,
            NewMedia {
                name: "ad.wav".into(),
                category: None,
            },
            podhost_testkit::body(podhost_testkit::fixtures::wav(0.5, 8000), 1 << 16),
        )
        .await
        .unwrap();
    host.ads()
        .create_campaign(
            who,
            NewCampaign {
                name: "elsewhere".into(),
                media: Some(ad.id),
                positions: vec![Position::Preroll],
                feeds: vec![feed.parse().unwrap()],
                starts: None,
                ends: None,
                impressions_goal: None,
            },
        )
        .await
        .unwrap();
}

/// The records the last request of `route` touched: the growth of its histogram's sum.
async fn records_of(fx: &Fixture, route: &str, before: &mut f64) -> u64 {
    let metrics = fx.get("/metrics").await;
    let text = String::from_utf8_lossy(&metrics.raw);
    let line = format!("podhost_http_request_records_sum{{route=\"{route}\"}} ");
    // None before the route's first request.
    let sum: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix(&line))
        .map_or(0.0, |sum| sum.trim().parse().unwrap());
    let touched = sum - *before;
    *before = sum;
    touched as u64
}

/// A request of the table, as a podcast app or an API client makes it.
struct Probe {
    name: &'static str,
    /// Its route's template (the label of its metrics).
    route: &'static str,
    path: String,
    headers: Vec<(&'static str, String)>,
    /// Sent with the account's token.
    api: bool,
    /// Whether the first request after a change is bounded too: a feed, or a podcast page of
    /// every episode, is rendered once per version of the account, by nature a walk of the
    /// podcast (then reused by every request until the next change).
    cold_bounded: bool,
}

/// What each request of an account's podcast touched, by the request's name: cold (the first
/// after a change of the account) and warm (every later one).
async fn costs(fx: &Fixture, token: &str, feed: &str) -> Vec<(&'static str, bool, u64, u64)> {
    let shows = fx
        .call(
            Method::GET,
            &format!("/api/feed/{feed}/shows?page[size]=10"),
            token,
            None,
        )
        .await;
    assert_eq!(shows.status, StatusCode::OK, "{}", shows.body);
    let newest = shows.body["data"][0]["id"].as_str().unwrap().to_string();
    let enclosure = shows.body["data"][0]["attributes"]["enclosure_url"]
        .as_str()
        .unwrap()
        .strip_prefix("https://pod.test")
        .unwrap()
        .to_string();
    // Where ads may go in it: a download asks whether the account's campaign places one.
    let episode = fx
        .call(
            Method::GET,
            &format!("/api/feed/{feed}/show/{newest}"),
            token,
            None,
        )
        .await;
    let audio = episode.body["data"]["attributes"]["show_media"]
        .as_u64()
        .unwrap();
    let breaks = fx
        .call(
            Method::PUT,
            &format!("/api/media/{audio}/metadata"),
            token,
            Some(
                serde_json::json!({"adbreak": {"preroll": true, "postroll": true, "midrolls": []}}),
            ),
        )
        .await;
    assert_eq!(breaks.status, StatusCode::OK, "{}", breaks.body);
    let rss = fx
        .public(Method::GET, &format!("/feeds/{feed}/rss"), &[])
        .await;
    assert_eq!(rss.status, StatusCode::OK);
    let etag = rss.headers[header::ETAG].to_str().unwrap().to_string();
    let probe = |name, route, path: String, api, cold_bounded| Probe {
        name,
        route,
        path,
        headers: Vec::new(),
        api,
        cold_bounded,
    };
    let probes = [
        Probe {
            headers: vec![("if-none-match", etag)],
            ..probe(
                "feed 304",
                "/feeds/{feed_id}/rss",
                format!("/feeds/{feed}/rss"),
                false,
                false,
            )
        },
        Probe {
            headers: vec![("range", "bytes=0-1023".into())],
            ..probe(
                "1 KiB range",
                "/media/{account}/{blob}/{name}",
                enclosure,
                false,
                true,
            )
        },
        probe(
            "podcast page",
            "/podcasts/{feed_id}",
            format!("/podcasts/{feed}"),
            false,
            false,
        ),
        probe(
            "episode page",
            "/podcasts/{feed_id}/{show_id}",
            format!("/podcasts/{feed}/{newest}"),
            false,
            true,
        ),
        probe(
            "API page of 10 episodes",
            "/api/feed/{feed_id}/shows",
            format!("/api/feed/{feed}/shows?page[size]=10"),
            true,
            true,
        ),
        probe(
            "API get episode",
            "/api/feed/{feed_id}/show/{show_id}",
            format!("/api/feed/{feed}/show/{newest}"),
            true,
            true,
        ),
        probe(
            "API get podcast",
            "/api/feeds/{feed_id}",
            format!("/api/feeds/{feed}"),
            true,
            true,
        ),
        probe(
            "API list podcasts",
            "/api/feeds",
            "/api/feeds".into(),
            true,
            true,
        ),
        probe(
            "API page of 10 files",
            "/api/media",
            "/api/media?page[size]=10".into(),
            true,
            true,
        ),
    ];
    let mut sums = std::collections::HashMap::<&str, f64>::new();
    let mut costs = Vec::new();
    for p in probes {
        let before = sums.entry(p.route).or_default();
        let request = || async {
            let answer = if p.api {
                fx.call(Method::GET, &p.path, token, None).await
            } else {
                let headers: Vec<(&str, &str)> =
                    p.headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                fx.public(Method::GET, &p.path, &headers).await
            };
            assert!(
                answer.status.as_u16() < 400,
                "{}: {}",
                p.name,
                answer.status
            );
        };
        // A change of the account: nothing is rendered for the version after it.
        let renamed = fx
            .call(
                Method::PUT,
                &format!("/api/feeds/{feed}"),
                token,
                Some(serde_json::json!({"title": format!("{feed}: {}", p.name)})),
            )
            .await;
        assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.body);
        records_of(fx, p.route, before).await;
        request().await;
        let cold = records_of(fx, p.route, before).await;
        request().await;
        let warm = records_of(fx, p.route, before).await;
        costs.push((p.name, p.cold_bounded, cold, warm));
    }
    costs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_touches_as_many_records_on_a_large_account_as_on_a_small_one() {
    let fx = Fixture::new().await;
    // Two podcasts each: alice's of 10 and 1 episodes, mallory's of 10,000 and 1,000, and a
    // campaign in the second.
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let small = podcast(&fx.host, &alice, "small", 10).await;
    let side = podcast(&fx.host, &alice, "small-side", 1).await;
    campaign_elsewhere(&fx.host, &alice, &side).await;
    let mallory = fx
        .host
        .access()
        .owner(&"mallory".parse().unwrap())
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let large = podcast(&fx.host, &mallory, "large", 10_000).await;
    let side = podcast(&fx.host, &mallory, "large-side", 1_000).await;
    campaign_elsewhere(&fx.host, &mallory, &side).await;
    eprintln!("the large account made in {:?}", started.elapsed());
    let small_costs = costs(&fx, &fx.alice.clone(), &small).await;
    let large_costs = costs(&fx, &fx.mallory.clone(), &large).await;
    eprintln!("records touched, cold and warm (11 episodes; 11,000 episodes):");
    let mut grew = Vec::new();
    for ((name, cold_bounded, cold, warm), (_, _, large_cold, large_warm)) in
        small_costs.iter().zip(&large_costs)
    {
        eprintln!("  {name}: {cold}, {warm}; {large_cold}, {large_warm}");
        if (*cold_bounded && large_cold > cold) || large_warm > warm {
            grew.push(format!("{name}: {cold}/{warm} → {large_cold}/{large_warm}"));
        }
    }
    assert!(
        grew.is_empty(),
        "requests whose work grows with the account: {grew:?}"
    );
}
