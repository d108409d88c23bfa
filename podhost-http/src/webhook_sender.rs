//! The HTTP implementation of the core's [`WebhookSender`], on the checked connections of
//! `outbound.rs`.
//!
//! Safety, as the trait asks: the URL is checked by
//! [`check_url`](podhost_core::webhooks::target::check_url); host names are resolved by the
//! connector's own checking resolver (`outbound.rs`), so a name cannot resolve to a public
//! address when checked and to a private one when connected (DNS rebinding). Redirects are
//! answers, never followed; the whole attempt is bounded by [`TIMEOUT`]; at most
//! [`EXCERPT_BYTES`] of a response body are read, then the connection is dropped.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Uri, header};
use http_body_util::{BodyExt as _, Full};
use podhost_core::webhooks::target::check_url;
use podhost_core::webhooks::{EXCERPT_BYTES, SendOutcome, TIMEOUT, WebhookRequest, WebhookSender};

use crate::outbound::{HttpsClient, client, describe};

/// The `user-agent` of deliveries (unless the request brings one).
const USER_AGENT: &str = concat!("podhost-webhooks/", env!("CARGO_PKG_VERSION"));

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
        let clients = client(false, Default::default())
            .and_then(|strict| Ok((strict, client(true, Default::default())?)));
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

/// The HTTP request of a webhook request (a `POST`, or a Podping `GET`), or why it cannot be
/// made.
fn build(request: &WebhookRequest) -> Result<Request<Full<Bytes>>, String> {
    // The URI has no fragment (it is never sent); `check_url` accepted the URL.
    let url = request.url.trim();
    let url = url.split_once('#').map_or(url, |(before, _)| before);
    let uri = Uri::try_from(url).map_err(|e| format!("the URL cannot be requested: {e}"))?;
    let mut builder = match request.method {
        podhost_core::webhooks::RequestMethod::Post => Request::post(uri),
        podhost_core::webhooks::RequestMethod::Get => Request::get(uri),
    };
    let mut has_agent = false;
    for (name, value) in &request.headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|_| format!("the header name \"{name}\" is not valid"))?;
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

/// At most [`EXCERPT_BYTES`] of lossy UTF-8, cut at a character boundary.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut end = text.len().min(EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
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
}
