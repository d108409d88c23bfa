//! Requests a client may send again: `POST`, `PUT` and `DELETE` under `/api` with an
//! `Idempotency-Key` (the IETF httpapi draft, Stripe's API). The rules and the record live in
//! the core ([`podhost_core::idempotency`]); here the request's body is hashed as the handler
//! reads it, and the answer is kept or given again.
//!
//! The first request with a key runs, its commits recorded as steps of the key; while it runs
//! its server renews its claim, and a repeat meanwhile gets 409 with `Retry-After`. Its answer
//! (status, `Location`, body) is kept with the SHA-256 of the request's body. A repeat with the
//! same method, path and body gets that answer with `Idempotent-Replayed: true`; with another,
//! 422 naming the key. An answer of 500 or more is not kept: a repeat runs again, replaying the
//! steps that landed, so nothing is done twice.

use std::{
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use podhost_core::{
    Principal, RequestContext,
    idempotency::{Begin, KeyedRun, StoredAnswer},
};
use sha2::{Digest as _, Sha256};

use crate::{
    context::{Api, RequestBody},
    response::{self, Body},
    routes::{Route, Surface},
};

/// The request header of a key.
pub(crate) const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// The answer header of a repeat given the kept answer.
pub(crate) const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// How often a running keyed request's claim is renewed (well within its lease).
const RENEW_EVERY: Duration = Duration::from_secs(3);

/// The largest answer kept for repeats; a larger one is not kept (a repeat runs again,
/// replaying the steps that landed). The API's answers to writes are far smaller.
const MAX_KEPT_ANSWER: usize = 1 << 20;

/// Whether a route takes a key: the API's writes.
pub fn takes_key(row: &Route) -> bool {
    row.surface == Surface::Api && matches!(row.method, Method::POST | Method::PUT | Method::DELETE)
}

/// The request body as the handler reads it, hashed (when the request is keyed) as it goes; the
/// [`Digest`] kept beside reads what the handler left and gives the hash.
pub(crate) struct Hashed<B> {
    inner: Arc<Mutex<Inner<B>>>,
}

/// The hash of a [`Hashed`] body, once read to its end.
pub(crate) struct Digest<B> {
    inner: Arc<Mutex<Inner<B>>>,
}

struct Inner<B> {
    body: B,
    sha: Option<Sha256>,
    read: u64,
}

fn lock<B>(inner: &Mutex<Inner<B>>) -> MutexGuard<'_, Inner<B>> {
    inner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The body for the handler, hashing when `hash`, and its digest.
pub(crate) fn hashed<B>(body: B, hash: bool) -> (Hashed<B>, Digest<B>) {
    let inner = Arc::new(Mutex::new(Inner {
        body,
        sha: hash.then(Sha256::new),
        read: 0,
    }));
    (
        Hashed {
            inner: inner.clone(),
        },
        Digest { inner },
    )
}

impl<B: RequestBody> HttpBody for Hashed<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        poll_hashing(&mut lock(&self.inner), cx)
    }

    fn is_end_stream(&self) -> bool {
        lock(&self.inner).body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        lock(&self.inner).body.size_hint()
    }
}

fn poll_hashing<B: RequestBody>(
    inner: &mut Inner<B>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
    let polled = Pin::new(&mut inner.body).poll_frame(cx);
    if let Poll::Ready(Some(Ok(frame))) = &polled
        && let Some(data) = frame.data_ref()
    {
        inner.read += data.len() as u64;
        if let Some(sha) = &mut inner.sha {
            sha.update(data);
        }
    }
    polled
}

