//! A local folder as the store: object_store's `LocalFileSystem` (with fsync on every write),
//! except that uploads are staged where podhost says, under names it chose, so that an upload
//! cut off by a crash is a file the sweep finds and removes without knowing object_store's
//! private staging names.
//!
//! ```text
//! {root}/.podhost/staging/{uuid}   an upload in progress; renamed into place when complete
//! {root}/.podhost/scratch/         jobs' working files (the default HostConfig::scratch_dir)
//! ```
//!
//! `.podhost` is never listed as objects.

use std::{
    fmt,
    ops::Range,
    os::unix::fs::FileExt,
    path::{Path as FsPath, PathBuf},
    sync::Arc,
    time::SystemTime,
};

use async_trait::async_trait;
use futures::{StreamExt, TryStreamExt, stream::BoxStream};
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, UploadPart,
    local::LocalFileSystem, path::Path,
};

/// The folder of podhost's own files in a local store.
const OWN: &str = ".podhost";

/// Where uploads in progress are staged.
pub(crate) fn staging_dir(root: &FsPath) -> PathBuf {
    root.join(OWN).join("staging")
}

/// The scratch folder that goes with a local store.
pub(crate) fn scratch_dir(root: &FsPath) -> PathBuf {
    root.join(OWN).join("scratch")
}

/// A local folder store whose uploads are staged in [`staging_dir`].
#[derive(Debug)]
pub(crate) struct LocalStore {
    inner: LocalFileSystem,
    root: PathBuf,
}

impl LocalStore {
    /// The store of the folder `root` (which exists), fsyncing every write.
    pub(crate) fn new(root: PathBuf) -> Result<Self> {
        let inner = LocalFileSystem::new_with_prefix(&root)?
            .with_fsync(true)
            .with_automatic_cleanup(true);
        Ok(LocalStore { inner, root })
    }
}

impl fmt::Display for LocalStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LocalStore({})", self.root.display())
    }
}

fn generic(e: std::io::Error) -> object_store::Error {
    object_store::Error::Generic {
        store: "LocalStore",
        source: Box::new(e),
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| generic(std::io::Error::other(e)))?
        .map_err(generic)
}

fn is_own(path: &Path) -> bool {
    path.parts().next().is_some_and(|p| p.as_ref() == OWN)
}

#[async_trait]
impl ObjectStore for LocalStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        _opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        let dest = self.inner.path_to_filesystem(location)?;
        let staging = staging_dir(&self.root).join(uuid::Uuid::new_v4().to_string());
        let path = staging.clone();
        let file = blocking(move || {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::File::create_new(&path)
        })
        .await?;
        Ok(Box::new(StagedUpload {
            file: Some(Arc::new(file)),
            staging: Some(staging),
            dest,
            offset: 0,
        }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> Result<Vec<bytes::Bytes>> {
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner
            .list(prefix)
            .try_filter(|meta| futures::future::ready(!is_own(&meta.location)))
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let mut listed = self.inner.list_with_delimiter(prefix).await?;
        listed.common_prefixes.retain(|p| !is_own(p));
        listed.objects.retain(|m| !is_own(&m.location));
        Ok(listed)
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// An upload written into a staging file at the offsets of its parts, then fsynced and renamed
/// into place (and the folder fsynced) when complete: it appears whole or not at all.
#[derive(Debug)]
struct StagedUpload {
    file: Option<Arc<std::fs::File>>,
    /// `None` once completed or aborted.
    staging: Option<PathBuf>,
    dest: PathBuf,
    offset: u64,
}

#[async_trait]
impl MultipartUpload for StagedUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let at = self.offset;
        self.offset += data.content_length() as u64;
        let file = self.file.clone();
        Box::pin(async move {
            let file = file.ok_or_else(|| generic(std::io::Error::other("the upload ended")))?;
            blocking(move || {
                let mut at = at;
                for chunk in data.iter() {
                    file.write_all_at(chunk, at)?;
                    at += chunk.len() as u64;
                }
                Ok(())
            })
            .await
        })
    }

    async fn complete(&mut self) -> Result<PutResult> {
        let (Some(file), Some(staging)) = (self.file.take(), self.staging.take()) else {
            return Err(generic(std::io::Error::other("the upload ended already")));
        };
        let dest = self.dest.clone();
        blocking(move || {
            file.sync_all()?;
            drop(file);
            let dir = dest
                .parent()
                .ok_or_else(|| std::io::Error::other("an object path without a folder"))?;
            std::fs::create_dir_all(dir)?;
            if let Err(e) = std::fs::rename(&staging, &dest) {
                let _ = std::fs::remove_file(&staging);
                return Err(e);
            }
            std::fs::File::open(dir)?.sync_all()?;
            Ok(())
        })
        .await?;
        Ok(PutResult {
            e_tag: None,
            version: None,
            extensions: Default::default(),
        })
    }

    async fn abort(&mut self) -> Result<()> {
        self.file = None;
        match self.staging.take() {
            Some(staging) => blocking(move || std::fs::remove_file(staging)).await,
            None => Ok(()),
        }
    }
}

impl Drop for StagedUpload {
    fn drop(&mut self) {
        if let Some(staging) = self.staging.take() {
            // Dropped without completing: the staged bytes go (the sweep would find them too).
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn_blocking(move || std::fs::remove_file(staging))),
                Err(_) => drop(std::fs::remove_file(staging)),
            }
        }
    }
}

