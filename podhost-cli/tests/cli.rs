//! The `podhost` command line as admins' scripts use it: users, tokens, podcasts, completions;
//! forms, output, exit codes and errors.

mod common;

use std::process::Stdio;

use common::Cli;

#[test]
fn users_tokens_and_feeds_as_scripts_use_them() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "alice"]);
    cli.ok(&["user", "create", "bob"]);
    let users = cli.json(&["user", "list"]);
    let names: Vec<_> = users
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "bob"]);

    let secret = cli.ok(&[
        "token",
        "create",
        "--user",
        "alice",
        "--scopes",
        "media,feeds,shows",
        "--label",
        "ci",
    ]);
    let secret = secret.strip_suffix('\n').unwrap();
    assert!(
        secret.starts_with("phk_") && !secret.contains(char::is_whitespace),
        "the token alone: {secret:?}"
    );

    let listed = cli.ok(&["--json", "token", "list", "--user", "alice"]);
    assert!(!listed.contains(secret), "never the secret");
    let tokens: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(tokens[0]["label"], "ci");
    // The API's JSON of a token (`GET /api/tokens`): its scopes a list.
    assert_eq!(
        tokens[0]["scopes"],
        serde_json::json!(["media", "feeds", "shows"])
    );
    assert!(tokens[0]["revoked"].is_null());
    let id = tokens[0]["id"].as_str().unwrap().to_string();
    let text = cli.ok(&["token", "list", "--user", "alice"]);
    assert!(text.starts_with("ID") && text.contains(&id), "{text}");

    cli.ok(&["token", "revoke", &id]);
    let tokens = cli.json(&["token", "list", "--user", "alice"]);
    assert!(tokens[0]["revoked"].is_string());

    // A podcast as the API shows it (`GET /api/feeds/{id}`, `GET /api/feeds`).
    let created = cli.json(&[
        "feed",
        "create",
        "--user",
        "alice",
        "--id",
        "my show",
        "--title",
        "My Show",
        "--description",
        "About",
    ]);
    assert_eq!(created["id"], "my show");
    assert_eq!(created["attributes"]["rss"]["title"], "My Show");
    assert_eq!(created["attributes"]["itunes"]["explicit"], false);
    let feeds = cli.json(&["feed", "list", "--user", "alice"]);
    assert_eq!(feeds[0]["type"], "feed");
    assert_eq!(feeds[0]["id"], "my show");
    assert_eq!(feeds[0]["attributes"]["rss"]["title"], "My Show");
    assert_eq!(
        feeds[0]["links"]["rss"],
        "http://127.0.0.1:8080/feeds/my%20show/rss"
    );
    assert_eq!(feeds[0]["shows_count"], 0);
    assert_eq!(
        cli.json(&["feed", "list", "--user", "bob"]),
        serde_json::json!([])
    );
    let text = cli.ok(&["feed", "list", "--user", "alice"]);
    assert!(text.starts_with("ID") && text.contains("My Show"), "{text}");
}

