//! The public pages in a real browser: a podhost server on 127.0.0.1 with a podcast and real
//! audio, and `tests/browser/check-pages.mjs` loading the podcast page and an episode page in
//! the system's headless Chromium (Debian `chromium`) through playwright-core. It checks that
//! there are no console errors or failed requests, that the player's source answers with audio,
//! that the pages have a title, one h1, landmarks and alt text (the episode page with comments
//! from a fediverse instance), and keeps screenshots in
//! `target/artifacts/` (desktop, mobile and dark, per page).
//!
//! Chromium and `tests/browser/node_modules` are installed by `scripts/test`. Without them this
//! test says SKIPPED and passes, unless `PODHOST_REQUIRE_EXTERNAL=1`, which makes it fail.

mod common;

use std::{sync::Arc, time::Duration};

use podhost_core::{
    HostConfig, PodcastHost,
    model::{EpisodePatch, EpisodeType, FeedPatch, Funding, NewEpisode, NewFeed},
};
use podhost_testkit::browser::{self, BrowserTools};
use tokio::net::TcpListener;

fn fixture(name: &str) -> Vec<u8> {
    let path = browser::workspace()
        .join("podhost-core/tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A podcast as a podcaster would publish it: a cover, a description, three episodes with
/// real audio and show notes; and a bare one in German, with no cover and no description.
/// Returns the first episode's page path.
async fn publish(host: &PodcastHost) -> String {
    let alice = podhost_testkit::setup::account(host, "alice").await;
    let upload = |name: &'static str, file: &'static str| {
        let alice = alice.clone();
        async move { podhost_testkit::setup::upload(host, &alice, name, fixture(file)).await }
    };
    let cover = upload("cover.png", "cover_1400.png").await;
    host.podcasts().create_feed(
        &alice,
        NewFeed {
            id: "tinkering-hour".into(),
            fields: FeedPatch {
                title: Some("The Tinkering Hour".into()),
                description: Some(
                    "<p>Conversations with people who build things in their sheds, garages and \
                     kitchens: <strong>tools</strong>, mistakes, and the joy of making.</p>\
                     <p>New episodes every other Tuesday.</p>"
                        .into(),
                ),
                language: Some("en".into()),
                copyright: Some("© 2026 Alice Example".into()),
                link: Some("https://tinkering.example/".into()),
                logo: Some(Some(cover.id)),
                itunes_author: Some("Alice Example".into()),
                itunes_category: Some("Leisure".into()),
                itunes_subcategory: Some("Hobbies".into()),
                podcast_funding: Some(vec![Funding {
                    url: "https://tinkering.example/support".into(),
                    text: "Support the show".into(),
                }]),
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    let episodes = [
        (
            "cbr_128k_stereo.mp3",
            "The Shed Workshop",
            "2025-03-04T06:00:00Z",
            "<p>Alice visits Bob's shed workshop, where every tool hangs on a wall of \
             pegboard.</p><h3>In this episode</h3><ul><li>Why a good vice beats a new saw</li>\
             <li>Sharpening chisels by hand</li><li>The one project Bob never finished</li></ul>\
             <p>Links: <a href=\"https://tinkering.example/shed\">photos of the shed</a>.</p>\
             <script>alert('not here')</script>",
            Some(3),
        ),
        (
            "vbr_id3_cover.mp3",
            "Fixing a 1970s Radio",
            "2025-02-18T06:00:00Z",
            "Capacitors, dust and patience.\n\nA listener's question about old valves.",
            Some(2),
        ),
        (
            "aac_96k_mono.m4a",
            "Welcome to the Tinkering Hour",
            "2025-02-04T06:00:00Z",
            "<p>Who we are and what to expect.</p>",
            None,
        ),
    ];
    host.podcasts()
        .create_feed(&alice, NewFeed::titled("erste-schritte", "Erste Schritte"))
        .await
        .unwrap();
    let _ = host
        .podcasts()
        .update_feed(
            &alice,
            &"erste-schritte".parse().unwrap(),
            &FeedPatch {
                language: Some("de".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let mut first = None;
    for (file, title, date, notes, number) in episodes {
        let audio = upload(file, file).await;
        let view = host
            .podcasts()
            .create_episode(
                &alice,
                &"tinkering-hour".parse().unwrap(),
                NewEpisode {
                    guid: None,
                    fields: EpisodePatch {
                        title: Some(title.into()),
                        description: Some(notes.into()),
                        is_public: Some(true),
                        publish_at: Some(date.parse().unwrap()),
                        media: Some(Some(audio.id)),
                        itunes_season: Some(number.map(|_| 1)),
                        itunes_episode: Some(number),
                        itunes_episode_type: Some(if number.is_some() {
                            EpisodeType::Full
                        } else {
                            EpisodeType::Trailer
                        }),
                        ..Default::default()
                    },
                },
            )
            .await
            .unwrap();
        first.get_or_insert(view.episode.id);
    }
    let first = first.unwrap();
    common::remote::converse(host, &"tinkering-hour".parse().unwrap(), first).await;
    format!("/podcasts/tinkering-hour/{first}")
}

/// A host serving `base` that may fetch from loopback (the fediverse instance of
/// [`common::remote::converse`]).
fn host_at(base: &str) -> PodcastHost {
    let mut config = HostConfig::new(base).unwrap();
    config.allow_private_webhooks = true;
    let store = podhost_core::open_store("memory://").unwrap().store;
    PodcastHost::new(config, store)
}

/// One browser at a time: `cargo test` runs this file's tests on parallel threads, and
/// browsers side by side on 2 cores would slow each other past their time limits (and
/// Lighthouse's performance measure with them).
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Serves `host` on `listener` while `script` (a Node script of `tools`, with `args`) runs, at
/// most `limit`, one such script at a time; its stdout once it succeeded (it fails the test
/// with `failure` and its stderr otherwise).
async fn while_served(
    listener: TcpListener,
    host: PodcastHost,
    tools: &BrowserTools,
    script: &str,
    args: &[String],
    limit: Duration,
    failure: &str,
) -> String {
    let _one = ONE_BROWSER.lock().await;
    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(podhost_http::serve(listener, api, async {
        let _ = stopped.await;
    }));
    let run = tokio::process::Command::new("node")
        .current_dir(&tools.scripts)
        .env("PODHOST_CHROMIUM", &tools.chromium)
        .arg(script)
        .args(args)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(limit, run)
        .await
        .unwrap_or_else(|_| panic!("{script} finishes within {limit:?}"))
        .expect("node runs");
    let _ = stop.send(());
    let _ = server.await;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "{failure}:\n{stderr}");
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_load_in_headless_chromium() {
    let Some(tools) =
        browser::find_or_skip("pages_load_in_headless_chromium", &["playwright-core"])
    else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let host = host_at(&base);
    let episode_page = publish(&host).await;
    let out = browser::artifacts();
    let started = std::time::Instant::now();
    let args = [
        "--out".to_string(),
        out.display().to_string(),
        format!("podcast-page={base}/podcasts/tinkering-hour"),
        format!("episode-page={base}{episode_page}"),
        format!("bare-podcast-page={base}/podcasts/erste-schritte"),
        // In German, as its language switch asks for it: screenshots to review, axe in German.
        format!("podcast-page-de={base}/podcasts/tinkering-hour?lang=de"),
        format!("episode-page-de={base}{episode_page}?lang=de"),
    ];
    let limit = Duration::from_secs(240);
    let failure = "the pages failed in Chromium";
    let stdout = while_served(
        listener,
        host,
        &tools,
        "check-pages.mjs",
        &args,
        limit,
        failure,
    )
    .await;
    // The episode's comments (a thread of three, from `converse`) were on the page the checks
    // passed, in both languages and every view.
    for line in stdout.lines().filter(|l| l.starts_with("ok episode-page")) {
        assert!(line.contains(", 3 comment(s),"), "{line}");
    }
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("ok episode-page"))
            .count(),
        6
    );
    for name in [
        "podcast-page",
        "episode-page",
        "bare-podcast-page",
        "podcast-page-de",
        "episode-page-de",
    ] {
        for view in ["", "-mobile", "-dark"] {
            let shot = out.join(format!("{name}{view}.png"));
            assert!(shot.exists(), "{} was saved", shot.display());
        }
    }
    println!(
        "browser check: {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
}

/// Lighthouse on the podcast page, an episode page and the episode's embedded player (and the podcast
/// page and the player in German, as the language switch asks for them), as
/// `publish` makes them (a 1400 px cover, real audio): 100 for accessibility, best practices
/// and SEO, at least 95 for performance, with Lighthouse's default phone and network
/// (`tests/browser/check-lighthouse.mjs`). The reports are kept in `target/artifacts/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_and_the_player_score_in_lighthouse() {
    let Some(tools) = browser::find_or_skip(
        "pages_and_the_player_score_in_lighthouse",
        &["lighthouse", "chrome-launcher"],
    ) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let host = host_at(&base);
    let episode_page = publish(&host).await;
    let player = episode_page.replacen("/podcasts/", "/embed/", 1);
    let out = browser::artifacts();
    let args = [
        "--out".to_string(),
        out.display().to_string(),
        format!("podcast-page={base}/podcasts/tinkering-hour"),
        format!("episode-page={base}{episode_page}"),
        format!("player={base}{player}"),
        format!("podcast-page-de={base}/podcasts/tinkering-hour?lang=de"),
        format!("player-de={base}{player}?lang=de"),
    ];
    let stdout = while_served(
        listener,
        host,
        &tools,
        "check-lighthouse.mjs",
        &args,
        Duration::from_secs(420),
        "a page scored under its mark in Lighthouse",
    )
    .await;
    let scores: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    for page in [
        "podcast-page",
        "episode-page",
        "player",
        "podcast-page-de",
        "player-de",
    ] {
        for (category, least) in [
            ("accessibility", 100),
            ("best-practices", 100),
            ("seo", 100),
            ("performance", 95),
        ] {
            let score = scores[page][category].as_u64().unwrap();
            assert!(score >= least, "{page} {category}: {score}");
        }
        assert!(out.join(format!("lighthouse-{page}.html")).exists());
    }
}

/// The statistics pages in a real browser: the account's, a podcast's and a campaign's (signed
/// in with the session cookie of a sign-in through the site) and a podcast's public page, with
/// a month of downloads and a campaign's impressions, through `tests/browser/check-charts.mjs`:
/// every chart's SVG parses, is drawn at a real size and draws data, beside its table; no
/// console error (the Content-Security-Policy refuses nothing), no script. Screenshots in
/// `target/artifacts/`. (The tables are checked against the API's JSON by stats_pages.rs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_pages_draw_in_headless_chromium() {
    let Some(tools) = browser::find_or_skip(
        "statistics_pages_draw_in_headless_chromium",
        &["playwright-core"],
    ) else {
        return;
    };
    let common::history::History { fx, .. } = common::history::history().await;
    // A campaign heard by two listeners on the last day.
    let _workers = fx.start_workers();
    let (path, _, campaign) = common::ads::world(&fx, None).await;
    let iphone = "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X)";
    let (_, stitched) = common::ads::until_stitched(&fx, &path, iphone).await;
    assert_eq!(stitched.status, http::StatusCode::OK);
    let pocket = fx.send(common::ads::get(&path, "Pocket Casts", &[])).await;
    assert_eq!(pocket.raw.len(), stitched.raw.len());
    fx.host.analytics().flush_stats().await.unwrap();
    let shown = fx.get(&format!("/api/campaigns/{campaign}")).await;
    assert_eq!(shown.body["data"]["impressions"], 2, "{}", shown.body);
    let answer = fx
        .call(
            http::Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(serde_json::json!({"public_stats": true})),
        )
        .await;
    assert_eq!(answer.status, http::StatusCode::OK);
    let mut signed_in = common::Browser::default();
    signed_in
        .sign_in(&fx.api, "alice", common::history::PASSWORD)
        .await;
    let session = signed_in
        .cookie("podhost_session")
        .expect("signed in")
        .to_string();

    let base = fx.server.base_url();
    let period = format!(
        "from={}&to={}",
        common::history::FIRST,
        common::history::LAST
    );
    let out = browser::artifacts();
    let args = [
        "--out".to_string(),
        out.display().to_string(),
        "--cookie".to_string(),
        format!("{}={session}", "podhost_session"),
        format!("account-stats={base}/account/stats?{period}"),
        format!("podcast-stats={base}/account/stats/podcasts/show?{period}"),
        format!("campaign-stats={base}/account/stats/campaigns/{campaign}"),
        format!("public-stats={base}/podcasts/show/stats"),
        // In German: country names, months and numbers in its forms; axe in German.
        format!("podcast-stats-de={base}/account/stats/podcasts/show?{period}&lang=de"),
        format!("public-stats-de={base}/podcasts/show/stats?lang=de"),
    ];
    let _one = ONE_BROWSER.lock().await;
    let output = tokio::process::Command::new("node")
        .current_dir(&tools.scripts)
        .env("PODHOST_CHROMIUM", &tools.chromium)
        .arg("check-charts.mjs")
        .args(&args)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(180), output)
        .await
        .expect("check-charts.mjs finishes within 3 minutes")
        .expect("node runs");
    println!("{}", String::from_utf8_lossy(&output.stdout));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the charts failed in Chromium:\n{stderr}"
    );
    for name in [
        "account-stats",
        "podcast-stats",
        "podcast-stats-de",
        "public-stats-de",
        "campaign-stats",
        "public-stats",
    ] {
        for view in ["", "-mobile", "-dark"] {
            let shot = out.join(format!("{name}{view}.png"));
            assert!(shot.exists(), "{} was saved", shot.display());
        }
    }
}

/// The waveform a job makes loads in peaks.js, in a browser, in both forms, with every value as
/// we computed it, and peaks.js draws it.
#[test]
fn waveforms_load_in_peaks_js() {
    use podhost_core::analysis::{WaveformOptions, analyze};
    let Some(BrowserTools {
        chromium,
        scripts: script_dir,
    }) = browser::find_or_skip(
        "waveforms_load_in_peaks_js",
        &["playwright-core", "peaks.js"],
    )
    else {
        return;
    };
    let audio = browser::workspace().join("podhost-core/tests/fixtures/cbr_128k_stereo.mp3");
    let file = std::fs::File::open(&audio).unwrap();
    let waveform = analyze(
        Box::new(file),
        Some("audio/mpeg"),
        Some(&WaveformOptions::default()),
        None,
        false,
    )
    .unwrap()
    .waveform
    .unwrap();
    assert!(waveform.len() > 100, "{} points", waveform.len());
    let dir = tempfile::tempdir().unwrap();
    let dat = dir.path().join("waveform.dat");
    let json = dir.path().join("waveform.json");
    std::fs::write(&dat, waveform.to_dat()).unwrap();
    std::fs::write(&json, serde_json::to_vec(&waveform.to_json()).unwrap()).unwrap();

    let _one = ONE_BROWSER.blocking_lock();
    let output = std::process::Command::new("node")
        .current_dir(&script_dir)
        .env("PODHOST_CHROMIUM", &chromium)
        .arg("check-peaks.mjs")
        .arg(&dat)
        .arg(&json)
        .output()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "peaks.js failed:\n{stderr}");
    let loaded: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mins: Vec<i64> = waveform.data.iter().step_by(2).map(|&v| v.into()).collect();
    let maxs: Vec<i64> = waveform
        .data
        .iter()
        .skip(1)
        .step_by(2)
        .map(|&v| v.into())
        .collect();
    let ints = |v: &serde_json::Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    let loaded = loaded.as_array().unwrap();
    assert_eq!(loaded.len(), 2, "{stderr}");
    for read in loaded {
        let what = &read["format"];
        assert_eq!(read["channels"], 1, "{what}");
        assert_eq!(read["bits"], 8, "{what}");
        assert_eq!(read["sample_rate"], waveform.sample_rate, "{what}");
        assert_eq!(read["scale"], waveform.samples_per_pixel, "{what}");
        assert_eq!(ints(&read["min"]), mins, "{what}");
        assert_eq!(ints(&read["max"]), maxs, "{what}");
        assert!(read["drawn"].as_u64().unwrap() > 1000, "{what}: {read}");
    }
}

/// A 20-second take (a tone, then 0.2 s of silence) uploaded by `alice` and mastered by podhost
/// to `format` (`mp3`, `aac`); the mastered file's id.
async fn mastered_take(
    host: &PodcastHost,
    alice: &podhost_core::Principal,
    format: &str,
) -> podhost_core::MediaId {
    use podhost_core::model::{JobKind, JobStatus};
    let wav = podhost_testkit::fixtures::tone_and_silence(&[(20.0, true), (0.2, false)], 44_100);
    let take = podhost_testkit::setup::upload(host, alice, "take.wav", wav).await;
    let job = host
        .work()
        .submit_job(
            alice,
            take.id,
            JobKind::Master,
            serde_json::json!({ "format": format }),
        )
        .await
        .unwrap();
    let job = host.work().run_job(alice, &job.id).await.unwrap();
    assert_eq!(job.status, JobStatus::Succeeded, "{:?}", job.error);
    podhost_core::MediaId::new(job.report.unwrap()["media_id"].as_u64().unwrap()).unwrap()
}

/// A 3-second ad in a campaign of `alice`'s that runs everywhere, encoded like `media` by the
/// workers before a browser asks; the answer a listener on 127.0.0.1 gets for `media`.
async fn with_an_ad(
    host: &PodcastHost,
    alice: &podhost_core::Principal,
    media: &podhost_core::model::Media,
) -> Box<podhost_core::StitchedEnclosure> {
    let wav = podhost_testkit::fixtures::tone_and_silence(&[(3.0, true), (0.2, false)], 22_050);
    let ad = podhost_testkit::setup::upload(host, alice, "ad.wav", wav).await;
    podhost_testkit::setup::campaign_everywhere(host, alice, ad.id).await;
    let someone = podhost_core::Listener {
        address: "127.0.0.1".parse().unwrap(),
        user_agent: String::new(),
    };
    let workers = podhost_testkit::setup::run_jobs(host);
    let stitched =
        podhost_testkit::setup::stitched(host, "alice", media.blob.as_str(), &someone).await;
    drop(workers);
    stitched
}

/// An episode with ads plays in Chromium and seeks into the middle of an ad and past it: a 20 s
/// episode (a WAV mastered by podhost to `format`: MP3 or AAC in M4A) with a preroll, a midroll
/// and a postroll of a 3 s ad encoded like the episode, served by podhost on 127.0.0.1. The
/// browser reads the answer's length (an MP3's Xing frame, an M4A's `moov`), plays from the
/// start, and after each seek is where it was sent (within 0.1 s) and plays on, through range
/// requests answered 206.
async fn an_episode_with_ads_plays_and_seeks(test: &str, format: &str, mime: &str) {
    use podhost_core::model::{AdBreak, MetadataPatch};
    let Some(tools) = browser::find_or_skip(test, &["playwright-core"]) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let store = podhost_core::open_store("memory://").unwrap().store;
    let host = PodcastHost::new(HostConfig::new(&base).unwrap(), Arc::clone(&store));
    let (alice, show) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let mastered = mastered_take(&host, &alice, format).await;
    let patch = MetadataPatch {
        adbreak: Some(Some(AdBreak {
            preroll: true,
            postroll: true,
            midrolls: vec![10.0],
        })),
        ..Default::default()
    };
    host.podcasts()
        .update_metadata(&alice, mastered, patch)
        .await
        .unwrap();
    let mut new = NewEpisode::titled("With ads");
    new.fields.media = Some(Some(mastered));
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    let media = host.podcasts().get_media(&alice, mastered).await.unwrap();
    assert_eq!(media.facts.mime, mime);
    let stitched = with_an_ad(&host, &alice, &media).await;
    assert_eq!(stitched.ads.len(), 3);
    let duration = stitched.duration_ms() as f64 / 1000.0;
    let episode = media.facts.audio.as_ref().unwrap().duration_ms as f64 / 1000.0;
    let ad = (duration - episode) / 3.0;
    let url = host.podcasts().media_url(alice.account(), &media);
    // Into the middle of the midroll (after the preroll and 10 s of the episode), then past it.
    // Rounded as they are passed, so that the script and this test compare the same numbers.
    let round = |s: f64| (s * 1000.0).round() / 1000.0;
    let (into, past) = (round(ad + 10.0 + ad / 2.0), round(2.0 * ad + 12.0));
    let args = [url, format!("{into:.3}"), format!("{past:.3}")];
    let limit = Duration::from_secs(120);
    let failure = "Chromium did not play it";
    let stdout = while_served(
        listener,
        host,
        &tools,
        "check-ads.mjs",
        &args,
        limit,
        failure,
    )
    .await;
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let read = report["duration"].as_f64().unwrap();
    assert!(
        (read - duration).abs() < 0.1,
        "Chromium read {read} s, the answer is {duration} s"
    );
    for (seek, to) in report["seeks"].as_array().unwrap().iter().zip([into, past]) {
        let seeked = seek["seeked"].as_f64().unwrap();
        assert!((seeked - to).abs() <= 0.1, "{report}");
        assert!(seek["played_to"].as_f64().unwrap() > to + 1.0, "{report}");
    }
    let statuses = report["statuses"].as_array().unwrap();
    assert!(statuses.iter().all(|s| s == 200 || s == 206), "{report}");
    assert!(statuses.iter().any(|s| s == 206), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_with_ads_plays_and_seeks_in_chromium() {
    an_episode_with_ads_plays_and_seeks(
        "an_episode_with_ads_plays_and_seeks_in_chromium",
        "mp3",
        "audio/mpeg",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_m4a_episode_with_ads_plays_and_seeks_in_chromium() {
    an_episode_with_ads_plays_and_seeks(
        "an_m4a_episode_with_ads_plays_and_seeks_in_chromium",
        "aac",
        "audio/mp4",
    )
    .await;
}

/// The embeddable player on another site, in a real browser: an episode mastered to MP3 with
/// chapters, a preroll ad and a WebVTT transcript, served by podhost on 127.0.0.1; another
/// site (`localhost`, another origin) frames the player with the code podhost's oEmbed answer
/// gives for the episode's page; `tests/browser/check-player.mjs` plays it, changes the speed,
/// jumps to the last chapter and sees the transcript follow, with the keyboard too, in the
/// three views (desktop, phone, dark), and keeps their screenshots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_player_plays_seeks_to_a_chapter_and_follows_the_transcript_in_chromium() {
    use podhost_core::{
        model::{AdBreak, JobStatus, MetadataPatch},
        tags::Chapter,
    };
    let test =
        "the_embedded_player_plays_seeks_to_a_chapter_and_follows_the_transcript_in_chromium";
    let Some(tools) = browser::find_or_skip(test, &["playwright-core"]) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let store = podhost_core::open_store("memory://").unwrap().store;
    let host = PodcastHost::new(HostConfig::new(&base).unwrap(), Arc::clone(&store));
    let (alice, show) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let mastered = mastered_take(&host, &alice, "mp3").await;
    let chapter = |start_ms: u64, title: &str| Chapter {
        start_ms,
        title: title.into(),
        ..Default::default()
    };
    let patch = MetadataPatch {
        chapters: Some(vec![
            chapter(0, "Opening"),
            chapter(12_000, "The tinkering"),
        ]),
        adbreak: Some(Some(AdBreak {
            preroll: true,
            postroll: false,
            midrolls: vec![],
        })),
        ..Default::default()
    };
    let (_, tagging) = host
        .podcasts()
        .update_metadata(&alice, mastered, patch)
        .await
        .unwrap();
    let tagging = tagging.expect("the chapters are written by a job");
    let tagged = host.work().run_job(&alice, &tagging.id).await.unwrap();
    assert_eq!(tagged.status, JobStatus::Succeeded, "{:?}", tagged.error);
    let vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:06.000\nWelcome to the show.\n\n\
               00:00:06.000 --> 00:00:12.000\nToday: a shed.\n\n\
               00:00:12.000 --> 00:00:20.000\nNow the tinkering begins.\n";
    let transcript =
        podhost_testkit::setup::upload(&host, &alice, "talk.vtt", vtt.as_bytes().to_vec()).await;
    let mut new = NewEpisode::titled("Sheds");
    new.fields.media = Some(Some(mastered));
    new.fields.transcript = Some(Some(transcript.id));
    new.fields.is_public = Some(true);
    let episode = host
        .podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    let media = host.podcasts().get_media(&alice, mastered).await.unwrap();
    let stitched = with_an_ad(&host, &alice, &media).await;
    let preroll =
        (stitched.duration_ms() - media.facts.audio.as_ref().unwrap().duration_ms) as f64 / 1000.0;
    assert!(preroll > 2.5, "a 3 s preroll: {preroll}");
    let page = host.urls().episode_page(&show, episode.episode.id);
    let oembed = host.urls().oembed(&page);
    let out = browser::artifacts();
    // Every view in an English browser, then in a German one (the player's words are German,
    // and axe runs on it in German).
    let args = [
        "--out".to_string(),
        out.display().to_string(),
        "--locales".to_string(),
        "en-US,de-DE".to_string(),
        oembed,
    ];
    let stdout = while_served(
        listener,
        host,
        &tools,
        "check-player.mjs",
        &args,
        Duration::from_secs(300),
        "the player failed in Chromium",
    )
    .await;
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["embedding"]["type"], "rich");
    let views = report["views"].as_array().unwrap();
    assert_eq!(views.len(), 6, "three views in each language");
    for view in views {
        let play = match view["locale"].as_str() {
            Some("de-DE") => "Abspielen",
            _ => "Play",
        };
        assert_eq!(view["play"], play, "{view}");
        // The listener's chapter: 12 s of the episode, after their preroll.
        let chapter = view["chapter"].as_f64().unwrap();
        assert!((chapter - (12.0 + preroll)).abs() < 0.1, "{view}");
        let landed = view["landed"].as_f64().unwrap();
        assert!((landed - chapter).abs() <= 0.1, "{view}");
        assert_eq!(
            view["followed"]["marked"], "Now the tinkering begins.",
            "{view}"
        );
        assert_eq!(view["followed"]["chapter"], "The tinkering", "{view}");
        assert_eq!(view["rate"], 1.25);
    }
    for name in ["player", "player-de"] {
        for view in ["", "-mobile", "-dark"] {
            let shot = out.join(format!("{name}{view}.png"));
            assert!(shot.exists(), "{} was saved", shot.display());
        }
    }
}