impl<B: RequestBody> Digest<B> {
    /// The SHA-256 (hex) of the whole body: what the handler left is read (and hashed) first,
    /// at most `more` bytes of it. `None` past that or when the body fails.
    async fn finish(self, more: u64) -> Option<String> {
        let limit = lock(&self.inner).read.saturating_add(more);
        loop {
            if lock(&self.inner).body.is_end_stream() {
                break;
            }
            let frame = std::future::poll_fn(|cx| poll_hashing(&mut lock(&self.inner), cx)).await;
            match frame {
                Some(Ok(_)) if lock(&self.inner).read > limit => return None,
                Some(Ok(_)) => {}
                Some(Err(_)) => return None,
                None => break,
            }
        }
        let sha = lock(&self.inner).sha.take()?;
        Some(hex(&sha.finalize()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Answers the keyed request `target` (its method, path and query) of `who` under `key`: runs
/// it with `run` (given the hashed body), or gives the kept answer again, or refuses it (409
/// while it runs elsewhere, 422 for another request under the key).
pub(crate) async fn answer<B, F, Fut>(
    api: &Api,
    who: &Principal,
    key: &HeaderValue,
    target: String,
    body: B,
    run: F,
) -> Response<Body>
where
    B: RequestBody,
    F: FnOnce(Hashed<B>) -> Fut,
    Fut: Future<Output = Response<Body>>,
{
    // A key that is not visible ASCII is refused by the core's check, as any other bad key.
    let key = String::from_utf8_lossy(key.as_bytes());
    let host = &api.host;
    let (hashed, digest) = hashed(body, true);
    match host.begin_keyed(who, &key, &target).await {
        Err(e) => response::error(&e.into()),
        Ok(Begin::Replay(kept)) => {
            let Some(sha) = digest.finish(host.config().max_upload_bytes).await else {
                return response::error(&crate::error::ApiError::BadRequest(
                    "the body could not be read to its end".into(),
                ));
            };
            match kept.replay(&sha) {
                Ok(kept) => {
                    let mut answer = rebuild(&kept);
                    answer
                        .headers_mut()
                        .insert(REPLAYED, HeaderValue::from_static("true"));
                    answer
                }
                Err(e) => response::error(&e.into()),
            }
        }
        Ok(Begin::Run(keyed)) => {
            let context = RequestContext::current()
                .unwrap_or_else(|| RequestContext::new(None))
                .keyed(&keyed);
            let answer = {
                let work = std::pin::pin!(context.run(run(hashed)));
                renewing(api, &keyed, work).await
            };
            keep(api, &keyed, answer, digest).await
        }
    }
}

/// Runs `work`, renewing this server's claim of the keyed request meanwhile.
async fn renewing<Fut: Future<Output = Response<Body>>>(
    api: &Api,
    keyed: &KeyedRun,
    mut work: Pin<&mut Fut>,
) -> Response<Body> {
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.tick().await;
    loop {
        tokio::select! {
            answer = &mut work => return answer,
            _ = ticks.tick() => {
                if let Err(e) = api.host.renew_keyed(keyed).await {
                    tracing::warn!(error = %e, "a keyed request's claim was not renewed");
                }
            }
        }
    }
}

/// Keeps the answer of a keyed request for its repeats (an error of 500 or more, and an answer
/// that cannot be kept, release the key instead) and gives it.
async fn keep<B: RequestBody>(
    api: &Api,
    keyed: &KeyedRun,
    answer: Response<Body>,
    digest: Digest<B>,
) -> Response<Body> {
    let release = |why: &'static str| async move {
        tracing::info!(why, "a keyed request's answer is not kept");
        if let Err(e) = api.host.release_keyed(keyed).await {
            tracing::warn!(error = %e, "a keyed request was not released");
        }
    };
    if answer.status().is_server_error() {
        release("a server error").await;
        return answer;
    }
    let (parts, body) = answer.into_parts();
    let bytes = match Limited::new(body, MAX_KEPT_ANSWER).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            tracing::warn!(error = %e, "a keyed request's answer failed");
            release("the answer failed").await;
            return response::error(&crate::error::ApiError::Core(
                podhost_core::Error::Storage {
                    message: format!("the answer failed: {e}"),
                    source: None,
                },
            ));
        }
    };
    // What the handler left unread is read as the drain would (an early refusal of a large
    // upload is not kept: nothing was done, and a repeat is refused the same way).
    let kept = match digest.finish(api.config.drain_max_bytes).await {
        None => None,
        Some(request_sha256) => kept(&parts, &bytes, request_sha256),
    };
    match kept {
        Some(kept) => {
            if let Err(e) = api.host.answer_keyed(keyed, kept).await {
                // The answer is still given; a repeat runs again, replaying the steps that
                // landed.
                tracing::warn!(error = %e, "a keyed request's answer was not kept");
            }
        }
        None => {
            release("the request's body was not read to its end, or the answer is not text").await
        }
    }
    Response::from_parts(parts, response::full(bytes))
}

/// What is kept of an answer: its status, `Location`, type and body (text).
fn kept(
    parts: &http::response::Parts,
    bytes: &Bytes,
    request_sha256: String,
) -> Option<StoredAnswer> {
    let body = String::from_utf8(bytes.to_vec()).ok()?;
    let header = |name: header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let location = header(header::LOCATION);
    // A secret (a new token) is shown once and kept nowhere in clear: a repeat is told the
    // request was carried out, and where its result is.
    let secret = parts
        .headers
        .get(header::CACHE_CONTROL)
        .is_some_and(|v| v.as_bytes() == b"no-store");
    Some(if secret {
        StoredAnswer {
            status: StatusCode::CONFLICT.as_u16(),
            location,
            content_type: Some("application/json".into()),
            body: serde_json::json!({
                "message": format!(
                    "this request was carried out ({}); its answer showed a secret, which is \
                     shown once",
                    parts.status
                )
            })
            .to_string(),
            request_sha256,
        }
    } else {
        StoredAnswer {
            status: parts.status.as_u16(),
            location,
            content_type: header(header::CONTENT_TYPE),
            body,
            request_sha256,
        }
    })
}

/// A kept answer as a response.
fn rebuild(kept: &StoredAnswer) -> Response<Body> {
    let status = StatusCode::from_u16(kept.status).unwrap_or(StatusCode::OK);
    let mut answer = response::json_bytes(status, Bytes::from(kept.body.clone()));
    let headers = answer.headers_mut();
    if let Some(location) = kept.location.as_deref().and_then(|l| l.parse().ok()) {
        headers.insert(header::LOCATION, location);
    }
    match kept.content_type.as_deref().map(HeaderValue::from_str) {
        Some(Ok(value)) => {
            headers.insert(header::CONTENT_TYPE, value);
        }
        _ => {
            headers.remove(header::CONTENT_TYPE);
        }
    }
    answer
}