#[test]
fn a_podcast_is_read_changed_published_and_deleted() {
    let cli = Cli::with_users(&["alice"]);
    let png = podhost_testkit::fixtures::png(1400, 1400);
    let logo = cli.upload("alice", "cover.png", &png);

    let feed = cli.json(&["feed", "get", "--user", "alice", "--id", "daily"]);
    assert_eq!(feed["attributes"]["rss"]["title"], "Daily");
    assert_eq!(feed["links"]["web"], "http://127.0.0.1:8080/podcasts/daily");
    assert_eq!(feed["links"]["logo"], "");

    let updated = cli.json(&[
        "feed",
        "update",
        "--user",
        "alice",
        "--id",
        "daily",
        "--title",
        "Daily News",
        "--author",
        "Alice",
        "--category",
        "News",
        "--explicit",
        "--logo",
        &logo,
    ]);
    let attributes = &updated["attributes"];
    assert_eq!(attributes["rss"]["title"], "Daily News");
    assert_eq!(attributes["rss"]["description"], "", "untouched");
    assert_eq!(attributes["itunes"]["author"], "Alice");
    assert_eq!(attributes["itunes"]["category"], "News");
    assert_eq!(attributes["itunes"]["explicit"], true);
    assert!(
        updated["links"]["logo"]
            .as_str()
            .unwrap()
            .ends_with("/cover.png"),
        "{updated}"
    );
    let unmarked = cli.json(&[
        "feed",
        "update",
        "--user",
        "alice",
        "--id",
        "daily",
        "--explicit",
        "false",
        "--logo",
        "none",
    ]);
    assert_eq!(unmarked["attributes"]["itunes"]["explicit"], false);
    assert_eq!(unmarked["links"]["logo"], "");
    let text = cli.ok(&["feed", "get", "--user", "alice", "--id", "daily"]);
    assert!(text.contains("title        Daily News"), "{text}");

    // The RSS podhost serves: text is the document, JSON carries it with its validators.
    let rss = cli.ok(&["feed", "rss", "--user", "alice", "--id", "daily"]);
    assert!(rss.starts_with("<?xml"), "{rss}");
    assert!(rss.contains("<title>Daily News</title>"), "{rss}");
    let rss = cli.json(&["feed", "rss", "--user", "alice", "--id", "daily"]);
    assert_eq!(rss["id"], "daily");
    assert_eq!(rss["url"], "http://127.0.0.1:8080/feeds/daily/rss");
    assert!(rss["xml"].as_str().unwrap().contains("<rss"), "{rss}");
    assert!(rss["etag"].is_string() && rss["last_modified"].is_string());

    let deleted = cli.json(&["feed", "delete", "--user", "alice", "--id", "daily"]);
    assert_eq!(deleted, serde_json::json!({"id": "daily", "deleted": true}));
    for args in [
        &["feed", "get", "--user", "alice", "--id", "daily"][..],
        &["feed", "rss", "--user", "alice", "--id", "daily"],
        &["feed", "delete", "--user", "alice", "--id", "daily"],
    ] {
        let (code, message) = cli.json_error(args, 3);
        assert_eq!(code, "not_found");
        assert_eq!(
            message,
            "no feed daily for alice: list them with `podhost feed list --user alice`"
        );
    }
    // Its id stays taken: its public URL must not change hands.
    cli.fails(
        &[
            "feed", "create", "--user", "alice", "--id", "daily", "--title", "Again",
        ],
        4,
    );
}

#[test]
fn failures_say_why_and_exit_with_their_code() {
    let cli = Cli::with_users(&["alice", "bob"]);
    let cases: &[(&[&str], i32, &str, &str)] = &[
        (
            &["user", "create", "alice"],
            4,
            "conflict",
            "exists already",
        ),
        (
            &["user", "create", "Bad Name"],
            2,
            "invalid",
            "account name",
        ),
        (
            &["token", "list", "--user", "nobody"],
            3,
            "not_found",
            "user nobody not found: the users are alice, bob",
        ),
        (
            &["token", "create", "--user", "alice", "--scopes", "root"],
            2,
            "invalid",
            "unknown scope",
        ),
        (
            &["token", "revoke", "tok_aaaaaaaaaaaaaaaa"],
            3,
            "not_found",
            "not found",
        ),
        (
            &[
                "feed", "create", "--user", "bob", "--id", "daily", "--title", "X",
            ],
            4,
            "conflict",
            "is taken",
        ),
        (
            &[
                "feed", "create", "--user", "alice", "--id", "a/b", "--title", "X",
            ],
            2,
            "invalid",
            "feed id",
        ),
        (
            &[
                "feed", "update", "--user", "alice", "--id", "daily", "--logo", "x",
            ],
            2,
            "invalid",
            "--logo takes a media id",
        ),
        (
            &["feed", "get", "--user", "bob", "--id", "daily"],
            3,
            "not_found",
            "no feed daily for bob",
        ),
        (
            &["feed", "frobnicate"],
            2,
            "usage",
            "unrecognized subcommand",
        ),
        (&["feed", "list", "--bogus"], 2, "usage", "--bogus"),
    ];
    for (args, exit, code, message) in cases {
        // Text: one line on stderr, nothing on stdout.
        let stderr = cli.fails(args, *exit);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        // JSON: the same, as {"error": {"message", "code"}}.
        let (got_code, got_message) = cli.json_error(args, *exit);
        assert_eq!(got_code, *code, "{args:?}");
        assert!(got_message.contains(message), "{args:?}: {got_message}");
    }
}

