//! Ads: campaigns, what each episode offers a listener, the ads prepared before the first
//! listen (loudness measured, encoded to each episode's shape), the episode answered with its
//! ads stitched in per listener, and the campaigns' impressions.
//!
//! Its boundary is [`Ads`], reached through [`PodcastHost::ads`]; its commit hook (the
//! preparation of ads after the changes they depend on) is registered with the kernel. It
//! reaches analytics (the counted impressions) through that service's handle.
//!
//! **Invariant:** an episode with ads is never stored, and no request prepares one: the answer
//! is computed from stored parts per request, and the encodings and loudness it needs are asked
//! for by the hook of the commit that changed what they depend on.

pub(super) mod caches;
mod campaign_stats;
mod campaigns;
mod insertion;
pub(super) mod offers;
mod preparation;
mod stream_insertion;
mod stream_offers;

use super::{PodcastHost, kernel::Kernel};

pub use insertion::{Enclosure, RetimedText, StitchedEnclosure};
pub use offers::Listener;
pub use stream_offers::{StreamAd, StreamChoice};

/// The ads of a host: campaigns, insertion and impressions (see the module's docs). A borrowed
/// handle, cheap to make: `host.ads().create_campaign(&who, new)`.
#[derive(Clone, Copy)]
pub struct Ads<'h> {
    host: &'h PodcastHost,
}

impl PodcastHost {
    /// Registers ads' commit hook with the kernel: the preparation of ads after the changes
    /// they depend on.
    pub(super) fn register_ads(kernel: &mut Kernel<PodcastHost>) {
        kernel.register(|host, account| host.ad_preparation(account));
    }

    /// The ads service: campaigns, insertion and impressions.
    pub fn ads(&self) -> Ads<'_> {
        Ads { host: self }
    }
}

/// What this process keeps for ads (the kernel is reached through `host`).
impl Ads<'_> {
    fn state(&self) -> &caches::Caches {
        &self.host.inner.ads
    }
}
