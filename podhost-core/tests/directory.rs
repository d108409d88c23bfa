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

async fn titles(host: &PodcastHost) -> Vec<String> {
    host.public_podcasts(10)
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
    writer.create_feed(&bob, hidden).await.unwrap();
    assert_eq!(
        titles(&writer).await,
        ["alpha", "Zeta"],
        "by title, any case"
    );

    // Another server lists them from the directory, opening no account.
    let reader = server(store.clone());
    assert_eq!(titles(&reader).await, ["alpha", "Zeta"]);
    assert_eq!(reader.open_catalogs().0, 0);

    // A rename, a podcast made private and one deleted are seen by the next reader.
    let rename = FeedPatch {
        title: Some("Zulu".into()),
        ..Default::default()
    };
    writer.update_feed(&alice, &zeta, &rename).await.unwrap();
    assert_eq!(
        titles(&writer).await,
        ["alpha", "Zulu"],
        "at once on the writer"
    );
    let private = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    writer.update_feed(&alice, &zeta, &private).await.unwrap();
    writer.delete_feed(&bob, &alpha).await.unwrap();
    assert!(titles(&writer).await.is_empty());
    assert!(titles(&server(store.clone())).await.is_empty());

    // A lost directory is rebuilt by the repair.
    let back = FeedPatch {
        private: Some(false),
        ..Default::default()
    };
    writer.update_feed(&alice, &zeta, &back).await.unwrap();
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
    assert!(titles(&server(store.clone())).await.is_empty());
    writer.repair_work(&Nobody, &Blank).await.unwrap();
    assert_eq!(titles(&server(store)).await, ["Zulu"]);
}
