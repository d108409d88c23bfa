//! The API as a service: route, authenticate, limit, check the scope and the query, dispatch,
//! answer; `HEAD` and the draining of unread bodies for every route.

use std::{convert::Infallible, future::Future, pin::Pin, sync::Arc, task::Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header, request::Parts};
use http_body_util::{BodyExt, Limited};
use hyper::body::Body as HttpBody;
use podhost_core::{FieldErrors, PodcastHost, Principal};
use serde_json::Value;

use crate::{
    config::HttpConfig,
    drain,
    error::ApiError,
    handlers,
    response::{self, Body},
    routes::{self, ParamError, Route, RouteError, Surface},
};

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
#[derive(Clone)]
pub struct Api {
    pub(crate) host: PodcastHost,
    pub(crate) config: Arc<HttpConfig>,
    openapi: Arc<Value>,
    pub(crate) cache: Arc<crate::cache::ResponseCache>,
    /// Episodes' JSON as list items.
    pub(crate) items: Arc<crate::cache::ItemCache>,
    /// Gzipped feeds and pages by ETag, compressed once per rendered version.
    pub(crate) gzipped: Arc<std::sync::Mutex<std::collections::HashMap<String, Bytes>>>,
    /// How webhook deliveries asked for through the API are sent.
    pub(crate) webhooks: Arc<dyn podhost_core::webhooks::WebhookSender>,
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

impl Api {
    /// The API over `host` with `config`.
    pub fn new(host: PodcastHost, config: HttpConfig) -> Self {
        let openapi = crate::openapi::document(&host);
        Api {
            config: Arc::new(config),
            host,
            openapi: Arc::new(openapi),
            cache: Arc::default(),
            items: Arc::default(),
            gzipped: Arc::default(),
            webhooks: Arc::new(crate::HttpWebhookSender::new()),
        }
    }

    /// The same API sending webhooks with `sender` (tests use wiremock or a recorder).
    pub fn with_webhook_sender(
        mut self,
        sender: Arc<dyn podhost_core::webhooks::WebhookSender>,
    ) -> Self {
        self.webhooks = sender;
        self
    }

    /// The host this API serves.
    pub fn host(&self) -> &PodcastHost {
        &self.host
    }

    /// Answers one request. What a handler left unread of the request body is read and
    /// discarded afterwards, within [`HttpConfig::drain_max_bytes`] and
    /// [`HttpConfig::drain_max_time`], so that the client gets the answer; a `HEAD` request gets
    /// its `GET` answer without the body.
    pub async fn handle<B: RequestBody>(&self, request: Request<B>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let (body, rest) = drain::share(body, &parts.headers);
        let head = parts.method == Method::HEAD;
        let mut answer = self.answer(parts, body).await;
        if head {
            without_body(&mut answer);
        }
        rest.discard(drain::Limits {
            max_bytes: self.config.drain_max_bytes,
            max_time: self.config.drain_max_time,
        });
        answer
    }

