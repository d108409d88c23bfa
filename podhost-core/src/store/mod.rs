//! The store: opening it from a URL (a local folder, memory, or S3), where everything lives in
//! it ([`layout`]), and small helpers every module reads and writes it with.

pub(crate) mod budget;
pub mod format;
pub(crate) mod layout;
pub(crate) mod local;
pub mod mapping;
pub(crate) mod metered;

use std::{path::PathBuf, sync::Arc};

use object_store::{ObjectStore, ObjectStoreExt, memory::InMemory};

use crate::error::{Error, Result};

/// The embedded default store: a folder next to where podhost runs.
pub const DEFAULT_STORE: &str = "./podhost-data";

/// An opened store and, for a local folder, its root.
#[derive(Debug, Clone)]
pub struct OpenedStore {
    /// The store.
    pub store: Arc<dyn ObjectStore>,
    /// The folder, when the store is a local folder.
    pub local_root: Option<PathBuf>,
    /// For S3: presigned download URLs, so that enclosures can be served by S3 itself.
    pub presigner: Option<Arc<dyn Presigner>>,
    /// A scratch folder that goes with the store (for a local folder: `.podhost/scratch` in it),
    /// the default of [`HostConfig::scratch_dir`](crate::HostConfig::scratch_dir).
    pub scratch_dir: Option<PathBuf>,
}

/// Makes time-limited URLs under which the store itself serves an object to anyone (S3's
/// presigned GET URLs). Set as [`HostConfig::presigned_downloads`](crate::HostConfig) to
/// redirect enclosure downloads there instead of streaming them through podhost.
#[async_trait::async_trait]
pub trait Presigner: std::fmt::Debug + Send + Sync {
    /// A URL that answers `GET` (and ranges) for `path` until `expires_in` has passed.
    async fn presigned_get(
        &self,
        path: &object_store::path::Path,
        expires_in: std::time::Duration,
    ) -> Result<String>;
}

fn bad(message: String) -> Error {
    Error::invalid("store", message)
}

/// Opens a store by URL:
/// - a path or `file:///path`: a local folder (created if missing), with fsync on every write
///   and uploads staged in `.podhost/staging` (see `store/local.rs`);
/// - `memory://`: in memory, for tests;
/// - `s3://bucket[/prefix]`: S3 or an S3-compatible server (with the `s3` feature), configured
///   from the `AWS_*` variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
///   `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, ...).
pub fn open_store(url: &str) -> Result<OpenedStore> {
    if url == "memory://" {
        return Ok(OpenedStore {
            store: Arc::new(InMemory::new()),
            local_root: None,
            presigner: None,
            scratch_dir: None,
        });
    }
    if let Some(rest) = url.strip_prefix("s3://") {
        return open_s3(rest);
    }
    let path = match url.strip_prefix("file://") {
        Some(path) => PathBuf::from(path),
        None if url.contains("://") => {
            return Err(bad(format!(
                "unknown store URL \"{url}\": use a path, file://, memory:// or s3://"
            )));
        }
        None => PathBuf::from(url),
    };
    let cannot = |what: &str, e: &dyn std::fmt::Display| {
        bad(format!(
            "cannot {what} the store folder {}: {e}",
            path.display()
        ))
    };
    std::fs::create_dir_all(&path).map_err(|e| cannot("create", &e))?;
    let root = path.canonicalize().map_err(|e| cannot("open", &e))?;
    let local = local::LocalStore::new(root.clone()).map_err(|e| cannot("open", &e))?;
    Ok(OpenedStore {
        store: Arc::new(local),
        scratch_dir: Some(local::scratch_dir(&root)),
        local_root: Some(root),
        presigner: None,
    })
}

#[cfg(feature = "s3")]
fn open_s3(rest: &str) -> Result<OpenedStore> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    s3_store(
        object_store::aws::AmazonS3Builder::from_env(),
        bucket,
        prefix,
    )
}

/// An S3 store of `bucket` under `prefix`, the rest (endpoint, credentials, region) configured
/// by `builder` rather than the `AWS_*` variables [`open_store`] reads: for embedders and tests
/// that hold their settings themselves.
#[cfg(feature = "s3")]
pub fn open_s3_with(
    builder: object_store::aws::AmazonS3Builder,
    bucket: &str,
    prefix: &str,
) -> Result<OpenedStore> {
    s3_store(builder, bucket, prefix)
}

/// An S3 store of `bucket` under `prefix`, the rest configured by `builder`.
#[cfg(feature = "s3")]
fn s3_store(
    builder: object_store::aws::AmazonS3Builder,
    bucket: &str,
    prefix: &str,
) -> Result<OpenedStore> {
    use object_store::prefix::PrefixStore;
    if bucket.is_empty() {
        return Err(bad("an S3 store URL is s3://bucket[/prefix]".into()));
    }
    let s3 = Arc::new(
        builder
            .with_bucket_name(bucket)
            .build()
            .map_err(|e| bad(format!("cannot configure S3: {e}")))?,
    );
    let prefix = prefix.trim_matches('/').to_string();
    let store: Arc<dyn ObjectStore> = match prefix.as_str() {
        "" => s3.clone(),
        prefix => Arc::new(PrefixStore::new(s3.clone(), prefix)),
    };
    Ok(OpenedStore {
        store,
        local_root: None,
        presigner: Some(Arc::new(S3Presigner { s3, prefix })),
        scratch_dir: None,
    })
}

/// Presigned GET URLs of an S3 bucket, under the store's prefix.
#[cfg(feature = "s3")]
#[derive(Debug)]
struct S3Presigner {
    s3: Arc<object_store::aws::AmazonS3>,
    prefix: String,
}

