//! Reading `application/x-www-form-urlencoded` request bodies (the site's forms, the OAuth
//! endpoints).

use bytes::Bytes;
use http::{header, request::Parts};
use http_body_util::{BodyExt, Limited};

use crate::context::RequestBody;

/// The fields of a form body of at most `limit` bytes, in order; or what is wrong with it.
pub(crate) async fn read<B: RequestBody>(
    parts: &Parts,
    body: B,
    limit: usize,
) -> Result<Vec<(String, String)>, &'static str> {
    let form_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !form_type {
        return Err("the body must be application/x-www-form-urlencoded");
    }
    let bytes: Bytes = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|_| "the body is too large, or was cut off")?
        .to_bytes();
    Ok(form_urlencoded::parse(&bytes).into_owned().collect())
}
