//! `podhost waveform` and `podhost silence`: jobs queued for a server, or run here with
//! `--wait` (no server running) and their results printed.

mod common;

use common::Cli;
use podhost_testkit::fixtures;

#[test]
fn a_waveform_is_made_here_with_wait() {
    let cli = Cli::with_users(&["alice"]);
    // 2.5 s at 8 kHz: 20,000 samples.
    let audio = cli.upload("alice", "talk.wav", &fixtures::wav(2.5, 8000));
    let cases: &[(&[&str], u64, u64, u64)] = &[
        // flags, samples per pixel, bits, length (points: the last partial block kept)
        (&[], 256, 8, 20_000u64.div_ceil(256)),
        (
            &["--samples-per-pixel", "1000", "--bits", "16"],
            1000,
            16,
            20,
        ),
        (&["--pixels-per-second", "10"], 800, 8, 25),
    ];
    for (flags, samples_per_pixel, bits, length) in cases {
        let mut args = vec!["waveform", "--user", "alice", &audio, "--wait"];
        args.extend_from_slice(flags);
        let waveform = cli.json(&args);
        assert_eq!(waveform["version"], 2, "{flags:?}");
        assert_eq!(waveform["channels"], 1);
        assert_eq!(waveform["sample_rate"], 8000);
        assert_eq!(
            waveform["samples_per_pixel"], *samples_per_pixel,
            "{flags:?}"
        );
        assert_eq!(waveform["bits"], *bits, "{flags:?}");
        assert_eq!(waveform["length"], *length, "{flags:?}");
        let data = waveform["data"].as_array().unwrap();
        assert_eq!(data.len() as u64, 2 * length, "a min and a max per point");
        // The text form is the same JSON.
        let text = cli.ok(&args);
        let again: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(again["length"], *length);
    }
    let metadata = cli.json(&["metadata", "get", "--user", "alice", &audio]);
    assert!(metadata["job"].is_null());
}

#[test]
fn loudness_is_measured_here_with_wait() {
    let cli = Cli::with_users(&["alice"]);
    let audio = cli.upload(
        "alice",
        "talk.wav",
        &fixtures::tone_and_silence(&[(4.0, true), (3.0, false), (3.0, true)], 8000),
    );
    let latest = ["loudness", "--user", "alice", &audio, "--latest"];
    cli.fails(&latest, 3);
    let loudness = cli.json(&["loudness", "--user", "alice", &audio, "--wait"]);
    assert_eq!(loudness["sample_peak"], -12.25, "{loudness}");
    let integrated = loudness["integrated"].as_f64().unwrap();
    assert!((-16.5..-15.5).contains(&integrated), "{loudness}");
    assert_eq!(cli.json(&latest), loudness);
    let text = cli.ok(&latest);
    assert!(
        text.contains("integrated  ") && text.contains(" LUFS") && text.contains("dBTP"),
        "{text}"
    );
    // The same decode stored the silences at their defaults.
    let report = cli.json(&["silence", "--user", "alice", &audio, "--latest"]);
    assert_eq!(report["silences"].as_array().unwrap().len(), 1, "{report}");
}

#[test]
fn a_file_is_mastered_here_with_wait() {
    let cli = Cli::with_users(&["alice"]);
    let audio = cli.upload(
        "alice",
        "talk.wav",
        &fixtures::tone_and_silence(&[(4.0, true), (1.0, false)], 8000),
    );
    let refused = cli.fails(
        &[
            "master", "--user", "alice", &audio, "--wait", "--target", "-2",
        ],
        2,
    );
    assert!(refused.contains("target"), "{refused}");
    let made = cli.json(&[
        "master",
        "--user",
        "alice",
        &audio,
        "--wait",
        "--target",
        "-20",
        "--bitrate",
        "32",
    ]);
    assert_eq!(made["name"], "talk.mp3", "{made}");
    assert_eq!(made["mime"], "audio/mpeg", "{made}");
    assert_ne!(made["id"].to_string(), audio);
}

