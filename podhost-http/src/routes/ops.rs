//! Operating a deployment: probes for a load balancer or an orchestrator (no token), and the
//! metrics for Prometheus (a token of scope `metrics`). No rate limit; never a download.

use podhost_core::Action;

use crate::{
    routes::{Shape, Spec, declare::endpoints},
    wire::{self, schema::schema},
};

endpoints! {
    /// Probes for a load balancer or an orchestrator.
    pub enum OpsEndpoint: Ops, tag "operations";

    /// whether the process serves (liveness): 200 while it answers at all
    Healthz {} = GET "/healthz",
        Spec::open()
            .addition()
            .answers(200, "it serves", Shape::Bare(schema::<wire::ops::Probe>()));

    /// whether the process can serve (readiness): 200 while the store, checked at start for
    /// conditional writes, answers reads; else 503 with the reason. Either way, `store` gives
    /// the store's format, the newest format this server reads and its release (for an upgrade
    /// one server at a time)
    Readyz {} = GET "/readyz",
        Spec::open()
            .addition()
            .answers(200, "ready", Shape::Bare(schema::<wire::ops::Probe>()))
            .errors(&[503]);

    /// the server's metrics in Prometheus' text format: requests by route,
    /// durations, bytes sent, jobs, deliveries, commits, store requests, caches, downloads; also
    /// served without a token on `--metrics-listen`
    Metrics {} = GET "/metrics",
        Spec::token(Action::ReadMetrics)
            .addition()
            .answers(200, "the metrics", Shape::Document(crate::metrics::MEDIA_TYPE))
            .errors(&[401, 403]);
}
