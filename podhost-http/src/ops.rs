//! The probes' answers (`/healthz`, `/readyz`): never stored by a cache.

use http::{HeaderValue, Response, StatusCode, header};

use crate::{
    context::Api,
    response::{self, Body},
    routes::ops::OpsEndpoint,
    wire::ops::Probe,
};

/// The answer of a probe.
pub(crate) async fn answer(api: &Api, endpoint: OpsEndpoint) -> Response<Body> {
    let (status, probe) = match endpoint {
        OpsEndpoint::Healthz {} => (StatusCode::OK, Probe::ok("ok")),
        OpsEndpoint::Readyz {} => match api.host.readiness().await {
            Ok(()) => (StatusCode::OK, Probe::ok("ready")),
            Err(reason) => (
                StatusCode::SERVICE_UNAVAILABLE,
                Probe {
                    status: "unavailable",
                    reason: Some(reason),
                },
            ),
        },
    };
    let mut answer = response::json(status, &probe);
    answer
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer
}
