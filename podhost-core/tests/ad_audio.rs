//! Dynamic ad insertion as a listener gets it, checked by real peers: an episode encoded by LAME
//! (44.1 kHz stereo, 128 kbit/s) with a preroll, a midroll and a postroll, and an ad of another
//! shape (48 kHz mono WAV, much louder). The ad is encoded like the episode by a background job
//! before the first listen; then the answer, read through `stitched_bytes` as a server sends
//! it, is decoded by ffmpeg with no error and no warning, ffprobe gives it the episode's
//! duration plus the ads', each ad in it has the episode's format and loudness (±1 LU), and
//! the listener's JSON chapters are moved by the ads. The same for AAC in M4A.
//!
//! Without ffmpeg/ffprobe the test prints `SKIPPED` and passes, unless
//! `PODHOST_REQUIRE_EXTERNAL=1` (set by `scripts/test`).

use std::path::Path;
use std::process::Command;

#[path = "support/ffmpeg.rs"]
mod ffmpeg_tools;
use ffmpeg_tools::{ffmpeg, ffmpeg_and_ffprobe, ffmpeg_loudness, probe};
use futures::TryStreamExt;
use podhost_core::{
    Listener, PodcastHost,
    model::{AdBreak, JobStatus, Media, MetadataPatch, NewEpisode},
    tags::Chapter,
};

/// ffmpeg's decoding of `path` to nothing: what it said (warnings and errors).
fn complaints(path: &Path) -> String {
    let out = Command::new("ffmpeg")
        .args(["-v", "warning", "-i"])
        .arg(path)
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The samples ffmpeg decodes of `path` (one channel at `rate`), in seconds.
fn decoded_seconds(path: &Path, rate: u32) -> f64 {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-ac", "1", "-f", "s16le", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout.len() as f64 / 2.0 / f64::from(rate)
}

/// The samples ffmpeg decodes of `path`, interleaved as they are.
fn decoded_samples(path: &Path) -> Vec<i16> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-f", "s16le", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn seconds(path: &Path) -> f64 {
    probe(path, "format=duration").parse().unwrap()
}

/// An episode with ads as a listener gets it, and where its parts are.
struct Stitched {
    dir: tempfile::TempDir,
    host: PodcastHost,
    /// The episode's file, as analysed.
    episode: Media,
    blob: String,
    listener: Listener,
    answer: Box<podhost_core::StitchedEnclosure>,
    /// The episode as uploaded, the ad as uploaded, the listener's answer.
    episode_path: std::path::PathBuf,
    ad_path: std::path::PathBuf,
    stitched_path: std::path::PathBuf,
    /// The answer's bytes, as a server sends them.
    whole: Vec<u8>,
}

