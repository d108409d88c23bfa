//! Moving out and in again: `podhost export` of one podcast, then `podhost import` of its
//! feed.xml on a fresh store, restores it: the same guids, titles, dates, states (published,
//! draft, scheduled), files (byte for byte) and chapters; running the import again changes
//! nothing.

use std::{collections::BTreeMap, process::Command};

use futures::StreamExt;
use podhost_core::{
    EpisodeFiles, FeedId, HostConfig, PodcastHost, Principal, UploadTarget,
    model::{EpisodeListQuery, EpisodePatch, FeedPatch, NewEpisode, NewFeed, PageRequest},
};
use sha2::{Digest, Sha256};

fn podhost(store: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_podhost"))
        .args(["--store", store.to_str().unwrap(), "--json"])
        .args(args)
        .env_remove("PODHOST_STORE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

async fn host_of(store: &std::path::Path) -> (PodcastHost, Principal) {
    let opened = podhost_core::open_store(store.to_str().unwrap()).unwrap();
    let mut config = HostConfig::new("http://127.0.0.1:8080").unwrap();
    config.scratch_dir = opened.scratch_dir.clone();
    let host = PodcastHost::new(config, opened.store);
    let owner = host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    (host, owner)
}

/// What must survive the move, episode by episode (by guid).
#[derive(Debug, PartialEq)]
struct Kept {
    title: String,
    publish_at: jiff::Timestamp,
    is_public: bool,
    audio_sha256: Option<String>,
    cover_sha256: Option<String>,
    chapters: Vec<(u64, String)>,
    season: Option<u32>,
}

async fn sha256(host: &PodcastHost, who: &Principal, id: podhost_core::MediaId) -> String {
    let (_, mut bytes) = host.podcasts().download_media(who, id).await.unwrap();
    let mut digest = Sha256::new();
    while let Some(chunk) = bytes.next().await {
        digest.update(chunk.unwrap());
    }
    hex::encode(digest.finalize())
}

async fn kept(store: &std::path::Path) -> BTreeMap<String, Kept> {
    let (host, who) = host_of(store).await;
    let feed = FeedId::new("show").unwrap();
    let query = EpisodeListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    let mut out = BTreeMap::new();
    for view in host
        .podcasts()
        .list_episodes(&who, &feed, &query)
        .await
        .unwrap()
        .items
    {
        let e = &view.episode;
        let audio = match &view.media {
            Some(m) => Some(sha256(&host, &who, m.id).await),
            None => None,
        };
        let cover = match &view.logo {
            Some(m) => Some(sha256(&host, &who, m.id).await),
            None => None,
        };
        let chapters = view
            .media
            .as_ref()
            .map(|m| {
                m.chapters
                    .iter()
                    .map(|c| (c.start_ms, c.title.clone()))
                    .collect()
            })
            .unwrap_or_default();
        out.insert(
            e.guid.clone(),
            Kept {
                title: e.title.clone(),
                publish_at: e.publish_at,
                is_public: e.is_public,
                audio_sha256: audio,
                cover_sha256: cover,
                chapters,
                season: e.itunes.season,
            },
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn an_exported_podcast_is_restored_by_importing_its_feed() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    podhost(a.path(), &["user", "create", "alice"]);
    podhost(b.path(), &["user", "create", "alice"]);
    {
        let (host, who) = host_of(a.path()).await;
        let fields = FeedPatch {
            title: Some("The Show".into()),
            itunes_author: Some("Alice".into()),
            itunes_category: Some("Technology".into()),
            ..Default::default()
        };
        host.podcasts()
            .create_feed(
                &who,
                NewFeed {
                    id: "show".into(),
                    fields,
                },
            )
            .await
            .unwrap();
        let feed = FeedId::new("show").unwrap();
        // RSS dates are in whole seconds, as are dates given through the API.
        let now = jiff::Timestamp::from_second(host.now().as_second()).unwrap();
        let days = |n: i64| now + jiff::SignedDuration::from_hours(24 * n);
        // Published (with a cover and chapters), published, a draft, a scheduled one.
        let cases = [
            ("First", days(-30), true, true, Some(1)),
            ("Second", days(-7), true, false, Some(1)),
            ("Draft", days(-1), false, false, None),
            ("Next week", days(7), true, false, Some(2)),
        ];
        for (i, (title, at, public, cover, season)) in cases.into_iter().enumerate() {
            let target = UploadTarget::Episode(feed.clone());
            let audio = podhost_testkit::fixtures::wav(0.5 + i as f64, 8000);
            let mut media = host
                .podcasts()
                .stage_upload(
                    &who,
                    target.clone(),
                    &format!("{title}.wav"),
                    podhost_testkit::body(audio, 4096),
                )
                .await
                .unwrap();
            if i == 0 {
                media.set_chapters(vec![
                    podhost_core::tags::Chapter {
                        start_ms: 0,
                        end_ms: None,
                        title: "Hello".into(),
                        url: None,
                    },
                    podhost_core::tags::Chapter {
                        start_ms: 250,
                        end_ms: None,
                        title: "Goodbye".into(),
                        url: None,
                    },
                ]);
            }
            let cover = match cover {
                true => Some(
                    host.podcasts()
                        .stage_upload(
                            &who,
                            target,
                            "cover.png",
                            podhost_testkit::body(podhost_testkit::fixtures::png(1400, 1400), 4096),
                        )
                        .await
                        .unwrap(),
                ),
                false => None,
            };
            let new = NewEpisode {
                guid: Some(format!("urn:old-host:{i}")),
                fields: EpisodePatch {
                    title: Some(title.into()),
                    is_public: Some(public),
                    publish_at: Some(at),
                    itunes_season: Some(season),
                    ..Default::default()
                },
            };
            let files = EpisodeFiles {
                media: Some(media),
                cover,
                transcript: None,
            };
            host.podcasts()
                .create_episode_with_files(&who, &feed, new, files)
                .await
                .unwrap();
        }
    }
    let before = kept(a.path()).await;
    assert_eq!(before.len(), 4);

    let exported = podhost(
        a.path(),
        &[
            "export",
            "--user",
            "alice",
            "--feed",
            "show",
            dir.path().to_str().unwrap(),
        ],
    );
    assert_eq!(exported["episodes"], 4);
    assert_eq!(exported["files"], 5, "four audio files and a cover");
    for name in [
        "feed.xml",
        "drafts.xml",
        "podcast.json",
        "First.wav",
        "cover.png",
    ] {
        assert!(dir.path().join(name).exists(), "{name}");
    }
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("podcast.json")).unwrap()).unwrap();
    assert_eq!(records["episodes"].as_array().unwrap().len(), 4);
    assert_eq!(records["feed"]["attributes"]["rss"]["title"], "The Show");

    let feed_xml = dir.path().join("feed.xml");
    let feed_xml = feed_xml.to_str().unwrap();
    let report = podhost(b.path(), &["import", "--user", "alice", feed_xml]);
    assert_eq!(report["feed_id"], "the-show");
    assert_eq!(report["items"], 4);
    assert_eq!(report["created"], 4);
    assert_eq!(report["problems"], serde_json::json!([]), "{report}");
    // The same id on the new store: imported under its title's id, then compared there.
    let (host_b, who_b) = host_of(b.path()).await;
    let imported = host_b
        .podcasts()
        .get_feed(&who_b, &FeedId::new("the-show").unwrap())
        .await
        .unwrap();
    assert_eq!(imported.feed.title, "The Show");
    assert_eq!(imported.feed.itunes.category, "Technology");
    drop(host_b);
    // Import again under the original id, to compare the stores episode by episode.
    let c = tempfile::tempdir().unwrap();
    podhost(c.path(), &["user", "create", "alice"]);
    let report = podhost(
        c.path(),
        &["import", "--user", "alice", "--feed-id", "show", feed_xml],
    );
    assert_eq!(report["created"], 4);
    let after = kept(c.path()).await;
    assert_eq!(after, before);

    // Running it again changes nothing.
    let version = {
        let (host, who) = host_of(c.path()).await;
        host.account_version(&who).await.unwrap()
    };
    let again = podhost(
        c.path(),
        &["import", "--user", "alice", "--feed-id", "show", feed_xml],
    );
    assert_eq!(
        (again["created"].clone(), again["unchanged"].clone()),
        (0.into(), 4.into())
    );
    assert_eq!(again["files"], 0, "nothing fetched again");
    let (host, who) = host_of(c.path()).await;
    assert_eq!(host.account_version(&who).await.unwrap(), version);
    drop(host);

    // `--limit 2 --no-media`: the newest two items, without their files.
    let d = tempfile::tempdir().unwrap();
    podhost(d.path(), &["user", "create", "alice"]);
    let report = podhost(
        d.path(),
        &[
            "import",
            "--user",
            "alice",
            "--feed-id",
            "show",
            "--limit",
            "2",
            "--no-media",
            feed_xml,
        ],
    );
    assert_eq!(
        (report["created"].clone(), report["files"].clone()),
        (2.into(), 0.into())
    );
    let mut newest: Vec<(&jiff::Timestamp, &String)> = before
        .iter()
        .map(|(guid, k)| (&k.publish_at, guid))
        .collect();
    newest.sort();
    let newest: Vec<&String> = newest.iter().rev().take(2).map(|(_, g)| *g).collect();
    let limited = kept(d.path()).await;
    let mut guids: Vec<&String> = limited.keys().collect();
    guids.sort();
    let mut expected = newest.clone();
    expected.sort();
    assert_eq!(guids, expected);
    for (guid, k) in &limited {
        assert_eq!((&k.audio_sha256, &k.cover_sha256), (&None, &None), "{guid}");
        assert_eq!(k.title, before[guid].title);
    }
}

mod common;

/// What goes wrong moving in or out is one line naming it, with the documented exit code, in
/// text and as JSON.
#[test]
fn moving_in_and_out_fails_clearly() {
    let cli = common::Cli::with_users(&["alice"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let not_xml = cli.file("notes.txt", b"not a feed");
    let missing = dir.path().join("nothing.xml");
    let missing = missing.to_str().unwrap();
    let no_title = cli.file("empty.xml", b"<rss><channel></channel></rss>");
    let laughs = cli.file(
        "laughs.xml",
        br#"<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><rss><channel><title>&b;</title></channel></rss>"#,
    );
    // (arguments, exit code, JSON error code, words the message has)
    let cases: Vec<(Vec<&str>, i32, &str, &str)> = vec![
        (
            vec!["export", "--feed", "daily", out],
            2,
            "usage",
            "--user NAME is required",
        ),
        (
            vec!["export", "--user", "bob", "--feed", "daily", out],
            3,
            "not_found",
            "user bob not found",
        ),
        (
            vec!["export", "--user", "alice", "--feed", "nope", out],
            3,
            "not_found",
            "nope",
        ),
        (
            vec!["import", "--user", "alice", missing],
            1,
            "internal",
            "cannot read",
        ),
        (
            vec!["import", "--user", "alice", &not_xml],
            2,
            "invalid",
            "not well-formed XML",
        ),
        (
            vec!["import", "--user", "alice", &no_title],
            2,
            "invalid",
            "no title",
        ),
        (
            vec!["import", "--user", "alice", &laughs],
            2,
            "invalid",
            "entities",
        ),
        (
            vec!["import", "--user", "alice", "http://127.0.0.1:9/feed.xml"],
            2,
            "invalid",
            "does not fetch from",
        ),
        (
            vec!["import", "--user", "alice", "--feed-id", "a/b", &laughs],
            2,
            "invalid",
            "entities",
        ),
    ];
    for (args, code, json_code, words) in cases {
        let text = cli.fails(&args, code);
        assert!(text.contains(words), "{args:?}: {text}");
        let (got, message) = cli.json_error(&args, code);
        assert_eq!(got, json_code, "{args:?}: {message}");
        assert!(message.contains(words), "{args:?}: {message}");
    }
    // Nothing was made by the refused imports.
    let feeds = cli.json(&["feed", "list", "--user", "alice"]);
    assert_eq!(feeds.as_array().unwrap().len(), 1, "only daily: {feeds}");
}
