//! The pages read by real link-preview consumers that no one here wrote: a podhost server on
//! 127.0.0.1 with a podcast, and `tests/parsers/link_previews.py` reading its podcast page and
//! an episode page with pyoembed (the oEmbed endpoint found by discovery, its answer checked
//! against oEmbed's `rich` type) and extruct (Open Graph and schema.org JSON-LD), both pinned
//! in `.venv` by `scripts/test`. Without them this test says SKIPPED and passes, unless
//! `PODHOST_REQUIRE_EXTERNAL=1`, which makes it fail.

use std::{path::PathBuf, process::Command, sync::Arc};

use podhost_core::{
    HostConfig, PodcastHost,
    model::{EpisodePatch, FeedPatch, NewEpisode},
};
use podhost_testkit::browser::workspace;
use serde_json::Value;
use tokio::net::TcpListener;

/// The `.venv` Python that imports pyoembed and extruct, or why there is none.
fn consumers() -> Result<PathBuf, String> {
    let python = workspace().join(".venv/bin/python");
    let imports = Command::new(&python)
        .args(["-c", "import pyoembed, extruct"])
        .output()
        .is_ok_and(|o| o.status.success());
    if imports {
        Ok(python)
    } else {
        Err("no .venv/bin/python that imports pyoembed and extruct".into())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oembed_and_open_graph_consumers_read_the_pages() {
    let Some(python) = podhost_testkit::or_skip(
        "oembed_and_open_graph_consumers_read_the_pages",
        "pyoembed and extruct",
        consumers(),
    ) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let store = podhost_core::open_store("memory://").unwrap().store;
    let host = PodcastHost::new(HostConfig::new(&base).unwrap(), Arc::clone(&store));
    let (alice, show) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let cover = podhost_testkit::setup::upload(
        &host,
        &alice,
        "cover.png",
        podhost_testkit::fixtures::png(1400, 1400),
    )
    .await;
    host.podcasts()
        .update_feed(
            &alice,
            &show,
            &FeedPatch {
                title: Some("The Tinkering Hour".into()),
                description: Some("<p>People who build things in their sheds.</p>".into()),
                logo: Some(Some(cover.id)),
                itunes_author: Some("Alice Example".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let audio = podhost_testkit::setup::upload(
        &host,
        &alice,
        "sheds.wav",
        podhost_testkit::fixtures::tone_and_silence(&[(2.0, true)], 22_050),
    )
    .await;
    let episode = host
        .podcasts()
        .create_episode(
            &alice,
            &show,
            NewEpisode {
                guid: None,
                fields: EpisodePatch {
                    title: Some("Sheds".into()),
                    description: Some("<p>Alice visits Bob's shed.</p>".into()),
                    is_public: Some(true),
                    publish_at: Some("2025-03-04T06:00:00Z".parse().unwrap()),
                    media: Some(Some(audio.id)),
                    ..Default::default()
                },
            },
        )
        .await
        .unwrap();
    let urls = host.urls().clone();
    let audio_url = host.podcasts().media_url(alice.account(), &audio);
    let podcast_page = urls.feed_page(&show);
    let episode_page = urls.episode_page(&show, episode.episode.id);

    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(podhost_http::serve(listener, api, async {
        let _ = stopped.await;
    }));
    let script = workspace().join("tests/parsers/link_previews.py");
    let pages = [podcast_page.clone(), episode_page.clone()];
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(script)
            .args(&pages)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let _ = stop.send(());
    let _ = server.await;
    assert!(
        output.status.success(),
        "link_previews.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read: Value = serde_json::from_slice(&output.stdout).unwrap();
    println!("{read:#}");

    // pyoembed, through discovery, within its maxwidth of 480.
    let embedded = &read[&episode_page]["oembed"];
    assert_eq!(embedded["type"], "rich");
    assert_eq!(embedded["version"], "1.0");
    assert_eq!(embedded["title"], "Sheds");
    assert_eq!(embedded["author_name"], "Alice Example");
    assert_eq!(embedded["width"], 480);
    let html = embedded["html"].as_str().unwrap();
    let player = urls.embed(&show, Some(episode.episode.id));
    assert!(
        html.starts_with(&format!("<iframe src=\"{player}\"")),
        "{html}"
    );
    let podcast_embedded = &read[&podcast_page]["oembed"];
    assert_eq!(podcast_embedded["title"], "The Tinkering Hour");
    assert!(
        podcast_embedded["html"]
            .as_str()
            .unwrap()
            .contains(&format!("src=\"{}\"", urls.embed(&show, None)))
    );

    // extruct: Open Graph and schema.org.
    let og = &read[&episode_page]["opengraph"];
    assert_eq!(og["og:title"], "Sheds · The Tinkering Hour", "{og}");
    // extruct gives `og:type` as `@type`.
    assert_eq!(og["@type"], "article");
    assert_eq!(og["og:audio"], audio_url.as_str());
    assert_eq!(og["og:audio:type"], "audio/wav");
    let cover_url = host_cover(&read[&podcast_page]["opengraph"]);
    assert!(
        cover_url.starts_with(&format!("{base}/media/alice/")),
        "{cover_url}"
    );
    assert_eq!(
        og["og:image"],
        cover_url.as_str(),
        "the episode shows the podcast's cover"
    );
    let ld = &read[&episode_page]["json_ld"][0];
    assert_eq!(ld["@type"], "PodcastEpisode", "{ld}");
    assert_eq!(ld["name"], "Sheds");
    assert_eq!(ld["associatedMedia"]["contentUrl"], audio_url.as_str());
    assert_eq!(ld["partOfSeries"]["@type"], "PodcastSeries");
    let series = &read[&podcast_page]["json_ld"][0];
    assert_eq!(series["@type"], "PodcastSeries", "{series}");
    assert_eq!(series["name"], "The Tinkering Hour");
    assert_eq!(series["image"], cover_url.as_str());
}

/// The cover's URL as the podcast page's Open Graph says it.
fn host_cover(og: &Value) -> String {
    assert_eq!(og["@type"], "website", "{og}");
    og["og:image"].as_str().expect("og:image").to_string()
}
