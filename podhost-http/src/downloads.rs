//! Download reporting for statistics: who asked (the client address, through a trusted proxy's
//! `X-Forwarded-For` when configured) and how many bytes a media body really delivered, reported
//! to the core when the body ends, completed or cut off. Never delays or fails the download.

use std::{
    net::{IpAddr, Ipv4Addr, SocketAddr},
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use futures::Stream;
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use podhost_core::{PodcastHost, publish::PublicMedia, stats::Delivery};

use crate::{
    context::Api,
    response::{self, Body},
};

/// The peer address of the connection, put in each request's extensions by [`serve`](crate::serve).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub SocketAddr);

/// The listener of a request, by IAB's rule: the client's address and user agent.
pub(crate) fn listener(api: &Api, parts: &Parts) -> podhost_core::Listener {
    podhost_core::Listener {
        address: client_ip(parts, api.config.trust_forwarded_for),
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string(),
    }
}

/// A delivery of `range` to the client of `parts`, nothing sent yet.
pub(crate) fn delivery(
    api: &Api,
    parts: &Parts,
    account: &str,
    blob: &str,
    range: std::ops::Range<u64>,
    subscriber: Option<&str>,
) -> Delivery {
    let listener = listener(api, parts);
    Delivery {
        subscriber: subscriber.map(str::to_string),
        account: account.to_string(),
        blob: blob.to_string(),
        client: listener.address,
        user_agent: listener.user_agent,
        range,
        delivered: 0,
        stitched: None,
    }
}

/// A download redirected to the store's presigned URL (S3 then serves the bytes, ranges and
/// validators). The delivery is recorded as the range asked for: podhost cannot see how much
/// the store sent.
pub(crate) fn redirect(
    api: &Api,
    parts: &Parts,
    account: &str,
    blob: &str,
    media: &PublicMedia,
    url: &str,
    subscriber: Option<&str>,
) -> Response<Body> {
    if parts.method == Method::GET {
        let range = parts
            .headers
            .get(header::RANGE)
            .and_then(|v| v.to_str().ok());
        let asked = match crate::ranges::parse(range, media.size) {
            crate::ranges::Ranged::Whole => Some(0..media.size),
            crate::ranges::Ranged::Part(r) => Some(r),
            crate::ranges::Ranged::Unsatisfiable => None,
        };
        if let Some(asked) = asked {
            let mut delivery = delivery(api, parts, account, blob, asked, subscriber);
            delivery.delivered = delivery.range.end - delivery.range.start;
            api.host.record_download(delivery);
        }
    }
    let mut answer = Response::new(response::full(Bytes::new()));
    *answer.status_mut() = StatusCode::FOUND;
    let h = answer.headers_mut();
    if let Ok(location) = HeaderValue::from_str(url) {
        h.insert(header::LOCATION, location);
    }
    // The presigned URL expires: never cache the redirect for long.
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=60"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    answer
}

/// The client's address: the last `X-Forwarded-For` entry when the deployment sits behind a
/// proxy it trusts (that entry is the one the proxy added), else the connection's peer.
pub(crate) fn client_ip(parts: &Parts, trust_forwarded_for: bool) -> IpAddr {
    let forwarded = trust_forwarded_for
        .then(|| {
            parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|ip| ip.trim().parse::<IpAddr>().ok())
                .next_back()
        })
        .flatten();
    forwarded
        .or_else(|| parts.extensions.get::<ClientAddr>().map(|c| c.0.ip()))
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// A media body that counts what it yields and reports the delivery when dropped.
pub(crate) struct Counted<S> {
    inner: S,
    host: PodcastHost,
    delivery: Option<Delivery>,
}

impl<S> Counted<S> {
    /// Wraps `inner`; `delivery` has `delivered` 0 and is filled in as bytes go out.
    pub(crate) fn new(inner: S, host: PodcastHost, delivery: Delivery) -> Self {
        Counted {
            inner,
            host,
            delivery: Some(delivery),
        }
    }
}

impl<S, E> Stream for Counted<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Bytes, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &polled
            && let Some(delivery) = self.delivery.as_mut()
        {
            // Counted when handed to hyper: the bytes a client cut off mid-chunk are not
            // known, at most one chunk (a few KiB to 64 KiB) too many.
            delivery.delivered += chunk.len() as u64;
        }
        polled
    }
}

impl<S> Drop for Counted<S> {
    fn drop(&mut self) {
        if let Some(delivery) = self.delivery.take() {
            self.host.record_download(delivery);
        }
    }
}