#[test]
fn a_missing_or_unknown_user_is_answered_with_the_users() {
    let cli = Cli::with_users(&["alice", "bob"]);
    let commands: &[&[&str]] = &[
        &["token", "list"],
        &["feed", "list"],
        &["feed", "get", "--id", "daily"],
        &["media", "list"],
        &["media", "get", "1"],
        &["episode", "list", "--feed", "daily"],
        &["metadata", "get", "1"],
        &["waveform", "1"],
        &["silence", "1"],
        &["stats"],
        &["webhook", "list"],
        &["webhook", "process"],
    ];
    for args in commands {
        let stderr = cli.fails(args, 2);
        assert!(
            stderr.contains("--user NAME is required: the users are alice, bob"),
            "{args:?}: {stderr}"
        );
        let (code, _) = cli.json_error(args, 2);
        assert_eq!(code, "usage");
        let mut unknown = args.to_vec();
        unknown.extend(["--user", "carol"]);
        let (code, message) = cli.json_error(&unknown, 3);
        assert_eq!(code, "not_found");
        assert_eq!(message, "user carol not found: the users are alice, bob");
    }
    let empty = Cli::new();
    let stderr = empty.fails(&["feed", "list"], 2);
    assert!(
        stderr.contains("no users yet: create one with `podhost user create NAME`"),
        "{stderr}"
    );
}

#[test]
fn completions_are_printed_without_a_store() {
    let cli = Cli::new();
    let missing = cli.store.path().join("not-created");
    for shell in ["bash", "zsh", "fish"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_podhost"))
            .args(["--store", missing.to_str().unwrap(), "completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains("podhost"), "{shell}: {script}");
        assert!(script.contains("episode"), "{shell}: every subcommand");
    }
    let bash = cli.ok(&["completions", "bash"]);
    assert!(bash.contains("_podhost()"), "{bash}");
    assert!(!missing.exists(), "no store is created for completions");
    assert_eq!(
        cli.json(&["completions", "bash"]).as_str().unwrap().trim(),
        bash.trim()
    );
    cli.fails(&["completions", "tcsh"], 2);
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let cli = Cli::new();
    for i in 0..30 {
        cli.ok(&["user", "create", &format!("user{i}")]);
    }
    let mut child = cli
        .command(&["user", "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `podhost user passwd` and `user create --password-stdin`: the password signs in (the core's
/// check), is never printed, and `--remove` takes it away.
#[test]
fn passwords_for_the_key_management_site() {
    use std::io::Write;
    let cli = Cli::new();
    let set = |args: &[&str], input: &str| {
        let mut child = cli
            .command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        write!(child.stdin.take().unwrap(), "{input}").unwrap();
        child.wait_with_output().unwrap()
    };
    let out = set(
        &["--json", "user", "create", "alice", "--password-stdin"],
        "first password\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = set(
        &["--json", "user", "passwd", "alice", "--stdin"],
        "second password\r\n",
    );
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&printed).unwrap(),
        serde_json::json!({"name": "alice", "password": true})
    );
    assert!(!printed.contains("second password"));
    let signs_in = |password: &str| {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let opened = podhost_core::open_store(cli.store_path()).unwrap();
            let host = podhost_core::PodcastHost::new(
                podhost_core::HostConfig::new("http://127.0.0.1:8080").unwrap(),
                opened.store,
            );
            host.access()
                .sign_in("alice", password, "127.0.0.1")
                .await
                .is_ok()
        })
    };
    assert!(!signs_in("first password"));
    assert!(
        signs_in("second password"),
        "the line ending is not part of it"
    );
    // Too short: refused with the validation exit code, nothing changed.
    let out = set(&["user", "passwd", "alice", "--stdin"], "short\n");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("password"));
    assert!(signs_in("second password"));
    // An unknown account is refused before anything is read.
    cli.fails(&["user", "passwd", "nobody", "--stdin"], 3);
    cli.ok(&["user", "passwd", "alice", "--remove"]);
    assert!(!signs_in("second password"));
}