#[test]
fn silences_are_found_here_with_wait() {
    let cli = Cli::with_users(&["alice"]);
    // Tone 0-4 s, silence 4-7 s, tone 7-10 s.
    let audio = cli.upload(
        "alice",
        "talk.wav",
        &fixtures::tone_and_silence(&[(4.0, true), (3.0, false), (3.0, true)], 8000),
    );
    let report = cli.json(&["silence", "--user", "alice", &audio, "--wait"]);
    let silences = report["silences"].as_array().unwrap();
    assert_eq!(silences.len(), 1, "{report}");
    let start = silences[0]["start"].as_f64().unwrap();
    let end = silences[0]["end"].as_f64().unwrap();
    assert!(
        (start - 4.0).abs() < 0.01 && (end - 7.0).abs() < 0.01,
        "{report}"
    );
    assert_eq!(report["duration"], 10.0);
    assert!(report["midrolls"].is_array());
    // Options as the API takes them: a silence shorter than --duration is not one.
    let report = cli.json(&[
        "silence",
        "--user",
        "alice",
        &audio,
        "--wait",
        "--duration",
        "5",
        "--noise",
        "-50",
    ]);
    assert_eq!(report["silences"], serde_json::json!([]));
    let text = cli.ok(&["silence", "--user", "alice", &audio, "--wait"]);
    assert!(text.starts_with("START"), "{text}");
    assert!(text.contains("duration 10.000 s"), "{text}");
}

#[test]
fn without_wait_the_job_is_queued_for_a_server() {
    let cli = Cli::with_users(&["alice"]);
    let audio = cli.upload("alice", "talk.wav", &fixtures::wav(1.0, 8000));
    let notes = cli.upload("alice", "notes.txt", b"plain text\n");
    for kind in ["waveform", "silence"] {
        // The job as `GET /api/jobs/{id}` shows it.
        let job = cli.json(&[kind, "--user", "alice", &audio]);
        assert!(job["id"].as_str().unwrap().starts_with("job_"), "{job}");
        assert_eq!(job["kind"], kind);
        assert_eq!(job["media_id"], 1);
        assert_eq!(job["status"], "queued");
        assert!(job["result"].is_null());
        // Asked again while it waits: the same job.
        let again = cli.json(&[kind, "--user", "alice", &audio]);
        assert_eq!(again["id"], job["id"]);
        let text = cli.ok(&[kind, "--user", "alice", &audio]);
        assert!(text.contains("--wait"), "{text}");
        // --wait finishes the job that was waiting.
        cli.ok(&[kind, "--user", "alice", &audio, "--wait"]);
    }
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["waveform", "--user", "alice", "99", "--wait"],
            3,
            "no media 99 for alice",
        ),
        (
            &["silence", "--user", "alice", "99"],
            3,
            "no media 99 for alice",
        ),
        (
            &["waveform", "--user", "alice", &notes, "--wait"],
            2,
            "audio",
        ),
        (
            &["waveform", "--user", "alice", &audio, "--bits", "12"],
            2,
            "bits",
        ),
        (
            &[
                "waveform",
                "--user",
                "alice",
                &audio,
                "--samples-per-pixel",
                "10",
                "--pixels-per-second",
                "10",
            ],
            2,
            "cannot be used with",
        ),
        (
            &["silence", "--user", "alice", &audio, "--duration", "-1"],
            2,
            "duration",
        ),
        (&["silence", "--user", "alice", "x"], 2, "media id"),
    ];
    for (args, exit, message) in cases {
        let (_, got) = cli.json_error(args, *exit);
        assert!(got.contains(message), "{args:?}: {got}");
    }
}

#[test]
fn a_job_that_fails_says_why() {
    let cli = Cli::with_users(&["alice"]);
    // A WAV whose data chunk promises a minute inside a RIFF chunk of a few bytes: accepted as
    // audio on upload, refused at its header when decoded.
    let mut broken = fixtures::wav(0.01, 8000);
    broken[40..44].copy_from_slice(&(8000u32 * 2 * 60).to_le_bytes());
    broken.extend(std::iter::repeat_n(0x5a, 10));
    let audio = cli.upload("alice", "broken.wav", &broken);
    let (code, message) = cli.json_error(&["waveform", "--user", "alice", &audio, "--wait"], 1);
    assert_eq!(code, "job_failed");
    assert!(
        message.starts_with("the waveform job job_") && message.contains("corrupt audio data"),
        "{message}"
    );
    let stderr = cli.fails(&["silence", "--user", "alice", &audio, "--wait"], 1);
    assert!(
        stderr.starts_with("podhost: the silence job job_"),
        "{stderr}"
    );
}

