//! Whether the request the current task works for gave up on the store: set by the timed store
//! ([`metered`](super::metered)) when one of the request's store requests did not answer in
//! time, read by it before each next one. Only a request that gives up after a stall
//! ([`RequestContext::giving_up_after_a_stall`](crate::RequestContext::giving_up_after_a_stall))
//! carries a flag; work outside one waits out each store request's own deadline.

use std::{
    future::Future,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

tokio::task_local! {
    static FLAG: Option<Arc<AtomicBool>>;
}

/// Runs `work` with `flag` as its request's (none: the request never gives up).
pub(crate) async fn scope<F: Future>(flag: Option<Arc<AtomicBool>>, work: F) -> F::Output {
    FLAG.scope(flag, work).await
}

/// Whether the current request gave up on the store.
pub(crate) fn given_up() -> bool {
    FLAG.try_with(|flag| flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)))
        .unwrap_or(false)
}

/// Notes that a store request of the current request did not answer in time.
pub(crate) fn stalled() {
    let _ = FLAG.try_with(|flag| {
        if let Some(flag) = flag {
            flag.store(true, Ordering::Relaxed);
        }
    });
}
