//! Draining unread request bodies: what a handler left of a request body is read and discarded
//! after the answer, up to a bound, like nginx's lingering close.
//!
//! A client that sends a whole upload without `Expect: 100-continue` is still writing when an
//! early answer (401, 403, 404, 413, 422) is ready. Were the connection closed with its bytes
//! unread, the kernel would answer them with a reset, and the client would lose the answer. So
//! handlers get a [`Shared`] proxy of the body while [`Api::handle`](crate::Api::handle) keeps
//! the [`Rest`]; once the answer is handed to hyper, the rest is read in a background task
//! (hyper reads a body polled from another task while it writes the answer), then the
//! connection goes on or closes cleanly.
//!
//! A keyed request ([`idempotency`](crate::idempotency)) needs the hash of its whole body: the
//! proxy hashes what it passes on once asked ([`Shared::digest`]), and the [`Digest`] reads
//! and hashes what the handler left.

use std::{
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderMap, header};
use hyper::body::{Body as HttpBody, Frame, SizeHint};

use sha2::{Digest as _, Sha256};

use crate::context::RequestBody;

struct Inner<B> {
    body: B,
    /// Whether anyone asked for the body (which makes hyper send `100 Continue`).
    polled: bool,
    /// The bytes read so far.
    read: u64,
    /// The hash of what was read, once asked for.
    sha: Option<Sha256>,
}

impl<B: RequestBody> Inner<B> {
    /// The next frame of the body, counted and hashed.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.read += data.len() as u64;
            if let Some(sha) = &mut self.sha {
                sha.update(data);
            }
        }
        polled
    }
}

/// The request body as handlers see it: reads go to the body the API still holds.
pub(crate) struct Shared<B> {
    inner: Arc<Mutex<Inner<B>>>,
}

/// What the API keeps of a request body, to discard what handlers left.
pub(crate) struct Rest<B> {
    inner: Arc<Mutex<Inner<B>>>,
    expects_continue: bool,
}

/// How much of an unread body is read after the answer, at most.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Bytes; a body with more left than this is not read at all (the reset would come anyway).
    pub(crate) max_bytes: u64,
    /// Time from the answer on.
    pub(crate) max_time: Duration,
}

fn lock<B>(inner: &Mutex<Inner<B>>) -> MutexGuard<'_, Inner<B>> {
    inner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Splits a request body into the proxy handlers read and the rest the API keeps.
pub(crate) fn share<B>(body: B, headers: &HeaderMap) -> (Shared<B>, Rest<B>) {
    let inner = Arc::new(Mutex::new(Inner {
        body,
        polled: false,
        read: 0,
        sha: None,
    }));
    let expects_continue = headers
        .get(header::EXPECT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"));
    (
        Shared {
            inner: inner.clone(),
        },
        Rest {
            inner,
            expects_continue,
        },
    )
}

impl<B: RequestBody> HttpBody for Shared<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut inner = lock(&self.inner);
        inner.polled = true;
        inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        lock(&self.inner).body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        lock(&self.inner).body.size_hint()
    }
}

impl<B: RequestBody> Rest<B> {
    /// Reads and discards what is left of the body in the background, within `limits`. Nothing
    /// is read when the body was read to its end, when the client waits for a
    /// `100 Continue` that nobody asked for (it will not send the body), or when more is left
    /// than the limit.
    pub(crate) fn discard(self, limits: Limits) {
        let (left, polled) = {
            let inner = lock(&self.inner);
            if inner.body.is_end_stream() {
                return;
            }
            (inner.body.size_hint().exact(), inner.polled)
        };
        if self.expects_continue && !polled {
            return;
        }
        if left.is_some_and(|left| left > limits.max_bytes) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let read = tokio::time::timeout(limits.max_time, read_to_end(&self.inner, limits));
            if read.await.is_err() {
                tracing::debug!("an unread request body took too long; the connection closes");
            }
        });
    }
}

/// Reads the body to its end or past `limits.max_bytes`; returns the bytes read.
async fn read_to_end<B: RequestBody>(inner: &Mutex<Inner<B>>, limits: Limits) -> u64 {
    let (read, _) = read_rest(inner, limits.max_bytes).await;
    if read > limits.max_bytes {
        tracing::debug!(
            read,
            "an unread request body is too long; the connection closes"
        );
    }
    read
}

