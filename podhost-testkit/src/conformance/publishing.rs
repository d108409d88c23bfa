//! What is public, and two hosts on one store.

use std::sync::Arc;

use object_store::ObjectStore;
use podhost_core::{
    PodcastHost,
    model::{EpisodePatch, NewEpisode, NewFeed},
};

use crate::{fixtures, test_host};

use crate::setup::{account as owner, account_with_podcast, upload};

/// Two hosts on one store: each sees the other's writes; concurrent edits of one episode
/// both apply.
pub async fn two_hosts_share_a_store(store: Arc<dyn ObjectStore>) {
    let (a, _) = test_host(store.clone());
    let (b, _) = test_host(store);
    let alice_a = owner(&a, "alice").await;
    let alice_b = b.access().owner(&"alice".parse().unwrap()).await.unwrap();
    let show = a
        .podcasts()
        .create_feed(&alice_a, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = a
        .podcasts()
        .create_episode(&alice_a, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;
    assert_eq!(
        b.podcasts()
            .get_episode(&alice_b, &show, ep)
            .await
            .unwrap()
            .episode
            .title,
        "One"
    );

    // Each host sets a different field at the same time: both changes survive.
    let from_a = EpisodePatch {
        subtitle: Some("from a".into()),
        ..Default::default()
    };
    let from_b = EpisodePatch {
        author: Some("from b".into()),
        ..Default::default()
    };
    let (ra, rb) = tokio::join!(
        a.podcasts().update_episode(&alice_a, &show, ep, &from_a),
        b.podcasts().update_episode(&alice_b, &show, ep, &from_b),
    );
    ra.unwrap();
    rb.unwrap();
    for host in [&a, &b] {
        let who = host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        let seen = host
            .podcasts()
            .get_episode(&who, &show, ep)
            .await
            .unwrap()
            .episode;
        assert_eq!(
            (seen.subtitle.as_str(), seen.author.as_str(), seen.version),
            ("from a", "from b", 3)
        );
    }
    // Ids handed out by both hosts never collide.
    let (x, y) = tokio::join!(
        a.podcasts()
            .create_episode(&alice_a, &show, NewEpisode::titled("from a")),
        b.podcasts()
            .create_episode(&alice_b, &show, NewEpisode::titled("from b")),
    );
    assert_ne!(x.unwrap().episode.id, y.unwrap().episode.id);
}

/// Reads a public or private file's bytes whole.
async fn read_whole(host: &PodcastHost, media: &podhost_core::publish::PublicMedia) -> Vec<u8> {
    use futures::TryStreamExt;
    let chunks: Vec<bytes::Bytes> = host
        .delivery()
        .media_bytes(media, 0..media.size)
        .await
        .expect("the file reads")
        .try_collect()
        .await
        .expect("the file streams");
    chunks.concat()
}

/// The feed of a public podcast names its published episode and the enclosure's URL, whose
/// bytes are the uploaded ones (and a range of them); a second host on the store renders the
/// same feed; a deleted podcast's feed is gone.
pub async fn publishing(store: Arc<dyn ObjectStore>) {
    use podhost_core::publish::PublicFeed;
    let (host, _) = test_host(store.clone());
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let bytes = fixtures::wav(1.0, 8000);
    let audio = upload(&host, &alice, "a.wav", bytes.clone()).await;
    let mut new = NewEpisode::titled("Pilot");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    let PublicFeed::Live(feed) = host.delivery().public_feed(&show).await.unwrap() else {
        panic!("the feed is live");
    };
    let xml = String::from_utf8(feed.xml.to_vec()).unwrap();
    assert!(xml.contains("<title>Pilot</title>"), "{xml}");
    assert!(
        xml.contains(audio.blob.as_str()),
        "the enclosure URL: {xml}"
    );
    let media = host
        .delivery()
        .public_media("alice", audio.blob.as_str())
        .await
        .unwrap();
    assert_eq!(media.size, bytes.len() as u64);
    assert_eq!(read_whole(&host, &media).await, bytes);
    use futures::TryStreamExt;
    let range: Vec<bytes::Bytes> = host
        .delivery()
        .media_bytes(&media, 10..20)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(range.concat(), bytes[10..20]);
    let (second, _) = test_host(store);
    let PublicFeed::Live(again) = second.delivery().public_feed(&show).await.unwrap() else {
        panic!("the feed is live on the second host");
    };
    assert_eq!(again.etag, feed.etag, "both hosts render the same bytes");
    host.podcasts().delete_feed(&alice, &show).await.unwrap();
    assert!(matches!(
        second.delivery().public_feed(&show).await.unwrap(),
        PublicFeed::Gone
    ));
}
