//! A symphonia `MediaSource` over an object in an object store, read with buffered range gets.
//!
//! Symphonia's I/O is synchronous, so the source must be used on a blocking thread (inside
//! `tokio::task::spawn_blocking`); each range get runs on the runtime through a captured
//! [`Handle`]. Nothing is read up front: the read-ahead starts at 64 KiB after every seek and
//! doubles on sequential reads up to 1 MiB, so header-only formats touch only the bytes they
//! need and a multi-gigabyte file is never held in memory. A budget caps the total bytes and
//! requests, so hostile content cannot make a reader pull a whole large object through.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use symphonia::core::io::MediaSource;
use tokio::runtime::Handle;

/// Read-ahead after a seek.
const MIN_FETCH: u64 = 64 * 1024;
/// Largest read-ahead on sequential reads.
const MAX_FETCH: u64 = 1024 * 1024;
/// Total bytes one source may fetch.
const BYTE_BUDGET: u64 = 96 * 1024 * 1024;
/// Total range requests one source may make.
const REQUEST_BUDGET: u32 = 2048;

/// A seekable, buffered reader over `[base, base + len)` of a stored object.
pub(crate) struct StoreSource {
    store: Arc<dyn ObjectStore>,
    location: Path,
    handle: Handle,
    /// Object offset of this source's position 0.
    base: u64,
    /// Bytes visible through this source.
    len: u64,
    /// Current position, relative to `base`.
    pos: u64,
    /// Buffered bytes and the relative position of their first byte.
    buf: Bytes,
    buf_start: u64,
    /// Size of the next fetch.
    fetch: u64,
    bytes_left: u64,
    requests_left: u32,
}

impl StoreSource {
    /// A source over the object's bytes from `base` to `size`, seeded with `head` (the object's
    /// first bytes, as sniffed) so that reading the start costs no request.
    pub(crate) fn new(
        store: Arc<dyn ObjectStore>,
        location: Path,
        handle: Handle,
        size: u64,
        base: u64,
        head: Bytes,
    ) -> Self {
        let base = base.min(size);
        let len = size - base;
        let seed = usize::try_from(base)
            .ok()
            .filter(|&b| b < head.len())
            .map(|b| head.slice(b..))
            .unwrap_or_default();
        let seed_len = usize::try_from(len).map_or(seed.len(), |l| l.min(seed.len()));
        StoreSource {
            store,
            location,
            handle,
            base,
            len,
            pos: 0,
            buf: seed.slice(..seed_len),
            buf_start: 0,
            fetch: MIN_FETCH,
            bytes_left: BYTE_BUDGET,
            requests_left: REQUEST_BUDGET,
        }
    }

    /// A source over the whole object (`size` bytes) with no byte or request budget, for readers
    /// that must go through every byte (decoding for the analysis). The read-ahead stays bounded
    /// (64 KiB after a seek, at most 1 MiB), so memory is constant whatever the object's size.
    pub(crate) fn whole(
        store: Arc<dyn ObjectStore>,
        location: Path,
        handle: Handle,
        size: u64,
    ) -> Self {
        let mut source = StoreSource::new(store, location, handle, size, 0, Bytes::new());
        source.bytes_left = u64::MAX;
        source.requests_left = u32::MAX;
        source
    }

    fn buffered(&self) -> Option<&[u8]> {
        let off = usize::try_from(self.pos.checked_sub(self.buf_start)?).ok()?;
        self.buf.get(off..).filter(|rest| !rest.is_empty())
    }

    fn refill(&mut self) -> io::Result<()> {
        let want = self.fetch.min(self.len - self.pos);
        if want > self.bytes_left || self.requests_left == 0 {
            return Err(io::Error::other("probe read budget exhausted"));
        }
        let start = self.base + self.pos;
        let range = start..start + want;
        let store = Arc::clone(&self.store);
        let location = self.location.clone();
        let got = self
            .handle
            .block_on(async move { store.get_range(&location, range).await })
            .map_err(io::Error::other)?;
        self.requests_left -= 1;
        self.bytes_left -= want;
        let keep = usize::try_from(want).map_or(got.len(), |w| w.min(got.len()));
        self.buf = got.slice(..keep);
        self.buf_start = self.pos;
        self.fetch = (self.fetch * 2).min(MAX_FETCH);
        Ok(())
    }
}

impl Read for StoreSource {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.pos >= self.len {
            return Ok(0);
        }
        if self.buffered().is_none() {
            self.refill()?;
        }
        let Some(avail) = self.buffered() else {
            // The store returned nothing: the object is shorter than claimed.
            return Ok(0);
        };
        let n = avail.len().min(out.len());
        let (dst, _) = out.split_at_mut(n);
        dst.copy_from_slice(avail.get(..n).unwrap_or_default());
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for StoreSource {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek out of range"))?;
        let in_buffer = target >= self.buf_start && target < self.buf_start + self.buf.len() as u64;
        if !in_buffer && target != self.pos {
            // A jump: restart the read-ahead small.
            self.fetch = MIN_FETCH;
        }
        self.pos = target;
        Ok(target)
    }
}

impl MediaSource for StoreSource {
    fn is_seekable(&self) -> bool {
        true
    }

    fn byte_len(&self) -> Option<u64> {
        Some(self.len)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use object_store::PutPayload;
    use object_store::memory::InMemory;

    #[test]
    fn reads_seeks_and_stops_at_the_end() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let loc = Path::from("obj");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        rt.block_on(store.put(&loc, PutPayload::from(data.clone())))
            .unwrap();
        let handle = rt.handle().clone();
        let head = Bytes::from(data[..1000].to_vec());
        let mut src = StoreSource::new(store, loc, handle, data.len() as u64, 10, head);
        assert_eq!(src.byte_len(), Some(299_990));
        let mut all = Vec::new();
        src.read_to_end(&mut all).unwrap();
        assert_eq!(all, &data[10..]);
        src.seek(SeekFrom::End(-5)).unwrap();
        let mut tail = Vec::new();
        src.read_to_end(&mut tail).unwrap();
        assert_eq!(tail, &data[data.len() - 5..]);
        src.seek(SeekFrom::Start(1_000_000)).unwrap();
        assert_eq!(src.read(&mut [0u8; 8]).unwrap(), 0);
        assert!(src.seek(SeekFrom::Current(-2_000_000)).is_err());
    }

    #[test]
    fn whole_has_no_budget_and_bounded_read_ahead() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let loc = Path::from("obj");
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
        rt.block_on(store.put(&loc, PutPayload::from(data.clone())))
            .unwrap();
        let mut src = StoreSource::whole(store, loc, rt.handle().clone(), data.len() as u64);
        // Far more requests than the probing budget allows: a jump before every read.
        let mut chunk = vec![0u8; 1000];
        for round in 0..3000u64 {
            let at = round * 1_000_003 % (data.len() as u64 - 1000);
            src.seek(SeekFrom::Start(at)).unwrap();
            let n = src.read(&mut chunk).unwrap();
            assert!(n > 0);
            assert_eq!(chunk[..n], data[at as usize..at as usize + n]);
            assert!(src.buf.len() as u64 <= MAX_FETCH);
        }
        src.seek(SeekFrom::Start(0)).unwrap();
        let mut all = Vec::new();
        src.read_to_end(&mut all).unwrap();
        assert_eq!(all, data);
    }
}
