//! The store's format (issue 48): a new store is made at the newest format; a store that an
//! older release wrote stays at its format, and what the newer format brought (the fediverse's
//! records) is not written until the format is raised; `upgrade_store` raises it only when
//! every live server reads the new format, naming those that do not; a server refuses a store
//! of a format newer than it reads, naming the release it needs.

use std::sync::Arc;

use object_store::{ObjectStore, ObjectStoreExt, PutPayload, memory::InMemory, path::Path};
use podhost_core::{
    Error, FediverseDocument, HostConfig, ManualClock, PodcastHost,
    model::{FeedPatch, NewFeed},
    store_format::{FEDIVERSE, FORMAT, RELEASE, ServerRecord},
    webhooks::subscription::NewWebhook,
};

fn host_on(store: &Arc<dyn ObjectStore>, clock: &ManualClock) -> PodcastHost {
    let mut config = HostConfig::new("https://pod.test").unwrap();
    config.allow_private_webhooks = true;
    PodcastHost::with_clock(config, Arc::clone(store), Arc::new(clock.clone()))
}

fn clock() -> ManualClock {
    ManualClock::new("2026-06-01T12:00:00Z".parse().unwrap())
}

/// A store as release 0.1 left it (an account, alice, and no format marker), and a host of
/// this release on it.
async fn store_of_the_release_before() -> (Arc<dyn ObjectStore>, ManualClock, PodcastHost) {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let clock = clock();
    let first = host_on(&store, &clock);
    podhost_testkit::setup::account(&first, "alice").await;
    store
        .delete(&Path::from(format!("store/format/{FORMAT:06}.json")))
        .await
        .unwrap();
    let host = host_on(&store, &clock);
    (store, clock, host)
}

/// A server of an older release, as its record in the store says: it reads format 1 only.
async fn older_server(store: &Arc<dyn ObjectStore>, clock: &ManualClock) {
    let record = ServerRecord {
        owner: "old".into(),
        release: "0.1.9".into(),
        reads: 1,
        host: "web-3".into(),
        pid: 4242,
        listen: Some("10.0.0.3:8080".into()),
        started: podhost_core::Clock::now(clock),
        renewed: podhost_core::Clock::now(clock),
    };
    store
        .put(
            &Path::from("servers/old.json"),
            PutPayload::from(serde_json::to_vec(&record).unwrap()),
        )
        .await
        .unwrap();
}

fn unavailable(result: Result<impl std::fmt::Debug, Error>, what: &str) {
    match result {
        Err(Error::Unavailable { message, .. }) => {
            assert!(
                message.contains("podhost store upgrade"),
                "{what}: {message}"
            );
            assert!(
                message.contains(&format!("format {FEDIVERSE}")),
                "{what}: {message}"
            );
        }
        other => panic!("{what}: expected Unavailable, got {other:?}"),
    }
}

#[tokio::test]
async fn a_new_store_is_made_at_the_newest_format() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let clock = clock();
    let host = host_on(&store, &clock);
    assert_eq!(
        host.store_status().await.unwrap().format,
        1,
        "empty: never raised"
    );
    let (who, feed) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;
    let status = host.store_status().await.unwrap();
    assert_eq!(status.format, FORMAT);
    assert_eq!(status.marker.unwrap().raised_by, RELEASE);
    // So the fediverse is on from the first podcast.
    assert!(matches!(
        host.fediverse().actor(&feed).await.unwrap(),
        FediverseDocument::Found(_)
    ));
    host.fediverse().block(&who, "spam.example").await.unwrap();
}