/// A 20 s stereo episode (44.1 kHz, 128 kbit/s) that ffmpeg encodes with `codec` into `name`,
/// with chapters "One" (0-10 s) and "Two" (10-20 s) and a preroll, a midroll at 10 s and a
/// postroll, shown by a public episode; a campaign everywhere of a 4 s ad of another shape
/// (48 kHz mono WAV, much louder). The workers measure the episode and encode the ad to its
/// shape; then the listener's answer is read through `stitched_bytes` as a server sends it.
async fn stitched_episode(name: &str, codec: &str) -> Stitched {
    let dir = tempfile::tempdir().unwrap();
    let episode_path = dir.path().join(name);
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=0.1*sin(2*PI*(200+100*sin(2*PI*0.5*t))*t)|0.1*sin(2*PI*300*t):s=44100:d=20",
        "-c:a",
        codec,
        "-b:a",
        "128k",
        episode_path.to_str().unwrap(),
    ]);
    let ad_path = dir.path().join("ad.wav");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=0.7*sin(2*PI*880*t)*gte(mod(t\\,0.5)\\,0.2):s=48000:d=4",
        "-c:a",
        "pcm_s16le",
        ad_path.to_str().unwrap(),
    ]);
    let host = PodcastHost::new(
        podhost_core::HostConfig::new("https://pod.example").unwrap(),
        podhost_core::open_store("memory://").unwrap().store,
    );
    let (who, show) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let bytes = std::fs::read(&episode_path).unwrap();
    let episode = podhost_testkit::setup::upload(&host, &who, name, bytes).await;
    let bytes = std::fs::read(&ad_path).unwrap();
    let ad = podhost_testkit::setup::upload(&host, &who, "ad.wav", bytes).await;
    let chapters = vec![
        Chapter {
            start_ms: 0,
            end_ms: Some(10_000),
            title: "One".into(),
            url: None,
        },
        Chapter {
            start_ms: 10_000,
            end_ms: Some(20_000),
            title: "Two".into(),
            url: None,
        },
    ];
    let patch = MetadataPatch {
        chapters: Some(chapters),
        adbreak: Some(Some(AdBreak {
            preroll: true,
            postroll: true,
            midrolls: vec![10.0],
        })),
        ..Default::default()
    };
    let (_, tag_job) = host
        .podcasts()
        .update_metadata(&who, episode.id, patch)
        .await
        .unwrap();
    if let Some(job) = tag_job {
        let job = host.work().run_job(&who, &job.id).await.unwrap();
        assert_eq!(job.status, JobStatus::Succeeded, "{:?}", job.error);
    }
    let episode = host.podcasts().get_media(&who, episode.id).await.unwrap();
    let mut new = NewEpisode::titled("Pilot");
    new.fields.media = Some(Some(episode.id));
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&who, &show, new)
        .await
        .unwrap();
    podhost_testkit::setup::campaign_everywhere(&host, &who, ad.id).await;

    let workers = podhost_testkit::setup::run_jobs(&host);
    let listener = Listener {
        address: "2001:db8::1".parse().unwrap(),
        user_agent: "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X)".into(),
    };
    let blob = episode.blob.as_str().to_string();
    let answer = podhost_testkit::setup::stitched(&host, "alice", &blob, &listener).await;
    drop(workers);
    assert_eq!(answer.ads.len(), 3, "preroll, midroll, postroll");
    let chunks: Vec<bytes::Bytes> = host
        .ads()
        .stitched_bytes(&answer, 0..answer.len())
        .try_collect()
        .await
        .unwrap();
    let whole = chunks.concat();
    assert_eq!(whole.len() as u64, answer.len());
    let stitched_path = dir.path().join(format!("stitched-{name}"));
    std::fs::write(&stitched_path, &whole).unwrap();
    Stitched {
        dir,
        host,
        episode,
        blob,
        listener,
        answer,
        episode_path,
        ad_path,
        stitched_path,
        whole,
    }
}