/// A login belongs to whoever made it first: the owner of `own` invites the login `futurecorp`
/// and joins as it with a password of their choosing; an operator's later `user create
/// futurecorp` is refused, saying who holds the login, and nothing is created; the inviter
/// signing in as `futurecorp` is the member they joined as, never an account's owner.
/// `--existing-person` makes the account theirs on purpose.
#[test]
fn a_login_made_by_an_invitation_is_not_taken_by_a_later_account() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "own"]);
    let url = cli.ok(&[
        "member",
        "invite",
        "futurecorp",
        "--role",
        "editor",
        "--user",
        "own",
    ]);
    let secret = url.trim().rsplit('/').next().unwrap().to_string();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let host = || {
        let opened = podhost_core::open_store(cli.store_path()).unwrap();
        podhost_core::PodcastHost::new(
            podhost_core::HostConfig::new("http://127.0.0.1:8080").unwrap(),
            opened.store,
        )
    };
    runtime.block_on(async {
        host()
            .access()
            .accept_invitation(&secret, "the inviter's password", None, "127.0.0.1")
            .await
            .unwrap();
    });

    let refused = cli.fails(&["user", "create", "futurecorp"], 4);
    assert!(
        refused.contains("futurecorp is a person's already")
            && refused.contains("own (editor)")
            && refused.contains("--existing-person")
            && refused.contains("nothing was created"),
        "{refused}"
    );
    let users = cli.json(&["user", "list"]);
    assert_eq!(users.as_array().unwrap().len(), 1, "{users}");
    // With a password too: refused, and the person's own password still theirs.
    let mut child = cli
        .command(&["user", "create", "futurecorp", "--password-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        writeln!(child.stdin.take().unwrap(), "the operator's password").unwrap();
    }
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(4));
    let signed_in = |password: &str| {
        runtime.block_on(async {
            host()
                .access()
                .sign_in("futurecorp", password, "127.0.0.1")
                .await
                .map(|s| (s.session.account.to_string(), s.session.member.is_some()))
        })
    };
    assert!(signed_in("the operator's password").is_err());
    let (account, _) = signed_in("the inviter's password").unwrap();
    assert_eq!(account, "own", "the member they joined as, nothing more");

    // On purpose: the account is the person's, who signs in to it with their own password.
    let made = cli.ok(&["user", "create", "futurecorp", "--existing-person"]);
    assert!(made.contains("they own it now"), "{made}");
    let (account, _) = signed_in("the inviter's password").unwrap();
    assert_eq!(account, "futurecorp");
}

