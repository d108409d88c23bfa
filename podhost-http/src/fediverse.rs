//! The fediverse's side of the server: WebFinger and NodeInfo, each public podcast's
//! ActivityPub actor, collections and posts (`application/activity+json`; a browser that asks
//! for HTML is sent to the podcast's page), and the inboxes, which read at most
//! [`MAX_ACTIVITY_BYTES`](podhost_core::activitypub::inbound::MAX_ACTIVITY_BYTES) and answer
//! `202 Accepted` or say why an activity is refused (400, 401, 403, 404, 429). The rules are the
//! core's (`host.fediverse()`); this file maps them to HTTP.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header, request::Parts};
use http_body_util::{BodyExt, Limited};
use podhost_core::{
    FediverseDocument, Inbound, InboxError, Refusal,
    activitypub::{documents::ACTIVITY_JSON, inbound::MAX_ACTIVITY_BYTES},
};

use crate::{
    context::{Api, RequestBody},
    error::ApiError,
    headers::SetHeader,
    response::{self, Body},
    routes::fediverse::FediverseEndpoint,
};

/// The `Content-Type` of the documents.
const CONTENT_TYPE: &str = "application/activity+json; charset=utf-8";

/// How long remote servers and caches may keep a document, in seconds.
const MAX_AGE: &str = "public, max-age=60";

/// Answers a request of the fediverse.
pub(crate) async fn answer<B: RequestBody>(
    api: &Api,
    endpoint: FediverseEndpoint,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    use FediverseEndpoint as E;
    let fediverse = api.host.fediverse();
    let document = match endpoint {
        E::WebFinger {} => return webfinger(api, parts).await,
        E::NodeInfoLinks {} => {
            let links = podhost_core::activitypub::documents::nodeinfo_links(api.host.urls());
            return json(&links, "application/json");
        }
        E::NodeInfo {} => {
            let info = fediverse.nodeinfo().await;
            return json(
                &info,
                "application/json; profile=\"http://nodeinfo.diaspora.software/ns/schema/2.1#\"",
            );
        }
        E::Inbox { feed_id } => return inbox(api, parts, Some(feed_id), body).await,
        E::SharedInbox {} => return inbox(api, parts, None, body).await,
        E::Actor { feed_id } => {
            if wants_html(parts) {
                return see_other(&api.host.urls().feed_page(&feed_id));
            }
            fediverse.actor(&feed_id).await
        }
        E::Outbox { feed_id } => {
            let page = query(parts, "page").map(|p| p.parse::<usize>());
            match page {
                Some(Err(_)) | Some(Ok(0)) => {
                    return response::error(&ApiError::BadRequest(
                        "page: a page number from 1".into(),
                    ));
                }
                Some(Ok(n)) => fediverse.outbox(&feed_id, Some(n)).await,
                None => fediverse.outbox(&feed_id, None).await,
            }
        }
        E::Followers { feed_id } => fediverse.followers(&feed_id).await,
        E::Featured { feed_id } => fediverse.featured(&feed_id).await,
        E::Note { feed_id, show_id } => {
            if wants_html(parts) {
                return see_other(&api.host.urls().episode_page(&feed_id, show_id));
            }
            fediverse.note(&feed_id, show_id).await
        }
        E::NoteActivity { feed_id, show_id } => fediverse.note_activity(&feed_id, show_id).await,
    };
    match document {
        Ok(FediverseDocument::Found(value)) => json(&value, CONTENT_TYPE),
        Ok(FediverseDocument::Gone) => gone(),
        Err(e) => response::error(&ApiError::Core(e)),
    }
}

/// `410 Gone`: the podcast was deleted (remote servers forget its actor).
fn gone() -> Response<Body> {
    response::json(
        StatusCode::GONE,
        &serde_json::json!({ "error": "this podcast was deleted" }),
    )
}

