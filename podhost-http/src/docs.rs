//! The API's own documentation: the OpenAPI document and the reference page made from it
//! (both rendered once, when the API is made).

use crate::headers::{self, HTML, SetHeader};
use http::{Response, StatusCode, header};

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
            headers::kept_to(
                answer.headers_mut(),
                &podhost_core::publish::page::site_policy(&[]),
            )
            .put(header::CONTENT_TYPE, HTML)
            .put(header::CACHE_CONTROL, "public, max-age=300");
            answer
        }
    }
}
