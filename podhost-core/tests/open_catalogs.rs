//! A server keeps at most a bound of bytes of account catalogs open: the least recently used is
//! let go and opened again from the store, and answers the same.

use podhost_core::{
    HostConfig, PodcastHost,
    model::{EpisodeListQuery, EpisodePatch, FeedPatch, NewEpisode},
    publish::PublicFeed,
};

fn host_over(store: std::sync::Arc<dyn object_store::ObjectStore>, bound: usize) -> PodcastHost {
    let mut config = HostConfig::new("https://pod.example").unwrap();
    config.catalog.cache_bytes = bound;
    PodcastHost::new(config, store)
}

async fn feed_xml(host: &PodcastHost, feed: &podhost_core::FeedId) -> String {
    match host.delivery().public_feed(feed).await.unwrap() {
        PublicFeed::Live(rendered) => String::from_utf8(rendered.xml.to_vec()).unwrap(),
        _ => panic!("a live feed"),
    }
}

async fn episode_titles(
    host: &PodcastHost,
    who: &podhost_core::Principal,
    feed: &podhost_core::FeedId,
) -> Vec<String> {
    host.podcasts()
        .list_episodes(who, feed, &EpisodeListQuery::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|e| e.episode.title)
        .collect()
}

#[tokio::test]
async fn a_catalog_let_go_and_reopened_serves_the_same_answers() {
    let store = podhost_core::open_store("memory://").unwrap().store;
    // A bound smaller than one account: only the account used last stays open.
    let host = host_over(store.clone(), 1);
    let mut accounts = Vec::new();
    for name in ["alpha", "bravo", "charlie"] {
        let (who, feed) =
            podhost_testkit::setup::account_with_podcast(&host, name, &format!("{name}-show"))
                .await;
        for n in 0..3 {
            let fields = EpisodePatch {
                title: Some(format!("{name} {n}")),
                is_public: Some(true),
                ..Default::default()
            };
            host.podcasts()
                .create_episode(&who, &feed, NewEpisode { guid: None, fields })
                .await
                .unwrap();
        }
        accounts.push((who, feed));
    }
    assert_eq!(host.open_catalogs().0, 1, "one account open at a time");

    let mut before = Vec::new();
    for (who, feed) in &accounts {
        let titles = episode_titles(&host, who, feed).await;
        before.push((titles, feed_xml(&host, feed).await));
        assert_eq!(host.open_catalogs().0, 1);
    }
    // Each was let go since, and is opened again with the same answers.
    for ((who, feed), (titles, xml)) in accounts.iter().zip(&before) {
        let again = episode_titles(&host, who, feed).await;
        assert_eq!(&again, titles);
        assert_eq!(&feed_xml(&host, feed).await, xml);
    }
    // A write to an account let go lands, and another server on the store reads it.
    let (who, feed) = &accounts[0];
    host.podcasts()
        .update_feed(
            who,
            feed,
            &FeedPatch {
                title: Some("Renamed".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let other = host_over(store, podhost_core::CatalogConfig::DEFAULT_CACHE_BYTES);
    assert_eq!(
        other
            .podcasts()
            .get_feed(who, feed)
            .await
            .unwrap()
            .feed
            .title,
        "Renamed"
    );
    assert_eq!(
        host.podcasts()
            .get_feed(who, feed)
            .await
            .unwrap()
            .feed
            .title,
        "Renamed"
    );
    // With the default bound, all three stay open.
    for (who, feed) in &accounts {
        other.podcasts().get_feed(who, feed).await.unwrap();
    }
    let (open, bytes) = other.open_catalogs();
    assert_eq!(open, 3);
    assert!(
        bytes > 0 && bytes < 1 << 20,
        "{bytes} bytes for three small accounts"
    );
}