/// Reads what is left of the body, until its end, a failure, or past `max` bytes; returns
/// the bytes read and whether the body failed.
async fn read_rest<B: RequestBody>(inner: &Mutex<Inner<B>>, max: u64) -> (u64, bool) {
    let mut read = 0u64;
    loop {
        let frame = std::future::poll_fn(|cx| lock(inner).poll_frame(cx)).await;
        match frame {
            Some(Ok(frame)) => {
                read += frame.data_ref().map_or(0, |d| d.len() as u64);
                if read > max {
                    return (read, false);
                }
            }
            Some(Err(_)) => return (read, true),
            None => return (read, false),
        }
    }
}

impl<B: RequestBody> Shared<B> {
    /// Hashes the body (SHA-256) from here on: asked before the handler reads it, the
    /// [`Digest`] gives the hash of the whole body.
    pub(crate) fn digest(&self) -> Digest<B> {
        lock(&self.inner).sha = Some(Sha256::new());
        Digest {
            inner: self.inner.clone(),
        }
    }
}

/// The hash of a body (see [`Shared::digest`]).
pub(crate) struct Digest<B> {
    inner: Arc<Mutex<Inner<B>>>,
}

impl<B: RequestBody> Digest<B> {
    /// The SHA-256 (hex) of the whole body: what the handler left is read (and hashed) first,
    /// at most `more` bytes of it. `None` past that, or when the body failed.
    pub(crate) async fn finish(self, more: u64) -> Option<String> {
        let (read, failed) = read_rest(&self.inner, more).await;
        if failed || read > more {
            return None;
        }
        let sha = lock(&self.inner).sha.take()?;
        Some(sha.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, StreamBody};

    /// A body of `chunks` chunks of 1 KiB that records how many were read.
    fn counted(chunks: usize) -> (impl RequestBody, Arc<std::sync::atomic::AtomicUsize>) {
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = read.clone();
        let stream = futures::stream::iter(0..chunks).map(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok::<_, std::io::Error>(Frame::data(Bytes::from(vec![0u8; 1024])))
        });
        (StreamBody::new(stream), read)
    }
    use futures::StreamExt;

    const LIMITS: Limits = Limits {
        max_bytes: 64 << 10,
        max_time: Duration::from_secs(5),
    };

    async fn settled() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    #[tokio::test]
    async fn what_a_handler_left_is_read_after_the_answer() {
        let (body, read) = counted(10);
        let (mut shared, rest) = share(body, &HeaderMap::new());
        // The handler reads one chunk, then answers.
        shared.frame().await.unwrap().unwrap();
        drop(shared);
        rest.discard(LIMITS);
        settled().await;
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 10);
    }

    #[tokio::test]
    async fn reading_stops_at_the_limit() {
        let (body, read) = counted(1000);
        let (_, rest) = share(body, &HeaderMap::new());
        rest.discard(LIMITS);
        settled().await;
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 65);
    }

    #[tokio::test]
    async fn a_client_waiting_for_100_continue_is_not_read_from() {
        let mut headers = HeaderMap::new();
        headers.insert(header::EXPECT, "100-continue".parse().unwrap());
        let (body, read) = counted(10);
        let (_, rest) = share(body, &headers);
        rest.discard(LIMITS);
        settled().await;
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 0);
        // Once a handler asked for the body, the client sends it: the rest is read.
        let (body, read) = counted(10);
        let (mut shared, rest) = share(body, &headers);
        shared.frame().await.unwrap().unwrap();
        rest.discard(LIMITS);
        settled().await;
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 10);
    }

    #[tokio::test]
    async fn a_body_longer_than_the_limit_is_not_read_at_all() {
        let body = http_body_util::Full::new(Bytes::from(vec![0u8; 100 << 10]));
        let (shared, rest) = share(body, &HeaderMap::new());
        rest.discard(LIMITS);
        settled().await;
        assert_eq!(shared.size_hint().exact(), Some(100 << 10), "untouched");
    }
}