/// The start of each chapter of the listener's JSON chapters, in seconds (and whether they
/// were moved by ads).
async fn listened_starts(stitched: &Stitched) -> Vec<f64> {
    let listened = stitched
        .host
        .ads()
        .listener_chapters("alice", &stitched.blob, &stitched.listener)
        .await
        .unwrap();
    assert!(listened.1, "the listener's chapters are moved");
    let json: serde_json::Value = serde_json::from_slice(&listened.0).unwrap();
    json["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["startTime"].as_f64().unwrap())
        .collect()
}

/// The chapters moved by the ads of `ad_ms`: the first by the preroll, the second by the
/// preroll and the midroll.
fn assert_moved_by_ads(starts: &[f64], ad_ms: f64) {
    assert!(
        (starts[0] * 1000.0 - ad_ms).abs() < 30.0,
        "{starts:?}, an ad of {ad_ms} ms"
    );
    assert!(
        (starts[1] * 1000.0 - (10_000.0 + 2.0 * ad_ms)).abs() < 60.0,
        "{starts:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_gets_the_ads_encoded_like_the_episode_and_decoded_clean() {
    let Some(()) =
        podhost_testkit::or_skip("ad insertion", "ffmpeg and ffprobe", ffmpeg_and_ffprobe())
    else {
        return;
    };
    let stitched = stitched_episode("episode.mp3", "libmp3lame").await;
    let Stitched {
        dir,
        answer,
        episode_path,
        ad_path,
        stitched_path,
        whole,
        ..
    } = &stitched;

    // ffmpeg decodes it without a word; ffprobe: the episode's stream, and its duration the
    // episode's plus the ads' within a frame.
    assert_eq!(complaints(stitched_path), "");
    assert_eq!(
        probe(stitched_path, "stream=codec_name,sample_rate,channels"),
        "mp3,44100,2"
    );
    // The postroll ad is the encoded ad whole (before a seam, a carrier takes the place of an
    // ad's last frame).
    let postroll = &answer.ads[2].bytes;
    let ad_mp3 = dir.path().join("ad-as-encoded.mp3");
    std::fs::write(
        &ad_mp3,
        &whole[postroll.start as usize..postroll.end as usize],
    )
    .unwrap();
    // The ad's frames alone have no Xing frame, for which ffprobe would only estimate their
    // length from the bitrate: their length is what ffmpeg decodes of them.
    let (whole_s, episode_s, ad_s) = (
        seconds(stitched_path),
        seconds(episode_path),
        decoded_seconds(&ad_mp3, 44_100),
    );
    let frame = 1152.0 / 44_100.0;
    println!(
        "ffprobe: stitched {whole_s:.4} s; episode {episode_s:.4} s + 3 ads of {ad_s:.4} s = {:.4} s",
        episode_s + 3.0 * ad_s
    );
    assert!(
        (whole_s - (episode_s + 3.0 * ad_s)).abs() <= frame,
        "{whole_s} vs {episode_s} + 3 × {ad_s}"
    );

    // The ad is heard whole before a seam too: the preroll (whose last frame a carrier took)
    // decodes as the postroll (the same ad, untouched) from the encoder delay on, to the end.
    let samples = decoded_samples(stitched_path);
    let ad_frames = (ad_s * 44_100.0 / 1152.0).round() as usize;
    let (first, last) = (1105 * 2, ad_frames * 1152 * 2);
    let postroll_at = samples.len() - last;
    let (preroll, postroll) = (&samples[..last], &samples[postroll_at..]);
    let differ = (first..last).filter(|&i| preroll[i] != postroll[i]).count();
    println!(
        "the preroll and the postroll ad: {differ} of {} samples differ after the encoder delay",
        last - first
    );
    assert_eq!(differ, 0);

    // The ad in it: the episode's format and loudness.
    assert_eq!(
        probe(&ad_mp3, "stream=codec_name,sample_rate,channels,bit_rate"),
        "mp3,44100,2,128000"
    );
    let episode_lufs = ffmpeg_loudness(episode_path).integrated.unwrap();
    let ad_lufs = ffmpeg_loudness(&ad_mp3).integrated.unwrap();
    let source_lufs = ffmpeg_loudness(ad_path).integrated.unwrap();
    println!(
        "loudness: episode {episode_lufs:.2} LUFS, ad as uploaded {source_lufs:.2}, ad as served {ad_lufs:.2}"
    );
    assert!(
        (ad_lufs - episode_lufs).abs() <= 1.0,
        "{ad_lufs} vs {episode_lufs}"
    );

    // The chapters the same listener fetches: moved by the preroll, and the second by the
    // midroll too.
    assert_moved_by_ads(&listened_starts(&stitched).await, ad_s * 1000.0);
}

/// As loud as the show: episodes at -14, -18.5 and -23 LUFS (LAME, 44.1 kHz stereo, 128 kbit/s)
/// whose loudness no one measured, in a podcast that does not master, and a campaign of a 10 s
/// ad (much quieter, another shape) in the preroll: podhost measures each episode before it
/// encodes the ad for it, and the ad each listener hears is within 1 LU of the episode, by
/// ffmpeg's `ebur128`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ad_plays_as_loud_as_the_episode_whatever_its_level() {
    let Some(()) =
        podhost_testkit::or_skip("ad loudness", "ffmpeg and ffprobe", ffmpeg_and_ffprobe())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ad_path = dir.path().join("ad.wav");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=0.05*sin(2*PI*660*t)*gte(mod(t\\,0.5)\\,0.1):s=48000:d=10",
        "-c:a",
        "pcm_s16le",
        ad_path.to_str().unwrap(),
    ]);
    let host = PodcastHost::new(
        podhost_core::HostConfig::new("https://pod.example").unwrap(),
        podhost_core::open_store("memory://").unwrap().store,
    );
    let (who, show) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let workers = podhost_testkit::setup::run_jobs(&host);
    let ad =
        podhost_testkit::setup::upload(&host, &who, "ad.wav", std::fs::read(&ad_path).unwrap())
            .await;
    podhost_testkit::setup::campaign_everywhere(&host, &who, ad.id).await;
    let listener = Listener {
        address: "192.0.2.7".parse().unwrap(),
        user_agent: "Overcast/3.0 (+http://overcast.fm/; iOS podcast app)".into(),
    };
    for target in [-14.0, -18.5, -23.0] {
        // A voice-like signal, brought to the target by ffmpeg's own measure.
        let raw = dir.path().join(format!("raw{target}.wav"));
        ffmpeg(&[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.2*sin(2*PI*(180+60*sin(2*PI*0.7*t))*t)*(0.6+0.4*sin(2*PI*3*t))|0.2*sin(2*PI*240*t)*(0.6+0.4*sin(2*PI*2*t)):s=44100:d=20",
            raw.to_str().unwrap(),
        ]);
        let episode_path = dir.path().join(format!("episode{target}.mp3"));
        let encode = |gain: f64| {
            ffmpeg(&[
                "-i",
                raw.to_str().unwrap(),
                "-af",
                &format!("volume={gain:.2}dB"),
                "-c:a",
                "libmp3lame",
                "-b:a",
                "128k",
                episode_path.to_str().unwrap(),
            ])
        };
        // Twice: the encoder moves the level a little.
        let mut gain = target - ffmpeg_loudness(&raw).integrated.unwrap();
        encode(gain);
        gain += target - ffmpeg_loudness(&episode_path).integrated.unwrap();
        encode(gain);
        let episode_lufs = ffmpeg_loudness(&episode_path).integrated.unwrap();
        assert!(
            (episode_lufs - target).abs() < 0.5,
            "{episode_lufs} for {target}"
        );
        let name = format!("episode{target}.mp3");
        let bytes = std::fs::read(&episode_path).unwrap();
        let episode = podhost_testkit::setup::upload(&host, &who, &name, bytes).await;
        assert!(episode.results.loudness.is_none(), "never measured");
        let patch = MetadataPatch {
            adbreak: Some(Some(AdBreak {
                preroll: true,
                postroll: false,
                midrolls: Vec::new(),
            })),
            ..Default::default()
        };
        host.podcasts()
            .update_metadata(&who, episode.id, patch)
            .await
            .unwrap();
        let mut new = NewEpisode::titled(format!("At {target} LUFS"));
        new.fields.media = Some(Some(episode.id));
        new.fields.is_public = Some(true);
        host.podcasts()
            .create_episode(&who, &show, new)
            .await
            .unwrap();

        let blob = episode.blob.as_str().to_string();
        let answer = podhost_testkit::setup::stitched(&host, "alice", &blob, &listener).await;
        let measured = host.podcasts().get_media(&who, episode.id).await.unwrap();
        let podhost_lufs = measured.results.loudness.and_then(|l| l.integrated);
        assert!(podhost_lufs.is_some(), "measured before the ad was encoded");
        let chunks: Vec<bytes::Bytes> = host
            .ads()
            .stitched_bytes(&answer, 0..answer.len())
            .try_collect()
            .await
            .unwrap();
        let whole = chunks.concat();
        let preroll = &answer.ads[0].bytes;
        let ad_mp3 = dir.path().join(format!("ad-in-{target}.mp3"));
        std::fs::write(
            &ad_mp3,
            &whole[preroll.start as usize..preroll.end as usize],
        )
        .unwrap();
        let ad_lufs = ffmpeg_loudness(&ad_mp3).integrated.unwrap();
        println!(
            "episode at {episode_lufs:.2} LUFS (podhost measured {:.2}): the ad served at {ad_lufs:.2} LUFS",
            podhost_lufs.unwrap()
        );
        assert!(
            (ad_lufs - episode_lufs).abs() <= 1.0,
            "the ad at {ad_lufs} LUFS in an episode at {episode_lufs}"
        );
    }
    drop(workers);
}

