//! The request context every answer is made in: the [`Api`] (the host, the configuration, the
//! caches, the webhook sender) and, for the API's handlers, the [`Call`] after routing and
//! authentication. It imports none of the modules that use it: dispatch sits above it.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Body as HttpBody;
use podhost_core::{PodcastHost, Principal};
use serde_json::Value;

use crate::{cache, config::HttpConfig, error::ApiError, wire::Body};

/// A request body the API can read: any `http_body::Body` of `Bytes` (hyper's `Incoming`,
/// `http_body_util::Full` in tests, ...).
pub trait RequestBody:
    HttpBody<Data = Bytes, Error: std::error::Error + Send + Sync + 'static> + Send + Unpin + 'static
{
}

impl<B> RequestBody for B where
    B: HttpBody<Data = Bytes, Error: std::error::Error + Send + Sync + 'static>
        + Send
        + Unpin
        + 'static
{
}

/// The REST API over a [`PodcastHost`]: a cloneable `tower::Service` answering every request,
/// errors included (it never fails).
/// One `Arc` to clone per request.
#[derive(Clone)]
pub struct Api(pub(crate) Arc<ApiParts>);

/// What an [`Api`] holds (opaque: its parts are the crate's own).
#[derive(Clone)]
pub struct ApiParts {
    pub(crate) host: PodcastHost,
    pub(crate) config: Arc<HttpConfig>,
    pub(crate) openapi: Arc<Value>,
    /// The API reference page, rendered from the document.
    pub(crate) reference: Bytes,
    pub(crate) cache: Arc<cache::ResponseCache>,
    /// Episodes' JSON as list items.
    pub(crate) items: Arc<cache::ItemCache>,
    /// Gzipped feeds and pages by ETag, compressed once per rendered version.
    pub(crate) gzipped: Arc<cache::GzipCache>,
    /// How webhook deliveries asked for through the API are sent.
    pub(crate) webhooks: Arc<dyn podhost_core::webhooks::WebhookSender>,
    /// How the fediverse's actors and keys are fetched (an inbox's signer).
    pub(crate) fetcher: Arc<dyn podhost_core::import::fetch::Fetcher>,
    /// What this API counts, with the host's metrics.
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// Permits of the requests in progress ([`HttpConfig::max_in_flight`]).
    pub(crate) in_flight: Arc<tokio::sync::Semaphore>,
}

impl std::ops::Deref for Api {
    type Target = ApiParts;

    fn deref(&self) -> &ApiParts {
        &self.0
    }
}

/// A request after routing and authentication, as handlers see it.
pub(crate) struct Call<B> {
    pub(crate) who: Principal,
    pub(crate) query: Vec<(String, String)>,
    /// The path and query as sent: the key of cached answers.
    pub(crate) request_line: String,
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: B,
}

impl<B: RequestBody> Call<B> {
    /// Reads a JSON body of at most `limit` bytes as the wire type `T` (an empty body is
    /// `{}`), checked against `T`'s schema.
    pub(crate) async fn read<T>(self, limit: usize) -> Result<(Principal, T), ApiError>
    where
        T: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
    {
        let (who, _, body) = self.json(limit).await?;
        let value = Body::json(body).read::<T>()?;
        Ok((who, value))
    }

    /// The first value of a query parameter.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Reads a JSON body of at most `limit` bytes; `None` when the body is empty.
    pub(crate) async fn json(
        self,
        limit: usize,
    ) -> Result<(Principal, Vec<(String, String)>, Option<Value>), ApiError> {
        let bytes = match Limited::new(self.body, limit).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                return Err(ApiError::json_too_large(limit));
            }
            Err(e) => {
                return Err(ApiError::BadRequest(format!(
                    "the body could not be read: {e}"
                )));
            }
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok((self.who, self.query, None));
        }
        let value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::BadRequest(format!("malformed JSON: {e}")))?;
        Ok((self.who, self.query, Some(value)))
    }
}
