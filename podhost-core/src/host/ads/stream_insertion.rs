//! The ads of a listener's video stream, answered for delivery: what the stream offers at the
//! catalog's version (kept per process, see `stream_offers.rs`), the listener's choice from it,
//! and whether a package is an ad's (its files may be served).

use super::{
    Ads,
    offers::Listener,
    stream_offers::{StreamChoice, choice, stream_offer},
};
use crate::{
    error::Result,
    ids::{AccountId, JobId},
};

impl Ads<'_> {
    /// The ads `listener` sees today in the stream of the video stored as `blob` (a file of
    /// `account`); `None` when it has none for them.
    pub async fn stream_choice(
        &self,
        account: &AccountId,
        blob: &str,
        listener: &Listener,
    ) -> Result<Option<StreamChoice>> {
        let Some(catalog) = self.host.existing_catalog(account).await? else {
            return Ok(None);
        };
        let now = self.host.now();
        let caches = self.state();
        let key = (account.clone(), blob.to_string());
        let version = catalog.fresh_seq().await;
        let offer = match caches.stream_offers.get(&key, &version, now) {
            Some(offer) => offer,
            None => {
                let (offer, changes_at) =
                    catalog.read(|state| stream_offer(state, blob, now)).await;
                caches
                    .stream_offers
                    .put(key, version, changes_at, offer.clone());
                offer
            }
        };
        Ok(offer.and_then(|offer| choice(&offer, listener, now)))
    }

    /// Whether `job` packaged an ad of `account` for streams (its files may be served).
    pub async fn is_stream_ad(&self, account: &AccountId, job: &JobId) -> Result<bool> {
        let Some(catalog) = self.host.existing_catalog(account).await? else {
            return Ok(false);
        };
        Ok(catalog
            .read(|state| {
                state
                    .ad_streams
                    .values()
                    .flatten()
                    .any(|s| s.ready && s.job == *job)
            })
            .await)
    }
}
