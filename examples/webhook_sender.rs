//! cargo run -p podhost-examples --example webhook_sender
//!
//! A `WebhookSender` of the application's own: podhost decides what to send, when, to whom,
//! signed, with retries and at most one process sending each attempt; the sender only carries
//! the request. This one hands each webhook to the application in-process (a channel) instead
//! of over HTTP, as an application that runs its reactions next to podhost might. The receiving
//! side checks the Standard Webhooks signature with the subscription's secret.

use std::sync::Arc;

use podhost_core::{
    HostConfig, PodcastHost,
    model::{NewEpisode, NewFeed},
    webhooks::{
        SendOutcome, WebhookRequest, WebhookSender,
        signature::{Secret, verify},
        subscription::NewWebhook,
    },
};

/// Sends every request into a channel and answers as a receiver would: 204.
#[derive(Debug)]
struct InProcess(tokio::sync::mpsc::UnboundedSender<WebhookRequest>);

#[async_trait::async_trait]
impl WebhookSender for InProcess {
    async fn send(&self, request: WebhookRequest) -> SendOutcome {
        match self.0.send(request) {
            Ok(()) => SendOutcome::Answered {
                status: 204,
                excerpt: String::new(),
            },
            Err(_) => SendOutcome::Failed {
                reason: "the application stopped listening".into(),
            },
        }
    }
}

/// Renders each event's data as the REST API would (podhost-http's renderer).
fn renderer(host: &PodcastHost) -> Arc<podhost_http::wire::WireEvents> {
    Arc::new(podhost_http::wire::WireEvents::new(host.clone()))
}

podhost_examples::main!(run);

async fn run() -> anyhow::Result<()> {
    let host = PodcastHost::new(
        HostConfig::new("https://pod.example")?,
        podhost_core::open_store("memory://")?.store,
    );
    host.access().create_account("alice").await?;
    let alice = host.access().owner(&"alice".parse()?).await?;
    let secret = Secret::generate();
    host.work()
        .create_webhook(
            &alice,
            NewWebhook {
                // Never dialled: the sender below carries every request.
                url: "https://reactions.app.example/hook".into(),
                events: vec!["episode.published".into()],
                description: Some("in-process reactions".into()),
                secret: Some(secret.as_str().to_string()),
            },
        )
        .await?;

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let deliveries = tokio::spawn({
        let host = host.clone();
        let renderer = renderer(&host);
        async move {
            host.work()
                .run_webhooks(Arc::new(InProcess(tx)), renderer, async {
                    let _ = stopped.await;
                })
                .await
        }
    });

    let feed = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("daily", "Daily"))
        .await?
        .feed
        .id;
    let mut episode = NewEpisode::titled("Pilot");
    episode.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&alice, &feed, episode)
        .await?;

    let request = tokio::time::timeout(std::time::Duration::from_secs(20), rx.recv())
        .await?
        .ok_or_else(|| anyhow::anyhow!("no webhook"))?;
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let signed = verify(
        &secret,
        &header("webhook-id"),
        header("webhook-timestamp").parse()?,
        &request.body,
        &header("webhook-signature"),
    );
    let body: serde_json::Value = serde_json::from_slice(&request.body)?;
    println!(
        "{} for {:?}, signature valid: {signed}",
        body["type"], body["data"]["attributes"]["title"]
    );
    anyhow::ensure!(signed && body["type"] == "episode.published");
    let _ = stop.send(());
    deliveries.await?;
    Ok(())
}
