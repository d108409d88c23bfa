//! Windows of stored files mapped into memory for downloads, and which file and offset a slice
//! of one shows: so a frontend whose socket can take a file's pages directly (`sendfile(2)`)
//! sends them without copying them through the mapping, and any other frontend reads the bytes
//! as they are.
//!
//! A window registers its address range while it lives; [`file_behind`] finds the window a
//! slice lies in. Nothing else changes for a reader of the bytes.

use std::{
    collections::BTreeMap,
    fs::File,
    sync::{
        Arc, RwLock,
        atomic::{AtomicUsize, Ordering},
    },
};

use crate::lock::Shared;

/// A mapped window alive: its length, its file, the file offset of its first byte.
type Window = (usize, Arc<File>, u64);

/// The mapped windows alive, by their first address: looked up by every write of a socket that
/// can send files, so read-locked, and not at all while there is none.
static WINDOWS: RwLock<BTreeMap<usize, Window>> = RwLock::new(BTreeMap::new());
/// How many windows are alive.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Where a slice of a mapped window comes from.
#[derive(Debug, Clone)]
pub struct FileSlice {
    /// The stored file.
    pub file: Arc<File>,
    /// The offset in it of the slice's first byte.
    pub offset: u64,
}

/// The stored file and offset behind `bytes`, when they lie within one window of a file mapped
/// for a download; `None` for any other bytes. While the caller holds
/// `bytes`, the window stays mapped and the file open.
pub fn file_behind(bytes: &[u8]) -> Option<FileSlice> {
    if bytes.is_empty() || LIVE.load(Ordering::Acquire) == 0 {
        return None;
    }
    let at = bytes.as_ptr() as usize;
    let windows = WINDOWS.reading();
    let (&start, (len, file, offset)) = windows.range(..=at).next_back()?;
    (at + bytes.len() <= start + len).then(|| FileSlice {
        file: file.clone(),
        offset: offset + (at - start) as u64,
    })
}

/// A window of a stored file, mapped, registered while it lives.
pub(crate) struct MappedWindow {
    map: memmap2::Mmap,
}

impl MappedWindow {
    /// `map`, a window of `file` from `offset`, registered for [`file_behind`].
    pub(crate) fn new(map: memmap2::Mmap, file: Arc<File>, offset: u64) -> Self {
        if !map.is_empty() {
            WINDOWS
                .writing()
                .insert(map.as_ptr() as usize, (map.len(), file, offset));
            LIVE.fetch_add(1, Ordering::Release);
        }
        MappedWindow { map }
    }
}

impl AsRef<[u8]> for MappedWindow {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for MappedWindow {
    fn drop(&mut self) {
        if !self.map.is_empty() {
            WINDOWS.writing().remove(&(self.map.as_ptr() as usize));
            LIVE.fetch_sub(1, Ordering::Release);
        }
    }
}
