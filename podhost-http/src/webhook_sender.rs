//! The HTTP implementation of the core's [`WebhookSender`]: hyper-util's client, with https
//! by rustls (ring, Mozilla's roots bundled by webpki-roots).
//!
//! Safety, as the trait asks: the URL is checked by
//! [`check_url`](podhost_core::webhooks::target::check_url); host names are resolved by the
//! connector's own resolver, which refuses the name when *any* of its addresses is forbidden
//! ([`is_forbidden`]) and otherwise hands exactly the checked addresses to the connector, so a
//! name cannot resolve to a public address when checked and to a private one when connected
//! (DNS rebinding). Redirects are answers, never followed; the whole attempt is bounded by
//! [`TIMEOUT`]; at most [`EXCERPT_BYTES`] of a response body are read, then the connection is
//! dropped; no proxy from the environment is used.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Uri, header};
use http_body_util::{BodyExt as _, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::TokioExecutor;
use podhost_core::webhooks::target::{check_url, is_forbidden};
use podhost_core::webhooks::{EXCERPT_BYTES, SendOutcome, TIMEOUT, WebhookRequest, WebhookSender};

/// The `user-agent` of deliveries (unless the request brings one).
const USER_AGENT: &str = concat!("podhost-webhooks/", env!("CARGO_PKG_VERSION"));

/// How long an unused connection to a subscriber is kept for the next delivery.
const POOL_IDLE: Duration = Duration::from_secs(30);

type HttpsClient = Client<HttpsConnector<HttpConnector<CheckedResolver>>, Full<Bytes>>;

/// Sends webhook deliveries over HTTP/1.1 (http and https) with hyper-util's client.
///
/// Cheap to clone (the clients and their connection pools are shared).
#[derive(Clone)]
pub struct HttpWebhookSender {
    /// The whole-attempt time limit.
    timeout: Duration,
    /// Clients whose resolver refuses forbidden addresses (`strict`) or not (`lenient`, for
    /// requests with `allow_private`); `Err` if TLS could not be set up, then every attempt
    /// fails with that reason.
    clients: Result<(HttpsClient, HttpsClient), String>,
}

impl HttpWebhookSender {
    /// A sender that gives up on an attempt after [`TIMEOUT`].
    pub fn new() -> HttpWebhookSender {
        HttpWebhookSender::with_timeout(TIMEOUT)
    }

    /// A sender with another time limit for a whole attempt (connecting, sending, the answer and
    /// its excerpt); for tests.
    pub fn with_timeout(timeout: Duration) -> HttpWebhookSender {
        let clients = client(false).and_then(|strict| Ok((strict, client(true)?)));
        HttpWebhookSender { timeout, clients }
    }

    async fn attempt(&self, request: WebhookRequest) -> SendOutcome {
        let failed = |reason: String| SendOutcome::Failed { reason };
        let (strict, lenient) = match &self.clients {
            Ok(clients) => clients,
            Err(reason) => return failed(reason.clone()),
        };
        if let Err(reason) = check_url(&request.url, request.allow_private) {
            return failed(reason);
        }
        let http_request = match build(&request) {
            Ok(r) => r,
            Err(reason) => return failed(reason),
        };
        let client = if request.allow_private {
            lenient
        } else {
            strict
        };
        let deadline = tokio::time::Instant::now() + self.timeout;
        let response = match tokio::time::timeout_at(deadline, client.request(http_request)).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return failed(describe(&e)),
            Err(_) => {
                return failed(format!(
                    "no answer within {} seconds",
                    self.timeout.as_secs_f64()
                ));
            }
        };
        let status = response.status().as_u16();
        // The status is the answer; the excerpt is what of the body arrives before the
        // deadline, at most EXCERPT_BYTES. Dropping the body closes the connection if unread.
        let mut body = response.into_body();
        let mut bytes = Vec::new();
        while bytes.len() < EXCERPT_BYTES {
            match tokio::time::timeout_at(deadline, body.frame()).await {
                Ok(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        let room = EXCERPT_BYTES - bytes.len();
                        bytes.extend_from_slice(&data[..data.len().min(room)]);
                    }
                }
                // The end, a broken body or the deadline: keep what arrived.
                Ok(None) | Ok(Some(Err(_))) | Err(_) => break,
            }
        }
        drop(body);
        SendOutcome::Answered {
            status,
            excerpt: excerpt(&bytes),
        }
    }
}

impl Default for HttpWebhookSender {
    fn default() -> HttpWebhookSender {
        HttpWebhookSender::new()
    }
}

impl fmt::Debug for HttpWebhookSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpWebhookSender")
            .field("timeout", &self.timeout)
            .field("tls", &self.clients.as_ref().map(|_| "rustls"))
            .finish()
    }
}

#[async_trait::async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, request: WebhookRequest) -> SendOutcome {
        self.attempt(request).await
    }
}

