//! The store as the host uses it, timed and bounded: every request's duration by operation,
//! and its failures, go to the [`Metrics`](crate::metrics::Metrics). A get is timed to its
//! answer's head (the body streams afterwards, at the reader's pace).
//!
//! No request waits on the store longer than its deadline ([`HostConfig::store_timeout`], one
//! more second for each MiB it sends, and the same for each piece of a body or a listing): a
//! store that stalls, or a server cut off from it, fails the request with [`Stalled`], which the
//! core answers as [`Error::Unavailable`](crate::Error::Unavailable) (HTTP 503 with
//! `Retry-After`) instead of holding the caller until the store returns. The request may still
//! take effect at the store; sent again with its Idempotency-Key, it takes effect once.
//!
//! Within a request that gives up after a stall
//! ([`RequestContext::giving_up_after_a_stall`](crate::RequestContext::giving_up_after_a_stall):
//! the API's), its store requests together get one store timeout (and the per-MiB allowance),
//! and once one found the store not answering, the others fail at once: a write makes several
//! store requests in turn, and waiting out each, or a slow answer to each, would multiply the
//! deadline (see [`budget`](super::budget)).
//!
//! [`HostConfig::store_timeout`]: crate::HostConfig::store_timeout

use std::{
    fmt,
    ops::Range,
    sync::Arc,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use futures::{StreamExt, stream::BoxStream};
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, path::Path,
};

use crate::metrics::{Metrics, OperationLabel};

/// A store whose requests are timed and bounded by a deadline.
pub(crate) struct MeteredStore {
    inner: Arc<dyn ObjectStore>,
    metrics: Metrics,
    deadline: Duration,
}

/// A request to the store that did not answer within its deadline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stalled {
    /// The operation (`get`, `put`, `list`, ...).
    pub(crate) operation: &'static str,
    /// How long it was given.
    pub(crate) after: Duration,
}

impl fmt::Display for Stalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.after.is_zero() {
            write!(
                f,
                "the store did not answer an earlier request of this one; a {} was not tried",
                self.operation
            )
        } else {
            write!(
                f,
                "the store did not answer a {} within {:.0?}",
                self.operation, self.after
            )
        }
    }
}

impl std::error::Error for Stalled {}

impl Stalled {
    fn into_store_error(self) -> object_store::Error {
        object_store::Error::Generic {
            store: "podhost",
            source: Box::new(self),
        }
    }
}

/// The deadline of a request that sends `bytes`: `base`, and a second more per MiB.
fn deadline_for(base: Duration, bytes: usize) -> Duration {
    base + Duration::from_secs((bytes >> 20) as u64)
}

/// `wait`, failed with [`Stalled`] when it takes longer than `after` (or than what is left of
/// its API request's budget: see [`budget`](super::budget)),
/// or at once when the request gave up on the store; with the budget's hold on the wait, for
/// what the answer brings.
async fn within<F: Future>(
    operation: &'static str,
    after: Duration,
    sent: usize,
    wait: F,
) -> Result<(F::Output, super::budget::Waiting)> {
    let Ok((waiting, after)) = super::budget::begin(after, sent) else {
        return Err(not_tried(operation));
    };
    match tokio::time::timeout(after, wait).await {
        Ok(done) => Ok((done, waiting)),
        Err(_) => {
            waiting.stalled();
            Err(Stalled { operation, after }.into_store_error())
        }
    }
}

/// `request`, sending `sent` bytes, bounded as [`within`] says.
async fn bounded<T>(
    operation: &'static str,
    after: Duration,
    sent: usize,
    request: impl Future<Output = Result<T>>,
) -> Result<T> {
    within(operation, after, sent, request).await?.0
}

/// The failure of a request's wait that ran past its store budget (see
/// [`budget::waiting_for`](super::budget::waiting_for)), as a store request's: 503.
pub(crate) fn wait_stalled(operation: &'static str, after: Duration) -> object_store::Error {
    Stalled { operation, after }.into_store_error()
}

/// The failure of a store request not made: its API request gave up on the store.
fn not_tried(operation: &'static str) -> object_store::Error {
    Stalled {
        operation,
        after: Duration::ZERO,
    }
    .into_store_error()
}

