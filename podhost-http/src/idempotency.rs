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

use crate::headers::SetHeader;
use std::{future::Future, pin::Pin, time::Duration};

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use podhost_core::{
    Principal, RequestContext,
    idempotency::{Begin, KeyedRun, StoredAnswer},
};

use crate::{
    context::{Api, RequestBody},
    drain::{Digest, Shared},
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

/// Answers the keyed request `target` (its method, path and query) of `who` under `key`: runs
/// it with `run` (given the body, hashed as it is read), or gives the kept answer again, or
/// refuses it (409 while it runs elsewhere, 422 for another request under the key).
pub(crate) async fn answer<B, F, Fut>(
    api: &Api,
    who: &Principal,
    key: &HeaderValue,
    target: String,
    body: Shared<B>,
    run: F,
) -> Response<Body>
where
    B: RequestBody,
    F: FnOnce(Shared<B>) -> Fut,
    Fut: Future<Output = Response<Body>>,
{
    // A key that is not visible ASCII is refused by the core's check, as any other bad key.
    let key = String::from_utf8_lossy(key.as_bytes());
    let host = &api.host;
    let digest = body.digest();
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
                    answer.headers_mut().put(REPLAYED, "true");
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
                let work = std::pin::pin!(context.run(run(body)));
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
            // The request gave up on the store (or the store failed it): released when the
            // store answers, outside the request's store budget and without holding its
            // answer, so that a repeat need not wait for the claim to run out.
            tracing::info!(error = %e, "a keyed request is released in the background");
            let (host, keyed) = (api.host.clone(), keyed.clone());
            tokio::spawn(async move {
                if let Err(e) = host.release_keyed(&keyed).await {
                    tracing::warn!(error = %e, "a keyed request was not released");
                }
            });
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
    if let Some(location) = kept.location.as_deref() {
        headers.put_text(header::LOCATION, location);
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
