//! What runs beside requests: jobs, statistics, webhooks, private podcasts' feeds.

use std::sync::Arc;

use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{
    Error,
    model::{FeedPatch, NewEpisode},
};

use crate::{fixtures, test_host};

use super::assert_err;
use crate::setup::{account as owner, account_with_podcast, upload};

/// A waveform job submitted by one host runs to the end and its result is read back; another
/// account sees neither the job nor the result.
pub async fn jobs(store: Arc<dyn ObjectStore>) {
    use podhost_core::model::{JobKind, JobStatus};
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let bob = owner(&host, "bob").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(2.0, 8000)).await;
    let job = host
        .work()
        .submit_job(&alice, audio.id, JobKind::Waveform, serde_json::json!({}))
        .await
        .unwrap();
    let done = host.work().run_job(&alice, &job.id).await.unwrap();
    assert_eq!(done.status, JobStatus::Succeeded, "{done:?}");
    let json = host
        .work()
        .waveform(&alice, audio.id, podhost_core::WaveformFormat::Json)
        .await
        .unwrap();
    let peaks: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(peaks["data"].as_array().is_some_and(|d| !d.is_empty()));
    assert_err!(
        host.work().get_job(&bob, &job.id).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.work()
            .waveform(&bob, audio.id, podhost_core::WaveformFormat::Json)
            .await,
        Error::NotFound { .. }
    );
}

/// A download recorded by one host is flushed to the store, counted once its day is closed,
/// and reported to the podcast's owner only.
pub async fn statistics(store: Arc<dyn ObjectStore>) {
    use podhost_core::stats::{Delivery, StatsQuery};
    let (host, clock) = test_host(store.clone());
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let bob = owner(&host, "bob").await;
    let bytes = fixtures::wav(90.0, 8000);
    let audio = upload(&host, &alice, "a.wav", bytes.clone()).await;
    let mut new = NewEpisode::titled("Pilot");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    let size = bytes.len() as u64;
    for client in ["192.0.2.1", "192.0.2.2"] {
        host.analytics().record_download(Delivery {
            account: "alice".into(),
            blob: audio.blob.as_str().into(),
            client: client.parse().unwrap(),
            user_agent: "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X)".into(),
            range: 0..size,
            delivered: size,
            subscriber: None,
            stitched: None,
        });
    }
    assert!(host.analytics().flush_stats().await.unwrap() >= 2);
    clock.advance(SignedDuration::from_hours(48));
    let (second, _) = test_host(store);
    second.analytics().close_stats_days().await.unwrap();
    let today = podhost_core::Clock::now(&clock)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let query = StatsQuery {
        from: Some(
            today
                .yesterday()
                .unwrap()
                .yesterday()
                .unwrap()
                .yesterday()
                .unwrap(),
        ),
        to: Some(today),
        ..Default::default()
    };
    let report = second
        .analytics()
        .download_stats(&alice, &query)
        .await
        .unwrap();
    assert_eq!(report.total, 2, "{report:?}");
    let theirs = second
        .analytics()
        .download_stats(&bob, &query)
        .await
        .unwrap();
    assert_eq!(theirs.total, 0, "another account counts nothing of alice's");
}

/// A sender that records what it was asked to send and answers 204.
#[derive(Debug, Default)]
pub(super) struct Recorder(std::sync::Mutex<Vec<podhost_core::webhooks::WebhookRequest>>);

#[async_trait::async_trait]
impl podhost_core::webhooks::WebhookSender for Recorder {
    async fn send(
        &self,
        request: podhost_core::webhooks::WebhookRequest,
    ) -> podhost_core::webhooks::SendOutcome {
        self.0.lock().unwrap().push(request);
        podhost_core::webhooks::SendOutcome::Answered {
            status: 204,
            excerpt: String::new(),
        }
    }
}

/// Renders an event's data as its subject's debug form.
#[derive(Debug)]
pub(super) struct DebugRenderer;

