//! One handler per endpoint, grouped by resource. Handlers check nothing the core checks; they
//! translate between the wire and the core.

mod episodes;
mod feeds;
mod jobs;
mod media;
mod metadata;
mod multipart;
mod stats;
mod webhooks;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use podhost_core::{
    FieldErrors,
    model::{JobKind, PageRequest},
};
use serde_json::Value;

use crate::{
    api::{Api, Call, RequestBody},
    error::ApiError,
    response::{self, Body},
    routes::Endpoint,
};

type Answer = Result<Response<Body>, ApiError>;

pub(crate) async fn dispatch<B: RequestBody>(
    api: &Api,
    endpoint: Endpoint,
    call: Call<B>,
) -> Answer {
    use Endpoint as E;
    match endpoint {
        E::ListMedia => media::list(api, call).await,
        E::UploadMedia => media::upload(api, call).await,
        E::GetMedia(id) => media::get(api, call, id).await,
        E::DeleteMedia(id) => media::delete(api, call, id).await,
        E::CopyMedia(id) => media::copy(api, call, id).await,
        E::ListFeeds => feeds::list(api, call).await,
        E::CreateFeed => feeds::create(api, call).await,
        E::GetFeed(id) => feeds::get(api, call, id).await,
        E::UpdateFeed(id) => feeds::update(api, call, id).await,
        E::DeleteFeed(id) => feeds::delete(api, call, id).await,
        E::ListEpisodes(feed) => episodes::list(api, call, feed).await,
        E::CreateEpisode(feed) => episodes::create(api, call, feed).await,
        E::GetEpisode(feed, id) => episodes::get(api, call, feed, id).await,
        E::UpdateEpisode(feed, id) => episodes::update(api, call, feed, id).await,
        E::DeleteEpisode(feed, id) => episodes::delete(api, call, feed, id).await,
        E::CopyEpisode(feed, id) => episodes::copy(api, call, feed, id).await,
        E::StatsAccount => stats::get(api, call, None, None).await,
        E::StatsFeed(feed) => stats::get(api, call, Some(feed), None).await,
        E::StatsEpisode(feed, id) => stats::get(api, call, Some(feed), Some(id)).await,
        E::GenerateWaveform(id) => jobs::generate(api, call, id, JobKind::Waveform).await,
        E::GenerateSilence(id) => jobs::generate(api, call, id, JobKind::Silence).await,
        E::GetJob(id) => jobs::get(api, call, id).await,
        E::GetWaveform(id) => jobs::waveform(api, call, id).await,
        E::GetSilence(id) => jobs::silence(api, call, id).await,
        E::GetMetadata(id) => metadata::get(api, call, id).await,
        E::PutMetadata(id) => metadata::put(api, call, id).await,
        E::WebhooksProcessing => webhooks::process(api, call).await,
        E::ListWebhooks => webhooks::list(api, call).await,
        E::CreateWebhook => webhooks::create(api, call).await,
        E::GetWebhook(id) => webhooks::get(api, call, &id).await,
        E::DeleteWebhook(id) => webhooks::delete(api, call, &id).await,
        E::WebhookDeliveries(id) => webhooks::deliveries(api, call, &id).await,
        E::Redeliver(id, seq) => webhooks::redeliver(api, call, &id, seq).await,
        E::OpenApi => Err(ApiError::NoRoute),
    }
}

/// A 200 answer reused from the cache while the account is at the same version, else
/// rendered by `render` (the JSON and when it changes by itself) and kept.
async fn cached<F, Fut>(
    api: &Api,
    who: &podhost_core::Principal,
    request_line: &str,
    render: F,
) -> Answer
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<(Value, Option<jiff::Timestamp>), ApiError>>,
{
    let version = api.host.account_version(who).await?;
    let account = who.account().as_str();
    if let Some(body) = api
        .cache
        .get(account, request_line, version, api.host.now())
    {
        return Ok(response::json_bytes(StatusCode::OK, body));
    }
    let (value, changes_at) = render().await?;
    let body = Bytes::from(serde_json::to_vec(&value).unwrap_or_default());
    api.cache
        .put(account, request_line, version, changes_at, body.clone());
    Ok(response::json_bytes(StatusCode::OK, body))
}

/// `{"data": value}` with a status.
fn data(status: StatusCode, value: Value) -> Answer {
    Ok(response::json(
        status,
        &serde_json::json!({ "data": value }),
    ))
}

/// 201 `{"data": value}` with a `Location`.
fn created(location: &str, value: Value) -> Answer {
    Ok(with_location(
        response::json(StatusCode::CREATED, &serde_json::json!({ "data": value })),
        location,
    ))
}

/// 201 with the bare record (media upload and copy) and a `Location`.
fn created_record(location: &str, value: Value) -> Answer {
    Ok(with_location(
        response::json(StatusCode::CREATED, &value),
        location,
    ))
}

fn with_location(mut answer: Response<Body>, location: &str) -> Response<Body> {
    if let Ok(location) = HeaderValue::from_str(location) {
        answer.headers_mut().insert(header::LOCATION, location);
    }
    answer
}

/// `page[number]` and `page[size]` from the query (or a JSON body), bounds checked by the core.
fn page(query: &[(String, String)], body: Option<&Value>) -> Result<PageRequest, ApiError> {
    let mut errors = FieldErrors::default();
    let mut number_of = |query_key: &str, body_key: &str, field: &str| -> Option<i64> {
        let raw = query
            .iter()
            .find(|(k, _)| k == query_key)
            .map(|(_, v)| Value::String(v.clone()))
            .or_else(|| {
                body.and_then(|b| b.get("page"))
                    .and_then(|p| p.get(body_key))
                    .cloned()
            })?;
        let parsed = match &raw {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        if parsed.is_none() {
            errors.add(field, "must be a whole number");
        }
        parsed
    };
    let number = number_of("page[number]", "number", "page.number");
    let size = number_of("page[size]", "size", "page.size");
    errors.into_result()?;
    Ok(PageRequest::new(number, size)?)
}

/// Rejects query parameters that the endpoint does not know.
fn known_params(query: &[(String, String)], known: &[&str]) -> Result<(), ApiError> {
    let mut errors = FieldErrors::default();
    for (key, _) in query {
        if !known.contains(&key.as_str()) {
            errors.add(key.clone(), "unknown query parameter");
        }
    }
    Ok(errors.into_result()?)
}
