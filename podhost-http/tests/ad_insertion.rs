//! Dynamic ad insertion through the API: an episode with ad breaks and an active campaign is
//! answered at its enclosure URL with the ad at each break, stitched per listener and never
//! stored; exact under ranges, `If-Range` and `416`; the file as it was for an episode without
//! breaks; impressions counted by IAB v2.3 on two servers sharing one store, and the goal that
//! stops the campaign everywhere.

mod common;

use common::{
    Answer, Fixture,
    ads::{episode_with_breaks, etag, get, new_campaign, until_stitched, wav, world},
    send_to,
};
use http::{Method, StatusCode};
use podhost_core::stitch::Mp3Layout;
use serde_json::{Value, json};

const IPHONE: &str = "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X)";
const OVERCAST: &str = "Overcast/3.0 (+http://overcast.fm/; iOS podcast app)";
const POCKET: &str = "Pocket Casts";
const CASTRO: &str = "Castro 2022.1/1234";

async fn campaign(fx: &Fixture, id: &str) -> Value {
    let got = fx.get(&format!("/api/campaigns/{id}")).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    got.body["data"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_with_breaks_is_answered_with_its_ads_exactly_under_ranges() {
    let fx = Fixture::new().await;
    let _workers = fx.start_workers();
    let (path, episode_id, _) = world(&fx, None).await;
    let (plain, stitched) = until_stitched(&fx, &path, IPHONE).await;
    let whole = stitched.raw.clone();
    let len = whole.len() as u64;

    // The ads are in it: three of them, between the episode's frames, every frame whole.
    let episode = Mp3Layout::read(&plain.raw).unwrap();
    let answer = Mp3Layout::read(&whole).unwrap();
    assert!(
        answer.frames.len() > episode.frames.len() + 3,
        "{} frames, the episode has {}",
        answer.frames.len(),
        episode.frames.len()
    );
    let last = answer.frames.last().unwrap();
    assert_eq!(
        last.offset + u64::from(last.len),
        len,
        "nothing after the last frame"
    );
    assert_eq!(stitched.headers["content-length"], len.to_string().as_str());
    assert_eq!(stitched.headers["content-type"], "audio/mpeg");
    assert_eq!(stitched.headers["accept-ranges"], "bytes");
    assert_eq!(stitched.headers["cache-control"], "private, no-cache");
    assert!(stitched.headers.get("last-modified").is_none());
    let tag = etag(&stitched);

    // The same listener reads the same arrangement again, and any range of it exactly.
    let again = fx.send(get(&path, IPHONE, &[])).await;
    assert_eq!(again.raw, whole);
    for (range, want) in [
        ("bytes=0-99", 0..100),
        ("bytes=100-", 100..len),
        ("bytes=-500", len - 500..len),
        (&format!("bytes=1000-{}", len + 50), 1000..len),
    ] {
        let part = fx.send(get(&path, IPHONE, &[("range", range)])).await;
        assert_eq!(part.status, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            part.headers["content-range"],
            format!("bytes {}-{}/{len}", want.start, want.end - 1).as_str(),
            "{range}"
        );
        assert_eq!(
            part.raw,
            whole.slice(want.start as usize..want.end as usize),
            "{range}"
        );
        assert_eq!(etag(&part), tag);
    }
    let beyond = format!("bytes={len}-");
    let refused = fx.send(get(&path, IPHONE, &[("range", &beyond)])).await;
    assert_eq!(refused.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(
        refused.headers["content-range"],
        format!("bytes */{len}").as_str()
    );

    // If-Range: a range of the same arrangement holds; another arrangement's ETag (the plain
    // file's) answers the whole stitched answer.
    let same = fx
        .send(get(
            &path,
            IPHONE,
            &[("range", "bytes=10-19"), ("if-range", &tag)],
        ))
        .await;
    assert_eq!(same.status, StatusCode::PARTIAL_CONTENT);
    let other = etag(&plain);
    let whole_again = fx
        .send(get(
            &path,
            IPHONE,
            &[("range", "bytes=10-19"), ("if-range", &other)],
        ))
        .await;
    assert_eq!(whole_again.status, StatusCode::OK);
    assert_eq!(whole_again.raw, whole);
    let fresh = fx
        .send(get(&path, IPHONE, &[("if-none-match", &tag)]))
        .await;
    assert_eq!(fresh.status, StatusCode::NOT_MODIFIED);

    // The episode's transcript, fetched by the same listener, follows the ads: a cue before
    // the midroll moves by the preroll, one after it by both.
    let vtt =
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nBefore\n\n00:00:04.000 --> 00:00:05.000\nAfter\n";
    let transcript = fx.upload("talk.vtt", vtt.as_bytes().to_vec()).await;
    let attached = fx
        .call(
            Method::PUT,
            &format!("/api/feed/radio/show/{episode_id}"),
            &fx.alice,
            Some(json!({"podcast": {"transcript": transcript}})),
        )
        .await;
    assert_eq!(attached.status, StatusCode::OK, "{}", attached.body);
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let media = fx
        .host
        .podcasts()
        .get_media(&alice, podhost_core::MediaId::new(transcript).unwrap())
        .await
        .unwrap();
    let url = fx.host.podcasts().media_url(alice.account(), &media);
    let text_path = &url[url.find("/media/").unwrap()..];
    let moved = fx.send(get(text_path, IPHONE, &[])).await;
    assert_eq!(moved.status, StatusCode::OK);
    assert_eq!(moved.headers["cache-control"], "private, no-cache");
    let text = String::from_utf8(moved.raw.to_vec()).unwrap();
    let starts: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" --> ").map(|(start, _)| start))
        .collect();
    assert_eq!(starts.len(), 2, "{text}");
    assert!(
        starts[0] > "00:00:02.000" && starts[0] < "00:00:04.000",
        "{text}"
    );
    assert!(starts[1] > "00:00:06.000", "{text}");
    assert_eq!(
        moved.headers["content-length"],
        text.len().to_string().as_str()
    );

    // An episode without breaks is answered as stored: same bytes, same ETag.
    let other_take = fx.upload("other.mp3", plain.raw.to_vec()).await;
    let texts = [
        ("title", "Two"),
        ("is_public", "1"),
        ("publishing_date", "2025-01-02"),
        ("show_media", &other_take.to_string()),
    ];
    fx.feed("plain").await;
    let two = fx.episode("plain", &texts).await;
    let shown = fx.get(&format!("/api/feed/plain/show/{two}")).await;
    let url = shown.body["data"]["attributes"]["enclosure_url"]
        .as_str()
        .unwrap()
        .to_string();
    let plain_path = &url[url.find("/media/").unwrap()..];
    let as_stored = fx.send(get(plain_path, IPHONE, &[])).await;
    assert_eq!(as_stored.raw, plain.raw);
    assert_eq!(
        as_stored.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(as_stored.headers.get("last-modified").is_some());
}

/// The bytes of `path` in `[from, to)` for `agent`, through `api`.
async fn range(api: &podhost_http::Api, path: &str, agent: &str, from: u64, to: u64) -> Answer {
    let value = format!("bytes={from}-{}", to - 1);
    send_to(api, get(path, agent, &[("range", &value)])).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impressions_count_once_per_whole_ad_on_two_servers_and_the_goal_stops_the_campaign() {
    let fx = Fixture::new().await;
    let _workers = fx.start_workers();
    let (path, episode, id) = world(&fx, Some(2)).await;
    let (plain, stitched) = until_stitched(&fx, &path, IPHONE).await;
    let len = stitched.raw.len() as u64;
    let (other_host, other_api) = fx.another_process();

    // The iPhone listens through, in two ranges on two servers: one impression (the campaign
    // fills three slots; a listener counts once a day).
    let half = len / 2;
    assert_eq!(
        range(&fx.api, &path, IPHONE, 0, half).await.raw.len() as u64,
        half
    );
    assert_eq!(
        range(&other_api, &path, IPHONE, half, len).await.raw.len() as u64,
        len - half
    );
    // Overcast stops before the preroll ad ended: no impression.
    let cut = range(&fx.api, &path, OVERCAST, 0, 2000).await;
    assert_eq!(cut.status, StatusCode::PARTIAL_CONTENT);
    // Pocket Casts downloads it whole from the other server: an impression.
    let answer = send_to(&other_api, get(&path, POCKET, &[])).await;
    assert_eq!(
        answer.raw, stitched.raw,
        "one campaign: the same arrangement"
    );
    fx.host.analytics().flush_stats().await.unwrap();
    other_host.analytics().flush_stats().await.unwrap();
    let shown = campaign(&fx, &id).await;
    assert_eq!(
        shown["impressions"], 2,
        "the iPhone and Pocket Casts: {shown}"
    );
    // Counted is not stopped: the API says ended only once every server stops placing it.
    assert_eq!(
        shown["status"], "active",
        "the goal's mark is not set yet: {shown}"
    );
    let stats = fx.get(&format!("/api/stats/campaigns/{id}")).await;
    assert_eq!(stats.status, StatusCode::OK, "{}", stats.body);
    let data = &stats.body["data"];
    assert_eq!(data["impressions"], 2, "{data}");
    assert_eq!(
        data["episodes"],
        json!([{"feed_id": "radio", "show_id": episode, "impressions": 2}])
    );
    let days = data["days"].as_array().unwrap();
    assert_eq!(days.last().unwrap()["impressions"], 2, "{data}");
    let csv = fx.get("/api/stats/csv").await;
    let text = String::from_utf8(csv.raw.to_vec()).unwrap();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with(",campaign_id,impressions,country"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.contains(&id) && l.ends_with(",2,")),
        "{text}"
    );
    // The site's page of the campaign draws the same numbers: impressions per day (a point
    // for its one day) and per episode.
    let password = "correct horse battery staple";
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some(password))
        .await
        .unwrap();
    let mut browser = common::Browser::default();
    browser.sign_in(&fx.api, "alice", password).await;
    let page = browser
        .get(&fx.api, &format!("/account/stats/campaigns/{id}"))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    let charts = common::charts::drawings(&html);
    assert!(
        charts["impressions"] > 0 && charts["episodes"] > 0,
        "{charts:?}"
    );
    let tables = common::charts::tables(&html);
    let per_day: Vec<Vec<String>> = days
        .iter()
        .map(|d| {
            vec![
                d["date"].as_str().unwrap().to_string(),
                d["impressions"].to_string(),
            ]
        })
        .collect();
    assert_eq!(tables["impressions"][1..], per_day[..]);
    assert_eq!(
        tables["episodes"][1..],
        [vec!["One (Radio)".to_string(), "2".to_string()]]
    );
    let listed = browser.get(&fx.api, "/account/stats").await;
    assert!(
        String::from_utf8_lossy(&listed.raw).contains(&format!("/account/stats/campaigns/{id}"))
    );

    // The goal reached, a check on either server marks the campaign; the API says ended once
    // every server has read the mark (the catalog's refresh interval), and from that answer on
    // no server places it.
    assert_eq!(other_host.ads().check_campaign_goals().await.unwrap(), 1);
    let mut polls = 0;
    while campaign(&fx, &id).await["status"] != "ended" {
        polls += 1;
        assert!(polls < 100, "the API never said ended");
        fx.clock.advance(jiff::SignedDuration::from_millis(100));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for api in [&fx.api, &other_api] {
        let answer = send_to(api, get(&path, CASTRO, &[])).await;
        assert_eq!(etag(&answer), etag(&plain));
        assert_eq!(answer.raw, plain.raw);
    }
}

/// One listener asks for an episode twice a second for 30 s on two servers, from the moment a
/// campaign is created: the file as stored until every ad is ready, then one arrangement and
/// never a second, though a second campaign starts (and its ads become ready) meanwhile. The
/// second campaign joins the next UTC day, its ads ready before that day's first listen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_gets_the_file_then_one_arrangement_all_day_on_two_servers() {
    let fx = Fixture::new().await;
    let _workers = fx.start_workers();
    let (path, _) = episode_with_breaks(&fx).await;
    let (first_ad, second_ad) = (
        fx.upload("first.wav", wav(1.5, 16000)).await,
        fx.upload("second.wav", wav(2.5, 22050)).await,
    );
    let (_other_host, other_api) = fx.another_process();
    let plain = fx.send(get(&path, IPHONE, &[])).await;
    assert_eq!(plain.status, StatusCode::OK);

    new_campaign(&fx, first_ad, None).await;
    let mut seen: Vec<String> = Vec::new();
    let mut second = None;
    let started = std::time::Instant::now();
    let mut n = 0;
    while started.elapsed() < std::time::Duration::from_secs(30) {
        let api = if n % 2 == 0 { &fx.api } else { &other_api };
        n += 1;
        let answer = send_to(api, get(&path, IPHONE, &[])).await;
        assert_eq!(answer.status, StatusCode::OK);
        let tag = etag(&answer);
        if seen.last() != Some(&tag) {
            seen.push(tag.clone());
        }
        if tag != etag(&plain) && second.is_none() {
            // Stitched: a second campaign starts a second later.
            fx.clock.advance(jiff::SignedDuration::from_secs(1));
            second = Some(new_campaign(&fx, second_ad, None).await);
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert!(
        second.is_some(),
        "the episode was never answered with its ads"
    );
    assert_eq!(
        seen.len(),
        2,
        "the file as stored, then one arrangement: {seen:?}"
    );
    assert_eq!(seen[0], etag(&plain));

    // The next UTC day both campaigns share the slots, the second's ads encoded already: every
    // listener is answered with ads at once, not all with the same.
    let today = podhost_core::Clock::now(&fx.clock)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let tomorrow = today
        .tomorrow()
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .unwrap()
        .timestamp();
    fx.clock.set(tomorrow + jiff::SignedDuration::from_mins(1));
    let mut arrangements = std::collections::BTreeSet::new();
    for agent in [
        IPHONE,
        OVERCAST,
        POCKET,
        CASTRO,
        "Spotify/8.9",
        "Podcasts/1.0",
        "VLC/3.0",
        "Podbean/1",
    ] {
        let answer = send_to(&other_api, get(&path, agent, &[])).await;
        assert_ne!(
            etag(&answer),
            etag(&plain),
            "{agent}: the ads were ready before the day"
        );
        arrangements.insert(etag(&answer));
    }
    assert!(
        arrangements.len() > 1,
        "the second campaign plays too: {arrangements:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn campaign_statistics_need_a_campaign_and_the_scope() {
    let fx = Fixture::new().await;
    let missing = fx.get("/api/stats/campaigns/cmp_aaaaaaaaaaaaaaaa").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.body);
    let stats_only = fx.token("stats").await;
    let refused = fx
        .call(
            Method::GET,
            "/api/stats/campaigns/cmp_aaaaaaaaaaaaaaaa",
            &stats_only,
            None,
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
}

/// A presigner that signs nothing: the URL names the object.
#[derive(Debug)]
struct Presigns;

#[async_trait::async_trait]
impl podhost_core::Presigner for Presigns {
    async fn presigned_get(
        &self,
        path: &object_store::path::Path,
        _: std::time::Duration,
    ) -> podhost_core::Result<String> {
        Ok(format!("https://bucket.s3.example/{path}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_presigned_downloads_an_episode_with_ads_is_streamed_not_redirected() {
    let fx = Fixture::with_host_config(|c| {
        c.presigned_downloads = Some(std::sync::Arc::new(Presigns));
    })
    .await;
    let _workers = fx.start_workers();
    let (path, _, _) = world(&fx, None).await;
    // Before its ads are ready the file as stored is the store's to serve.
    let first = fx.send(get(&path, IPHONE, &[])).await;
    assert_eq!(first.status, StatusCode::FOUND);
    assert!(
        first.headers["location"]
            .to_str()
            .unwrap()
            .starts_with("https://bucket.s3.example/")
    );
    let mut streamed = None;
    for _ in 0..2400 {
        let answer = fx.send(get(&path, IPHONE, &[("range", "bytes=0-")])).await;
        if answer.status != StatusCode::FOUND {
            streamed = Some(answer);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let streamed = streamed.expect("the ads were encoded");
    assert_eq!(streamed.status, StatusCode::PARTIAL_CONTENT);
    assert!(streamed.headers.get("location").is_none());
    let layout = Mp3Layout::read(&streamed.raw).unwrap();
    assert!(!layout.frames.is_empty());
}