/// `GET /.well-known/webfinger?resource=…` (RFC 7033): 400 without a resource; any origin may
/// read it.
async fn webfinger(api: &Api, parts: &Parts) -> Response<Body> {
    let Some(resource) = query(parts, "resource") else {
        return response::error(&ApiError::BadRequest(
            "resource: the account to look up, such as acct:my-show@host".into(),
        ));
    };
    let mut answer = match api.host.fediverse().webfinger(&resource).await {
        Ok(FediverseDocument::Found(jrd)) => json(&jrd, "application/jrd+json"),
        Ok(FediverseDocument::Gone) => gone(),
        Err(e) => response::error(&ApiError::Core(e)),
    };
    answer
        .headers_mut()
        .put(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    answer
}

/// A POST to an inbox: the body read (413 past its bound), then the core's verdict.
async fn inbox<B: RequestBody>(
    api: &Api,
    parts: &Parts,
    feed: Option<podhost_core::FeedId>,
    body: B,
) -> Response<Body> {
    let bytes: Bytes = match Limited::new(body, MAX_ACTIVITY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return response::error(&ApiError::BodyTooLarge {
                what: "the activity".into(),
                limit: crate::error::Limit::Activity(MAX_ACTIVITY_BYTES as u64),
            });
        }
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or(parts.uri.path(), |p| p.as_str());
    let headers = parts
        .headers
        .iter()
        .filter_map(|(name, value)| {
            Some((name.as_str().to_string(), value.to_str().ok()?.to_string()))
        })
        .collect();
    // The path alone: the URL a signature must be made for is the deployment's public URL
    // and this path (the core's rule), whatever `Host` the request came with.
    let inbound = Inbound {
        feed,
        method: parts.method.as_str().to_string(),
        path: path.to_string(),
        headers,
        body: bytes,
        source: Some(crate::downloads::client_ip(
            parts,
            api.config.trust_forwarded_for,
        )),
    };
    match api
        .host
        .fediverse()
        .receive(inbound, api.fetcher.as_ref())
        .await
    {
        Ok(_) => {
            let mut answer = response::no_content();
            *answer.status_mut() = StatusCode::ACCEPTED;
            answer
        }
        Err(InboxError::Refused(refusal)) => refused(&refusal),
        Err(InboxError::Host(e)) => response::error(&ApiError::Core(e)),
    }
}

/// The answer to a refused activity: its status, and why in words.
fn refused(refusal: &Refusal) -> Response<Body> {
    let status = match refusal {
        Refusal::Malformed(_) => StatusCode::BAD_REQUEST,
        Refusal::Unsigned(_) | Refusal::ActorMismatch(_) => StatusCode::UNAUTHORIZED,
        Refusal::Blocked => StatusCode::FORBIDDEN,
        // The post answers 404 to everyone: so does a reaction to it.
        Refusal::NotPublic(_) => StatusCode::NOT_FOUND,
        Refusal::Throttled | Refusal::SourceThrottled => StatusCode::TOO_MANY_REQUESTS,
    };
    let mut answer = response::json(status, &serde_json::json!({ "error": refusal.to_string() }));
    if status == StatusCode::TOO_MANY_REQUESTS {
        answer
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("60"));
    }
    answer
}

/// A document as JSON of `content_type`, kept a minute by remote servers; it varies by
/// `Accept` (a browser is sent to the page).
fn json(value: &serde_json::Value, content_type: &'static str) -> Response<Body> {
    let mut answer = response::document(StatusCode::OK, content_type, response::json_body(value));
    let headers = answer.headers_mut();
    headers.put(header::CACHE_CONTROL, MAX_AGE);
    headers.put(header::VARY, "Accept");
    answer
}

/// Whether the request is a browser's, which asks for HTML and not for ActivityPub's JSON.
fn wants_html(parts: &Parts) -> bool {
    let accept = parts
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    accept.contains("text/html") && !accept.contains(ACTIVITY_JSON) && !accept.contains("ld+json")
}

/// `303 See Other` to `location`.
fn see_other(location: &str) -> Response<Body> {
    let mut answer = response::no_content();
    *answer.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(value) = HeaderValue::try_from(location) {
        answer.headers_mut().insert(header::LOCATION, value);
    }
    answer.headers_mut().put(header::VARY, "Accept");
    answer
}

/// The first value of a query parameter, decoded.
fn query(parts: &Parts, name: &str) -> Option<String> {
    form_urlencoded::parse(parts.uri.query()?.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}