/// ffprobe's `duration_ts` and packet count of the first stream of `path`.
fn samples_and_frames(path: &Path) -> (u64, u64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_packets", "-select_streams", "a:0"])
        .args(["-show_entries", "stream=duration_ts,nb_read_packets"])
        .args(["-of", "csv=p=0"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.trim().split(',').map(|f| f.parse::<u64>().unwrap());
    (fields.next().unwrap(), fields.next().unwrap())
}

/// AAC in M4A as MP3: an episode encoded by ffmpeg's AAC encoder (44.1 kHz stereo, 128 kbit/s)
/// with a preroll, a midroll and a postroll, and an ad of another shape (48 kHz mono WAV,
/// louder). The ad is encoded to the episode's AAC by a background job; the listener's answer
/// (the episode's frames and the ad's behind a `moov` of its own) is decoded by ffmpeg with no
/// error and no warning, has the episode's stream and its length plus the ads' (the ads' frames
/// whole, the last one's padding trimmed), each ad within 1 LU of the episode, and the chapters
/// moved in the file and in the listener's JSON chapters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_gets_ads_in_an_m4a_encoded_like_the_episode() {
    let Some(()) =
        podhost_testkit::or_skip("ad insertion", "ffmpeg and ffprobe", ffmpeg_and_ffprobe())
    else {
        return;
    };
    let stitched = stitched_episode("episode.m4a", "aac").await;
    let Stitched {
        dir,
        answer,
        episode_path,
        ad_path,
        stitched_path,
        ..
    } = &stitched;
    let audio = stitched.episode.facts.audio.clone().unwrap();
    assert_eq!(audio.profile.as_deref(), Some("LC"), "{audio:?}");
    // The ads' bytes are their frames, between the episode's.
    let frames_bytes: u64 = answer.ads.iter().map(|a| a.bytes.end - a.bytes.start).sum();
    assert!(frames_bytes > 3 * 4 * 8_000, "{:?}", answer.ads);
    assert!(answer.ads[0].bytes.start >= answer.tag_bytes());

    assert_eq!(complaints(stitched_path), "");
    assert_eq!(
        probe(
            stitched_path,
            "stream=codec_name,profile,sample_rate,channels"
        ),
        "aac,LC,44100,2"
    );
    // The length: the episode's, and three ads' frames whole but the postroll's padding. The
    // ad's padding is under a frame; the unit test (stitch_m4a.rs) checks it to the sample.
    let (episode_ts, episode_frames) = samples_and_frames(episode_path);
    let (stitched_ts, stitched_frames) = samples_and_frames(stitched_path);
    let ad_frames = (stitched_frames - episode_frames) / 3;
    assert_eq!(stitched_frames, episode_frames + 3 * ad_frames);
    let episode_padding = episode_frames * 1024 - 1024 - episode_ts;
    let most = episode_ts + 3 * ad_frames * 1024 + episode_padding;
    println!(
        "ffprobe: episode {episode_ts} samples, stitched {stitched_ts} ({ad_frames} frames per ad), at most {most}"
    );
    assert!(
        stitched_ts <= most && stitched_ts > most - 1024,
        "{stitched_ts} vs {most}"
    );
    assert_eq!(
        answer.duration_ms(),
        stitched_ts * 1000 / 44_100,
        "the answer's length as the server counts it"
    );

    // Each ad within 1 LU of the episode (ffmpeg's ebur128): the preroll, decoded from the
    // answer (its end is silence, which the measure's gate leaves out).
    let ad_seconds = (ad_frames * 1024) as f64 / 44_100.0;
    let preroll = dir.path().join("preroll.wav");
    ffmpeg(&[
        "-i",
        stitched_path.to_str().unwrap(),
        "-t",
        &format!("{ad_seconds:.3}"),
        preroll.to_str().unwrap(),
    ]);
    let episode_lufs = ffmpeg_loudness(episode_path).integrated.unwrap();
    let ad_lufs = ffmpeg_loudness(&preroll).integrated.unwrap();
    let source_lufs = ffmpeg_loudness(ad_path).integrated.unwrap();
    println!(
        "loudness: episode {episode_lufs:.2} LUFS, ad as uploaded {source_lufs:.2}, ad as served {ad_lufs:.2}"
    );
    assert!((source_lufs - episode_lufs).abs() > 3.0, "a louder ad");
    assert!(
        (ad_lufs - episode_lufs).abs() <= 1.0,
        "{ad_lufs} vs {episode_lufs}"
    );

    // The chapters: in the file (ffprobe) and the listener's JSON, moved by the preroll, and
    // the second by the midroll too.
    let in_file = Command::new("ffprobe")
        .args(["-v", "error", "-show_chapters", "-of", "json"])
        .arg(stitched_path)
        .output()
        .unwrap();
    let in_file: serde_json::Value = serde_json::from_slice(&in_file.stdout).unwrap();
    let file_starts: Vec<(String, f64)> = in_file["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["tags"]["title"].as_str().unwrap_or("").to_string(),
                c["start_time"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    let starts = listened_starts(&stitched).await;
    println!("chapters: in the file {file_starts:?}, the listener's {starts:?}");
    // The file's chapter track starts with an untitled chapter for the preroll.
    let titled: Vec<(String, f64)> = file_starts
        .into_iter()
        .filter(|(t, _)| !t.is_empty())
        .collect();
    assert_eq!(titled.len(), 2, "{titled:?}");
    let ad_ms = (answer.duration_ms() - episode_ts * 1000 / 44_100) as f64 / 3.0;
    for ((title, in_file), (want_title, listened)) in
        titled.iter().zip(["One", "Two"].iter().zip(&starts))
    {
        assert_eq!(title, want_title);
        assert!(
            (in_file - listened).abs() < 0.002,
            "{in_file} vs {listened}"
        );
    }
    assert_moved_by_ads(&starts, ad_ms);
}
