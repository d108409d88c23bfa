//! Building responses: JSON bodies with the headers every API response carries.

use crate::headers::{self, SetHeader};
use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::UnsyncBoxBody};

use crate::error::{ApiError, status_and_body};

/// The response body type of the API: bytes in memory, or a stream (enclosures).
pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// A body of bytes in memory.
pub fn full(bytes: Bytes) -> Body {
    Full::new(bytes)
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// A JSON response with the standard headers.
pub fn json(status: StatusCode, value: &impl serde::Serialize) -> Response<Body> {
    json_bytes(status, json_body(value))
}

/// A JSON body: a `json!` tree or a wire struct, serialized.
pub fn json_body(value: &impl serde::Serialize) -> Bytes {
    Bytes::from(
        serde_json::to_vec(value).unwrap_or_else(|_| b"{\"message\":\"internal error\"}".to_vec()),
    )
}

/// A response of JSON bytes rendered before, with the standard headers.
pub fn json_bytes(status: StatusCode, bytes: Bytes) -> Response<Body> {
    let mut response = Response::new(full(bytes));
    *response.status_mut() = status;
    standard_headers(&mut response);
    response
}

/// A document of `content_type` (not JSON) with the standard headers.
pub fn document(status: StatusCode, content_type: &'static str, bytes: Bytes) -> Response<Body> {
    let mut response = json_bytes(status, bytes);
    response
        .headers_mut()
        .put(header::CONTENT_TYPE, content_type);
    response
}

/// An empty response (204) with the standard headers.
pub fn no_content() -> Response<Body> {
    let mut response = Response::new(full(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    standard_headers(&mut response);
    response
}

/// The answer to an error.
pub fn error(error: &ApiError) -> Response<Body> {
    let (status, body) = status_and_body(error);
    let mut response = json(status, &body);
    match error {
        ApiError::MethodNotAllowed(allowed) => {
            let names: Vec<_> = allowed.iter().map(http::Method::as_str).collect();
            response
                .headers_mut()
                .put_text(header::ALLOW, &names.join(", "));
        }
        ApiError::RateLimited { retry_after } => {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
        }
        ApiError::Busy => {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(1u64));
        }
        ApiError::Core(
            podhost_core::Error::Throttled { retry_after }
            | podhost_core::Error::InProgress { retry_after }
            | podhost_core::Error::Unavailable { retry_after, .. },
        ) => {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(retry_after.as_secs().max(1)),
            );
        }
        _ => {}
    }
    response
}

fn standard_headers(response: &mut Response<Body>) {
    let headers = response.headers_mut();
    headers.put(header::CACHE_CONTROL, "no-cache, private");
    headers.put(header::CONTENT_TYPE, "application/json");
    headers::any_origin(headers);
}

/// The answer to a CORS preflight request.
pub fn preflight() -> Response<Body> {
    let mut response = no_content();
    let headers = response.headers_mut();
    headers.put(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        "GET, POST, PUT, DELETE, OPTIONS",
    );
    headers.put(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        "authorization, content-type, accept, x-request-id, idempotency-key",
    );
    headers.put(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        "x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after, location, \
             x-request-id, idempotent-replayed",
    );
    headers.put(header::ACCESS_CONTROL_MAX_AGE, "86400");
    response
}