/// Removes staged uploads of the store at `root` last written before `cutoff` (cut off by a
/// crash; younger ones may be in progress). Returns how many went.
pub(crate) async fn sweep_staging(root: &FsPath, cutoff: SystemTime) -> Result<usize> {
    let dir = staging_dir(root);
    blocking(move || {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|m| m < cutoff);
            if old && std::fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    })
    .await
}

/// Bytes a local-file download reads per blocking task: few enough tasks to keep up with a
/// loopback socket, small enough that a slow client holds little memory.
const FILE_CHUNK: u64 = 256 * 1024;

/// The longest body read in one blocking task (a podcast app's 1 MiB range): each hand-off to
/// the blocking pool and back cost about a tenth of the CPU of such a request (1 MiB ranges
/// beside nginx, CPU per request by `perf stat`: 324–408 µs in four chunks, 277–332 µs in one),
/// at up to this much held for a slow client. Longer bodies are read in [`FILE_CHUNK`]s.
const WHOLE_READ: u64 = 4 * FILE_CHUNK;

/// `range` of `file`, read in [`FILE_CHUNK`]s on the blocking pool.
pub(crate) fn file_chunks(
    file: std::fs::File,
    range: std::ops::Range<u64>,
) -> futures::stream::BoxStream<'static, crate::Result<bytes::Bytes>> {
    use std::io::{Read, Seek, SeekFrom};

    use futures::StreamExt;
    let state = (Some(file), range.start, range.end);
    futures::stream::try_unfold(state, |(file, at, end)| async move {
        let Some(mut file) = file else {
            return Ok(None);
        };
        if at >= end {
            return Ok(None);
        }
        let left = end - at;
        let want = if left <= WHOLE_READ { left } else { FILE_CHUNK };
        let read = tokio::task::spawn_blocking(move || {
            file.seek(SeekFrom::Start(at))?;
            let mut buf = Vec::with_capacity(want as usize);
            (&mut file).take(want).read_to_end(&mut buf)?;
            Ok::<_, std::io::Error>((file, buf))
        })
        .await
        .map_err(|e| crate::Error::storage(format!("reading a media file: {e}")))?;
        let (file, buf) =
            read.map_err(|e| crate::Error::storage(format!("reading a media file: {e}")))?;
        if buf.is_empty() {
            return Err(crate::Error::storage(
                "a media file is shorter than its record",
            ));
        }
        let next = at + buf.len() as u64;
        Ok(Some((bytes::Bytes::from(buf), (Some(file), next, end))))
    })
    .boxed()
}

/// Bytes of a file a download maps at a time: a video segment or an app's range in one, and
/// little held for a slow client.
const MAP_WINDOW: u64 = 2 << 20;

/// `range` of the file at `path` for a download, opened and its windows mapped on the caller's
/// thread: `None` when it cannot be opened (the store's own read then answers, or says why).
///
/// Nothing here waits on the disk but a cold inode's open: a mapping is made without its pages,
/// whose reading is only asked of the disk (`WILLNEED`), and the pages are read where they are
/// sent. nginx serves a file the same way. Each hand-off to the blocking pool (object_store's
/// open and stat, then one per window) cost more than these calls take; see docs/benchmarks.md.
pub(crate) fn mapped_range(
    path: &FsPath,
    range: std::ops::Range<u64>,
) -> Option<futures::stream::BoxStream<'static, crate::Result<bytes::Bytes>>> {
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    Some(mapped_chunks(file, range))
}

