//! The API's own documentation: the OpenAPI document (built once, when the API is made).

use http::{Response, StatusCode};

use crate::{
    context::Api,
    response::{self, Body},
    routes::docs::DocsEndpoint,
};

/// Answers a request for the documentation.
pub(crate) fn answer(api: &Api, endpoint: DocsEndpoint) -> Response<Body> {
    match endpoint {
        DocsEndpoint::Openapi {} => response::json(StatusCode::OK, &*api.openapi),
    }
}
