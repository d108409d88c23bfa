//! [`WebhookReceiver`]: a local endpoint that receives podhost's webhooks, checks their
//! Standard Webhooks signatures and records them, for tests of code that reacts to them.

use podhost_core::lock::Locked;
use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use podhost_core::webhooks::signature::{Secret, verify};
use serde_json::Value;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    /// `webhook-id`.
    pub id: String,
    /// `webhook-timestamp` (Unix seconds).
    pub timestamp: i64,
    /// The event's `type` (`episode.published`, ...).
    pub event_type: String,
    /// The whole JSON body.
    pub body: Value,
    /// Whether `webhook-signature` is this receiver's secret's signature of the request.
    pub verified: bool,
    /// When it arrived, by this machine's clock.
    pub arrived_at: std::time::SystemTime,
}

/// A webhook endpoint on an ephemeral loopback port. Give podhost [`url`](Self::url) and
/// [`secret`](Self::secret) when creating the subscription; a request whose signature checks
/// is answered 204 and recorded, any other is recorded unverified and answered 401 (podhost
/// then retries it, as it would with a real receiver). Stopped when dropped.
pub struct WebhookReceiver {
    addr: SocketAddr,
    secret: Secret,
    received: Arc<Mutex<Vec<Received>>>,
    arrived: Arc<tokio::sync::Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl WebhookReceiver {
    /// Starts a receiver with a new secret on an ephemeral loopback port.
    pub async fn start() -> WebhookReceiver {
        Self::start_on(0, Secret::generate()).await
    }

    /// Starts a receiver on loopback port `port` checking signatures with `secret`: a test
    /// that subscribes before anyone listens (so that the first deliveries fail) starts it
    /// later, at the URL and with the secret it gave.
    pub async fn start_on(port: u16, secret: Secret) -> WebhookReceiver {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("an address");
        let received = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(tokio::sync::Notify::new());
        let task = tokio::spawn({
            let (secret, received, arrived) = (secret.clone(), received.clone(), arrived.clone());
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    let (secret, received, arrived) =
                        (secret.clone(), received.clone(), arrived.clone());
                    let service = hyper::service::service_fn(move |request| {
                        let (secret, received, arrived) =
                            (secret.clone(), received.clone(), arrived.clone());
                        async move {
                            let status = receive(request, &secret, &received).await;
                            arrived.notify_waiters();
                            Ok::<_, std::convert::Infallible>(
                                http::Response::builder()
                                    .status(status)
                                    .body(Full::new(Bytes::new()))
                                    .expect("a valid response"),
                            )
                        }
                    });
                    tokio::spawn(async move {
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        });
        WebhookReceiver {
            addr,
            secret,
            received,
            arrived,
            task,
        }
    }

    /// The endpoint's URL, for the subscription.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// The signing secret (`whsec_…`), for the subscription.
    pub fn secret(&self) -> String {
        self.secret.as_str().to_string()
    }

    /// Everything received so far, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.received.locked().clone()
    }

    /// Waits (up to `timeout`) for a verified request of event type `event_type` and returns
    /// the first; panics with what did arrive when none comes.
    pub async fn wait_for(&self, event_type: &str, timeout: Duration) -> Received {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let arrived = self.arrived.notified();
            if let Some(found) = self
                .received()
                .into_iter()
                .find(|r| r.verified && r.event_type == event_type)
            {
                return found;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                let got: Vec<String> = self
                    .received()
                    .iter()
                    .map(|r| format!("{} (verified: {})", r.event_type, r.verified))
                    .collect();
                panic!("no verified {event_type} webhook within {timeout:?}; received: {got:?}");
            }
        }
    }
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Records one request; its answer's status.
async fn receive(
    request: http::Request<hyper::body::Incoming>,
    secret: &Secret,
    received: &Mutex<Vec<Received>>,
) -> u16 {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let (id, timestamp, signature) = (
        header("webhook-id"),
        header("webhook-timestamp"),
        header("webhook-signature"),
    );
    let Ok(body) = request.into_body().collect().await.map(|b| b.to_bytes()) else {
        return 400;
    };
    let timestamp: i64 = timestamp.parse().unwrap_or_default();
    let verified = verify(secret, &id, timestamp, &body, &signature);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let event_type = body["type"].as_str().unwrap_or_default().to_string();
    received.locked().push(Received {
        id,
        timestamp,
        event_type,
        body,
        verified,
        arrived_at: std::time::SystemTime::now(),
    });
    if verified { 204 } else { 401 }
}
