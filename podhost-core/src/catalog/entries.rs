//! The log's entries in the store: their keys, the put-if-absent that writes one, reading one.

use std::sync::Arc;

use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, path::Path};
use serde::de::DeserializeOwned;

use super::codec::{self, Entry};
use crate::{
    error::{Error, Result},
    store::layout,
};

pub(crate) fn entry_path(root: &Path, seq: u64) -> Path {
    layout::log_entry(root, seq)
}

pub(super) async fn put_if_absent(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
    bytes: impl Into<PutPayload>,
) -> Result<(), object_store::Error> {
    let opts = PutOptions {
        mode: PutMode::Create,
        ..Default::default()
    };
    store.put_opts(path, bytes.into(), opts).await.map(drop)
}

pub(super) async fn read_entry<C: DeserializeOwned>(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
) -> Result<Entry<C>> {
    read_entry_bytes(store, path).await.map(|(entry, _)| entry)
}

/// An entry and its bytes as stored.
pub(super) async fn read_entry_bytes<C: DeserializeOwned>(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
) -> Result<(Entry<C>, bytes::Bytes)> {
    let bytes = match store.get(path).await {
        Ok(got) => got.bytes().await?,
        Err(object_store::Error::NotFound { .. }) => {
            return Err(Error::not_found("log entry", path));
        }
        Err(e) => return Err(e.into()),
    };
    let entry: Entry<C> = codec::decode(&bytes, path)?;
    codec::check_version(entry.v, path)?;
    Ok((entry, bytes))
}
