//! Who downloads: the listener by IAB's rule (the client address, through a trusted proxy's
//! `X-Forwarded-For` when configured, and the user agent), and the answer of a download the
//! store serves (a redirect, counted as the range asked for). The bytes a body really delivered
//! are counted by the core's download answer as they go out.

use crate::headers::{self, SetHeader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use bytes::Bytes;
use http::{Method, Response, StatusCode, header, request::Parts};
use podhost_core::DownloadRedirect;

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

/// A download redirected to the store's presigned URL (S3 then serves the bytes, ranges and
/// validators). The delivery is counted as the range asked for: podhost cannot see how much
/// the store sent.
pub(crate) fn redirect(parts: &Parts, redirect: &DownloadRedirect) -> Response<Body> {
    if parts.method == Method::GET {
        let range = parts
            .headers
            .get(header::RANGE)
            .and_then(|v| v.to_str().ok());
        match crate::ranges::parse(range, redirect.size) {
            crate::ranges::Ranged::Whole => redirect.count(0..redirect.size),
            crate::ranges::Ranged::Part(r) => redirect.count(r),
            crate::ranges::Ranged::Unsatisfiable => {}
        }
    }
    let mut answer = Response::new(response::full(Bytes::new()));
    *answer.status_mut() = StatusCode::FOUND;
    let h = answer.headers_mut();
    h.put_text(header::LOCATION, &redirect.url);
    // The presigned URL expires: never cache the redirect for long.
    h.put(header::CACHE_CONTROL, "private, max-age=60");
    headers::any_origin(h);
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