/// `podhost sweep` removes a blob no record uses and a staged upload a crash cut off, and
/// nothing that is in use.
#[test]
fn sweep_removes_what_cut_off_uploads_left() {
    let cli = Cli::with_users(&["alice"]);
    let id = cli.upload(
        "alice",
        "kept.wav",
        &podhost_testkit::fixtures::wav(0.2, 8000),
    );
    let store = cli.store.path();
    let orphan = store.join("accounts/alice/blobs/0b8e7a4c-1c55-4c1f-9a61-2f1a5d6c7e80");
    std::fs::write(
        &orphan,
        b"bytes of an upload whose record was never written",
    )
    .unwrap();
    let staging = store.join(".podhost/staging");
    std::fs::create_dir_all(&staging).unwrap();
    let cut_off = staging.join("5d0c2a91-7f43-4f0e-8d1e-3c2b1a0f9e8d");
    std::fs::write(&cut_off, b"half an upload").unwrap();
    // Young files may be uploads in progress: the default grace keeps them.
    let kept = cli.json(&["sweep"]);
    assert_eq!(
        kept,
        serde_json::json!([{"user": "alice", "orphan_blobs": 0, "staging_files": 0}])
    );
    assert!(orphan.exists() && cut_off.exists());
    let swept = cli.json(&["sweep", "--older-than-hours", "0"]);
    assert_eq!(
        swept,
        serde_json::json!([{"user": "alice", "orphan_blobs": 1, "staging_files": 1}])
    );
    assert!(!orphan.exists() && !cut_off.exists());
    let media = cli.json(&["media", "get", "--user", "alice", &id]);
    assert_eq!(media["name"], "kept.wav");
    let out = cli.run(&[
        "media",
        "download",
        "--user",
        "alice",
        &id,
        "-o",
        "/dev/null",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Written to, not replaced: a rename into place used to turn /dev/null into a file (when
    // run as root, as CI is).
    use std::os::unix::fs::FileTypeExt;
    let null = std::fs::metadata("/dev/null").unwrap().file_type();
    assert!(null.is_char_device(), "/dev/null is still the device");
}

/// `podhost subscriber add|list|remove` on a podcast made private with `feed update --private`.
#[test]
fn subscribers_of_a_private_podcast() {
    let cli = Cli::with_users(&["alice"]);
    cli.ok(&[
        "feed", "create", "--user", "alice", "--id", "club", "--title", "Club",
    ]);
    let updated = cli.json(&[
        "feed",
        "update",
        "--user",
        "alice",
        "--id",
        "club",
        "--private",
    ]);
    assert_eq!(updated["attributes"]["private"], true);
    let jane = cli.json(&[
        "subscriber",
        "add",
        "--user",
        "alice",
        "--feed",
        "club",
        "--label",
        "Jane",
    ]);
    let url = jane["feed_url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:8080/private/club/sub_"),
        "{url}"
    );
    let text = cli.ok(&["subscriber", "list", "--user", "alice", "--feed", "club"]);
    assert!(text.starts_with("ID") && text.contains(url), "{text}");
    let id = jane["id"].as_str().unwrap();
    let removed = cli.json(&[
        "subscriber",
        "remove",
        "--user",
        "alice",
        "--feed",
        "club",
        id,
    ]);
    assert!(removed["revoked"].is_string());
    let listed = cli.json(&["subscriber", "list", "--user", "alice", "--feed", "club"]);
    assert!(listed[0]["revoked"].is_string());
    cli.fails(
        &["subscriber", "list", "--user", "alice", "--feed", "nope"],
        3,
    );
    cli.fails(
        &[
            "subscriber",
            "remove",
            "--user",
            "alice",
            "--feed",
            "club",
            "sub_aaaaaaaaaaaaaaaa",
        ],
        3,
    );
}

/// `podhost demo`: a complete podcast at once; its feed has every Podcasting 2.0 tag podhost
/// models (the parsers read that feed in podhost-core/tests/feed_parsers.rs).
#[test]
fn demo_makes_a_complete_podcast() {
    let cli = Cli::with_users(&["alice"]);
    let demo = cli.json(&["demo", "--user", "alice", "--episodes", "2"]);
    assert_eq!(demo["feed_id"], "demo");
    assert_eq!(demo["episodes"].as_array().unwrap().len(), 2);
    assert_eq!(demo["rss"], "http://127.0.0.1:8080/feeds/demo/rss");
    // With Podping configured, as a deployment that announces changes is.
    let xml = cli.ok(&[
        "--podping-url",
        "https://podping.example/",
        "feed",
        "rss",
        "--user",
        "alice",
        "--id",
        "demo",
    ]);
    let elements: std::collections::BTreeSet<String> = xml
        .match_indices("<podcast:")
        .map(|(at, _)| {
            xml[at + 9..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect();
    assert!(elements.len() >= 36, "{} {elements:?}", elements.len());
    let episodes = cli.json(&["episode", "list", "--user", "alice", "--feed", "demo"]);
    assert_eq!(episodes.as_array().unwrap().len(), 2);
    // The id is taken now.
    cli.fails(&["demo", "--user", "alice"], 4);
}

/// `podhost campaign`: created with its positions and podcasts, listed, paused and resumed,
/// refused with the field named, deleted.
#[test]
fn campaigns_are_made_paused_and_deleted() {
    // alice has the podcast `daily`.
    let cli = Cli::with_users(&["alice"]);
    let ad = cli.upload(
        "alice",
        "ad.wav",
        &podhost_testkit::fixtures::wav(1.0, 8000),
    );
    let made = cli.json(&[
        "campaign",
        "create",
        "--user",
        "alice",
        "--name",
        "Spring",
        "--media",
        &ad,
        "--positions",
        "preroll,postroll",
        "--feeds",
        "daily",
        "--goal",
        "500",
    ]);
    let id = made["id"].as_str().unwrap().to_string();
    assert_eq!(
        made["positions"],
        serde_json::json!(["preroll", "postroll"])
    );
    assert_eq!(made["feeds"], serde_json::json!(["daily"]));
    assert_eq!(
        (made["impressions_goal"].as_u64(), made["status"].as_str()),
        (Some(500), Some("active"))
    );
    let refused = cli.fails(
        &[
            "campaign",
            "create",
            "--user",
            "alice",
            "--name",
            "Bad",
            "--media",
            &ad,
            "--positions",
            "preroll",
            "--feeds",
            "weekly",
        ],
        2,
    );
    assert!(refused.contains("feeds"), "{refused}");
    let paused = cli.json(&["campaign", "update", "--user", "alice", &id, "--pause"]);
    assert_eq!(paused["status"], "paused");
    let list = cli.ok(&["campaign", "list", "--user", "alice"]);
    assert!(list.contains(&format!("{id}  paused")), "{list}");
    let resumed = cli.json(&[
        "campaign", "update", "--user", "alice", &id, "--resume", "--goal", "none",
    ]);
    assert_eq!(resumed["status"], "active");
    assert_eq!(resumed["impressions_goal"], serde_json::Value::Null);
    let shown = cli.ok(&["campaign", "show", "--user", "alice", &id]);
    assert!(
        shown.contains("Spring") && shown.contains("preroll,postroll"),
        "{shown}"
    );
    // Nothing served it yet: no impression, a day of zero.
    let stats = cli.json(&["campaign", "stats", "--user", "alice", &id]);
    assert_eq!(stats["impressions"], 0, "{stats}");
    assert_eq!(stats["days"][0]["impressions"], 0, "{stats}");
    let text = cli.ok(&["campaign", "stats", "--user", "alice", &id]);
    assert!(text.contains(&format!("impressions of {id}: 0")), "{text}");
    cli.ok(&["campaign", "delete", "--user", "alice", &id]);
    cli.fails(&["campaign", "stats", "--user", "alice", &id], 3);
    cli.fails(&["campaign", "show", "--user", "alice", &id], 3);
}

/// Links start with `--public-url`, else with the public URL the last server on the store
/// recorded; only without either is the base guessed, and a note on stderr says so and how to
/// set it.
#[test]
fn links_start_with_the_public_url_of_the_flag_or_the_store_and_a_guess_is_said() {
    let cli = Cli::with_users(&["alice"]);
    let media = cli.upload(
        "alice",
        "talk.wav",
        &podhost_testkit::fixtures::wav(1.0, 8000),
    );
    let media = media.trim_matches('"');
    let get = |global: &[&str]| {
        let mut args = global.to_vec();
        args.extend(["media", "get", media, "--user", "alice"]);
        let out = cli.run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let url = stdout
            .lines()
            .find_map(|line| line.strip_prefix("url"))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no url in {stdout}"))
            .to_string();
        (url, String::from_utf8(out.stderr).unwrap())
    };

    // Nothing says it: a guess, said once, with how to set it.
    let (url, stderr) = get(&[]);
    assert!(url.starts_with("http://127.0.0.1:8080/media/"), "{url}");
    assert_eq!(stderr.matches("a guess").count(), 1, "{stderr}");
    assert!(
        stderr.contains("links start with http://127.0.0.1:8080")
            && stderr.contains("--public-url")
            && stderr.contains("PODHOST_PUBLIC_URL"),
        "{stderr}"
    );
    // JSON on stdout stays one value; the note is on stderr.
    let value = cli.json(&["media", "get", media, "--user", "alice"]);
    assert!(
        value.to_string().contains("http://127.0.0.1:8080/media/"),
        "{value}"
    );

    // The flag: no note.
    let (url, stderr) = get(&["--public-url", "https://pod.example"]);
    assert!(url.starts_with("https://pod.example/media/"), "{url}");
    assert!(!stderr.contains("guess"), "{stderr}");

    // A server ran on the store: its public URL, recorded, is the links' base after it stopped.
    let (mut server, address) = common::serve_at(cli.store_path(), &[], &[]);
    // Answering, it has recorded itself.
    assert!(common::http_get(&address, "/healthz").starts_with("HTTP/1.1 200"));
    server.kill().unwrap();
    server.wait().unwrap();
    let (url, stderr) = get(&[]);
    assert!(
        url.starts_with(&format!("http://{address}/media/")),
        "{url} ({address})"
    );
    assert!(!stderr.contains("guess"), "{stderr}");
    // The flag still wins.
    let (url, _) = get(&["--public-url", "https://pod.example"]);
    assert!(url.starts_with("https://pod.example/media/"), "{url}");
}