/// `range` of `file` for a download: windows of the file mapped into memory (each asked of the
/// disk, `WILLNEED`, so sending it seldom waits on the disk) and handed to the socket as they
/// are. The kernel copies the page cache's pages once, into the socket, where a read copied
/// them twice (into a buffer, then into the socket); a frontend that asks
/// [`file_behind`](super::mapping::file_behind) sends them from the file with no copy at all.
/// A window that cannot be mapped is read instead.
pub(crate) fn mapped_chunks(
    file: std::fs::File,
    range: std::ops::Range<u64>,
) -> futures::stream::BoxStream<'static, crate::Result<bytes::Bytes>> {
    use futures::StreamExt;
    let file = std::sync::Arc::new(file);
    let state = (file, range.start, range.end);
    futures::stream::try_unfold(state, |(file, at, end)| async move {
        if at >= end {
            return Ok(None);
        }
        let want = (end - at).min(MAP_WINDOW);
        let window = map_window(file.clone(), at, want)
            .map_err(|e| crate::Error::storage(format!("reading a media file: {e}")))?;
        let next = at + window.len() as u64;
        Ok(Some((window, (file, next, end))))
    })
    .boxed()
}

/// `len` bytes of `file` from `at`, mapped, its pages asked of the disk; read when mapping fails.
#[allow(unsafe_code)]
fn map_window(
    file: std::sync::Arc<std::fs::File>,
    at: u64,
    len: u64,
) -> std::io::Result<bytes::Bytes> {
    let size = file.metadata()?.len();
    if at + len > size {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "a media file is shorter than its record",
        ));
    }
    // SAFETY: a stored file is never changed in place: object_store writes a new version to
    // a temporary file renamed over the name, and a file deleted while mapped stays readable
    // until unmapped; its length was checked above, so no page of the window is past its end.
    // Asked of the disk now, without waiting for it: a socket that sends the window from the
    // file (`sendfile`) finds its pages in the page cache, and so does a reader of the mapping,
    // which is not made resident itself (mapping pages nobody reads cost a fifth of a download).
    #[cfg(target_os = "linux")]
    let _ = rustix::fs::fadvise(
        &*file,
        at,
        std::num::NonZeroU64::new(len),
        rustix::fs::Advice::WillNeed,
    );
    let mapped = unsafe {
        memmap2::MmapOptions::new()
            .offset(at)
            .len(len as usize)
            .map(&*file)
    };
    match mapped {
        // Registered: a socket that takes the file's pages directly sends them from the file.
        Ok(map) => Ok(bytes::Bytes::from_owner(super::mapping::MappedWindow::new(
            map, file, at,
        ))),
        Err(_) => {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = &*file;
            file.seek(SeekFrom::Start(at))?;
            let mut buf = Vec::with_capacity(len as usize);
            file.take(len).read_to_end(&mut buf)?;
            Ok(bytes::Bytes::from(buf))
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::TryStreamExt;

    use super::*;

    #[tokio::test]
    async fn a_mapped_download_sends_exactly_the_bytes_of_its_range() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("episode.bin");
        let len = 2 * MAP_WINDOW + 12_345;
        let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let window = MAP_WINDOW;
        for range in [
            0..len,
            0..1,
            1..window + 7,
            window - 3..window + 3,
            len - 1..len,
            4097..2 * window + 1,
        ] {
            let file = std::fs::File::open(&path).unwrap();
            let chunks: Vec<bytes::Bytes> = mapped_chunks(file, range.clone())
                .try_collect()
                .await
                .unwrap();
            assert!(chunks.iter().all(|c| c.len() as u64 <= MAP_WINDOW));
            let sent: Vec<u8> = chunks.concat();
            assert_eq!(
                sent,
                bytes[range.start as usize..range.end as usize],
                "{range:?}"
            );
        }
        // A file shorter than its record is an error, not a short answer.
        let file = std::fs::File::open(&path).unwrap();
        let past = mapped_chunks(file, len - 10..len + 10)
            .try_collect::<Vec<_>>()
            .await;
        assert!(past.is_err());
        // A file deleted while it is sent is sent whole.
        let file = std::fs::File::open(&path).unwrap();
        let mut stream = mapped_chunks(file, 0..len);
        let first = stream.try_next().await.unwrap().unwrap();
        std::fs::remove_file(&path).unwrap();
        let rest: Vec<bytes::Bytes> = stream.try_collect().await.unwrap();
        assert_eq!([vec![first], rest].concat().concat(), bytes);
    }

    #[tokio::test]
    async fn a_file_opened_by_its_path_is_sent_and_anything_else_left_to_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("episode.bin");
        std::fs::write(&path, b"0123456789").unwrap();
        let sent: Vec<bytes::Bytes> = mapped_range(&path, 2..7)
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(sent.concat(), b"23456");
        // The store's own read answers these, with its NotFound or its error.
        assert!(mapped_range(&dir.path().join("gone.bin"), 0..1).is_none());
        assert!(mapped_range(dir.path(), 0..1).is_none());
    }
}
