//! The other hosts, on one local port: every host name the fixture feeds use resolves to
//! 127.0.0.1 (through [`HttpFetcher::with_hosts`], like curl's `--resolve`), and this server
//! answers by the `Host` header and the path, as the real ones would: files, the redirects of
//! analytics prefixes and CDNs, and whatever failure a test sets. It counts every request.

use std::{
    collections::HashMap,
    convert::Infallible,
    net::{IpAddr, Ipv4Addr},
    sync::{Arc, Mutex},
};

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use podhost_http::HttpFetcher;

/// Every host name the fixtures use; all are this server.
pub const HOSTS: &[&str] = &[
    // Libsyn
    "feeds.libsyn.com",
    "traffic.libsyn.com",
    "hwcdn.libsyn.com",
    "static.libsyn.com",
    // Anchor / Spotify for Podcasters
    "anchor.fm",
    "d3ctxlq1ktw2nl.cloudfront.net",
    "d3t3ozftmdmh3i.cloudfront.net",
    // Buzzsprout
    "feeds.buzzsprout.com",
    "www.buzzsprout.com",
    "storage.buzzsprout.com",
    // Transistor
    "feeds.transistor.fm",
    "media.transistor.fm",
    "img.transistor.fm",
    "share.transistor.fm",
    // Podbean
    "feed.podbean.com",
    "mcdn.podbean.com",
    "pbcdn1.podbean.com",
    // Castopod
    "podcasts.example.social",
    // Analytics prefixes
    "dts.podtrac.com",
    "op3.dev",
    // The hostile feeds' host
    "hostile.example",
];

