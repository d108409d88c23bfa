//! The server's metrics: the HTTP side (requests by route template, method and status; their
//! durations; bytes sent of feeds and enclosures) beside the core's
//! ([`podhost_core::metrics`]), in one registry, encoded in Prometheus' text format
//! by `prometheus-client`.

use std::{
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use http::Method;
use http_body_util::BodyExt;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use podhost_core::metrics::{Histograms, request_buckets};
use prometheus_client::{
    encoding::EncodeLabelSet,
    metrics::{counter::Counter, family::Family},
    registry::Registry,
};

use crate::{response::Body, routes::public::PublicEndpoint};

macro_rules! media_type {
    () => {
        "text/plain"
    };
}

/// The media type of the metrics: Prometheus' text exposition format, which every scraper
/// reads and `promtool check metrics` checks.
pub const MEDIA_TYPE: &str = media_type!();

/// The `Content-Type` of the metrics: the media type with the format's version.
pub const CONTENT_TYPE: &str = concat!(media_type!(), "; version=0.0.4; charset=utf-8");

/// What is sent, for the bytes-sent counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// A feed (public or private).
    Feed,
    /// An enclosure (public or private).
    Enclosure,
    /// A video's HLS playlist or segment (public or private).
    Stream,
}

impl Sent {
    fn as_str(self) -> &'static str {
        match self {
            Sent::Feed => "feed",
            Sent::Enclosure => "enclosure",
            Sent::Stream => "stream",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

/// The metrics of one API, with the core's, in one registry.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    seconds: Histograms<RouteLabel>,
    records: Histograms<RouteLabel>,
    sent: Family<KindLabel, Counter>,
}

/// Buckets for the records a request touches: 1 to 32,768, doubling (a request whose count
/// grows with the account shows in the high buckets of its route).
fn record_buckets() -> prometheus_client::metrics::histogram::Histogram {
    prometheus_client::metrics::histogram::Histogram::new(
        prometheus_client::metrics::histogram::exponential_buckets(1.0, 2.0, 16),
    )
}

/// The route label of requests that match no route.
pub(crate) const UNMATCHED: &str = "(unmatched)";

impl Metrics {
    /// The HTTP metrics, registered with the core's `core`.
    pub(crate) fn new(core: &podhost_core::metrics::Metrics) -> Self {
        let mut registry = Registry::default();
        core.register(&mut registry);
        let requests = Family::default();
        let seconds: Histograms<RouteLabel> = Family::new_with_constructor(request_buckets);
        let records: Histograms<RouteLabel> = Family::new_with_constructor(record_buckets);
        let sent = Family::default();
        registry.register(
            "podhost_http_requests",
            "One request this server answered, by route template, method and status",
            requests.clone(),
        );
        registry.register(
            "podhost_http_request_duration_seconds",
            "One request this server answered, observed as the seconds to its answer's head, by route template",
            seconds.clone(),
        );
        registry.register(
            "podhost_http_request_records",
            "One request this server answered, observed as the records of accounts (podcasts, episodes, media files) it touched, by route template",
            records.clone(),
        );
        registry.register(
            "podhost_http_sent_bytes",
            "One byte of an answer's body sent, by kind (feed: a feed; enclosure: a media file; stream: a video's HLS playlist or segment)",
            sent.clone(),
        );
        Metrics {
            registry,
            requests,
            seconds,
            records,
            sent,
        }
    }

    /// Counts a request to `route` (its template) answered with `status` after `seconds`,
    /// having touched `records` records of accounts.
    pub(crate) fn request(
        &self,
        route: &'static str,
        method: &Method,
        status: u16,
        seconds: f64,
        records: u64,
    ) {
        self.requests
            .get_or_create(&RequestLabels {
                route,
                method: method_label(method),
                status,
            })
            .inc();
        self.seconds
            .get_or_create(&RouteLabel { route })
            .observe(seconds);
        self.records
            .get_or_create(&RouteLabel { route })
            .observe(records as f64);
    }

    /// `body`, its bytes counted as `sent` as they go out.
    pub(crate) fn counting(&self, sent: Sent, body: Body) -> Body {
        let counter = self
            .sent
            .get_or_create(&KindLabel {
                kind: sent.as_str(),
            })
            .clone();
        Counted {
            inner: body,
            counter,
        }
        .boxed_unsync()
    }

    /// Every metric in Prometheus' text format.
    pub(crate) fn encode(&self) -> String {
        let mut open_metrics = String::new();
        // Writing to a String does not fail.
        let _ = prometheus_client::encoding::text::encode(&mut open_metrics, &self.registry);
        prometheus_text(&open_metrics)
    }
}

/// The OpenMetrics text `prometheus-client` writes, in Prometheus' own text format: the same
/// samples; a counter's `HELP` and `TYPE` name its samples (`x_total`, where OpenMetrics names
/// the family `x`), and no `# EOF`.
fn prometheus_text(open_metrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = open_metrics
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut text = String::with_capacity(open_metrics.len() + 64);
    for line in open_metrics.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        match renamed {
            Some(line) => text.push_str(&line),
            None => text.push_str(line),
        }
        text.push('\n');
    }
    text
}

/// A method's label in metrics and log lines: the standard ones by name, any other as `other`
/// (labels stay few).
pub(crate) fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// A body whose data bytes are counted as they are polled out.
struct Counted {
    inner: Body,
    counter: Counter,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.counter.inc_by(data.len() as u64);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// What an answer of a public route sends, for the bytes-sent counter.
pub(crate) fn sent_by(endpoint: &PublicEndpoint) -> Option<Sent> {
    match endpoint {
        PublicEndpoint::Rss { .. } | PublicEndpoint::PrivateRss { .. } => Some(Sent::Feed),
        PublicEndpoint::Download { .. } | PublicEndpoint::PrivateDownload { .. } => {
            Some(Sent::Enclosure)
        }
        PublicEndpoint::Stream { .. }
        | PublicEndpoint::StreamFile { .. }
        | PublicEndpoint::PrivateStream { .. }
        | PublicEndpoint::PrivateStreamFile { .. } => Some(Sent::Stream),
        PublicEndpoint::Chapters { .. } | PublicEndpoint::PrivateChapters { .. } => None,
    }
}
