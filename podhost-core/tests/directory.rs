//! The home page's list of podcasts comes from the deployment's directory, kept by feed
//! creates, renames, privacy changes and deletes, never by opening every account; a lost
//! directory is rebuilt by the repair of the work index.

use futures::TryStreamExt;
use object_store::{ObjectStore, ObjectStoreExt};
use podhost_core::{
    HostConfig, PodcastHost,
    model::{FeedPatch, NewFeed},
};
use std::sync::Arc;

fn server(store: Arc<dyn ObjectStore>) -> PodcastHost {
    PodcastHost::new(HostConfig::new("https://pod.example").unwrap(), store)
}

/// A server that started (its background read of the directory done, as `Server::run` does).
async fn started(store: Arc<dyn ObjectStore>) -> PodcastHost {
    let host = server(store);
    host.delivery().warm_directory().await.unwrap();
    host
}

async fn titles(host: &PodcastHost) -> Vec<String> {
    host.delivery()
        .public_podcasts(10)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, title)| title)
        .collect()
}

#[derive(Debug)]
struct Nobody;

#[async_trait::async_trait]
impl podhost_core::webhooks::WebhookSender for Nobody {
    async fn send(
        &self,
        _: podhost_core::webhooks::WebhookRequest,
    ) -> podhost_core::webhooks::SendOutcome {
        unreachable!("no subscriptions here")
    }
}

#[derive(Debug)]
struct Blank;

impl podhost_core::webhooks::event::EventRenderer for Blank {
    fn render(
        &self,
        _: &podhost_core::AccountId,
        _: &podhost_core::webhooks::event::Subject,
    ) -> serde_json::Value {
        serde_json::Value::Null
    }
}

#[tokio::test]
async fn the_home_page_lists_public_podcasts_without_opening_accounts() {
    let store = podhost_core::open_store("memory://").unwrap().store;
    let writer = server(store.clone());
    let (alice, zeta) =
        podhost_testkit::setup::account_with_podcast(&writer, "alice", "Zeta").await;
    let (bob, alpha) = podhost_testkit::setup::account_with_podcast(&writer, "bob", "alpha").await;
    let mut hidden = NewFeed::titled("hidden", "Hidden");
    hidden.fields.private = Some(true);
    writer.podcasts().create_feed(&bob, hidden).await.unwrap();
    assert_eq!(
        titles(&writer).await,
        ["alpha", "Zeta"],
        "by title, any case"
    );

    // Another server lists them from the directory, opening no account.
    let reader = started(store.clone()).await;
    assert_eq!(titles(&reader).await, ["alpha", "Zeta"]);
    assert_eq!(reader.open_catalogs().0, 0);

    // A rename, a podcast made private and one deleted are seen by the next reader.
    let rename = FeedPatch {
        title: Some("Zulu".into()),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_feed(&alice, &zeta, &rename)
        .await
        .unwrap();
    assert_eq!(
        titles(&writer).await,
        ["alpha", "Zulu"],
        "at once on the writer"
    );
    let private = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_feed(&alice, &zeta, &private)
        .await
        .unwrap();
    writer.podcasts().delete_feed(&bob, &alpha).await.unwrap();
    assert!(titles(&writer).await.is_empty());
    // Nor in the index a server that starts answers its first visitor from.
    assert!(titles(&server(store.clone())).await.is_empty());
    assert!(titles(&started(store.clone()).await).await.is_empty());

    // A lost directory is rebuilt by the repair.
    let back = FeedPatch {
        private: Some(false),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_feed(&alice, &zeta, &back)
        .await
        .unwrap();
    let entries: Vec<_> = store
        .list(Some(&"directory".into()))
        .map_ok(|meta| meta.location)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(entries.len(), 1);
    for entry in entries {
        store.delete(&entry).await.unwrap();
    }
    assert!(titles(&started(store.clone()).await).await.is_empty());
    writer.work().repair_work(&Nobody, &Blank).await.unwrap();
    assert_eq!(titles(&started(store).await).await, ["Zulu"]);
}

/// A server that starts reads the directory in one object (the index a listing wrote), then
/// fetches only the entries changed since: never one read per podcast.
#[tokio::test]
async fn a_server_that_starts_reads_the_directory_in_one_object() {
    let store = podhost_core::open_store("memory://").unwrap().store;
    let writer = server(store.clone());
    let mut podcasts = Vec::new();
    for n in 0..40 {
        let name = format!("user{n:02}");
        let feed = format!("Show {n:02}");
        podcasts.push(podhost_testkit::setup::account_with_podcast(&writer, &name, &feed).await);
    }
    let first: Vec<String> = (0..10).map(|n| format!("Show {n:02}")).collect();
    // A server's listing of the directory writes its index.
    assert_eq!(titles(&server(store.clone())).await, first);

    let counted = Arc::new(podhost_testkit::FaultStore::new(store.clone()));
    let starting = server(counted.clone());
    starting.delivery().warm_directory().await.unwrap();
    let counts = counted.counts();
    assert_eq!(
        (counts.gets, counts.lists),
        (1, 1),
        "the index, then a listing"
    );
    assert_eq!(titles(&starting).await, first);
    assert_eq!(counted.counts().gets, 1, "the home page read nothing");

    // A visitor faster than the start's background read: answered from the index alone, no
    // listing, no entry fetched.
    let counted = Arc::new(podhost_testkit::FaultStore::new(store.clone()));
    let starting = server(counted.clone());
    assert_eq!(titles(&starting).await, first);
    let counts = counted.counts();
    assert_eq!(
        (counts.gets, counts.lists),
        (1, 0),
        "the first home page read the index alone"
    );

    // A rename after the index was written: the next start fetches that entry alone.
    let (alice, show) = &podcasts[0];
    let rename = FeedPatch {
        title: Some("Show 00, renamed".into()),
        ..Default::default()
    };
    writer
        .podcasts()
        .update_feed(alice, show, &rename)
        .await
        .unwrap();
    let counted = Arc::new(podhost_testkit::FaultStore::new(store.clone()));
    let starting = server(counted.clone());
    starting.delivery().warm_directory().await.unwrap();
    assert_eq!(counted.counts().gets, 2, "the index and the renamed entry");
    assert_eq!(titles(&starting).await[0], "Show 00, renamed");
}
