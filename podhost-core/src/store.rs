//! Opening an object store from a URL: a local folder, memory, or S3.

use std::{path::PathBuf, sync::Arc};

use object_store::{ObjectStore, local::LocalFileSystem, memory::InMemory};

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
}

fn bad(message: String) -> Error {
    Error::invalid("store", message)
}

/// Opens a store by URL:
/// - a path or `file:///path`: a local folder (created if missing), with fsync on every write;
/// - `memory://`: in memory, for tests;
/// - `s3://bucket[/prefix]`: S3 or an S3-compatible server (with the `s3` feature), configured
///   from the `AWS_*` variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
///   `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, ...).
pub fn open_store(url: &str) -> Result<OpenedStore> {
    if url == "memory://" {
        return Ok(OpenedStore {
            store: Arc::new(InMemory::new()),
            local_root: None,
        });
    }
    if let Some(rest) = url.strip_prefix("s3://") {
        return open_s3(rest);
    }
    let path = match url.strip_prefix("file://") {
        Some(path) => PathBuf::from(path),
        None if url.contains("://") => {
            return Err(bad(format!(
                "unknown store URL {url:?}: use a path, file://, memory:// or s3://"
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
    let local = LocalFileSystem::new_with_prefix(&root)
        .map_err(|e| cannot("open", &e))?
        .with_fsync(true)
        .with_automatic_cleanup(true);
    Ok(OpenedStore {
        store: Arc::new(local),
        local_root: Some(root),
    })
}

#[cfg(feature = "s3")]
fn open_s3(rest: &str) -> Result<OpenedStore> {
    use object_store::{aws::AmazonS3Builder, prefix::PrefixStore};
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(bad("an S3 store URL is s3://bucket[/prefix]".into()));
    }
    let s3 = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .build()
        .map_err(|e| bad(format!("cannot configure S3: {e}")))?;
    let store: Arc<dyn ObjectStore> = match prefix.trim_matches('/') {
        "" => Arc::new(s3),
        prefix => Arc::new(PrefixStore::new(s3, prefix)),
    };
    Ok(OpenedStore {
        store,
        local_root: None,
    })
}

#[cfg(not(feature = "s3"))]
fn open_s3(_: &str) -> Result<OpenedStore> {
    Err(bad(
        "this build of podhost-core has no S3 support: enable its `s3` feature".into(),
    ))
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
}