/// A job is read back by its id (`job get`, as `GET /api/jobs/{id}`), and the latest results by
/// `--latest` without asking for another job (as `GET /api/media/{id}/waveform` and `/silence`).
#[test]
fn jobs_and_latest_results_are_read_back() {
    let cli = Cli::with_users(&["alice"]);
    let audio = cli.upload("alice", "talk.wav", &fixtures::wav(1.0, 8000));
    // Nothing made yet: not found (3), saying what.
    for kind in ["waveform", "silence"] {
        let (code, message) = cli.json_error(&[kind, "--user", "alice", &audio, "--latest"], 3);
        assert_eq!(code, "not_found", "{kind}: {message}");
    }
    let queued = cli.json(&["waveform", "--user", "alice", &audio]);
    let job = queued["id"].as_str().unwrap();
    let read = cli.json(&["job", "get", "--user", "alice", job]);
    assert_eq!(read["id"], job);
    assert_eq!(read["kind"], "waveform");
    assert_eq!(read["status"], "queued");
    assert_eq!(read["media_id"].to_string(), audio);
    let made = cli.json(&["waveform", "--user", "alice", &audio, "--wait"]);
    assert_eq!(
        cli.json(&["job", "get", "--user", "alice", job])["status"],
        "succeeded"
    );
    let latest = cli.json(&["waveform", "--user", "alice", &audio, "--latest"]);
    assert_eq!(latest, made);
    cli.json(&["silence", "--user", "alice", &audio, "--wait"]);
    let report = cli.json(&["silence", "--user", "alice", &audio, "--latest"]);
    assert!(report["silences"].is_array(), "{report}");
    // Unknown jobs: 3; another user's: 3 as well.
    cli.json_error(
        &["job", "get", "--user", "alice", "job_xxxxxxxxxxxxxxxxxxxx"],
        3,
    );
    cli.json_error(&["job", "get", "--user", "alice", "nonsense"], 3);
}

/// A podcast that masters, from the command line: an episode given a WAV waits ("mastering")
/// until `podhost job run` (or a server) masters it, then is published with the MP3.
#[test]
fn a_mastering_podcast_publishes_its_episodes_mastered() {
    let cli = Cli::with_users(&["alice"]);
    let feed = cli.json(&[
        "feed", "create", "--user", "alice", "--id", "radio", "--title", "Radio", "--master",
        "--target", "-18",
    ]);
    assert_eq!(feed["attributes"]["audio"]["master"], true, "{feed}");
    assert_eq!(feed["attributes"]["audio"]["target"], -18.0, "{feed}");
    let refused = cli.fails(
        &[
            "feed",
            "update",
            "--user",
            "alice",
            "--id",
            "radio",
            "--bitrate",
            "100",
        ],
        2,
    );
    assert!(refused.contains("audio.bitrate"), "{refused}");
    let audio = cli.upload(
        "alice",
        "take.wav",
        &fixtures::tone_and_silence(&[(2.0, true), (0.5, false)], 8000),
    );
    let episode = cli.json(&[
        "episode",
        "create",
        "--user",
        "alice",
        "--feed",
        "radio",
        "--title",
        "One",
        "--media",
        &audio,
        "--publish",
    ]);
    let attrs = &episode["attributes"];
    assert_eq!(attrs["is_published"], 0, "{episode}");
    let job = attrs["mastering"]["job_id"].as_str().unwrap().to_string();
    let list = cli.ok(&["episode", "list", "--user", "alice", "--feed", "radio"]);
    assert!(list.contains("pod-1  mastering"), "{list}");

    let done = cli.json(&["job", "run", "--user", "alice", &job]);
    assert_eq!(done["status"], "succeeded", "{done}");
    let episode = cli.json(&["episode", "get", "--user", "alice", "pod-1"]);
    let attrs = &episode["attributes"];
    assert_eq!(attrs["is_published"], 1, "{episode}");
    assert!(
        attrs["enclosure_url"]
            .as_str()
            .unwrap()
            .ends_with("/take.mp3"),
        "{episode}"
    );
}
