//! Reading `multipart/form-data` bodies with multer: files stream on, text fields are collected.

use http::header;
use http_body_util::BodyDataStream;

use crate::{api::RequestBody, error::ApiError};

/// A multipart reader over a request body.
pub(super) fn reader<B: RequestBody>(
    headers: &http::HeaderMap,
    body: B,
) -> Result<multer::Multipart<'static>, ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| ApiError::BadRequest("the body must be multipart/form-data".into()))?;
    let boundary = multer::parse_boundary(content_type).map_err(|_| {
        ApiError::BadRequest("the body must be multipart/form-data with a boundary".into())
    })?;
    let stream = futures::StreamExt::map(BodyDataStream::new(body), |chunk| {
        chunk.map_err(|e| std::io::Error::other(e.to_string()))
    });
    Ok(multer::Multipart::new(stream, boundary))
}

/// A multer error as an API error: the client sent a broken body.
pub(super) fn bad(e: multer::Error) -> ApiError {
    ApiError::BadRequest(format!("malformed multipart body: {e}"))
}
