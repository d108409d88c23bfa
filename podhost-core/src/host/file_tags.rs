//! A stored file's tags, read through the store on a blocking thread (tag readers are
//! synchronous).

use std::sync::Arc;

use object_store::ObjectStore;

use crate::{
    ids::AccountId,
    model::{BlobKey, Media},
    tags::{self, Tags},
};

/// Reads a file's tags through the store (on a blocking thread: tag readers are synchronous).
pub(super) async fn read_file_tags(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    media: &Media,
) -> std::result::Result<Tags, tags::TagError> {
    read_blob_tags(store, account, &media.blob, media.size, &media.facts.mime).await
}

/// [`read_file_tags`] of a blob that has no record yet.
pub(super) async fn read_blob_tags(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    blob: &BlobKey,
    size: u64,
    mime: &str,
) -> std::result::Result<Tags, tags::TagError> {
    let mut source = crate::probe::store_source::StoreSource::whole(
        store.clone(),
        crate::store::layout::blob(account, blob),
        tokio::runtime::Handle::current(),
        size,
    );
    let mime = mime.to_owned();
    tokio::task::spawn_blocking(move || tags::read_tags(&mut source, &mime))
        .await
        .unwrap_or_else(|e| Err(tags::TagError::Corrupt(format!("the reader stopped: {e}"))))
}
