//! `podhost media ...` and `podhost metadata ...`: files uploaded, listed, renamed, copied,
//! downloaded and deleted; tags, chapters, covers and ad breaks.

mod common;

use common::Cli;
use podhost_testkit::fixtures;
use serde_json::json;

#[test]
fn media_files_from_upload_to_delete() {
    let cli = Cli::with_users(&["alice", "bob"]);
    let wav = fixtures::wav(1.0, 8000);
    let png = fixtures::png(1400, 1400);
    let wav_path = cli.file("talk.wav", &wav);
    let png_path = cli.file("cover.png", &png);

    // One upload of two files: an array of media records as `GET /api/media/{id}` shows them.
    let uploaded = cli.json(&[
        "media",
        "upload",
        "--user",
        "alice",
        &wav_path,
        &png_path,
        "--category",
        "show",
    ]);
    let uploaded = uploaded.as_array().unwrap();
    assert_eq!(uploaded.len(), 2);
    let (audio, image) = (&uploaded[0], &uploaded[1]);
    assert_eq!(audio["id"], 1);
    assert_eq!(audio["name"], "talk.wav");
    assert_eq!(audio["byte"], wav.len());
    assert_eq!(audio["cat"], "show");
    assert_eq!(audio["mimetype"], "audio/wav");
    assert_eq!(audio["type"], "audio");
    assert_eq!(audio["duration"], "00:00:01");
    let url = audio["url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:8080/media/alice/") && url.ends_with("/talk.wav"),
        "{url}"
    );
    assert_eq!(image["type"], "image");
    assert_eq!(image["mime"], "image/png");
    // Text: a table; a clash of names gets a number.
    let text = cli.ok(&["media", "upload", "--user", "alice", &wav_path]);
    assert!(
        text.starts_with("ID") && text.contains("talk (2).wav"),
        "{text}"
    );

    // The list: items as `GET /api/media` shows them, every page, filtered and sorted.
    let list = cli.json(&["media", "list", "--user", "alice"]);
    let names: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cover.png", "talk (2).wav", "talk.wav"]);
    assert_eq!(
        list[0]["id"], "2",
        "the list item's id is a string, as in the API"
    );
    let cases: &[(&[&str], &[&str])] = &[
        (&["--desc"], &["talk.wav", "talk (2).wav", "cover.png"]),
        (&["--filter", "TALK"], &["talk (2).wav", "talk.wav"]),
        (
            &["--sort", "size", "--desc"],
            &["cover.png", "talk (2).wav", "talk.wav"],
        ),
        (
            &["--sort", "created"],
            &["talk.wav", "cover.png", "talk (2).wav"],
        ),
        (&["--filter", "nothing"], &[]),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["media", "list", "--user", "alice"];
        args.extend_from_slice(flags);
        let list = cli.json(&args);
        let names: Vec<_> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, *expected, "{flags:?}");
    }
    assert_eq!(cli.json(&["media", "list", "--user", "bob"]), json!([]));

    let got = cli.json(&["media", "get", "--user", "alice", "1"]);
    assert_eq!(got, *audio);
    let text = cli.ok(&["media", "get", "--user", "alice", "1"]);
    assert!(text.contains("name      talk.wav"), "{text}");

    // A rename keeps the download URL; an empty category is the default one.
    let renamed = cli.json(&[
        "media",
        "update",
        "--user",
        "alice",
        "1",
        "--name",
        "episode 1.wav",
        "--category",
        "",
    ]);
    assert_eq!(renamed["name"], "episode 1.wav");
    assert_eq!(renamed["cat"], serde_json::Value::Null);
    assert_eq!(renamed["url"], url.as_str());
    assert_eq!(renamed["private"], false);
    // Who its public URL serves: closed, then open again.
    let closed = cli.json(&["media", "update", "--user", "alice", "1", "--private"]);
    assert_eq!(closed["private"], true);
    let text = cli.ok(&["media", "update", "--user", "alice", "1", "--public"]);
    assert!(text.contains("private   false"), "{text}");
    let both = cli.run(&[
        "media",
        "update",
        "--user",
        "alice",
        "1",
        "--public",
        "--private",
    ]);
    assert_eq!(
        both.status.code(),
        Some(2),
        "flags that contradict each other"
    );

    let copy = cli.json(&[
        "media",
        "copy",
        "--user",
        "alice",
        "1",
        "--label",
        "backup.wav",
        "--category",
        "archive",
    ]);
    assert_eq!(copy["id"], 4);
    assert_eq!(copy["name"], "backup.wav");
    assert_eq!(copy["cat"], "archive");
    assert_eq!(copy["byte"], wav.len());

    // Download: the same bytes, to stdout or to a file.
    let out = cli.run(&["media", "download", "--user", "alice", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout == wav, "stdout holds the file's bytes");
    let target = cli.files.path().join("copy.png");
    let target = target.to_str().unwrap();
    let written = cli.json(&["media", "download", "--user", "alice", "2", "-o", target]);
    assert_eq!(
        written,
        json!({"id": 2, "name": "cover.png", "file": target, "bytes": png.len()})
    );
    assert!(
        std::fs::read(target).unwrap() == png,
        "the file holds the bytes"
    );
    let (code, message) = cli.json_error(&["media", "download", "--user", "alice", "2"], 2);
    assert_eq!(code, "invalid");
    assert!(message.contains("-o FILE"), "{message}");

    // In use by an episode: a conflict naming it; gone: not found.
    cli.ok(&[
        "episode", "create", "--user", "alice", "--feed", "daily", "--title", "One", "--media", "1",
    ]);
    let (code, message) = cli.json_error(&["media", "delete", "--user", "alice", "1"], 4);
    assert_eq!(code, "conflict");
    assert!(message.contains("pod-1"), "{message}");
    let deleted = cli.json(&["media", "delete", "--user", "alice", "4"]);
    assert_eq!(deleted, json!({"id": 4, "deleted": true}));

    let missing = "no media 4 for alice: list them with `podhost media list --user alice`";
    for args in [
        &["media", "get", "--user", "alice", "4"][..],
        &["media", "delete", "--user", "alice", "4"],
        &["media", "download", "--user", "alice", "4", "-o", target],
        &["media", "update", "--user", "alice", "4", "--name", "x"],
        &[
            "media",
            "copy",
            "--user",
            "alice",
            "4",
            "--label",
            "x",
            "--category",
            "y",
        ],
    ] {
        assert_eq!(
            cli.json_error(args, 3),
            ("not_found".into(), missing.into())
        );
    }
    // Another account's files do not exist for bob.
    cli.json_error(&["media", "get", "--user", "bob", "1"], 3);
    let bad: &[&[&str]] = &[
        &["media", "get", "--user", "alice", "abc"],
        &["media", "upload", "--user", "alice", "/no/such/file.wav"],
        &["media", "update", "--user", "alice", "1", "--name", " "],
        &["media", "list", "--user", "alice", "--sort", "colour"],
    ];
    for args in bad {
        cli.json_error(args, 2);
    }
    // A missing file uploads nothing, not even the files before it.
    cli.fails(
        &[
            "media",
            "upload",
            "--user",
            "alice",
            &wav_path,
            "/no/such/file.wav",
        ],
        2,
    );
    assert_eq!(
        cli.json(&["media", "list", "--user", "alice"])
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn metadata_is_read_and_written() {
    let cli = Cli::with_users(&["alice"]);
    let audio = cli.upload("alice", "talk.wav", &fixtures::wav(3.0, 8000));
    let cover = cli.upload("alice", "cover.png", &fixtures::png(1400, 1400));
    let notes = cli.upload("alice", "notes.txt", b"plain text notes\n");

    let metadata = cli.json(&["metadata", "get", "--user", "alice", &audio]);
    assert_eq!(metadata["id"], 1);
    assert_eq!(metadata["type"], "audio");
    assert_eq!(metadata["duration"], 3.0);
    assert_eq!(metadata["sample_rate"], 8000);
    assert_eq!(metadata["tags"]["title"], serde_json::Value::Null);
    assert_eq!(metadata["tags"]["chapters"], json!([]));
    assert!(metadata["job"].is_null());
    let image = cli.json(&["metadata", "get", "--user", "alice", &cover]);
    assert_eq!(image["artwork"]["meets_apple_rule"], true);

    // Ad breaks are stored at once; tags go into a new file by a job, run here with --wait.
    let chapters = cli.file(
        "chapters.json",
        br#"[{"start": 0, "title": "Intro"}, {"start": 1.5, "end": 3, "title": "Talk", "url": "https://example.com/talk"}]"#,
    );
    let written = cli.json(&[
        "metadata",
        "set",
        "--user",
        "alice",
        &audio,
        "--title",
        "Episode 1",
        "--artist",
        "Alice",
        "--year",
        "2024",
        "--chapters",
        &chapters,
        "--cover",
        &cover,
        "--preroll",
        "--midrolls",
        "1.2, 2",
        "--wait",
    ]);
    assert_eq!(written["job"]["kind"], "write_tags");
    assert_eq!(written["job"]["status"], "succeeded");
    let tags = &written["tags"];
    assert_eq!(tags["title"], "Episode 1");
    assert_eq!(tags["artist"], "Alice");
    assert_eq!(tags["year"], 2024);
    assert_eq!(tags["chapters"].as_array().unwrap().len(), 2);
    assert_eq!(tags["chapters"][1]["title"], "Talk");
    assert_eq!(tags["chapters"][1]["start"], 1.5);
    assert_eq!(tags["cover"]["mime"], "image/png");
    assert_eq!(
        written["adbreak"],
        json!({"preroll": true, "postroll": false, "midrolls": [1.2, 2.0]})
    );
    let text = cli.ok(&["metadata", "get", "--user", "alice", &audio]);
    assert!(text.contains("title     Episode 1"), "{text}");
    assert!(text.contains("chapter   1.5s Talk"), "{text}");

    // Without --wait the job is queued for a server; an empty value removes a tag.
    let queued = cli.json(&["metadata", "set", "--user", "alice", &audio, "--title", ""]);
    assert_eq!(queued["job"]["status"], "queued");
    assert_eq!(queued["tags"]["title"], "Episode 1", "not written yet");
    let cleared = cli.json(&["metadata", "set", "--user", "alice", &audio, "--no-adbreak"]);
    assert!(cleared["adbreak"].is_null());

    let bad_chapters = cli.file("bad.json", b"{ not json");
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["metadata", "set", "--user", "alice", &audio],
            2,
            "nothing to change",
        ),
        (
            &[
                "metadata",
                "set",
                "--user",
                "alice",
                &audio,
                "--chapters",
                &bad_chapters,
            ],
            2,
            "is not JSON",
        ),
        (
            &[
                "metadata",
                "set",
                "--user",
                "alice",
                &audio,
                "--midrolls",
                "soon",
            ],
            2,
            "--midrolls takes seconds",
        ),
        (
            &[
                "metadata", "set", "--user", "alice", &audio, "--year", "MMXXIV",
            ],
            2,
            "year",
        ),
        (
            &[
                "metadata", "set", "--user", "alice", &audio, "--cover", &notes,
            ],
            2,
            "image",
        ),
        (
            &["metadata", "set", "--user", "alice", &notes, "--title", "x"],
            2,
            "tags cannot be written",
        ),
        (
            &[
                "metadata",
                "set",
                "--user",
                "alice",
                &audio,
                "--no-adbreak",
                "--preroll",
            ],
            2,
            "cannot be used with",
        ),
        (
            &["metadata", "get", "--user", "alice", "99"],
            3,
            "no media 99 for alice",
        ),
    ];
    for (args, exit, message) in cases {
        let (_, got) = cli.json_error(args, *exit);
        assert!(got.contains(message), "{args:?}: {got}");
    }
}