/// `stream`, each of whose items must come within `base` of asking for it (bounded as
/// [`bounded`] is; `size` says how many bytes an item brought).
fn bounded_stream<T: Send + 'static>(
    operation: &'static str,
    base: Duration,
    size: fn(&T) -> usize,
    stream: BoxStream<'static, Result<T>>,
) -> BoxStream<'static, Result<T>> {
    futures::stream::unfold(Some(stream), move |stream| async move {
        let mut stream = stream?;
        match within(operation, base, 0, stream.next()).await {
            Ok((Some(item), waiting)) => {
                if let Ok(item) = &item {
                    waiting.received(size(item));
                }
                Some((item, Some(stream)))
            }
            Ok((None, _)) => None,
            // The stream ends with the failure.
            Err(e) => Some((Err(e), None)),
        }
    })
    .boxed()
}

impl MeteredStore {
    /// `inner`, timed into `metrics`, each request bounded by `deadline`.
    pub(crate) fn new(inner: Arc<dyn ObjectStore>, metrics: Metrics, deadline: Duration) -> Self {
        MeteredStore {
            inner,
            metrics,
            deadline,
        }
    }

    /// Times `request` as `operation`, sending `sent` bytes, bounded by `deadline`.
    async fn timed<T>(
        &self,
        operation: &'static str,
        deadline: Duration,
        sent: usize,
        request: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        let started = Instant::now();
        let result = bounded(operation, deadline, sent, request).await;
        record(&self.metrics, operation, started, result.is_ok());
        result
    }
}

/// A multipart upload whose parts and completion are bounded as the store's requests are.
#[derive(Debug)]
struct BoundedUpload {
    inner: Box<dyn MultipartUpload>,
    deadline: Duration,
}

#[async_trait]
impl MultipartUpload for BoundedUpload {
    fn put_part(&mut self, data: PutPayload) -> object_store::UploadPart {
        let sent = data.content_length();
        let after = deadline_for(self.deadline, sent);
        let part = self.inner.put_part(data);
        Box::pin(bounded("put_part", after, sent, part))
    }

    async fn complete(&mut self) -> Result<PutResult> {
        bounded("complete", self.deadline, 0, self.inner.complete()).await
    }

    async fn abort(&mut self) -> Result<()> {
        bounded("abort", self.deadline, 0, self.inner.abort()).await
    }
}

/// One request of `operation` begun at `started`, answered (`ok`) or failed: also for reads the
/// host makes of a local folder's files directly.
pub(crate) fn record(metrics: &Metrics, operation: &'static str, started: Instant, ok: bool) {
    let label = OperationLabel { operation };
    metrics
        .store_seconds
        .get_or_create(&label)
        .observe(started.elapsed().as_secs_f64());
    if !ok {
        metrics.store_errors.get_or_create(&label).inc();
    }
}

impl fmt::Debug for MeteredStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner)
    }
}

impl fmt::Display for MeteredStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner)
    }
}

