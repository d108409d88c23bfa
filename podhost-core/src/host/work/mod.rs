//! Background work: jobs (analysis, mastering, imports) and their workers, the work index's
//! passes (scheduled publications, events to deliver), webhooks, WebSub and Podping, sweeps.
//!
//! Its boundary is [`Work`], reached through [`PodcastHost::work`]; its commit hook (the work
//! index) is registered with the kernel.
//!
//! **Invariant:** every piece of work is claimed through the store (a lease or a put-if-absent),
//! so servers sharing a store never do one piece twice at once, and an acknowledged piece of
//! work survives any of them being killed.

pub(crate) mod activitypub_rounds;
pub(crate) mod job_runs;
pub(crate) mod passes;
pub(crate) mod sweep;
pub(crate) mod webhook_rounds;

use super::{PodcastHost, kernel::Kernel};

/// The jobs, schedules, webhooks and sweeps of a host (see the module's docs). A borrowed handle, cheap to make and
/// `Copy`; its methods take it by value, so a future they return borrows only the host:
/// `host.work().submit_job(&who, kind, media, params)`.
#[derive(Clone, Copy)]
pub struct Work<'h> {
    pub(crate) host: &'h PodcastHost,
}

impl PodcastHost {
    /// Registers work's commit hook with the kernel: the work index (scheduled publications,
    /// events to deliver, the directory) follows every commit of an account.
    pub(super) fn register_work(kernel: &mut Kernel<PodcastHost>) {
        kernel.register(|host, account| host.work_index(account));
    }

    /// The jobs, schedules, webhooks and sweeps service.
    pub fn work(&self) -> Work<'_> {
        Work { host: self }
    }
}
