//! A media file's audio as the jobs that decode it read it: from the store, with the
//! decoder's failures sorted into the store's (retried) and the file's (the job fails).

use crate::host::PodcastHost;
use crate::{
    analysis::AnalysisError, error::Error, ids::AccountId, model::Media,
    probe::store_source::StoreSource,
};

/// A media file's audio, as a source the decoder reads from the store.
pub(crate) fn source(host: &PodcastHost, account: &AccountId, media: &Media) -> Box<StoreSource> {
    Box::new(StoreSource::whole(
        host.store().clone(),
        crate::store::layout::blob(account, &media.blob),
        tokio::runtime::Handle::current(),
        media.size,
    ))
}

/// A decoding failure as a job's error.
pub(crate) fn decode_error(e: AnalysisError) -> Error {
    match e {
        // The store failed, not the file: a later attempt retries.
        AnalysisError::Io(e) => Error::storage(format!("reading the audio: {e}")),
        e => Error::invalid("media", e.to_string()),
    }
}
