//! The strategies make only values the core accepts, and hostile text is refused clearly or
//! kept as data in a well-formed feed: each property on a fresh host in memory.

use std::sync::Arc;

use podhost_core::{
    Error,
    model::{FeedPatch, NewEpisode, NewFeed, NewMedia},
    publish::PublicFeed,
};
use podhost_testkit::{body, conformance::owner, strategies, test_host};
use proptest::prelude::*;

fn run<F: std::future::Future<Output = ()>>(f: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f);
}

fn fresh() -> podhost_core::PodcastHost {
    test_host(Arc::new(object_store::memory::InMemory::new())).0
}

/// Parses the whole document; the error when it is not well-formed XML.
fn well_formed(xml: &[u8]) -> Result<(), String> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(quick_xml::events::Event::Eof) => return Ok(()),
            Ok(_) => buf.clear(),
            Err(e) => return Err(e.to_string()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn feeds_and_episodes_made_by_the_strategies_are_accepted(
        feed in strategies::new_feed(),
        episode in strategies::new_episode(),
        feed_change in strategies::feed_patch(),
        episode_change in strategies::episode_patch(),
    ) {
        run(async move {
            let host = fresh();
            let alice = owner(&host, "alice").await;
            let id = host.podcasts().create_feed(&alice, feed.clone()).await
                .unwrap_or_else(|e| panic!("{feed:?}: {e}")).feed.id;
            let created = host.podcasts().create_episode(&alice, &id, episode.clone()).await
                .unwrap_or_else(|e| panic!("{episode:?}: {e}"));
            host.podcasts().update_feed(&alice, &id, &feed_change).await
                .unwrap_or_else(|e| panic!("{feed_change:?}: {e}"));
            host.podcasts().update_episode(&alice, &id, created.episode.id, &episode_change).await
                .unwrap_or_else(|e| panic!("{episode_change:?}: {e}"));
        });
    }

    #[test]
    fn list_queries_and_uploads_made_by_the_strategies_are_accepted(
        episodes in strategies::episode_list_query(),
        media in strategies::media_list_query(),
        (name, size) in strategies::upload(),
    ) {
        run(async move {
            let host = fresh();
            let alice = owner(&host, "alice").await;
            let id = host.podcasts().create_feed(&alice, NewFeed::titled("show", "Show")).await.unwrap().feed.id;
            host.podcasts().list_episodes(&alice, &id, &episodes).await
                .unwrap_or_else(|e| panic!("{episodes:?}: {e}"));
            let uploaded = host.podcasts().upload_media(
                &alice,
                NewMedia { name: name.clone(), category: None },
                body(vec![7; size], 64 * 1024),
            ).await.unwrap_or_else(|e| panic!("{name} ({size} bytes): {e}"));
            assert_eq!(uploaded.size, size as u64);
            host.podcasts().list_media(&alice, &media).await
                .unwrap_or_else(|e| panic!("{media:?}: {e}"));
        });
    }

    #[test]
    fn hostile_text_is_refused_or_published_well_formed(text in strategies::hostile_text()) {
        run(async move {
            let host = fresh();
            let alice = owner(&host, "alice").await;
            let id = host.podcasts().create_feed(&alice, NewFeed::titled("show", "Show")).await.unwrap().feed.id;
            let change = FeedPatch { description: Some(text.clone()), ..Default::default() };
            match host.podcasts().update_feed(&alice, &id, &change).await {
                Ok(_) | Err(Error::Invalid(_)) => {}
                Err(e) => panic!("{text:?}: {e}"),
            }
            let mut episode = NewEpisode::titled(text.clone());
            episode.fields.description = Some(text.clone());
            episode.fields.is_public = Some(true);
            match host.podcasts().create_episode(&alice, &id, episode).await {
                Ok(_) | Err(Error::Invalid(_)) => {}
                Err(e) => panic!("{text:?}: {e}"),
            }
            let PublicFeed::Live(feed) = host.delivery().public_feed(&id).await.unwrap() else {
                panic!("the feed is live");
            };
            if let Err(e) = well_formed(&feed.xml) {
                panic!("{text:?} made a feed that is not well-formed: {e}");
            }
        });
    }
}