impl podhost_core::webhooks::event::EventRenderer for DebugRenderer {
    fn render(
        &self,
        _account: &podhost_core::AccountId,
        subject: &podhost_core::webhooks::event::Subject,
    ) -> serde_json::Value {
        serde_json::json!({ "subject": format!("{subject:?}") })
    }
}

/// A change made on one host is delivered once, signed, by another host of the store; a second
/// run sends nothing again; the other account's subscription gets nothing of it.
pub async fn webhooks(store: Arc<dyn ObjectStore>) {
    use podhost_core::webhooks::subscription::NewWebhook;
    let (host, _) = test_host(store.clone());
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let bob = owner(&host, "bob").await;
    for who in [&alice, &bob] {
        host.work()
            .create_webhook(
                who,
                NewWebhook {
                    url: "http://127.0.0.1:9/hook".into(),
                    events: vec![],
                    description: None,
                    secret: None,
                },
            )
            .await
            .unwrap();
    }
    let mut new = NewEpisode::titled("Pilot");
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    let (second, _) = test_host(store);
    let alice_there = second
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let bob_there = second
        .access()
        .owner(&"bob".parse().unwrap())
        .await
        .unwrap();
    let sender = Recorder::default();
    second
        .work()
        .process_webhooks(&alice_there, &sender, &DebugRenderer)
        .await
        .unwrap();
    let sent = sender.0.lock().unwrap().clone();
    assert!(!sent.is_empty(), "the episode's events are delivered");
    for request in &sent {
        assert!(
            request
                .headers
                .iter()
                .any(|(name, value)| name == "webhook-signature" && value.starts_with("v1,")),
            "signed: {:?}",
            request.headers
        );
    }
    let first = sent.len();
    second
        .work()
        .process_webhooks(&alice_there, &sender, &DebugRenderer)
        .await
        .unwrap();
    host.work()
        .process_webhooks(&alice, &sender, &DebugRenderer)
        .await
        .unwrap();
    assert_eq!(sender.0.lock().unwrap().len(), first, "each event once");
    let bobs = Recorder::default();
    second
        .work()
        .process_webhooks(&bob_there, &bobs, &DebugRenderer)
        .await
        .unwrap();
    assert!(
        bobs.0.lock().unwrap().is_empty(),
        "bob gets nothing of alice's"
    );
}

/// A private podcast has no public feed or files; its subscriber's feed lists the episode and
/// carries the subscriber's key; a revoked subscriber's feed is gone on another host; another
/// account can neither list nor revoke the subscribers.
pub async fn private_podcasts(store: Arc<dyn ObjectStore>) {
    use podhost_core::Private;
    let (host, _) = test_host(store.clone());
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let bob = owner(&host, "bob").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(1.0, 8000)).await;
    let patch = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    host.podcasts()
        .update_feed(&alice, &show, &patch)
        .await
        .unwrap();
    let mut new = NewEpisode::titled("Members only");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    assert_err!(
        host.delivery().public_feed(&show).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.delivery()
            .public_media("alice", audio.blob.as_str())
            .await,
        Error::NotFound { .. }
    );
    let subscriber = host
        .delivery()
        .add_subscriber(&alice, &show, "Carol")
        .await
        .unwrap();
    let (second, _) = test_host(store);
    let Private::Live(feed) = second
        .delivery()
        .private_feed(&show, subscriber.key())
        .await
        .unwrap()
    else {
        panic!("the subscriber's feed is live");
    };
    let xml = String::from_utf8(feed.xml.to_vec()).unwrap();
    assert!(xml.contains("Members only"), "{xml}");
    assert!(xml.contains(subscriber.key()), "URLs carry the key: {xml}");
    assert_err!(
        second.delivery().list_subscribers(&bob, &show).await,
        Error::NotFound { .. }
    );
    assert_err!(
        second
            .delivery()
            .remove_subscriber(&bob, &show, &subscriber.id)
            .await,
        Error::NotFound { .. }
    );
    host.delivery()
        .remove_subscriber(&alice, &show, &subscriber.id)
        .await
        .unwrap();
    assert!(matches!(
        second
            .delivery()
            .private_feed(&show, subscriber.key())
            .await
            .unwrap(),
        Private::Gone
    ));
}