#[async_trait]
impl ObjectStore for MeteredStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        let sent = payload.content_length();
        let deadline = deadline_for(self.deadline, sent);
        self.timed(
            "put",
            deadline,
            sent,
            self.inner.put_opts(location, payload, opts),
        )
        .await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        let inner = self
            .timed(
                "put_multipart",
                self.deadline,
                0,
                self.inner.put_multipart_opts(location, opts),
            )
            .await?;
        Ok(Box::new(BoundedUpload {
            inner,
            deadline: self.deadline,
        }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let operation = if options.head { "head" } else { "get" };
        let started = Instant::now();
        let result = bounded(
            operation,
            self.deadline,
            0,
            self.inner.get_opts(location, options),
        )
        .await
        .map(|mut got| {
            if let object_store::GetResultPayload::Stream(body) = got.payload {
                got.payload = object_store::GetResultPayload::Stream(bounded_stream(
                    "get",
                    self.deadline,
                    bytes::Bytes::len,
                    body,
                ));
            }
            got
        });
        // A missing object is an answer, not a failure of the store.
        let answered =
            !matches!(&result, Err(e) if !matches!(e, object_store::Error::NotFound { .. }));
        record(&self.metrics, operation, started, answered);
        result
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> Result<Vec<bytes::Bytes>> {
        let bytes: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        let deadline = deadline_for(self.deadline, bytes as usize);
        // Counted as moved when asked: the answer comes whole.
        self.timed(
            "get_ranges",
            deadline,
            bytes as usize,
            self.inner.get_ranges(location, ranges),
        )
        .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        let metrics = self.metrics.clone();
        let started = Instant::now();
        bounded_stream(
            "delete",
            self.deadline,
            |_| 0,
            self.inner.delete_stream(locations),
        )
        .map(move |result| {
            record(&metrics, "delete", started, result.is_ok());
            result
        })
        .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let metrics = self.metrics.clone();
        let started = Instant::now();
        let mut recorded = false;
        let inner = bounded_stream("list", self.deadline, |_| 0, self.inner.list(prefix));
        // Timed to its end (or its first failure).
        inner
            .map(Some)
            .chain(futures::stream::once(async { None }))
            .filter_map(move |item| {
                let out = match &item {
                    Some(Err(_)) if !recorded => {
                        recorded = true;
                        record(&metrics, "list", started, false);
                        item
                    }
                    None if !recorded => {
                        recorded = true;
                        record(&metrics, "list", started, true);
                        None
                    }
                    _ => item,
                };
                futures::future::ready(out)
            })
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.timed(
            "list",
            self.deadline,
            0,
            self.inner.list_with_delimiter(prefix),
        )
        .await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.timed(
            "copy",
            self.deadline,
            0,
            self.inner.copy_opts(from, to, options),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::ObjectStoreExt;
    use podhost_testkit::{Call, FaultStore};

    /// A store that never answers a get, behind the bound of 200 ms; what reached it.
    fn stalled() -> (FaultStore, MeteredStore) {
        let faulty = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
        let _held = faulty.gate(|call, _| call == Call::Get);
        let store = MeteredStore::new(
            Arc::new(faulty.clone()),
            Metrics::default(),
            Duration::from_millis(200),
        );
        (faulty, store)
    }

    #[tokio::test]
    async fn a_request_that_gives_up_after_a_stall_asks_the_store_nothing_more() {
        let (faulty, store) = stalled();
        let path = Path::from("a");
        let errors = crate::RequestContext::new(None)
            .giving_up_after_a_stall(Duration::from_millis(200))
            .run(async {
                let first = store.get(&path).await.unwrap_err().to_string();
                let second = store.get(&path).await.unwrap_err().to_string();
                let listed = store.list_with_delimiter(None).await;
                (first, second, listed)
            })
            .await;
        assert!(errors.0.contains("within 200ms"), "{}", errors.0);
        assert!(errors.1.contains("was not tried"), "{}", errors.1);
        assert!(errors.2.is_err());
        assert_eq!(faulty.counts().lists, 0, "the list never reached the store");

        // Outside such a request (background work), each request waits out its own bound.
        let (_, store) = stalled();
        for _ in 0..2 {
            let error = store.get(&path).await.unwrap_err().to_string();
            assert!(error.contains("within 200ms"), "{error}");
        }
    }

    #[tokio::test]
    async fn a_request_on_a_slow_store_gives_up_after_one_store_timeout_in_all() {
        // Each answer comes 100 ms late, within the bound of 1 s: 15 in turn take 1.5 s.
        let faulty = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
        let store = MeteredStore::new(
            Arc::new(faulty.clone()),
            Metrics::default(),
            Duration::from_secs(1),
        );
        let path = Path::from("a");
        store.put(&path, "x".into()).await.unwrap();
        faulty.set(podhost_testkit::Faults {
            delay: Some(Duration::from_millis(100)),
            ..Default::default()
        });
        faulty.reset_counts();
        let answered = crate::RequestContext::new(None)
            .giving_up_after_a_stall(Duration::from_secs(1))
            .run(async {
                let mut answered = 0;
                for _ in 0..15 {
                    match store.get(&path).await {
                        Ok(got) => {
                            got.bytes().await.unwrap();
                            answered += 1;
                        }
                        Err(e) => {
                            let e = e.to_string();
                            assert!(e.contains("did not answer"), "{e}");
                        }
                    }
                }
                answered
            })
            .await;
        assert!(
            answered <= 10,
            "{answered} answered: the store time is 1 s in all"
        );
        assert!(
            faulty.counts().gets <= 11,
            "no more than one store request past the budget reached the store: {:?}",
            faulty.counts()
        );

        // Work outside such a request waits for each answer.
        for _ in 0..15 {
            store.get(&path).await.unwrap();
        }
    }
}
