//! Reading `multipart/form-data` bodies with multer: files stream on, text fields are collected.

use http::header;
use http_body_util::BodyDataStream;

use crate::{context::RequestBody, error::ApiError};

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

/// The largest text field of a form.
pub(super) const MAX_TEXT_FIELD: usize = 64 << 10;
/// All text fields of a form together.
pub(super) const MAX_TEXT_TOTAL: usize = 1 << 20;
/// The most fields a form may have.
pub(super) const MAX_FIELDS: usize = 200;

/// Reads a text field chunk by chunk, refusing (413) past [`MAX_TEXT_FIELD`] or when the form's
/// text would pass [`MAX_TEXT_TOTAL`] (`used` counts what the form's text fields took so far).
pub(super) async fn text(
    mut field: multer::Field<'static>,
    used: &mut usize,
) -> Result<String, ApiError> {
    let mut bytes = Vec::new();
    let name = field.name().unwrap_or_default().to_string();
    while let Some(chunk) = field.chunk().await.map_err(bad)? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_TEXT_FIELD {
            return Err(ApiError::BodyTooLarge {
                what: format!("the field {name}"),
                limit: crate::error::Limit::TextField(MAX_TEXT_FIELD as u64),
            });
        }
        if *used + bytes.len() > MAX_TEXT_TOTAL {
            return Err(ApiError::BodyTooLarge {
                what: "the form's text fields".into(),
                limit: crate::error::Limit::FormText(MAX_TEXT_TOTAL as u64),
            });
        }
    }
    *used += bytes.len();
    String::from_utf8(bytes)
        .map_err(|_| ApiError::BadRequest("a form field is not UTF-8 text".into()))
}

/// A multer error as an API error: the client sent a broken body.
pub(super) fn bad(e: multer::Error) -> ApiError {
    ApiError::BadRequest(format!("malformed multipart body: {e}"))
}
