//! Video over HLS: a video uploaded is packaged by ffmpeg into Apple's ladder (never above the
//! source, the top copied when it already fits), its playlists say what every variant is, real
//! players (ffprobe, ffmpeg) read and decode every variant from the server, the feed carries
//! the stream as an alternate enclosure and the page as a `<video>`, and a private podcast's
//! subscriber reaches it only under their key (410 once revoked).

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// A 14-second 1280×720 H.264/AAC clip with a key frame every 2 s (so its 720p rendition is
/// copied and cut on its own key frames), made by ffmpeg.
fn clip() -> Vec<u8> {
    clip_of("1280x720", 14)
}

/// A `seconds`-long H.264/AAC test clip of `size` with a key frame every 2 s, made by ffmpeg.
fn clip_of(size: &str, seconds: u32) -> Vec<u8> {
    podhost_testkit::fixtures::video(size, seconds)
}

/// Waits until video `id` is packaged (asking the core, so as not to spend the API's rate
/// limit); returns its record as the API shows it.
async fn until_packaged(fx: &Fixture, id: u64) -> Value {
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let media = podhost_core::MediaId::new(id).unwrap();
    for _ in 0..4800 {
        let video = fx.host.podcasts().get_media(&alice, media).await.unwrap();
        if let Some(streamed) = &video.results.hls {
            let ended = fx.until_done(streamed.job.as_str()).await;
            assert_eq!(ended["status"], "succeeded", "{ended}");
            assert_eq!(ended["kind"], "hls");
            return fx.get(&format!("/api/media/{id}")).await.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the video was not packaged");
}

/// Uploads the clip and waits for its packaging; returns its media id and record.
async fn packaged(fx: &Fixture) -> (u64, Value) {
    let _workers = fx.start_workers();
    let id = fx.upload("clip.mp4", clip()).await;
    (id, until_packaged(fx, id).await)
}

/// A published episode of `feed` with `video` alone.
async fn episode_with(fx: &Fixture, feed: &str, video: u64) -> String {
    fx.feed(feed).await;
    fx.episode(
        feed,
        &[
            ("title", "On camera"),
            ("video_media", &video.to_string()),
            ("is_public", "1"),
        ],
    )
    .await
}

fn attribute<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let at = line.find(&format!("{name}="))? + name.len() + 1;
    let rest = &line[at..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next(),
        None => rest.split(',').next(),
    }
}

fn ffprobe(args: &[&str], url: &str) -> String {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error"])
        .args(args)
        .arg(url)
        .output()
        .expect("ffprobe runs");
    assert!(
        out.status.success(),
        "ffprobe {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_video_is_packaged_into_a_ladder_that_players_read_end_to_end() {
    let fx = Fixture::new().await;
    let (video, record) = packaged(&fx).await;
    // The ladder stops at the source's 720 lines; audio beside it.
    assert_eq!(
        record["hls"]["renditions"],
        json!(["720p", "480p", "360p", "240p", "audio"]),
        "{record}"
    );
    assert_eq!(record["hls"]["height"], 720);
    // Its soundtrack is an audio file of the account: AAC in M4A, as long as the video.
    let soundtrack = record["hls"]["soundtrack_media"]
        .as_u64()
        .expect("a soundtrack");
    let audio = fx.get(&format!("/api/media/{soundtrack}")).await;
    assert_eq!(audio.body["type"], "audio", "{}", audio.body);
    assert_eq!(audio.body["name"], "clip.m4a");
    assert_eq!(audio.body["duration"], "00:00:14");
    // An episode given only the video takes the soundtrack as its audio.
    let episode = episode_with(&fx, "show", video).await;
    let shown = fx.get(&format!("/api/feed/show/show/{episode}")).await;
    assert_eq!(
        shown.body["data"]["attributes"]["show_media"], soundtrack,
        "{}",
        shown.body
    );
    let blob = blob_of(&record);
    let master = format!("/media/alice/{blob}/hls/master.m3u8");
    let answer = fx.public(Method::GET, &master, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.headers["content-type"],
        "application/vnd.apple.mpegurl"
    );
    assert_eq!(answer.headers["cache-control"], "public, max-age=60");
    let text = String::from_utf8_lossy(&answer.raw).into_owned();
    let variants: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("#EXT-X-STREAM-INF:") && l.contains("RESOLUTION="))
        .collect();
    assert_eq!(variants.len(), 4, "{text}");
    for line in &variants {
        for name in [
            "BANDWIDTH",
            "AVERAGE-BANDWIDTH",
            "CODECS",
            "RESOLUTION",
            "FRAME-RATE",
        ] {
            assert!(attribute(line, name).is_some(), "{name} missing: {line}");
        }
        let peak: u64 = attribute(line, "BANDWIDTH").unwrap().parse().unwrap();
        let average: u64 = attribute(line, "AVERAGE-BANDWIDTH")
            .unwrap()
            .parse()
            .unwrap();
        assert!(average <= peak, "{line}");
        assert!(
            attribute(line, "CODECS").unwrap().starts_with("avc1."),
            "{line}"
        );
        assert!(
            attribute(line, "CODECS").unwrap().ends_with(",mp4a.40.2"),
            "{line}"
        );
    }
    assert_eq!(attribute(variants[0], "RESOLUTION"), Some("1280x720"));
    assert_eq!(attribute(variants[3], "RESOLUTION"), Some("426x240"));
    assert_eq!(text.matches("#EXT-X-I-FRAME-STREAM-INF:").count(), 4);
    assert!(
        text.contains("CODECS=\"mp4a.40.2\",AUDIO=\"aac\"\naudio/index.m3u8"),
        "{text}"
    );

    // Every segment starts on a key frame and lasts about 6 s; the player's own reading of
    // each rendition agrees with the playlist.
    for rendition in ["720p", "480p", "360p", "240p"] {
        let url = fx
            .server
            .url(&format!("/media/alice/{blob}/hls/{rendition}/index.m3u8"));
        let playlist = fx
            .public(
                Method::GET,
                &format!("/media/alice/{blob}/hls/{rendition}/index.m3u8"),
                &[],
            )
            .await;
        let listed = String::from_utf8_lossy(&playlist.raw).into_owned();
        let durations: Vec<f64> = listed
            .lines()
            .filter_map(|l| l.strip_prefix("#EXTINF:"))
            .map(|d| d.trim_end_matches(',').parse().unwrap())
            .collect();
        assert_eq!(durations.len(), 3, "{listed}");
        assert!(
            durations[..2].iter().all(|d| (5.0..=7.0).contains(d)),
            "{listed}"
        );
        let keys = ffprobe(
            &[
                "-select_streams",
                "v:0",
                "-skip_frame",
                "nokey",
                "-show_entries",
                "frame=pts_time",
                "-of",
                "csv=p=0",
            ],
            &url,
        );
        let key_times: Vec<f64> = keys
            .lines()
            .filter_map(|l| l.trim().trim_end_matches(',').parse().ok())
            .collect();
        // Times count from the first frame (the stream may start a frame or two after 0).
        let mut start = key_times[0];
        for d in &durations {
            assert!(
                key_times.iter().any(|k| (k - start).abs() < 0.05),
                "{rendition}: no key frame at {start} s ({key_times:?})"
            );
            start += d;
        }
        let height = ffprobe(
            &[
                "-select_streams",
                "v:0",
                "-show_entries",
                "stream=height",
                "-of",
                "csv=p=0",
            ],
            &url,
        );
        assert_eq!(
            height
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .trim_end_matches(','),
            rendition.trim_end_matches('p')
        );
    }

    // ffmpeg decodes every variant and the audio from the multivariant playlist, end to end.
    let decoded = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-xerror", "-i"])
        .arg(fx.server.url(&master))
        .args(["-map", "0", "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    assert!(
        decoded.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );

    // Segments are immutable, with ranges; an unknown file is 404.
    let segment = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/480p/00001.m4s"),
            &[("range", "bytes=0-99")],
        )
        .await;
    assert_eq!(segment.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(segment.raw.len(), 100);
    assert_eq!(
        segment.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(segment.headers["content-type"], "video/mp4");
    for missing in [
        "480p/00009.m4s",
        "480p/x.m4s",
        "1080p/index.m3u8",
        "audio/iframes.m3u8",
        "480p/hls.json",
    ] {
        let answer = fx
            .public(
                Method::GET,
                &format!("/media/alice/{blob}/hls/{missing}"),
                &[],
            )
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{missing}");
    }
}

/// A `seconds`-long 1280×720 H.264/AAC clip at 2 Mbit/s (a rate whose top rendition could be
/// copied) with key frames at `keys` (seconds, comma-separated) alone, made by ffmpeg.
fn clip_keyed_at(seconds: u32, keys: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keyed.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30"])
        .args(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"])
        .args([
            "-t",
            &seconds.to_string(),
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
        ])
        .args(["-b:v", "2M", "-maxrate", "2M", "-bufsize", "4M"])
        .args([
            "-g",
            "100000",
            "-sc_threshold",
            "0",
            "-force_key_frames",
            keys,
        ])
        .args([
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-b:a",
            "96k",
            "-shortest",
        ])
        .arg(&path)
        .status()
        .expect("ffmpeg runs");
    assert!(made.success());
    std::fs::read(&path).unwrap()
}

/// The times of the key frames of the rendition at `url`, as ffprobe decodes them.
fn key_frames(url: &str) -> Vec<f64> {
    ffprobe(
        &[
            "-select_streams",
            "v:0",
            "-skip_frame",
            "nokey",
            "-show_entries",
            "frame=pts_time",
            "-of",
            "csv=p=0",
        ],
        url,
    )
    .lines()
    .filter_map(|l| l.trim().trim_end_matches(',').parse().ok())
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_segment_of_every_rendition_starts_on_a_key_frame_on_one_grid() {
    let fx = Fixture::new().await;
    let _workers = fx.start_workers();
    // The source: 20 s whose own key frames are at 0, 6 and 12 s only, so a segment
    // at 18 s has none to start on unless podhost makes one.
    let source = clip_keyed_at(20, "0,6,12");
    let id = fx.upload("keyed.mp4", source).await;
    let record = until_packaged(&fx, id).await;
    assert_eq!(
        record["hls"]["renditions"],
        json!(["720p", "480p", "360p", "240p", "audio"]),
        "{record}"
    );
    let blob = blob_of(&record);
    let dir = tempfile::tempdir().unwrap();
    for rendition in ["720p", "480p", "360p", "240p"] {
        let base = format!("/media/alice/{blob}/hls/{rendition}");
        let playlist = fx
            .public(Method::GET, &format!("{base}/index.m3u8"), &[])
            .await;
        let listed = String::from_utf8_lossy(&playlist.raw).into_owned();
        let durations: Vec<f64> = listed
            .lines()
            .filter_map(|l| l.strip_prefix("#EXTINF:"))
            .map(|d| d.trim_end_matches(',').parse().unwrap())
            .collect();
        let starts: Vec<f64> = durations
            .iter()
            .scan(0.0, |at, d| {
                let start = *at;
                *at += d;
                Some(start)
            })
            .collect();
        let keys = key_frames(&fx.server.url(&format!("{base}/index.m3u8")));
        eprintln!("{rendition}: segments at {starts:?}, key frames at {keys:?}");
        // Every rendition is cut on the same 6-second grid: 0, 6, 12, 18.
        assert_eq!(starts.len(), 4, "{rendition}: {listed}");
        for (n, start) in starts.iter().enumerate() {
            assert!(
                (start - 6.0 * n as f64).abs() < 0.05,
                "{rendition}: segment {n} starts at {start} s: {listed}"
            );
            // ffprobe finds a key frame where the segment starts (times count from the first
            // frame)...
            assert!(
                keys.iter().any(|k| (k - keys[0] - start).abs() < 0.05),
                "{rendition}: no key frame at {start} s ({keys:?})"
            );
            // ... and the segment's first packet, read on its own after the init segment, is
            // one.
            let init = fx
                .public(Method::GET, &format!("{base}/init.mp4"), &[])
                .await;
            let segment = fx
                .public(Method::GET, &format!("{base}/{n:05}.m4s"), &[])
                .await;
            assert_eq!(segment.status, StatusCode::OK);
            let file = dir.path().join(format!("{rendition}-{n}.mp4"));
            std::fs::write(&file, [init.raw.as_ref(), segment.raw.as_ref()].concat()).unwrap();
            let flags = ffprobe(
                &[
                    "-select_streams",
                    "v:0",
                    "-show_entries",
                    "packet=flags",
                    "-of",
                    "csv=p=0",
                ],
                file.to_str().unwrap(),
            );
            let first = flags.lines().next().unwrap_or("");
            assert!(
                first.contains('K'),
                "{rendition}: segment {n} starts with a packet flagged {first:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_and_the_page_carry_the_stream_and_a_subscriber_reaches_it_under_their_key() {
    let fx = Fixture::new().await;
    let (video, record) = packaged(&fx).await;
    let episode = episode_with(&fx, "show", video).await;
    let blob = blob_of(&record);

    let feed = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&feed.raw).into_owned();
    // One upload publishes both: the soundtrack as the enclosure, the stream beside it.
    let soundtrack = fx
        .get(&format!("/api/media/{}", record["hls"]["soundtrack_media"]))
        .await;
    let enclosure = format!(
        "<enclosure url=\"{}\"",
        soundtrack.body["url"].as_str().unwrap()
    );
    assert!(xml.contains(&enclosure), "{enclosure} in {xml}");
    let alternate = xml
        .split("<podcast:alternateEnclosure ")
        .nth(1)
        .unwrap_or_else(|| panic!("no alternate enclosure: {xml}"));
    assert!(
        alternate.starts_with("type=\"application/x-mpegURL\""),
        "{alternate}"
    );
    assert!(alternate.contains("height=\"720\""), "{alternate}");
    assert!(alternate.contains("bitrate=\""), "{alternate}");
    assert!(
        alternate.contains(&format!(
            "<podcast:source uri=\"https://pod.test/media/alice/{blob}/hls/master.m3u8\"/>"
        )),
        "{alternate}"
    );

    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{episode}"), &[])
        .await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    // The video fills the card at its picture's aspect (its width and height), from the rung
    // that fits the card's 712 px: 480p (852 px wide), not the lowest.
    let element = html
        .split("<video controls")
        .nth(1)
        .unwrap_or_else(|| panic!("no <video>: {html}"));
    let element = &element[..element.find("</video>").unwrap()];
    assert!(
        element.contains(" width=\"852\" height=\"480\""),
        "{element}"
    );
    let from = format!("/media/alice/{blob}/hls/master.m3u8?from=480p");
    assert!(
        element.contains(&format!(
            "<source src=\"https://pod.test{from}\" type=\"application/x-mpegURL\">"
        )),
        "{element}"
    );
    // That playlist starts at 480p and climbs: a browser's player starts at its first
    // variant or its least bandwidth, so none lower and no audio-only variant.
    let page_list = fx.public(Method::GET, &from, &[]).await;
    assert_eq!(page_list.status, StatusCode::OK);
    let text = String::from_utf8_lossy(&page_list.raw).into_owned();
    let variants: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(variants, ["480p/index.m3u8", "720p/index.m3u8"], "{text}");
    assert!(text.contains("TYPE=AUDIO"), "{text}");
    ffprobe(&["-show_entries", "format=duration"], &fx.server.url(&from));
    let unknown = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/master.m3u8?from=9999p"),
            &[],
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    // The player plays the video too, from the rung that fits its box (572 × 224: 240p).
    let player = fx
        .public(Method::GET, &format!("/embed/show/{episode}"), &[])
        .await;
    let player = String::from_utf8_lossy(&player.raw).into_owned();
    assert!(player.contains("<video id=\"media\""), "{player}");
    assert!(
        player.contains(&format!(
            "<source src=\"https://pod.test/media/alice/{blob}/hls/master.m3u8?from=240p\" type=\"application/x-mpegURL\">"
        )),
        "{player}"
    );

    // Private now: the public stream is gone; a subscriber's feed names it under their key.
    let private = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(json!({"private": true})),
        )
        .await;
    assert_eq!(private.status, StatusCode::OK, "{}", private.body);
    let public = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/master.m3u8"),
            &[],
        )
        .await;
    assert_eq!(public.status, StatusCode::NOT_FOUND);
    let added = fx
        .call(
            Method::POST,
            "/api/feeds/show/subscribers",
            &fx.alice,
            Some(json!({"label": "Jane"})),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    let jane = added.body["data"].clone();
    let feed_path = jane["feed_url"]
        .as_str()
        .unwrap()
        .strip_prefix("https://pod.test")
        .unwrap()
        .to_string();
    let prefix = feed_path.strip_suffix("/rss").unwrap().to_string();
    let feed = fx.public(Method::GET, &feed_path, &[]).await;
    let xml = String::from_utf8_lossy(&feed.raw).into_owned();
    let stream = format!("{prefix}/media/{blob}/hls/master.m3u8");
    assert!(
        xml.contains(&format!(
            "<podcast:source uri=\"https://pod.test{stream}\"/>"
        )),
        "{xml}"
    );
    let master = fx.public(Method::GET, &stream, &[]).await;
    assert_eq!(master.status, StatusCode::OK);
    assert_eq!(master.headers["cache-control"], "private, max-age=60");
    // Every URI in it is relative: it resolves under the key.
    let text = String::from_utf8_lossy(&master.raw).into_owned();
    assert!(!text.contains("://") && !text.contains("\n/"), "{text}");
    let under_key = [
        "720p/index.m3u8".to_string(),
        "720p/iframes.m3u8".to_string(),
        "720p/init.mp4".to_string(),
        "720p/00000.m4s".to_string(),
        "audio/00002.m4s".to_string(),
    ];
    for file in &under_key {
        let answer = fx
            .public(
                Method::GET,
                &format!("{prefix}/media/{blob}/hls/{file}"),
                &[],
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{file}");
    }
    // ffprobe reads the stream through the key.
    ffprobe(
        &["-show_entries", "format=duration"],
        &fx.server.url(&stream),
    );

    let id = jane["id"].as_str().unwrap();
    let revoked = fx
        .call(
            Method::DELETE,
            &format!("/api/feeds/show/subscribers/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    for file in std::iter::once("master.m3u8".to_string()).chain(under_key) {
        let answer = fx
            .public(
                Method::GET,
                &format!("{prefix}/media/{blob}/hls/{file}"),
                &[],
            )
            .await;
        assert_eq!(answer.status, StatusCode::GONE, "{file}");
    }
}

#[tokio::test]
async fn without_ffmpeg_the_upload_succeeds_and_the_job_fails_naming_it() {
    let fx = Fixture::with_host_config(|config| {
        config.jobs.ffmpeg.program = "/nonexistent/ffmpeg".into();
    })
    .await;
    let _workers = fx.start_workers();
    let id = fx
        .upload(
            "clip.mp4",
            std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../podhost-core/tests/fixtures/h264_aac.mp4"
            ))
            .unwrap(),
        )
        .await;
    let job = fx
        .call(
            Method::POST,
            &format!("/api/generate/hls/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(job.status, StatusCode::ACCEPTED, "{}", job.body);
    let ended = fx
        .until_done(job.body["data"]["id"].as_str().unwrap())
        .await;
    assert_eq!(ended["status"], "failed", "{ended}");
    let error = ended["error"].as_str().unwrap();
    assert!(
        error.contains("ffmpeg") && error.contains("PODHOST_FFMPEG"),
        "{error}"
    );
    let record = fx.get(&format!("/api/media/{id}")).await;
    assert!(record.body["hls"].is_null());
    // An audio file is not packaged.
    let audio = fx.upload_wav("talk.wav").await;
    let refused = fx
        .call(
            Method::POST,
            &format!("/api/generate/hls/{audio}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_saved_before_the_packaging_ends_gets_the_soundtrack_when_it_ends() {
    let fx = Fixture::new().await;
    let video = fx.upload("clip.mp4", clip()).await;
    let episode = episode_with(&fx, "show", video).await;
    let before = fx.get(&format!("/api/feed/show/show/{episode}")).await;
    assert!(
        before.body["data"]["attributes"]["show_media"].is_null(),
        "{}",
        before.body
    );
    let record = {
        let _workers = fx.start_workers();
        until_packaged(&fx, video).await
    };
    let soundtrack = record["hls"]["soundtrack_media"].as_u64().unwrap();
    let after = fx.get(&format!("/api/feed/show/show/{episode}")).await;
    assert_eq!(
        after.body["data"]["attributes"]["show_media"], soundtrack,
        "{}",
        after.body
    );
    // An episode with audio of its own keeps it.
    let talk = fx.upload_wav("talk.wav").await;
    let both = fx
        .episode(
            "show",
            &[
                ("title", "Both"),
                ("show_media", &talk.to_string()),
                ("video_media", &video.to_string()),
            ],
        )
        .await;
    let shown = fx.get(&format!("/api/feed/show/show/{both}")).await;
    assert_eq!(shown.body["data"]["attributes"]["show_media"], talk);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_podcast_that_masters_the_soundtrack_is_mastered_like_any_audio() {
    let fx = Fixture::new().await;
    let (video, record) = packaged(&fx).await;
    let soundtrack = record["hls"]["soundtrack_media"].as_u64().unwrap();
    fx.feed("radio").await;
    let set = fx
        .call(
            Method::PUT,
            "/api/feeds/radio",
            &fx.alice,
            Some(json!({"audio": {"master": true}})),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    let episode = fx
        .episode(
            "radio",
            &[("title", "On camera"), ("video_media", &video.to_string())],
        )
        .await;
    let waiting = fx.get(&format!("/api/feed/radio/show/{episode}")).await;
    let attributes = &waiting.body["data"]["attributes"];
    assert_eq!(attributes["show_media"], soundtrack, "{}", waiting.body);
    assert_eq!(attributes["mastering"]["media_id"], soundtrack);
    let job = attributes["mastering"]["job_id"]
        .as_str()
        .unwrap()
        .to_string();
    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let mastered = done["result"]["media_id"].as_u64().unwrap();
    let published = fx.get(&format!("/api/feed/radio/show/{episode}")).await;
    assert_eq!(published.body["data"]["attributes"]["show_media"], mastered);
    let file = fx.get(&format!("/api/media/{mastered}")).await;
    assert_eq!(file.body["mimetype"], "audio/mpeg", "{}", file.body);
}

/// Whether a process runs with `needle` in its command line.
fn running_with(needle: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|line| String::from_utf8_lossy(&line).contains(needle))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_packaging_says_how_far_it_is_and_cancelling_it_kills_ffmpeg() {
    // A short lease: the worker renews (and reports) twice a second.
    let fx = Fixture::with_host_config(|config| {
        config.jobs.lease = std::time::Duration::from_secs(2);
    })
    .await;
    // A minute of 1080p: long enough to be seen running.
    let dir = std::env::temp_dir().join(format!("podhost-hls-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"])
        .args(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"])
        .args([
            "-t",
            "60",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "60",
        ])
        .args(["-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        .arg(&path)
        .status()
        .expect("ffmpeg runs");
    assert!(made.success());
    let video = fx.upload("long.mp4", std::fs::read(&path).unwrap()).await;
    let _ = std::fs::remove_dir_all(&dir);
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let media = podhost_core::MediaId::new(video).unwrap();
    let _workers = fx.start_workers();
    // Its job, and its progress once the worker said some.
    let mut seen = None;
    for _ in 0..2400 {
        let jobs: Vec<podhost_core::model::Job> =
            fx.host.work().jobs_of_media(&alice, media).await.unwrap();
        if let Some(job) = jobs
            .into_iter()
            .find(|j| j.kind == podhost_core::model::JobKind::Hls)
            && job.progress.is_some_and(|p| p > 0.0)
        {
            seen = Some(job);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let job = seen.expect("the packaging reports its progress");
    let id = job.id.to_string();
    let shown = fx.get(&format!("/api/jobs/{id}")).await;
    assert_eq!(shown.body["data"]["status"], "running", "{}", shown.body);
    let progress = shown.body["data"]["progress"].as_f64().expect("a progress");
    assert!(progress > 0.0 && progress < 1.0, "{progress}");
    assert!(running_with(&format!("hls-{id}")), "ffmpeg runs the job");

    let cancelled = fx
        .call(Method::DELETE, &format!("/api/jobs/{id}"), &fx.alice, None)
        .await;
    assert_eq!(cancelled.status, StatusCode::OK, "{}", cancelled.body);
    assert_eq!(cancelled.body["data"]["status"], "failed");
    assert!(
        cancelled.body["data"]["error"]
            .as_str()
            .unwrap()
            .starts_with("cancelled")
    );
    // ffmpeg is killed and the working folder removed.
    let mut gone = false;
    for _ in 0..400 {
        let folder = podhost_testkit::scratch_dir().join(format!("hls-{id}"));
        if !running_with(&format!("hls-{id}")) && !folder.exists() {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(
        gone,
        "ffmpeg still runs, or its folder is left, after the cancel"
    );
    // It stays cancelled, the video is not packaged; cancelling again changes nothing.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let ended = fx.get(&format!("/api/jobs/{id}")).await;
    assert_eq!(ended.body["data"]["status"], "failed");
    assert!(ended.body["data"]["progress"].is_null());
    let record = fx.get(&format!("/api/media/{video}")).await;
    assert!(record.body["hls"].is_null(), "{}", record.body);
    let again = fx
        .call(Method::DELETE, &format!("/api/jobs/{id}"), &fx.alice, None)
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["data"]["error"], cancelled.body["data"]["error"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_counts_as_a_download_by_its_audio_once_with_the_files_of_its_listener() {
    let fx = Fixture::with_config(podhost_http::HttpConfig {
        trust_forwarded_for: true,
        ..Default::default()
    })
    .await;
    let (video, record) = packaged(&fx).await;
    episode_with(&fx, "show", video).await;
    let blob = blob_of(&record);
    let soundtrack = fx
        .get(&format!("/api/media/{}", record["hls"]["soundtrack_media"]))
        .await;
    let file = soundtrack.body["url"]
        .as_str()
        .unwrap()
        .strip_prefix("https://pod.test")
        .unwrap()
        .to_string();
    let app = "AppleCoreMedia/1.0.0.21E236 (iPhone; U; CPU OS 17_4 like Mac OS X; en_us)";
    let fetch = |ip: &'static str, path: String| {
        let api = fx.api.clone();
        async move {
            let status = common::download(&api, &path, Method::GET, ip, app, &[]).await;
            assert!(status.is_success(), "{path}: {status}");
        }
    };
    let segments = |track: &str| {
        (0..3)
            .map(|n| format!("/media/alice/{blob}/hls/{track}/{n:05}.m4s"))
            .collect::<Vec<_>>()
    };
    // The whole stream's audio (14 s, less than a minute: the whole of it counts).
    for path in segments("audio") {
        fetch("203.0.113.1", path).await;
    }
    // Pictures without sound, and a third of the sound: none.
    for path in segments("720p") {
        fetch("203.0.113.2", path).await;
    }
    fetch("203.0.113.3", segments("audio").remove(0)).await;
    // Playlists and init segments are not downloads.
    fetch(
        "203.0.113.4",
        format!("/media/alice/{blob}/hls/master.m3u8"),
    )
    .await;
    fetch(
        "203.0.113.4",
        format!("/media/alice/{blob}/hls/audio/init.mp4"),
    )
    .await;
    assert_eq!(downloads_today(&fx).await, 1);
    // The same listener's download of the soundtrack's file is the same download.
    fetch("203.0.113.1", file).await;
    assert_eq!(downloads_today(&fx).await, 1);
}

/// Alice's downloads of the clock's day, once this process stored what it saw.
async fn downloads_today(fx: &Fixture) -> Value {
    fx.host.analytics().flush_stats().await.unwrap();
    let today = podhost_core::Clock::now(&fx.clock)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let report = fx.get(&format!("/api/stats?from={today}")).await;
    report.body["data"]["total"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_episodes_transcript_is_the_streams_subtitles() {
    let fx = Fixture::new().await;
    let (video, record) = packaged(&fx).await;
    let episode = episode_with(&fx, "show", video).await;
    let blob = blob_of(&record);
    let master = format!("/media/alice/{blob}/hls/master.m3u8");
    // Without a transcript, no subtitles.
    let before = fx.public(Method::GET, &master, &[]).await;
    let text = String::from_utf8_lossy(&before.raw).into_owned();
    assert!(!text.contains("SUBTITLES"), "{text}");
    let missing = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/subtitles/index.m3u8"),
            &[],
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);

    let srt = "1\n00:00:01,000 --> 00:00:03,000\nHello & welcome\n\n2\n00:00:07,500 --> 00:00:09,000\nSecond cue\n";
    give_transcript(&fx, &episode, srt).await;
    let after = fx.public(Method::GET, &master, &[]).await;
    let text = String::from_utf8_lossy(&after.raw).into_owned();
    assert!(
        text.contains("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\""),
        "{text}"
    );
    assert!(text.contains("URI=\"subtitles/index.m3u8\""), "{text}");
    assert_eq!(
        text.matches("SUBTITLES=\"subs\"").count(),
        4,
        "every video variant: {text}"
    );
    assert_ne!(before.headers["etag"], after.headers["etag"]);
    let list = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/subtitles/index.m3u8"),
            &[],
        )
        .await;
    let listed = String::from_utf8_lossy(&list.raw).into_owned();
    assert_eq!(listed.matches(".vtt").count(), 3, "{listed}");
    let second = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/subtitles/00001.vtt"),
            &[],
        )
        .await;
    assert_eq!(second.status, StatusCode::OK);
    assert!(
        second.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/vtt")
    );
    let vtt = String::from_utf8_lossy(&second.raw).into_owned();
    assert!(vtt.starts_with("WEBVTT\n"), "{vtt}");
    assert!(
        vtt.contains("00:00:07.500 --> 00:00:09.000\nSecond cue"),
        "{vtt}"
    );
    assert!(!vtt.contains("Hello"), "{vtt}");
    // ffmpeg reads the subtitles' playlist and its cues (its HLS reader of this release skips
    // subtitle renditions of a multivariant playlist).
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(
            fx.server
                .url(&format!("/media/alice/{blob}/hls/subtitles/index.m3u8")),
        )
        .args(["-f", "webvtt", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let codecs = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        codecs.contains("Hello & welcome") && codecs.contains("Second cue"),
        "{codecs}"
    );
}

/// Uploads SubRip `srt` and makes it the transcript of episode `episode` of `show`.
async fn give_transcript(fx: &Fixture, episode: &str, srt: &str) {
    let transcript = fx.upload("talk.srt", srt.as_bytes().to_vec()).await;
    let set = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{episode}"),
            &fx.alice,
            Some(json!({"podcast": {"transcript": transcript}})),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
}

/// A campaign of ad `ad` in `positions` of every podcast; its id.
async fn campaign_of(fx: &Fixture, name: &str, ad: u64, positions: &[&str]) -> String {
    let made = fx
        .call(
            Method::POST,
            "/api/campaigns",
            &fx.alice,
            Some(json!({"name": name, "media_id": ad, "positions": positions})),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    made.body["data"]["id"].as_str().unwrap().to_string()
}

/// The lines of a playlist naming files or tags, without the header.
fn entries(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with("#EXTINF") && !l.is_empty())
        .skip_while(|l| !l.starts_with("#EXT-X-MAP") && !l.ends_with(".vtt"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listeners_stream_has_their_ads_spliced_in_and_counted() {
    let fx = Fixture::new().await;
    let (video, record) = packaged(&fx).await;
    let _workers = fx.start_workers();
    let episode = episode_with(&fx, "show", video).await;
    let blob = blob_of(&record);
    // Breaks on the video: before it, and at 6 s.
    let adbreak = json!({"preroll": true, "postroll": false, "midrolls": [6.4]});
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{video}/metadata"),
            &fx.alice,
            Some(json!({ "adbreak": adbreak })),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    // A 4 s video ad (a smaller picture, letterboxed into each rendition) before it, a 3 s
    // audio ad (over a black picture: the podcast has no cover) in the middle.
    let video_ad = fx.upload("spot.mp4", clip_of("640x360", 4)).await;
    let audio_ad = fx.upload("spot.wav", common::ads::wav(3.0, 16000)).await;
    let pre = campaign_of(&fx, "Picture", video_ad, &["preroll"]).await;
    let mid = campaign_of(&fx, "Sound", audio_ad, &["midroll"]).await;

    // Packaged when the campaigns were made (never by a viewer): the listener's playlists
    // splice the ads in once both are ready.
    let agent = "AppleCoreMedia/1.0.0.21E236 (iPhone; U; CPU OS 17_4 like Mac OS X; en_us)";
    let media_list = format!("/media/alice/{blob}/hls/720p/index.m3u8");
    let mut listed = String::new();
    for _ in 0..4800 {
        let answer = fx
            .public(Method::GET, &media_list, &[("user-agent", agent)])
            .await;
        listed = String::from_utf8_lossy(&answer.raw).into_owned();
        if listed.contains("#EXT-X-DISCONTINUITY") {
            assert_eq!(answer.headers["cache-control"], "private, no-cache");
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let maps: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("#EXT-X-MAP:"))
        .collect();
    assert_eq!(maps.len(), 4, "{listed}");
    let ad_jobs: Vec<String> = maps
        .iter()
        .filter_map(|m| m.strip_prefix("#EXT-X-MAP:URI=\"ad-"))
        .map(|rest| rest.trim_end_matches("-init.mp4\"").to_string())
        .collect();
    assert_eq!(ad_jobs.len(), 2, "{listed}");
    for job in &ad_jobs {
        assert_eq!(fx.until_done(job).await["kind"], "ad_stream");
    }
    let (first, second) = (&ad_jobs[0], &ad_jobs[1]);
    // The ad first, the episode's first 6 s, the midroll, the rest.
    let want: Vec<String> = [
        format!("#EXT-X-MAP:URI=\"ad-{first}-init.mp4\""),
        format!("ad-{first}-00000.m4s"),
        "#EXT-X-DISCONTINUITY".into(),
        "#EXT-X-MAP:URI=\"init.mp4\"".into(),
        "00000.m4s".into(),
        "#EXT-X-DISCONTINUITY".into(),
        format!("#EXT-X-MAP:URI=\"ad-{second}-init.mp4\""),
        format!("ad-{second}-00000.m4s"),
        "#EXT-X-DISCONTINUITY".into(),
        "#EXT-X-MAP:URI=\"init.mp4\"".into(),
        "00001.m4s".into(),
        "00002.m4s".into(),
        "#EXT-X-ENDLIST".into(),
    ]
    .into();
    assert_eq!(entries(&listed), want, "{listed}");
    // Every rendition (and its I-frames) splices the same ads at the same places.
    for list in [
        "480p/index.m3u8",
        "240p/index.m3u8",
        "audio/index.m3u8",
        "720p/iframes.m3u8",
    ] {
        let answer = fx
            .public(
                Method::GET,
                &format!("/media/alice/{blob}/hls/{list}"),
                &[("user-agent", agent)],
            )
            .await;
        let text = String::from_utf8_lossy(&answer.raw).into_owned();
        assert_eq!(
            text.matches("#EXT-X-DISCONTINUITY").count(),
            3,
            "{list}: {text}"
        );
        assert!(
            text.contains(&format!("ad-{second}-init.mp4")),
            "{list}: {text}"
        );
    }
    // Everyone's multivariant playlist stays shared; an ad's file that is none is 404.
    let master = format!("/media/alice/{blob}/hls/master.m3u8");
    let shared = fx
        .public(Method::GET, &master, &[("user-agent", agent)])
        .await;
    assert_eq!(shared.headers["cache-control"], "public, max-age=60");
    let bogus = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/720p/ad-job_aaaaaaaaaaaaaaaaaaaa-init.mp4"),
            &[],
        )
        .await;
    assert_eq!(bogus.status, StatusCode::NOT_FOUND);

    // Real players: the stream lasts the episode and both ads, and every variant decodes
    // end to end across the seams.
    let url = fx.server.url(&master);
    let duration: f64 = ffprobe(
        &["-show_entries", "format=duration", "-of", "csv=p=0"],
        &url,
    )
    .trim()
    .parse()
    .unwrap();
    assert!((duration - 21.0).abs() < 0.5, "{duration} s");
    let decoded = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-xerror", "-i"])
        .arg(&url)
        .args(["-map", "0", "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(
        decoded.status.success() && decoded.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );

    // ffmpeg fetched every audio segment, the ads' too: one download and an impression of each
    // campaign (one listener).
    assert_eq!(downloads_today(&fx).await, 1);
    for campaign in [&pre, &mid] {
        let shown = fx.get(&format!("/api/campaigns/{campaign}")).await;
        assert_eq!(shown.body["data"]["impressions"], 1, "{}", shown.body);
    }

    // The subtitles splice the ads' spans too (empty), the cues keep the episode's times.
    give_transcript(&fx, &episode, "1\n00:00:01,000 --> 00:00:03,000\nHello\n").await;
    let subs = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/subtitles/index.m3u8"),
            &[("user-agent", agent)],
        )
        .await;
    let text = String::from_utf8_lossy(&subs.raw).into_owned();
    assert_eq!(text.matches("#EXT-X-DISCONTINUITY").count(), 3, "{text}");
    let blank = fx
        .public(
            Method::GET,
            &format!("/media/alice/{blob}/hls/subtitles/ad-{first}-00000.vtt"),
            &[],
        )
        .await;
    assert_eq!(blank.status, StatusCode::OK);
    assert!(!String::from_utf8_lossy(&blank.raw).contains("-->"));

    // The episode's chapters (written into its soundtrack) reach the stream as Apple's chapter
    // data, moved by the listener's ads: the preroll (4 s) before both, the midroll (3.25 s)
    // before the second.
    let soundtrack = record["hls"]["soundtrack_media"].as_u64().unwrap();
    let chapters = json!([{"start": 0.0, "title": "Intro"}, {"start": 8.0, "title": "Main"}]);
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{soundtrack}/metadata"),
            &fx.alice,
            Some(json!({ "chapters": chapters })),
        )
        .await;
    assert!(put.status.is_success(), "{}", put.body);
    let chapters_path = format!("/media/alice/{blob}/hls/chapters/index.json");
    let mut answer = fx
        .public(Method::GET, &chapters_path, &[("user-agent", agent)])
        .await;
    for _ in 0..2400 {
        if answer.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        answer = fx
            .public(Method::GET, &chapters_path, &[("user-agent", agent)])
            .await;
    }
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.headers["cache-control"], "private, no-cache");
    let listed: Value = serde_json::from_slice(&answer.raw).unwrap();
    let starts: Vec<f64> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["start-time"].as_f64().unwrap())
        .collect();
    assert!((starts[0] - 4.0).abs() < 0.2, "{listed}");
    assert!((starts[1] - 15.25).abs() < 0.3, "{listed}");
    assert_eq!(listed[1]["titles"][0]["title"], "Main");
    // A web player: hls.js in headless Chromium plays the listener's stream, switches to the
    // top rendition and back, and seeks into the preroll, into the midroll and past it.
    if let Some(tools) = podhost_testkit::browser::find_or_skip(
        "a_listeners_stream_has_their_ads_spliced_in_and_counted (hls.js)",
        &["playwright-core", "hls.js"],
    ) {
        let played = std::process::Command::new("node")
            .current_dir(&tools.scripts)
            .env("PODHOST_CHROMIUM", &tools.chromium)
            .arg("check-hls.mjs")
            .arg(&url)
            .args(["2", "11", "16"])
            .output()
            .expect("node runs");
        let report = String::from_utf8_lossy(&played.stdout).into_owned();
        assert!(
            played.status.success(),
            "hls.js: {report}\n{}",
            String::from_utf8_lossy(&played.stderr)
        );
        println!("hls.js: {report}");
        let report: Value = serde_json::from_str(report.trim()).unwrap();
        assert_eq!(report["levels"], json!([240, 360, 480, 720]), "{report}");
        let duration = report["duration"].as_f64().unwrap();
        assert!((duration - 21.25).abs() < 0.6, "{report}");
        for seek in report["seeks"].as_array().unwrap() {
            let (to, reached) = (
                seek["to"].as_f64().unwrap(),
                seek["reached"].as_f64().unwrap(),
            );
            assert!(reached > to + 1.0, "stalled after a seek: {report}");
        }
    }
    let shared = fx.public(Method::GET, &master, &[]).await;
    assert!(
        String::from_utf8_lossy(&shared.raw).contains(
            "#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\"chapters/index.json\""
        ),
        "{}",
        String::from_utf8_lossy(&shared.raw)
    );
}

/// The blob segment of a media record's download URL.
fn blob_of(record: &Value) -> String {
    let url = record["url"].as_str().unwrap();
    url.split('/').nth_back(1).unwrap().to_string()
}