/// What the server answers at a URL.
#[derive(Clone)]
pub enum Reply {
    /// 200 with the bytes, this `Content-Type` and their `Content-Length`.
    File(Bytes, &'static str),
    /// 200 with the bytes in 1 MiB chunks and no `Content-Length` (chunked).
    Chunked(Bytes, &'static str),
    /// 302 to this location (absolute, or relative to the request's URL).
    Redirect(String),
    /// This status, with an empty body.
    Status(u16),
}

struct Route {
    reply: Reply,
    /// Requests still to answer 500 before `reply`.
    failures: usize,
}

#[derive(Default)]
struct State {
    /// By `host/path` (no port, no query).
    routes: HashMap<String, Route>,
    /// Requests by `host/path`.
    hits: HashMap<String, usize>,
}

/// The server; cheap to clone.
#[derive(Clone)]
pub struct Server {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl Server {
    /// Starts serving on a free port of 127.0.0.1, in the test's runtime.
    pub async fn start() -> Server {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap();
        let server = Server {
            port: listener.local_addr().unwrap().port(),
            state: Default::default(),
        };
        let serving = server.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let server = serving.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let answer = server.answer(&request);
                        async move { Ok::<_, Infallible>(answer) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        server
    }

    /// `http://host:port/path` of `host/path`.
    pub fn url(&self, at: &str) -> String {
        let (host, path) = at.split_once('/').unwrap_or((at, ""));
        format!("http://{host}:{}/{path}", self.port)
    }

    /// A fixture's text with `@PORT@` made this server's port.
    pub fn fill(&self, template: &str) -> String {
        template.replace("@PORT@", &self.port.to_string())
    }

    /// A fetcher that finds every host of [`HOSTS`] here.
    pub fn fetcher(&self) -> HttpFetcher {
        HttpFetcher::with_hosts(
            HOSTS
                .iter()
                .map(|h| (h.to_string(), vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]))
                .collect(),
        )
    }

    /// Serves `reply` at `at` (`host/path`, or a URL); `@PORT@` in a redirect's location is
    /// this server's port.
    pub fn serve(&self, at: &str, reply: Reply) {
        let reply = match reply {
            Reply::Redirect(location) => Reply::Redirect(self.fill(&location)),
            other => other,
        };
        self.state
            .lock()
            .unwrap()
            .routes
            .insert(key(at), Route { reply, failures: 0 });
    }

    /// The next `n` requests for `at` (served already) answer 500.
    pub fn fail_next(&self, at: &str, n: usize) {
        let mut state = self.state.lock().unwrap();
        let route = state.routes.get_mut(&key(at)).expect("a served URL");
        route.failures = n;
    }

    /// Requests made for `at` (`host/path`, or a URL) so far.
    pub fn hits(&self, at: &str) -> usize {
        let state = self.state.lock().unwrap();
        state.hits.get(&key(at)).copied().unwrap_or(0)
    }

    /// Requests made so far, by `host/path`.
    pub fn all_hits(&self) -> HashMap<String, usize> {
        self.state.lock().unwrap().hits.clone()
    }

    /// What a client gets at `url` after redirects, asked without counting: the source's
    /// bytes, to compare with what podhost serves.
    pub fn body_at(&self, url: &str) -> Bytes {
        let mut url = url.to_string();
        for _ in 0..10 {
            let (host, path, query) = parts(&url);
            let reply = {
                let state = self.state.lock().unwrap();
                state
                    .routes
                    .get(&format!("{host}{path}"))
                    .map(|r| r.reply.clone())
                    .or_else(|| prefix_redirect(&host, &path, &query))
            };
            match reply {
                Some(Reply::File(bytes, _) | Reply::Chunked(bytes, _)) => return bytes,
                Some(Reply::Redirect(location)) => url = absolute(&url, &location),
                _ => panic!("nothing is served at {url}"),
            }
        }
        panic!("{url}: too many redirects");
    }

    fn answer(&self, request: &Request<Incoming>) -> Response<BoxBody<Bytes, Infallible>> {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default();
        let host = host
            .rsplit_once(':')
            .map_or(host, |(name, _)| name)
            .to_ascii_lowercase();
        let path = request.uri().path().to_string();
        let query = request.uri().query().unwrap_or_default().to_string();
        let at = format!("{host}{path}");
        let reply = {
            let mut state = self.state.lock().unwrap();
            *state.hits.entry(at.clone()).or_default() += 1;
            match state.routes.get_mut(&at) {
                Some(route) if route.failures > 0 => {
                    route.failures -= 1;
                    Reply::Status(500)
                }
                Some(route) => route.reply.clone(),
                None => prefix_redirect(&host, &path, &query).unwrap_or(Reply::Status(404)),
            }
        };
        let empty = || Full::new(Bytes::new()).boxed();
        match reply {
            Reply::File(bytes, mime) => Response::builder()
                .header(header::CONTENT_TYPE, mime)
                .body(Full::new(bytes).boxed()),
            Reply::Chunked(bytes, mime) => {
                let chunks: Vec<Result<Frame<Bytes>, Infallible>> = (0..bytes.len())
                    .step_by(1 << 20)
                    .map(|start| {
                        let end = (start + (1 << 20)).min(bytes.len());
                        Ok(Frame::data(bytes.slice(start..end)))
                    })
                    .collect();
                Response::builder()
                    .header(header::CONTENT_TYPE, mime)
                    .body(StreamBody::new(futures::stream::iter(chunks)).boxed())
            }
            Reply::Redirect(location) => Response::builder()
                .status(StatusCode::FOUND)
                .header(header::LOCATION, location)
                .body(empty()),
            Reply::Status(status) => Response::builder().status(status).body(empty()),
        }
        .unwrap()
    }
}

/// The redirects of the analytics prefixes and of Anchor's play links: they count the
/// download and send the client on to the URL written after them.
fn prefix_redirect(host: &str, path: &str, query: &str) -> Option<Reply> {
    let onward = |rest: &str| {
        let rest = if rest.starts_with("http://") || rest.starts_with("https://") {
            rest.to_string()
        } else {
            format!("http://{rest}")
        };
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        Some(Reply::Redirect(format!("{rest}{query}")))
    };
    match host {
        // https://dts.podtrac.com/redirect.mp3/media.example/file.mp3
        "dts.podtrac.com" => onward(path.strip_prefix("/redirect.mp3/")?),
        // https://op3.dev/e/media.example/file.mp3, and /e,pg=<podcast guid>/https://…
        "op3.dev" => {
            let rest = path.strip_prefix("/e")?;
            let rest = match rest.strip_prefix('/') {
                Some(rest) => rest,
                None => rest.strip_prefix(',')?.split_once('/')?.1,
            };
            onward(rest)
        }
        // https://anchor.fm/s/<show>/podcast/play/<n>/<the file's URL, percent-encoded>
        "anchor.fm" => {
            let encoded = path.split('/').nth(6)?;
            let decoded = percent_encoding::percent_decode_str(encoded)
                .decode_utf8()
                .ok()?;
            onward(&decoded)
        }
        _ => None,
    }
}

/// `host`, `/path` and the query of a URL.
fn parts(url: &str) -> (String, String, String) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(name, _)| name)
        .to_ascii_lowercase();
    (host, path.to_string(), query.to_string())
}

/// The `host/path` of `host/path` or a URL.
fn key(at: &str) -> String {
    if at.contains("://") {
        let (host, path, _) = parts(at);
        format!("{host}{path}")
    } else {
        at.to_string()
    }
}

/// `location` read against `base`.
fn absolute(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap();
    let authority = rest.split('/').next().unwrap();
    if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let dir = base.rsplit_once('/').map_or(base, |(dir, _)| dir);
        format!("{dir}/{location}")
    }
}
