//! The API's own documentation: the OpenAPI document and the reference page made from it
//! (both rendered once, when the API is made).

use http::{HeaderValue, Response, StatusCode, header};

use crate::{
    context::Api,
    response::{self, Body},
    routes::docs::DocsEndpoint,
};

/// Answers a request for the documentation.
pub(crate) fn answer(api: &Api, endpoint: DocsEndpoint) -> Response<Body> {
    match endpoint {
        DocsEndpoint::Openapi {} => response::json(StatusCode::OK, &*api.openapi),
        DocsEndpoint::ApiDocs {} => {
            let mut answer = Response::new(response::full(api.reference.clone()));
            let h = answer.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            if let Ok(v) = HeaderValue::from_str(&podhost_core::publish::page::site_policy(&[])) {
                h.insert(header::CONTENT_SECURITY_POLICY, v);
            }
            h.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            answer
        }
    }
}
