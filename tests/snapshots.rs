//! What an account's snapshot keeps besides its records: the show notes each feed carries,
//! cleaned once when they were written. A feed rendered by a process that opened the account
//! from a snapshot is the feed the writing process renders, and follows every edit.

use std::sync::Arc;

use object_store::{ObjectStore, memory::InMemory};
use podhost_core::{
    FeedId, PodcastHost,
    model::{EpisodePatch, NewEpisode},
    publish::PublicFeed,
};
use podhost_testkit::{test_config, test_host_with};

async fn rss(host: &PodcastHost, feed: &FeedId) -> String {
    match host.delivery().public_feed(feed).await.unwrap() {
        PublicFeed::Live(rendered) => String::from_utf8(rendered.xml.to_vec()).unwrap(),
        _ => panic!("the feed is live"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feeds_cleaned_notes_follow_edits_and_survive_a_snapshot() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut config = test_config();
    config.catalog.snapshot_every = 4;
    config.catalog.segment_every = 2;
    let (writer, _) = test_host_with(store.clone(), config.clone());
    let (who, feed) = podhost_testkit::setup::account_with_podcast(&writer, "alice", "show").await;
    let account = who.account().clone();
    let mut ids = Vec::new();
    for i in 0..6 {
        let fields = EpisodePatch {
            title: Some(format!("Episode {i}")),
            description: Some(format!("<p>notes of {i}</p><script>steal({i})</script>")),
            is_public: Some(true),
            ..Default::default()
        };
        let new = NewEpisode { guid: None, fields };
        ids.push(
            writer
                .podcasts()
                .create_episode(&who, &feed, new)
                .await
                .unwrap()
                .episode
                .id,
        );
    }
    let edit = |description: &str| EpisodePatch {
        description: Some(description.into()),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_episode(
            &who,
            &feed,
            ids[2],
            &edit("<p>rewritten</p><iframe>x</iframe>"),
        )
        .await
        .unwrap();
    // Other fields change, the notes stay as cleaned.
    let retitle = EpisodePatch {
        title: Some("Renamed".into()),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_episode(&who, &feed, ids[4], &retitle)
        .await
        .unwrap();
    writer
        .podcasts()
        .update_episode(&who, &feed, ids[5], &edit("plain text & no markup"))
        .await
        .unwrap();
    writer
        .podcasts()
        .delete_episode(&who, &feed, ids[1])
        .await
        .unwrap();
    writer.settle(&account).await.unwrap();

    let written = rss(&writer, &feed).await;
    for (present, text) in [
        (true, "<p>notes of 0</p>"),
        (false, "notes of 1"),
        (true, "<p>rewritten</p>"),
        (false, "notes of 2"),
        (true, "<p>notes of 4</p>"),
        (true, "plain text & no markup"),
        (false, "steal("),
        (false, "<iframe"),
    ] {
        assert_eq!(written.contains(text), present, "{text:?} in\n{written}");
    }

    let (reader, _) = test_host_with(store, config);
    let stats = reader.open_stats(&account).await.unwrap();
    assert!(stats.snapshot_seq > 0, "opened from a snapshot: {stats:?}");
    assert_eq!(rss(&reader, &feed).await, written);
}