#[tokio::test]
async fn a_store_of_the_release_before_keeps_its_format_and_gets_the_fediverse_once_raised() {
    let (store, _clock, host) = store_of_the_release_before().await;
    let who = host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(host.store_format().await.unwrap(), 1);

    // A podcast is made as 0.1 made it: no actor key, so no actor.
    let feed = host
        .podcasts()
        .create_feed(&who, NewFeed::titled("show", "The Show"))
        .await
        .unwrap()
        .feed
        .id;
    assert!(matches!(
        host.fediverse().actor(&feed).await,
        Err(Error::NotFound { .. })
    ));
    // What 0.1 could not read is refused with a clear error, not written.
    unavailable(
        host.podcasts()
            .update_feed(
                &who,
                &feed,
                &FeedPatch {
                    fediverse: Some(false),
                    ..Default::default()
                },
            )
            .await,
        "the fediverse setting",
    );
    unavailable(
        host.fediverse().block(&who, "spam.example").await,
        "a block",
    );
    unavailable(
        host.work()
            .create_webhook(
                &who,
                NewWebhook {
                    url: "http://127.0.0.1:9/hook".into(),
                    events: vec!["follower.added".into()],
                    description: None,
                    secret: None,
                },
            )
            .await,
        "a subscription to follower.added",
    );
    // Other changes go on as before.
    host.podcasts()
        .update_feed(
            &who,
            &feed,
            &FeedPatch {
                title: Some("The Show, renamed".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(matches!(
        host.fediverse().actor(&feed).await,
        Err(Error::NotFound { .. })
    ));

    // Raised (no server of an older release is live), the podcast made before is an actor at
    // once (the upgrade made its key), and what was refused is kept.
    let upgrade = host.upgrade_store(None).await.unwrap();
    assert_eq!(upgrade.status.format, FORMAT);
    assert_eq!(upgrade.actors_made, 1);
    assert!(matches!(
        host.fediverse().actor(&feed).await.unwrap(),
        FediverseDocument::Found(_)
    ));
    // An upgrade again (one interrupted, run once more) makes no second key.
    assert_eq!(host.upgrade_store(None).await.unwrap().actors_made, 0);
    host.podcasts()
        .update_feed(
            &who,
            &feed,
            &FeedPatch {
                fediverse: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(matches!(
        host.fediverse().actor(&feed).await.unwrap(),
        FediverseDocument::Found(_)
    ));
    host.fediverse().block(&who, "spam.example").await.unwrap();
    // Every format between was raised, each marker saying which release reads it.
    let listed: Vec<_> =
        futures::TryStreamExt::try_collect::<Vec<_>>(store.list(Some(&Path::from("store/format"))))
            .await
            .unwrap();
    assert_eq!(listed.len(), FORMAT as usize - 1);
}

#[tokio::test]
async fn the_format_is_raised_only_when_every_live_server_reads_it() {
    let (store, clock, host) = store_of_the_release_before().await;
    let ours = host.register_server(Some("127.0.0.1:8080")).await.unwrap();
    assert_eq!((ours.release.as_str(), ours.reads), (RELEASE, FORMAT));
    older_server(&store, &clock).await;

    let status = host.store_status().await.unwrap();
    assert_eq!(status.servers.len(), 2);
    assert!(status.servers.iter().all(|s| s.live));
    match host.upgrade_store(None).await {
        Err(Error::Conflict { message }) => {
            assert!(message.contains("podhost 0.1.9"), "{message}");
            assert!(
                message.contains("web-3 pid 4242 on 10.0.0.3:8080"),
                "{message}"
            );
            assert!(
                message.contains(&format!("podhost {RELEASE} or later")),
                "{message}"
            );
        }
        other => panic!("expected Conflict, got {other:?}"),
    }
    assert_eq!(host.store_status().await.unwrap().format, 1, "not raised");

    // The old server stopped without a goodbye: once its record is stale, it no longer counts
    // (ours is renewed meanwhile) and is swept.
    clock.advance(jiff::SignedDuration::from_secs(16));
    host.renew_server(&ours).await.unwrap();
    let status = host.upgrade_store(None).await.unwrap().status;
    assert_eq!(status.format, FORMAT);
    assert_eq!(status.servers.len(), 1, "the stale record was swept");
    // A format is never lowered; an unknown one is refused.
    assert!(matches!(
        host.upgrade_store(Some(1)).await,
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        host.upgrade_store(Some(FORMAT + 1)).await,
        Err(Error::Invalid(_))
    ));
    host.deregister_server().await;
    assert!(host.store_status().await.unwrap().servers.is_empty());
}

#[tokio::test]
async fn a_store_of_a_newer_format_is_refused_naming_the_release_it_needs() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let clock = clock();
    let newer = FORMAT + 1;
    let marker = serde_json::json!({
        "format": newer, "release": "9.1.0",
        "raised_at": "2026-06-01T00:00:00Z", "raised_by": "9.1.0",
    });
    store
        .put(
            &Path::from(format!("store/format/{newer:06}.json")),
            PutPayload::from(marker.to_string()),
        )
        .await
        .unwrap();
    let host = host_on(&store, &clock);
    for refused in [
        host.store_format().await.map(|_| ()),
        host.register_server(None).await.map(|_| ()),
    ] {
        let message = refused.unwrap_err().to_string();
        assert!(message.contains(&format!("format {newer}")), "{message}");
        assert!(message.contains("run podhost 9.1.0 or later"), "{message}");
    }
    assert!(
        host.store_status().await.unwrap().servers.is_empty(),
        "a refused server leaves no record"
    );
}
