//! The API as a service: route, then answer by the endpoint's kind (for the API: authenticate,
//! limit, check the scope and the query, dispatch to the handlers); `HEAD` and the draining of
//! unread bodies for every route.

use std::{convert::Infallible, future::Future, pin::Pin, sync::Arc, task::Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header, request::Parts};
use hyper::body::Body as HttpBody;
use podhost_core::{FieldErrors, PodcastHost, Principal, RequestContext};

use crate::{
    config::HttpConfig,
    context::{Api, Call, RequestBody},
    docs, drain,
    error::ApiError,
    handlers, idempotency, oauth, page, public,
    response::{self, Body},
    routes::{self, ApiEndpoint, Endpoint, ParamError, Route, RouteError, Surface},
    site,
};

/// The header of a request's id.
const REQUEST_ID: http::HeaderName = http::HeaderName::from_static("x-request-id");

/// The tracing target of the access line, one at `info` for every request answered (its
/// status, time and the records it touched): `PODHOST_LOG=info,podhost::access=warn` turns
/// access lines off and keeps every other line.
pub const ACCESS_LOG: &str = "podhost::access";

impl Api {
    /// The API over `host` with `config`.
    pub fn new(host: PodcastHost, config: HttpConfig) -> Self {
        let openapi = crate::openapi::document(&host);
        Api(Arc::new(crate::context::ApiParts {
            in_flight: Arc::new(tokio::sync::Semaphore::new(config.max_in_flight)),
            config: Arc::new(config),
            reference: Bytes::from(crate::reference::page(&openapi)),
            openapi: Arc::new(openapi),
            cache: Arc::new(crate::cache::ResponseCache::counted(
                crate::cache::CACHE_BYTES,
                host.metrics().cache_counts("api_answers"),
            )),
            items: Arc::new(crate::cache::ItemCache::new(
                host.metrics().cache_counts("api_items"),
            )),
            gzipped: Arc::new(crate::cache::GzipCache::counted(
                crate::cache::CACHE_BYTES,
                host.metrics().cache_counts("gzip"),
            )),
            webhooks: Arc::new(crate::HttpWebhookSender::new()),
            fetcher: Arc::new(crate::HttpFetcher::new()),
            metrics: Arc::new(crate::metrics::Metrics::new(host.metrics())),
            host,
        }))
    }

    /// The server's metrics (the host's and this API's) in Prometheus' text format
    /// ([`METRICS_CONTENT_TYPE`](crate::METRICS_CONTENT_TYPE)): what
    /// `GET /metrics` answers, and what a separate metrics listener serves.
    pub fn metrics_text(&self) -> String {
        self.metrics.encode()
    }

    /// The same API sending webhooks with `sender` (tests use wiremock or a recorder).
    pub fn with_webhook_sender(
        mut self,
        sender: Arc<dyn podhost_core::webhooks::WebhookSender>,
    ) -> Self {
        Arc::make_mut(&mut self.0).webhooks = sender;
        self
    }

