//! Probes for a load balancer or an orchestrator: no token, no rate limit, never a download.

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
    /// conditional writes, answers reads; else 503 with the reason
    Readyz {} = GET "/readyz",
        Spec::open()
            .addition()
            .answers(200, "ready", Shape::Bare(schema::<wire::ops::Probe>()))
            .errors(&[503]);
}