/// A client whose connections go only to addresses [`CheckedResolver`] let through.
fn client(allow_private: bool) -> Result<HttpsClient, String> {
    let mut http = HttpConnector::new_with_resolver(CheckedResolver { allow_private });
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .map_err(|e| format!("https cannot be set up: {e}"))?
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
        .build(https))
}

/// The `POST` of a webhook request, or why it cannot be made.
fn build(request: &WebhookRequest) -> Result<Request<Full<Bytes>>, String> {
    // The URI has no fragment (it is never sent); `check_url` accepted the URL.
    let url = request.url.trim();
    let url = url.split_once('#').map_or(url, |(before, _)| before);
    let uri = Uri::try_from(url).map_err(|e| format!("the URL cannot be requested: {e}"))?;
    let mut builder = Request::post(uri);
    let mut has_agent = false;
    for (name, value) in &request.headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|_| format!("the header name {name:?} is not valid"))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|_| format!("the value of header {name} is not valid"))?;
        has_agent |= name == header::USER_AGENT;
        builder = builder.header(name, value);
    }
    if !has_agent {
        builder = builder.header(header::USER_AGENT, USER_AGENT);
    }
    builder
        .body(Full::new(request.body.clone()))
        .map_err(|e| format!("the request cannot be made: {e}"))
}

/// An error and its causes in words, without repeats.
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    parts.join(": ")
}

/// At most [`EXCERPT_BYTES`] of lossy UTF-8, cut at a character boundary.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut end = text.len().min(EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// Resolves host names with the system's resolver and refuses a name when any of its
/// addresses is forbidden ([`is_forbidden`]) unless `allow_private`. The connector connects
/// only to the addresses returned here.
#[derive(Debug, Clone, Copy)]
struct CheckedResolver {
    allow_private: bool,
}

impl tower::Service<Name> for CheckedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let host = name.as_str();
            // Port 0: the connector puts the URL's port in.
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
                .await
                .map_err(|e| std::io::Error::other(format!("{host} cannot be resolved: {e}")))?
                .collect();
            if addrs.is_empty() {
                return Err(std::io::Error::other(format!("{host} has no address")));
            }
            if !allow_private {
                if let Some(bad) = addrs.iter().find(|a| is_forbidden(a.ip())) {
                    return Err(std::io::Error::other(format!(
                        "{host} resolves to {}, a loopback, private, link-local or reserved \
                         address, which this deployment does not deliver webhooks to",
                        bad.ip()
                    )));
                }
            }
            Ok(addrs.into_iter())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_cut_at_a_character_boundary_within_the_limit() {
        assert_eq!(excerpt(b"ok"), "ok");
        let long = "é".repeat(EXCERPT_BYTES);
        let cut = excerpt(&long.as_bytes()[..EXCERPT_BYTES - 1]);
        assert!(cut.len() <= EXCERPT_BYTES);
        assert!(cut.starts_with("éé"));
        // Invalid bytes become U+FFFD (3 bytes each): still within the limit.
        let invalid = excerpt(&[0xff; EXCERPT_BYTES]);
        assert!(invalid.len() <= EXCERPT_BYTES && invalid.len() >= EXCERPT_BYTES - 2);
        assert!(invalid.chars().all(|c| c == '\u{fffd}'));
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_forbidden_addresses_unless_allowed() {
        let name = |s: &str| s.parse::<Name>().unwrap();
        let refused = tower::Service::call(
            &mut CheckedResolver {
                allow_private: false,
            },
            name("localhost"),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(refused.contains("localhost resolves to"), "{refused}");
        let allowed: Vec<SocketAddr> = tower::Service::call(
            &mut CheckedResolver {
                allow_private: true,
            },
            name("localhost"),
        )
        .await
        .unwrap()
        .collect();
        assert!(!allowed.is_empty() && allowed.iter().all(|a| a.ip().is_loopback()));
        let unknown = tower::Service::call(
            &mut CheckedResolver {
                allow_private: true,
            },
            name("no-such-host.invalid"),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(unknown.contains("cannot be resolved"), "{unknown}");
    }

    #[tokio::test]
    async fn the_client_connects_only_through_the_checking_resolver() {
        // `check_url` would refuse this URL first; here the client itself is asked, to show
        // that its connector resolves with the checking resolver.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let request = Request::post(format!("http://localhost:{port}/"))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            client(false).unwrap().request(request),
        );
        let error = answer
            .await
            .expect("refused at once, not connected")
            .unwrap_err();
        let reason = describe(&error);
        assert!(reason.contains("localhost resolves to"), "{reason}");
    }

    #[test]
    fn errors_are_described_with_their_causes_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("client error (Connect)")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let outer = Outer(std::io::Error::other("connection refused"));
        assert_eq!(
            describe(&outer),
            "client error (Connect): connection refused"
        );
    }
}