    /// The same API fetching the fediverse's actors and keys with `fetcher`.
    pub fn with_fetcher(mut self, fetcher: Arc<dyn podhost_core::import::fetch::Fetcher>) -> Self {
        Arc::make_mut(&mut self.0).fetcher = fetcher;
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
    ///
    /// Each request has an id: its `X-Request-Id` when sane, else a new one, answered in
    /// `X-Request-Id`. The core's work for the request runs as the request's
    /// ([`RequestContext`]), and every log line of it (and of the jobs and deliveries it
    /// starts) carries the id; one line at `info` says how it was answered.
    pub async fn handle<B: RequestBody>(&self, request: Request<B>) -> Response<Body> {
        let started = std::time::Instant::now();
        let (parts, body) = request.into_parts();
        let (body, rest) = drain::share(body, &parts.headers);
        let head = parts.method == Method::HEAD;
        let method = parts.method.clone();
        let routed = routes::route(&parts.method, parts.uri.path());
        // Logs and metrics name the route's template, never the path (which may carry a key).
        let template = match &routed {
            Ok((row, _)) | Err(RouteError::BadParameter(row, _)) => row.path,
            Err(_) => crate::metrics::UNMATCHED,
        };
        // Every log line of the request carries its id, method and route: the subscriber reads
        // them from the request's context (a span per request cost 5 % of a feed 304). A client
        // waits for the answer: once the store failed to answer one of its store requests, it
        // gets 503 rather than a wait for each of the others.
        let mut request =
            RequestContext::new(parts.headers.get(REQUEST_ID).and_then(|v| v.to_str().ok()))
                .labelled([
                    ("method", crate::metrics::method_label(&method)),
                    ("route", template),
                ])
                .giving_up_after_a_stall(self.host.config().store_timeout);
        if let Ok((row, _)) = &routed
            && row.surface.reads_latest()
        {
            request = request.reading_latest();
        }
        let id = HeaderValue::from_str(request.id()).ok();
        let context = request.clone();
        // Everything from here as the request's work, its access line last.
        let answered = async move {
            // Boxed: the answer's state is large, and the wrappers around it would copy it.
            let mut answer = Box::pin(self.answer(parts, routed, body)).await;
            if head {
                without_body(&mut answer);
            }
            rest.discard(drain::Limits {
                max_bytes: self.config.drain_max_bytes,
                max_time: self.config.drain_max_time,
            });
            // Read from what this server held while the store did not answer: how old it may be.
            if let Some(age) = context.stale_for() {
                let seconds = age.as_secs() + u64::from(age.subsec_nanos() > 0);
                answer
                    .headers_mut()
                    .insert(header::AGE, HeaderValue::from(seconds));
            }
            let took = started.elapsed().as_secs_f64();
            let records = context.touched();
            self.metrics
                .request(template, &method, answer.status().as_u16(), took, records);
            tracing::info!(
                target: ACCESS_LOG,
                status = answer.status().as_u16(),
                // To the microsecond.
                ms = (took * 1e6).round() / 1e3,
                records,
                "answered"
            );
            answer
        };
        let mut answer = request.run(answered).await;
        if let Some(id) = id {
            answer.headers_mut().insert(REQUEST_ID, id);
        }
        answer
    }

    /// The answer to a request: route (the tables of `routes/`), then by the endpoint's kind:
    /// for the API, authenticate (401), limit (429), check the scope (403) and the query
    /// parameters (422) from the row, then the handler; the others go to their own answers.
    async fn answer<B: RequestBody>(
        &self,
        parts: Parts,
        routed: Result<(&'static Route, Endpoint), RouteError>,
        body: drain::Shared<B>,
    ) -> Response<Body> {
        if parts.method == Method::OPTIONS {
            return response::preflight();
        }
        let (row, endpoint) = match routed {
            Ok(found) => found,
            Err(RouteError::NotFound(surface)) => return self.not_found(surface, &parts),
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
                    _ => self.not_found(row.surface, &parts),
                };
            }
        };
        // Shed past the limit of requests in progress; an operator's probe is never shed.
        let _working = match row.surface {
            Surface::Ops => None,
            _ => match self.in_flight.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => return response::error(&ApiError::Busy),
            },
        };
        let query: Vec<(String, String)> = parts
            .uri
            .query()
            .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
            .unwrap_or_default();
        match endpoint {
            Endpoint::Api(endpoint) => self.call(row, endpoint, parts, query, body).await,
            Endpoint::Docs(endpoint) => match known_params(row, &query) {
                Ok(()) => docs::answer(self, endpoint),
                Err(e) => response::error(&e),
            },
            Endpoint::Public(endpoint) => {
                let sent = crate::metrics::sent_by(&endpoint);
                let answer = public::answer(self, endpoint, &parts).await;
                match sent {
                    Some(sent) => answer.map(|body| self.metrics.counting(sent, body)),
                    None => answer,
                }
            }
            Endpoint::Page(endpoint) => page::answer(self, endpoint, &parts).await,
            Endpoint::Site(endpoint) => site::answer(self, endpoint, &parts, body).await,
            Endpoint::OAuth(endpoint) => oauth::answer(self, endpoint, &parts, body).await,
            Endpoint::Fediverse(endpoint) => {
                crate::fediverse::answer(self, endpoint, &parts, body).await
            }
            Endpoint::Ops(endpoint) => {
                // An operator's route with an action (the metrics) needs a token that may do it.
                if let Some(action) = row.action {
                    let allowed = match self.authenticate(&parts).await {
                        Ok(who) => who.authorize(action).map_err(ApiError::from),
                        Err(e) => Err(e),
                    };
                    if let Err(e) = allowed {
                        return response::error(&e);
                    }
                }
                crate::ops::answer(self, endpoint).await
            }
        }
    }

    /// A call of the API: the bearer token (401), the rate limit (429), the row's scope (403)
    /// and query parameters (422), then the handler; the rate limit's headers on the answer.
    async fn call<B: RequestBody>(
        &self,
        row: &Route,
        endpoint: ApiEndpoint,
        parts: Parts,
        query: Vec<(String, String)>,
        body: drain::Shared<B>,
    ) -> Response<Body> {
        let who = match self.authenticate(&parts).await {
            Ok(who) => who,
            Err(e) => return response::error(&e),
        };
        let verdict = self.host.access().rate_check(&who).await;
        let mut answer = if verdict.allowed {
            let checked = row
                .action
                .map_or(Ok(()), |action| who.authorize(action))
                .map_err(ApiError::from)
                .and_then(|()| known_params(row, &query));
            match checked {
                Ok(()) => {
                    // The cache key: the path and the decoded parameters, sorted, so that
                    // spellings of one query share one entry.
                    let mut sorted: Vec<&(String, String)> = query.iter().collect();
                    sorted.sort();
                    let request_line = format!("{}?{:?}", parts.uri.path(), sorted);
                    let key = idempotency::takes_key(row)
                        .then(|| parts.headers.get(idempotency::IDEMPOTENCY_KEY).cloned())
                        .flatten();
                    let target = format!("{} {}", parts.method, parts.uri);
                    // The caller of a keyed request, for its key's record.
                    let keyed = key.map(|key| (key, who.clone()));
                    let dispatch = |body| async move {
                        let call = Call {
                            who,
                            query,
                            request_line,
                            headers: parts.headers,
                            body,
                        };
                        // Boxed: the handlers' futures are large, and a keyed request wraps
                        // one in its own.
                        match Box::pin(handlers::dispatch(self, endpoint, call)).await {
                            Ok(response) => response,
                            Err(e) => response::error(&e),
                        }
                    };
                    match keyed {
                        Some((key, who)) => {
                            idempotency::answer(self, &who, &key, target, body, dispatch).await
                        }
                        None => dispatch(body).await,
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
    fn not_found(&self, surface: Surface, parts: &Parts) -> Response<Body> {
        match surface {
            Surface::Page | Surface::Site => page::not_found(self, parts),
            Surface::Api | Surface::Docs | Surface::Public | Surface::OAuth | Surface::Ops => {
                response::error(&ApiError::NoRoute)
            }
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
            .access()
            .authenticate_from(secret, &address.to_string())
            .await?)
    }
}

/// Refuses query parameters an API route does not know (the public side takes any: apps add
/// their own).
fn known_params(row: &Route, query: &[(String, String)]) -> Result<(), ApiError> {
    if !row.surface.strict_query() {
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
