//! Webhooks: events about an account's objects, delivered to the URLs it subscribed, signed by
//! the Standard Webhooks specification, at least once, in order per endpoint.
//!
//! The core decides what to send, when, and records every attempt; sending itself is behind
//! [`WebhookSender`], implemented outside the core (podhost-http's hyper-util client), so the
//! core stays transport-free.

pub mod attempts;
pub mod event;
pub mod notify;
pub mod signature;
pub mod subscription;
pub mod target;

use std::time::Duration;

use bytes::Bytes;

/// How long a delivery attempt may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a response body an attempt keeps, in bytes.
pub const EXCERPT_BYTES: usize = 512;

/// One HTTP request to a subscriber: a `POST` of `body` to `url` with `headers`
/// (`webhook-id`, `webhook-timestamp`, `webhook-signature`, `content-type`); a `GET` without a
/// body for a Podping notification.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// `POST` (webhooks, WebSub) or `GET` (Podping).
    pub method: RequestMethod,
    /// The subscriber's URL (http or https).
    pub url: String,
    /// Headers to send, names in lowercase.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Bytes,
    /// Whether the deployment allows targets on loopback, private, link-local and metadata
    /// addresses (the sender checks the addresses the host name resolves to).
    pub allow_private: bool,
}

/// The method of a [`WebhookRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestMethod {
    /// `POST` with the body.
    #[default]
    Post,
    /// `GET`, no body.
    Get,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// The subscriber answered; a 2xx status is success. `excerpt` is the start of the
    /// response body (at most [`EXCERPT_BYTES`], lossy UTF-8).
    Answered {
        /// The HTTP status.
        status: u16,
        /// The start of the body.
        excerpt: String,
    },
    /// No answer: refused target, DNS failure, connection error, timeout ([`TIMEOUT`]).
    Failed {
        /// What went wrong, in words.
        reason: String,
    },
}

/// Sends webhook requests. Implementations must not follow redirects, must give up after
/// [`TIMEOUT`], must refuse targets whose addresses are loopback, private, link-local or cloud
/// metadata unless `allow_private` (see [`target::is_forbidden`]), and keep no more of a
/// response than [`EXCERPT_BYTES`].
#[async_trait::async_trait]
pub trait WebhookSender: std::fmt::Debug + Send + Sync {
    /// Sends one request and says how it ended. Never panics, never errors: every failure is
    /// a [`SendOutcome::Failed`].
    async fn send(&self, request: WebhookRequest) -> SendOutcome;
}
