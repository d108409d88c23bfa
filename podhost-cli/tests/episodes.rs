//! `podhost episode ...`: episodes created (with an existing file or one uploaded with them),
//! listed, changed, published, copied and deleted.

mod common;

use common::Cli;
use podhost_testkit::fixtures;
use serde_json::{Value, json};

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect()
}

#[test]
fn episodes_from_draft_to_published_copied_and_deleted() {
    let cli = Cli::with_users(&["alice", "bob"]);
    cli.ok(&[
        "feed", "create", "--user", "alice", "--id", "weekly", "--title", "Weekly",
    ]);
    let audio = cli.upload("alice", "one.wav", &fixtures::wav(2.0, 8000));
    let cover = cli.upload("alice", "cover.png", &fixtures::png(1400, 1400));

    // An existing file, published now: the episode as `GET /api/feed/{feed}/show/{id}` shows it.
    let one = cli.json(&[
        "episode",
        "create",
        "--user",
        "alice",
        "--feed",
        "daily",
        "--title",
        "One",
        "--media",
        &audio,
        "--cover",
        &cover,
        "--publish",
        "--season",
        "1",
        "--episode",
        "1",
        "--description",
        "<p>Notes</p>",
    ]);
    assert_eq!(one["type"], "show");
    assert_eq!(one["id"], "pod-1");
    assert_eq!(one["feed_id"], "daily");
    let a = &one["attributes"];
    assert_eq!(a["title"], "One");
    assert_eq!(a["description"], "<p>Notes</p>");
    assert_eq!(
        (a["is_public"].clone(), a["is_published"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(a["show_media"], 1);
    assert_eq!(a["itunes"]["season"], "1");
    assert_eq!(a["itunes"]["episode"], "1");
    assert_eq!(a["itunes"]["duration"], "00:00:02");
    assert!(
        a["itunes"]["logo"]
            .as_str()
            .unwrap()
            .ends_with("/cover.png")
    );
    assert!(a["enclosure_url"].as_str().unwrap().ends_with("/one.wav"));

    // A local file uploaded with the episode, in one commit; scheduled for later.
    let two_wav = cli.file("two.wav", &fixtures::wav(1.0, 8000));
    let two = cli.json(&[
        "episode",
        "create",
        "--user",
        "alice",
        "--feed",
        "daily",
        "--title",
        "Two",
        "--file",
        &two_wav,
        "--at",
        "2099-01-01T09:00:00Z",
        "--type",
        "bonus",
    ]);
    let a = &two["attributes"];
    assert_eq!(
        (a["is_public"].clone(), a["is_published"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(a["publish_date"], "4070941200");
    assert_eq!(a["itunes"]["episodeType"], "bonus");
    let media = cli.json(&["media", "list", "--user", "alice", "--filter", "two"]);
    assert_eq!(
        media[0]["name"], "two.wav",
        "the file is a media file of its own"
    );
    assert_eq!(
        a["show_media"].to_string(),
        media[0]["id"].as_str().unwrap()
    );

    // A draft.
    let three = cli.json(&[
        "episode", "create", "--user", "alice", "--feed", "daily", "--title", "Three",
    ]);
    assert_eq!(three["attributes"]["is_public"], 0);

    // The list: items as `GET /api/feed/{feed}/shows` shows them, newest first.
    let list = cli.json(&["episode", "list", "--user", "alice", "--feed", "daily"]);
    assert_eq!(ids(&list), ["pod-2", "pod-3", "pod-1"]);
    assert_eq!(list[0]["type"], "show");
    assert_eq!(
        list[0]["links"]["web"],
        "http://127.0.0.1:8080/podcasts/daily/pod-2"
    );
    let list = cli.json(&[
        "episode", "list", "--user", "alice", "--feed", "daily", "--filter", "notes",
    ]);
    assert_eq!(ids(&list), ["pod-1"]);
    let text = cli.ok(&["episode", "list", "--user", "alice", "--feed", "daily"]);
    assert!(text.starts_with("ID"), "{text}");
    assert!(text.contains("pod-2  scheduled"), "{text}");
    assert!(text.contains("pod-3  draft"), "{text}");
    assert!(text.contains("pod-1  published"), "{text}");

    // --feed may be left out where the episode exists: its id is unique in the account.
    for args in [
        &["episode", "get", "--user", "alice", "pod-1"][..],
        &[
            "episode", "get", "--user", "alice", "--feed", "daily", "pod-1",
        ],
    ] {
        assert_eq!(cli.json(args), one, "{args:?}");
    }

    let updated = cli.json(&[
        "episode",
        "update",
        "--user",
        "alice",
        "pod-3",
        "--title",
        "Three!",
        "--media",
        &audio,
        "--episode",
        "3",
    ]);
    assert_eq!(updated["attributes"]["title"], "Three!");
    assert_eq!(updated["attributes"]["show_media"], 1);
    assert_eq!(updated["attributes"]["itunes"]["episode"], "3");
    assert_eq!(updated["attributes"]["version"], 2);
    let cleared = cli.json(&[
        "episode", "update", "--user", "alice", "pod-3", "--media", "none",
    ]);
    assert!(cleared["attributes"]["show_media"].is_null());

    // Publish: a draft goes out now; --at schedules; unpublish takes it back to draft.
    let published = cli.json(&["episode", "publish", "--user", "alice", "pod-3"]);
    assert_eq!(published["attributes"]["is_published"], 1);
    let scheduled = cli.json(&[
        "episode",
        "publish",
        "--user",
        "alice",
        "pod-3",
        "--at",
        "2099-06-01T00:00:00Z",
    ]);
    assert_eq!(scheduled["attributes"]["is_published"], 0);
    assert_eq!(scheduled["attributes"]["is_public"], 1);
    let draft = cli.json(&["episode", "unpublish", "--user", "alice", "pod-3"]);
    assert_eq!(draft["attributes"]["is_public"], 0);
    let text = cli.ok(&["episode", "publish", "--user", "alice", "pod-1"]);
    assert!(text.contains("status     published"), "{text}");

    // Copy: a draft, in the same podcast or another.
    let copy = cli.json(&[
        "episode", "copy", "--user", "alice", "pod-1", "--to", "weekly",
    ]);
    assert_eq!(copy["id"], "pod-4");
    assert_eq!(copy["feed_id"], "weekly");
    assert_eq!(copy["attributes"]["is_public"], 0);
    assert_eq!(copy["attributes"]["show_media"], 1);
    let copy = cli.json(&["episode", "copy", "--user", "alice", "pod-1"]);
    assert_eq!(copy["feed_id"], "daily");

    let deleted = cli.json(&["episode", "delete", "--user", "alice", "pod-4"]);
    assert_eq!(
        deleted,
        json!({"id": "pod-4", "feed_id": "weekly", "deleted": true})
    );

    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["episode", "get", "--user", "alice", "pod-4"],
            3,
            "no episode pod-4 for alice: list a podcast's with `podhost episode list --user alice --feed FEED`",
        ),
        (
            &[
                "episode", "delete", "--user", "alice", "--feed", "daily", "pod-4",
            ],
            3,
            "no episode pod-4 for alice: list them with `podhost episode list --user alice --feed daily`",
        ),
        (
            &["episode", "list", "--user", "alice", "--feed", "nope"],
            3,
            "no feed nope for alice",
        ),
        (
            &[
                "episode", "create", "--user", "bob", "--feed", "daily", "--title", "Mine",
            ],
            3,
            "no feed daily for bob",
        ),
        (
            &["episode", "get", "--user", "bob", "pod-1"],
            3,
            "no episode pod-1 for bob",
        ),
        (
            &["episode", "get", "--user", "alice", "episode-1"],
            2,
            "pod-<digits>",
        ),
        (
            &[
                "episode", "create", "--user", "alice", "--feed", "daily", "--title", "X", "--at",
                "tomorrow",
            ],
            2,
            "--at takes a time as RFC 3339",
        ),
        (
            &[
                "episode", "create", "--user", "alice", "--feed", "daily", "--title", "X",
                "--media", "1", "--file", &two_wav,
            ],
            2,
            "cannot be used with",
        ),
        (
            &[
                "episode",
                "create",
                "--user",
                "alice",
                "--feed",
                "daily",
                "--title",
                "X",
                "--file",
                "/no/such.wav",
            ],
            2,
            "cannot read /no/such.wav",
        ),
        (
            &[
                "episode", "create", "--user", "alice", "--feed", "daily", "--title", "X",
                "--media", &cover,
            ],
            2,
            "show_media",
        ),
        (
            &[
                "episode", "create", "--user", "alice", "--feed", "daily", "--title", "X",
                "--type", "teaser",
            ],
            2,
            "teaser",
        ),
        (
            &[
                "episode",
                "update",
                "--user",
                "alice",
                "pod-1",
                "--title",
                &"x".repeat(300),
            ],
            2,
            "title",
        ),
    ];
    for (args, exit, message) in cases {
        let (_, got) = cli.json_error(args, *exit);
        assert!(got.contains(message), "{args:?}: {got}");
    }
    // A refused upload leaves no media file behind.
    assert_eq!(
        cli.json(&["media", "list", "--user", "alice"])
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

/// `--video-media` gives an episode a video beside its audio (the API's `video_media`), `none`
/// takes it away, and a file that is no video is refused with the field named.
#[test]
fn an_episodes_video_is_set_and_removed() {
    let cli = Cli::with_users(&["alice"]);
    cli.ok(&[
        "feed", "create", "--user", "alice", "--id", "weekly", "--title", "Weekly",
    ]);
    let clip = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../podhost-core/tests/fixtures/h264_aac.mp4"
    ))
    .unwrap();
    let video = cli.upload("alice", "clip.mp4", &clip);
    let audio = cli.upload("alice", "one.wav", &fixtures::wav(2.0, 8000));
    let one = cli.json(&[
        "episode",
        "create",
        "--user",
        "alice",
        "--feed",
        "weekly",
        "--title",
        "One",
        "--media",
        &audio,
        "--video-media",
        &video,
    ]);
    assert_eq!(one["attributes"]["video_media"].to_string(), video);
    assert_eq!(one["attributes"]["show_media"].to_string(), audio);
    let refused = cli.fails(
        &[
            "episode",
            "update",
            "--user",
            "alice",
            "pod-1",
            "--video-media",
            &audio,
        ],
        2,
    );
    assert!(refused.contains("video_media"), "{refused}");
    let cleared = cli.json(&[
        "episode",
        "update",
        "--user",
        "alice",
        "pod-1",
        "--video-media",
        "none",
    ]);
    assert!(cleared["attributes"]["video_media"].is_null(), "{cleared}");
}

#[test]
fn publishing_an_episode_without_audio_is_done_and_warned_on_stderr() {
    let cli = Cli::with_users(&["alice"]);
    let made = cli.run(&[
        "feed", "create", "--user", "alice", "--id", "talk", "--title", "Talk",
    ]);
    assert!(made.status.success());
    let stderr = String::from_utf8_lossy(&made.stderr);
    assert!(
        stderr.contains("warning: logo: the podcast has no cover"),
        "{stderr}"
    );
    let published = cli.run(&[
        "episode",
        "create",
        "--user",
        "alice",
        "--feed",
        "talk",
        "--title",
        "Silent",
        "--publish",
    ]);
    assert!(published.status.success());
    let stdout = String::from_utf8_lossy(&published.stdout);
    assert!(stdout.contains("published"), "{stdout}");
    let stderr = String::from_utf8_lossy(&published.stderr);
    assert!(
        stderr.contains("warning: show_media: the episode is public but has no audio"),
        "{stderr}"
    );
    // A draft says nothing.
    let draft = cli.run(&[
        "episode", "create", "--user", "alice", "--feed", "talk", "--title", "Later",
    ]);
    assert!(draft.status.success());
    assert!(
        !String::from_utf8_lossy(&draft.stderr).contains("warning:"),
        "{}",
        String::from_utf8_lossy(&draft.stderr)
    );
}