#[cfg(feature = "s3")]
#[async_trait::async_trait]
impl Presigner for S3Presigner {
    async fn presigned_get(
        &self,
        path: &object_store::path::Path,
        expires_in: std::time::Duration,
    ) -> Result<String> {
        use object_store::signer::Signer;
        let full: object_store::path::Path = object_store::path::Path::from(self.prefix.as_str())
            .parts()
            .chain(path.parts())
            .collect();
        let url = self
            .s3
            .signed_url(object_store::signer::Method::GET, &full, expires_in)
            .await?;
        Ok(url.to_string())
    }
}

#[cfg(not(feature = "s3"))]
fn open_s3(_: &str) -> Result<OpenedStore> {
    Err(bad(
        "this build of podhost-core has no S3 support: enable its `s3` feature".into(),
    ))
}

/// Checks that the store honours conditional writes (a create refused when the object exists:
/// `If-None-Match: *` on S3), which every commit of the catalog relies on to keep concurrent
/// writers from erasing each other. It writes an object under `.podhost/probe/`, tries to
/// create it again, and deletes it. A store that lets the second create through is refused
/// with a message saying so: the deployment must not start on it.
pub async fn check_conditional_writes(store: &Arc<dyn ObjectStore>) -> Result<()> {
    use object_store::{Error as StoreError, PutMode, PutOptions};
    let path = layout::probe(&format!("{:016x}", rand::random::<u64>()));
    let create = || PutOptions {
        mode: PutMode::Create,
        ..Default::default()
    };
    let not_implemented =
        || no_conditional_writes("the store says create-if-absent is not implemented");
    match store.put_opts(&path, "1".into(), create()).await {
        Err(StoreError::NotImplemented { .. }) => return Err(not_implemented()),
        other => other?,
    };
    let second = store.put_opts(&path, "2".into(), create()).await;
    delete_quietly(store, &path).await?;
    match second {
        Err(StoreError::AlreadyExists { .. }) => Ok(()),
        Err(StoreError::NotImplemented { .. }) => Err(not_implemented()),
        Err(e) => Err(e.into()),
        Ok(_) => Err(no_conditional_writes(
            "a second create of the same object succeeded",
        )),
    }
}

fn no_conditional_writes(detail: &str) -> Error {
    Error::invalid(
        "store",
        format!(
            "the store does not honour conditional writes ({detail}): podhost needs create-if-absent \
             (S3 `If-None-Match: *` on PutObject, which AWS S3 documents and moto honours; Garage \
             does not check it) so that concurrent writers never erase each other; refusing to \
             start"
        ),
    )
}

/// Put-if-absent: `Ok(true)` when this call created the object, `Ok(false)` when it existed
/// (another writer, or another process, was first).
pub(crate) async fn put_if_absent(
    store: &Arc<dyn ObjectStore>,
    path: &object_store::path::Path,
    payload: object_store::PutPayload,
) -> Result<bool> {
    let opts = object_store::PutOptions {
        mode: object_store::PutMode::Create,
        ..Default::default()
    };
    match store.put_opts(path, payload, opts).await {
        Ok(_) => Ok(true),
        Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// An object's bytes; `None` when it does not exist.
pub(crate) async fn get_optional(
    store: &Arc<dyn ObjectStore>,
    path: &object_store::path::Path,
) -> Result<Option<bytes::Bytes>> {
    match store.get(path).await {
        Ok(got) => Ok(Some(got.bytes().await?)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// An object read as JSON; `None` when it does not exist.
pub(crate) async fn get_json<T: for<'de> serde::Deserialize<'de>>(
    store: &Arc<dyn ObjectStore>,
    path: &object_store::path::Path,
) -> Result<Option<T>> {
    let Some(bytes) = get_optional(store, path).await? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::storage(format!("{path} is unreadable: {e}")))
}

/// Deletes an object; one that is already gone is no error.
pub(crate) async fn delete_quietly(
    store: &Arc<dyn ObjectStore>,
    path: &object_store::path::Path,
) -> Result<()> {
    match store.delete(path).await {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_urls() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        let opened = open_store(nested.to_str().unwrap()).unwrap();
        assert_eq!(opened.local_root, Some(nested.canonicalize().unwrap()));
        let url = format!("file://{}", dir.path().display());
        assert!(open_store(&url).unwrap().local_root.is_some());
        assert!(open_store("memory://").unwrap().local_root.is_none());
        assert!(matches!(open_store("ftp://x"), Err(Error::Invalid(_))));
        assert!(matches!(open_store("s3://"), Err(Error::Invalid(_))));
    }

    /// Signing is local (no request to S3): the URL names the object under the prefix and
    /// carries a SigV4 signature that expires.
    #[cfg(feature = "s3")]
    #[tokio::test]
    async fn s3_presigned_urls() {
        let builder = object_store::aws::AmazonS3Builder::new()
            .with_access_key_id("AKIDEXAMPLE")
            .with_secret_access_key("secret")
            .with_region("eu-west-1");
        let opened = s3_store(builder, "bucket", "/deploy/one/").unwrap();
        let presigner = opened.presigner.expect("S3 presigns");
        let url = presigner
            .presigned_get(
                &object_store::path::Path::from("accounts/a/blobs/b"),
                std::time::Duration::from_secs(600),
            )
            .await
            .unwrap();
        assert!(url.contains("/deploy/one/accounts/a/blobs/b?"), "{url}");
        assert!(url.contains("X-Amz-Expires=600"), "{url}");
        assert!(url.contains("X-Amz-Signature="), "{url}");
        assert!(open_store("memory://").unwrap().presigner.is_none());
    }
}
