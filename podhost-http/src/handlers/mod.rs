//! One handler per endpoint, grouped by resource. Handlers enforce no rule: the API checked the
//! token, scope and query parameters from the route table, and the core checks the rest; they
//! translate between the wire and the core.

mod episodes;
mod feeds;
mod jobs;
mod media;
mod metadata;
mod multipart;
mod stats;
mod subscribers;
mod tokens;
mod webhooks;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header, request::Parts};
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

/// The handler of an endpoint with a token, after the API checked the scope and the query
/// parameters.
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
        E::UpdateMedia(id) => media::update(api, call, id).await,
        E::DeleteMedia(id) => media::delete(api, call, id).await,
        E::CopyMedia(id) => media::copy(api, call, id).await,
        E::ListFeeds => feeds::list(api, call).await,
        E::CreateFeed => feeds::create(api, call).await,
        E::ImportFeed => jobs::import(api, call).await,
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
        E::StatsCsv => stats::csv(api, call).await,
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
        E::ListTokens => tokens::list(api, call).await,
        E::ListSubscribers(feed) => subscribers::list(api, call, &feed).await,
        E::AddSubscriber(feed) => subscribers::add(api, call, &feed).await,
        E::RemoveSubscriber(feed, id) => subscribers::remove(api, call, &feed, &id).await,
        E::CreateToken => tokens::create(api, call).await,
        E::RevokeToken(id) => tokens::revoke(api, call, &id).await,
        // Without a token: `open`, the site and the OAuth endpoints.
        E::OpenApi
        | E::Rss(_)
        | E::Download(..)
        | E::Chapters(..)
        | E::PodcastPage(_)
        | E::EpisodePage(..)
        | E::PrivateRss(..)
        | E::PrivateDownload(..)
        | E::Authorize
        | E::Consent
        | E::OAuthToken
        | E::OAuthRevoke
        | E::OAuthMetadata
        | E::Home
        | E::Account
        | E::SignIn
        | E::SignOut
        | E::SiteCreateToken
        | E::SiteRevokeToken(_)
        | E::SiteCreateClient
        | E::SiteDeleteClient(_)
        | E::SiteRevokeGrant(_) => Err(ApiError::NoRoute),
    }
}

/// The handler of an endpoint without a token (the public side and the OpenAPI document).
pub(crate) async fn open(api: &Api, endpoint: Endpoint, parts: &Parts) -> Response<Body> {
    use Endpoint as E;
    match endpoint {
        E::OpenApi => response::json(StatusCode::OK, api.openapi()),
        E::Rss(feed) => crate::public::feed(api, parts, &feed).await,
        E::Download(account, blob, _name) => {
            crate::public::media(api, parts, &account, &blob).await
        }
        E::Chapters(account, blob) => crate::public::chapters(api, &account, &blob).await,
        E::PodcastPage(feed) => crate::page::page(api, parts, &feed, None).await,
        E::EpisodePage(feed, episode) => crate::page::page(api, parts, &feed, Some(episode)).await,
        E::PrivateRss(feed, key) => crate::public::private_feed(api, parts, &feed, &key).await,
        E::PrivateDownload(feed, key, blob) => {
            crate::public::private_media(api, parts, &feed, &key, &blob).await
        }
        // With a token: `dispatch`.
        _ => response::error(&ApiError::NoRoute),
    }
}

/// A 200 answer reused from the cache while the account is at the same version, else
/// rendered by `render` (the JSON body, serialized with [`response::json_body`], and when it changes by
/// itself) and kept.
async fn cached<F, Fut>(
    api: &Api,
    who: &podhost_core::Principal,
    request_line: &str,
    render: F,
) -> Answer
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<(Bytes, Option<jiff::Timestamp>), ApiError>>,
{
    if !api.config.cache_lists {
        let (body, _) = render().await?;
        return Ok(response::json_bytes(StatusCode::OK, body));
    }
    let version = api.host.account_version(who).await?;
    let account = who.account().as_str();
    if let Some(body) = api
        .cache
        .get(account, request_line, version, api.host.now())
    {
        return Ok(response::json_bytes(StatusCode::OK, body));
    }
    let (body, changes_at) = render().await?;
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

/// The answer with `Cache-Control: no-store` (it shows a secret).
fn no_store(mut answer: Response<Body>) -> Response<Body> {
    answer
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer
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

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use http::{HeaderMap, HeaderValue, header};
    use http_body_util::Full;
    use podhost_core::{Scope, Scopes};

    use super::dispatch;
    use crate::{
        Api, HttpConfig,
        api::Call,
        error::status_and_body,
        routes::{BodyKind, ROUTES, Route, route, samples::sample_path},
    };

    /// The headers and body of the row's example.
    fn example(row: &Route) -> (HeaderMap, Bytes) {
        let mut headers = HeaderMap::new();
        let body = match row.body {
            BodyKind::None => Vec::new(),
            BodyKind::Json { example, .. } => {
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                example.as_bytes().to_vec()
            }
            BodyKind::Form { example, .. } => {
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/x-www-form-urlencoded"),
                );
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(example.iter())
                    .finish()
                    .into_bytes()
            }
            BodyKind::Multipart { file, example, .. } => {
                let boundary = "example-boundary";
                let mut body = Vec::new();
                for (name, value) in example {
                    body.extend_from_slice(
                        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
                    );
                }
                if let Some(file) = file {
                    body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{file}\"; filename=\"a.wav\"\r\n\r\n").as_bytes());
                    body.extend_from_slice(&podhost_testkit::fixtures::wav(0.1, 8000));
                    body.extend_from_slice(b"\r\n");
                }
                body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
                let content_type = format!("multipart/form-data; boundary={boundary}");
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_str(&content_type).unwrap(),
                );
                body
            }
        };
        (headers, Bytes::from(body))
    }

    /// The table's scopes are the core's: called past the API's own check, the core refuses
    /// (403) exactly the pairs of row and scope that the table refuses.
    #[tokio::test]
    async fn the_core_refuses_exactly_what_the_table_refuses() {
        let (host, _clock) =
            podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
        host.create_account("alice").await.unwrap();
        let owner = host.owner(&"alice".parse().unwrap()).await.unwrap();
        let api = Api::new(host.clone(), HttpConfig::default());
        for scope in Scope::ALL {
            let token = host
                .create_token(&owner, scope.as_str(), Scopes::from_iter([scope]))
                .await
                .unwrap();
            let who = host.authenticate(&token.secret).await.unwrap();
            for row in ROUTES.iter() {
                let Some(needed) = row.scope else { continue };
                let path = sample_path(row);
                let (_, endpoint) = route(&row.method, &path).unwrap();
                let (headers, body) = example(row);
                let call = Call {
                    who: who.clone(),
                    query: Vec::new(),
                    request_line: path.clone(),
                    headers,
                    body: Full::new(body),
                };
                let status = match dispatch(&api, endpoint, call).await {
                    Ok(answer) => answer.status(),
                    Err(e) => status_and_body(&e).0,
                };
                let refused = !Scopes::from_iter([scope]).allows(needed);
                assert_eq!(
                    status == http::StatusCode::FORBIDDEN,
                    refused,
                    "{scope} {} {}: {status}",
                    row.method,
                    row.path
                );
            }
        }
    }
}