    /// The answer to a request: route (the table of `routes.rs`), then for routes with a scope
    /// authenticate (401), limit (429), check the scope (403) and the query parameters (422),
    /// then the handler.
    async fn answer<B: RequestBody>(&self, parts: Parts, body: B) -> Response<Body> {
        if parts.method == Method::OPTIONS {
            return response::preflight();
        }
        let (row, endpoint) = match routes::route(&parts.method, parts.uri.path()) {
            Ok(found) => found,
            Err(RouteError::NotFound(surface)) => return self.not_found(surface),
            Err(RouteError::MethodNotAllowed(allowed)) => {
                return response::error(&ApiError::MethodNotAllowed(allowed));
            }
            Err(RouteError::BadParameter(row, error)) => {
                // Authentication still comes first: no hints to strangers.
                if row.authenticated()
                    && let Err(e) = self.authenticate(&parts).await
                {
                    return response::error(&e);
                }
                // Off the API, a path that does not parse names nothing.
                return match error {
                    ParamError::BadRequest(message) if row.surface == Surface::Api => {
                        response::error(&ApiError::BadRequest(message))
                    }
                    _ => self.not_found(row.surface),
                };
            }
        };
        let query: Vec<(String, String)> = parts
            .uri
            .query()
            .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
            .unwrap_or_default();
        match row.surface {
            Surface::Site => return crate::site::answer(self, endpoint, &parts, body).await,
            Surface::OAuth if endpoint == routes::Endpoint::Authorize => {
                return crate::site::answer(self, endpoint, &parts, body).await;
            }
            Surface::OAuth => return crate::oauth::answer(self, endpoint, &parts, body).await,
            Surface::Api | Surface::Public | Surface::Page => {}
        }
        let Some(scope) = row.scope else {
            if let Err(e) = known_params(row, &query) {
                return response::error(&e);
            }
            return handlers::open(self, endpoint, &parts).await;
        };
        let who = match self.authenticate(&parts).await {
            Ok(who) => who,
            Err(e) => return response::error(&e),
        };
        let verdict = self.host.rate_check(&who).await;
        let mut answer = if verdict.allowed {
            let checked = who
                .require(scope)
                .map_err(ApiError::from)
                .and_then(|()| known_params(row, &query));
            match checked {
                Ok(()) => {
                    // The cache key: the path and the decoded parameters, sorted, so that
                    // spellings of one query share one entry.
                    let mut sorted: Vec<&(String, String)> = query.iter().collect();
                    sorted.sort();
                    let request_line = format!("{}?{:?}", parts.uri.path(), sorted);
                    let call = Call {
                        who,
                        query,
                        request_line,
                        headers: parts.headers,
                        body,
                    };
                    match handlers::dispatch(self, endpoint, call).await {
                        Ok(response) => response,
                        Err(e) => response::error(&e),
                    }
                }
                Err(e) => response::error(&e),
            }
        } else {
            let mut limited = response::error(&ApiError::RateLimited {
                retry_after: verdict.reset_in,
            });
            limited
                .headers_mut()
                .insert("x-ratelimit-reset", HeaderValue::from(verdict.reset_at));
            limited
        };
        let headers = answer.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from(verdict.limit));
        headers.insert(
            "x-ratelimit-remaining",
            HeaderValue::from(verdict.remaining),
        );
        answer
    }

    /// 404 as the surface answers it: a page for pages, JSON elsewhere.
    fn not_found(&self, surface: Surface) -> Response<Body> {
        match surface {
            Surface::Page | Surface::Site => crate::page::not_found(self),
            Surface::Api | Surface::Public | Surface::OAuth => response::error(&ApiError::NoRoute),
        }
    }

    /// The caller of a request with a bearer token. Failed attempts are throttled per client
    /// address by the core (429 after too many).
    async fn authenticate(&self, parts: &Parts) -> Result<Principal, ApiError> {
        let secret = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim)
            .ok_or(ApiError::Core(podhost_core::Error::Unauthenticated))?;
        let address = crate::downloads::client_ip(parts, self.config.trust_forwarded_for);
        Ok(self
            .host
            .authenticate_from(secret, &address.to_string())
            .await?)
    }

    /// The OpenAPI document.
    pub(crate) fn openapi(&self) -> &Value {
        &self.openapi
    }
}

/// Refuses query parameters an API route does not know (the public side takes any: apps add
/// their own).
fn known_params(row: &Route, query: &[(String, String)]) -> Result<(), ApiError> {
    if row.surface != Surface::Api {
        return Ok(());
    }
    let mut errors = FieldErrors::default();
    for (key, _) in query {
        if !row.knows(key) {
            errors.add(key.clone(), "unknown query parameter");
        }
    }
    Ok(errors.into_result()?)
}

/// The answer to `HEAD`: the `GET` answer's status and headers, `Content-Length` included, and
/// no body.
fn without_body(answer: &mut Response<Body>) {
    let status = answer.status();
    let bodyless = status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED;
    if !bodyless
        && !answer.headers().contains_key(header::CONTENT_LENGTH)
        && let Some(length) = answer.body().size_hint().exact()
    {
        answer
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    }
    *answer.body_mut() = response::full(Bytes::new());
}

impl<B: RequestBody> Call<B> {
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
                return Err(ApiError::BodyTooLarge(limit as u64));
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

impl<B: RequestBody> tower::Service<Request<B>> for Api {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let api = self.clone();
        Box::pin(async move { Ok(api.handle(request).await) })
    }
}
