//! podhost-http: the REST API of podhost over hyper.
//!
//! [`Api`] mounts a [`PodcastHost`](podhost_core::PodcastHost) as the REST API that
//! docs/api.md and `GET /api/docs` describe (both generated from the route table). It is a
//! `tower::Service`, so an application can mount it in its own hyper/tower stack and tests can
//! call it without a socket; [`serve`] runs it on a listener with graceful shutdown.
//!
//! This is the only crate that knows HTTP and the JSON wire shapes: the route tables ([`routes`](mod@routes))
//! declare every route once, requests are parsed into a typed [`Endpoint`], checked (token,
//! scope, query) by the API from the row, handled by calling the core, and answered with shapes
//! built in [`wire`]; the mapping from errors to statuses is in one place ([`error`]).
#![deny(missing_docs)]
#![recursion_limit = "256"]

mod cache;
mod config;
mod context;
mod docs;
mod documents;
mod downloads;
mod drain;
pub mod error;
mod fediverse;
mod fetcher;
mod forms;
mod handlers;
mod headers;
mod idempotency;
mod language;
mod metrics;
mod oauth;
mod openapi;
mod ops;
mod outbound;
mod page;
mod public;
mod ranges;
mod reference;
mod response;
pub mod routes;
mod sendfile;
mod server;
mod service;
mod site;
mod urls;
mod webhook_sender;
pub mod wire;

pub use config::HttpConfig;
pub use context::{Api, RequestBody};
pub use downloads::ClientAddr;
pub use fetcher::HttpFetcher;
pub use metrics::CONTENT_TYPE as METRICS_CONTENT_TYPE;
pub use routes::{Endpoint, Route, routes};
pub use server::{Server, serve, serve_metrics, shutdown_signal};
pub use service::ACCESS_LOG;
pub use webhook_sender::HttpWebhookSender;

/// The OpenAPI document of `host`'s API (as served at `/api/openapi.json`).
pub fn openapi_document(host: &podhost_core::PodcastHost) -> serde_json::Value {
    openapi::document(host)
}

/// The API reference as Markdown (`docs/api.md`), from the OpenAPI document of `host`'s API.
pub fn api_reference(host: &podhost_core::PodcastHost) -> String {
    reference::markdown(&openapi::document(host))
}
