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
//! the API's), once one store request found the store not answering, the others fail at once:
//! a write makes several store requests in turn, and waiting out each would multiply the
//! deadline.
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

/// `request`, failed with [`Stalled`] when it takes longer than `after`.
async fn bounded<T>(
    operation: &'static str,
    after: Duration,
    request: impl Future<Output = Result<T>>,
) -> Result<T> {
    if super::stall::given_up() {
        return Err(Stalled {
            operation,
            after: Duration::ZERO,
        }
        .into_store_error());
    }
    match tokio::time::timeout(after, request).await {
        Ok(result) => result,
        Err(_) => {
            super::stall::stalled();
            Err(Stalled { operation, after }.into_store_error())
        }
    }
}

/// `stream`, each of whose items must come within `after` of asking for it.
fn bounded_stream<T: Send + 'static>(
    operation: &'static str,
    after: Duration,
    stream: BoxStream<'static, Result<T>>,
) -> BoxStream<'static, Result<T>> {
    futures::stream::unfold(Some(stream), move |stream| async move {
        let mut stream = stream?;
        if super::stall::given_up() {
            let given_up = Stalled {
                operation,
                after: Duration::ZERO,
            };
            return Some((Err(given_up.into_store_error()), None));
        }
        match tokio::time::timeout(after, stream.next()).await {
            Ok(Some(item)) => Some((item, Some(stream))),
            Ok(None) => None,
            // The stream ends with the failure.
            Err(_) => {
                super::stall::stalled();
                Some((Err(Stalled { operation, after }.into_store_error()), None))
            }
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

    /// Times `request` as `operation`, bounded by `deadline`.
    async fn timed<T>(
        &self,
        operation: &'static str,
        deadline: Duration,
        request: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        let started = Instant::now();
        let result = bounded(operation, deadline, request).await;
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
        let after = deadline_for(self.deadline, data.content_length());
        let part = self.inner.put_part(data);
        Box::pin(bounded("put_part", after, part))
    }

    async fn complete(&mut self) -> Result<PutResult> {
        bounded("complete", self.deadline, self.inner.complete()).await
    }

    async fn abort(&mut self) -> Result<()> {
        bounded("abort", self.deadline, self.inner.abort()).await
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
        let deadline = deadline_for(self.deadline, payload.content_length());
        self.timed(
            "put",
            deadline,
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
            self.inner.get_opts(location, options),
        )
        .await
        .map(|mut got| {
            if let object_store::GetResultPayload::Stream(body) = got.payload {
                got.payload = object_store::GetResultPayload::Stream(bounded_stream(
                    "get",
                    self.deadline,
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
        self.timed(
            "get_ranges",
            deadline,
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
        bounded_stream("delete", self.deadline, self.inner.delete_stream(locations))
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
        let inner = bounded_stream("list", self.deadline, self.inner.list(prefix));
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
            self.inner.list_with_delimiter(prefix),
        )
        .await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.timed(
            "copy",
            self.deadline,
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
            .giving_up_after_a_stall()
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
}
