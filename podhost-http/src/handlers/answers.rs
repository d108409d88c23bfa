//! What handlers answer with: JSON in `{"data": …}`, 201 with a `Location`, answers reused from
//! the cache while the account is unchanged, the page of a list.

use crate::headers::SetHeader;
use bytes::Bytes;
use http::{Response, StatusCode, header};
use podhost_core::{FieldErrors, model::PageRequest};
use serde::Serialize;
use serde_json::Value;

use crate::{
    context::Api,
    error::ApiError,
    response::{self, Body},
    wire::Data,
};

pub(crate) type Answer = Result<Response<Body>, ApiError>;

/// A 200 answer reused from the cache while the account is at the same version, else
/// rendered by `render` (the JSON body, serialized with [`response::json_body`], and when it changes by
/// itself) and kept.
pub(super) async fn cached<F, Fut>(
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
    // Members see different answers to one request (their podcasts, their role): the key
    // names the member.
    let viewer = match who.member_id() {
        Some(member) => format!("{}/{member}", who.account()),
        None => who.account().to_string(),
    };
    let key = (viewer, request_line.to_string());
    if let Some(body) = api.cache.get(&key, &version, api.host.now()) {
        return Ok(response::json_bytes(StatusCode::OK, body));
    }
    let (body, changes_at) = render().await?;
    api.cache.put(key, version, changes_at, body.clone());
    Ok(response::json_bytes(StatusCode::OK, body))
}

/// `{"data": value}` with a status.
pub(super) fn data(status: StatusCode, value: impl Serialize) -> Answer {
    Ok(response::json(status, &Data { data: value }))
}

/// The answer with `Cache-Control: no-store` (it shows a secret).
pub(super) fn no_store(mut answer: Response<Body>) -> Response<Body> {
    answer.headers_mut().put(header::CACHE_CONTROL, "no-store");
    answer
}

/// 201 `{"data": value}` with a `Location`.
pub(super) fn created(location: &str, value: impl Serialize) -> Answer {
    Ok(with_location(
        response::json(StatusCode::CREATED, &Data { data: value }),
        location,
    ))
}

/// 201 with the bare record (media upload and copy) and a `Location`.
pub(super) fn created_record(location: &str, value: impl Serialize) -> Answer {
    Ok(with_location(
        response::json(StatusCode::CREATED, &value),
        location,
    ))
}

/// 202 with the queued job in `{"data": …}` and its URL as the `Location` (a job asked for,
/// an import begun).
pub(super) fn job_accepted(api: &Api, job: &podhost_core::model::Job) -> Answer {
    let location = crate::urls::ApiUrls::new(&api.host).job(&job.id);
    Ok(with_location(
        response::json(
            StatusCode::ACCEPTED,
            &Data {
                data: crate::wire::job(&api.host, job),
            },
        ),
        &location,
    ))
}

pub(super) fn with_location(mut answer: Response<Body>, location: &str) -> Response<Body> {
    answer.headers_mut().put_text(header::LOCATION, location);
    answer
}

/// `page[number]` and `page[size]` from the query (or a JSON body), bounds checked by the core.
pub(super) fn page(
    query: &[(String, String)],
    body: Option<&Value>,
) -> Result<PageRequest, ApiError> {
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
