//! The operator's answers: the probes (`/healthz`, `/readyz`) and the metrics, never stored
//! by a cache.

use crate::headers::SetHeader;
use bytes::Bytes;
use http::{Response, StatusCode, header};

use crate::{
    context::Api,
    response::{self, Body},
    routes::ops::OpsEndpoint,
    wire::ops::{Probe, ProbeStore},
};

/// The answer of a probe.
pub(crate) async fn answer(api: &Api, endpoint: OpsEndpoint) -> Response<Body> {
    let (status, probe) = match endpoint {
        OpsEndpoint::Metrics {} => {
            let mut answer = response::document(
                StatusCode::OK,
                crate::metrics::CONTENT_TYPE,
                Bytes::from(api.metrics_text()),
            );
            answer.headers_mut().put(header::CACHE_CONTROL, "no-store");
            return answer;
        }
        OpsEndpoint::Healthz {} => (StatusCode::OK, Probe::ok("ok")),
        OpsEndpoint::Readyz {} => {
            let store = api.host.store_format().await.ok().map(|format| ProbeStore {
                format,
                reads: podhost_core::store_format::FORMAT,
                release: podhost_core::store_format::RELEASE,
            });
            match api.host.readiness().await {
                Ok(()) => (
                    StatusCode::OK,
                    Probe {
                        store,
                        ..Probe::ok("ready")
                    },
                ),
                Err(reason) => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    Probe {
                        status: "unavailable",
                        reason: Some(reason),
                        store,
                    },
                ),
            }
        }
    };
    let mut answer = response::json(status, &probe);
    answer.headers_mut().put(header::CACHE_CONTROL, "no-store");
    answer
}
