//! The store as the host uses it, timed: every request's duration by operation, and its
//! failures, go to the [`Metrics`](crate::metrics::Metrics). A get is timed to its answer's
//! head (the body streams afterwards, at the reader's pace).

use std::{fmt, ops::Range, sync::Arc, time::Instant};

use async_trait::async_trait;
use futures::{StreamExt, stream::BoxStream};
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, path::Path,
};

use crate::metrics::{Metrics, OperationLabel};

/// A store whose requests are timed.
pub(crate) struct MeteredStore {
    inner: Arc<dyn ObjectStore>,
    metrics: Metrics,
}

impl MeteredStore {
    pub(crate) fn new(inner: Arc<dyn ObjectStore>, metrics: Metrics) -> Self {
        MeteredStore { inner, metrics }
    }

    /// Times `request` as `operation`.
    async fn timed<T>(
        &self,
        operation: &'static str,
        request: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        let started = Instant::now();
        let result = request.await;
        record(&self.metrics, operation, started, result.is_ok());
        result
    }
}

fn record(metrics: &Metrics, operation: &'static str, started: Instant, ok: bool) {
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
        self.timed("put", self.inner.put_opts(location, payload, opts))
            .await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.timed(
            "put_multipart",
            self.inner.put_multipart_opts(location, opts),
        )
        .await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let operation = if options.head { "head" } else { "get" };
        let started = Instant::now();
        let result = self.inner.get_opts(location, options).await;
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
        self.timed("get_ranges", self.inner.get_ranges(location, ranges))
            .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        let metrics = self.metrics.clone();
        let started = Instant::now();
        self.inner
            .delete_stream(locations)
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
        let inner = self.inner.list(prefix);
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
        self.timed("list", self.inner.list_with_delimiter(prefix))
            .await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.timed("copy", self.inner.copy_opts(from, to, options))
            .await
    }
}
