//! Fetching what an import reads: the feed and its files.
//!
//! The core decides where a fetch may go and how far it may run: every URL (the first and each
//! redirect's) must pass the outbound target rules ([`check_fetch_url`]), at most
//! [`MAX_REDIRECTS`] redirects are followed, a body may not exceed its cap, and a body that
//! stops sending for [`IDLE`] fails. Doing the request is behind [`Fetcher`], implemented by
//! the frontend (podhost-http's hyper-util client, which checks every address a host name
//! resolves to and connects only to the checked one), so the core stays transport-free.

use std::time::Duration;

use bytes::Bytes;
use futures::{StreamExt, stream::BoxStream};

use crate::webhooks::target::check_fetch_url;

/// Redirects followed at most (a sixth is refused).
pub const MAX_REDIRECTS: usize = 5;

/// How long a server may take to answer a request (its status and headers).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a body may stop sending before the fetch fails.
pub const IDLE: Duration = Duration::from_secs(30);

/// One `GET` a [`Fetcher`] makes.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    /// An http or https URL that passed [`check_fetch_url`].
    pub url: String,
    /// Whether the deployment allows targets on loopback, private, link-local and metadata
    /// addresses (the fetcher checks the addresses the host name resolves to).
    pub allow_private: bool,
    /// How long the answer (status and headers) may take.
    pub timeout: Duration,
    /// Headers to send beside the fetcher's own (an `Accept`, an HTTP signature), names in
    /// lowercase; a name given here replaces the fetcher's.
    pub headers: Vec<(String, String)>,
}

/// The answer to a [`FetchRequest`]: its head, and its body as a stream.
pub struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The `Location` header, for redirects.
    pub location: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The `Content-Length` header.
    pub content_length: Option<u64>,
    /// The body.
    pub body: BoxStream<'static, Result<Bytes, String>>,
}

impl std::fmt::Debug for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetched")
            .field("status", &self.status)
            .field("location", &self.location)
            .field("content_type", &self.content_type)
            .field("content_length", &self.content_length)
            .finish_non_exhaustive()
    }
}

/// Makes outbound `GET` requests for imports. Implementations must not follow redirects (the
/// core does, checking each target), must answer within the request's timeout, and must refuse
/// a host name that resolves to a forbidden address unless `allow_private` (see
/// [`is_forbidden`](crate::webhooks::target::is_forbidden)), connecting only to the address
/// they checked.
#[async_trait::async_trait]
pub trait Fetcher: std::fmt::Debug + Send + Sync {
    /// One request. [`FetchError::Refused`] when the target may not be reached (another
    /// attempt would be refused too), [`FetchError::Failed`] when there is no answer (another
    /// attempt may get one).
    async fn get(&self, request: FetchRequest) -> Result<Fetched, FetchError>;

    /// Whether this fetcher answers `url` without the network (an exported podcast's files
    /// read from its folder): such a URL is not an outbound target, so the target rules do not
    /// apply to it. None by default.
    fn is_local(&self, _url: &str) -> bool {
        false
    }
}

/// Why a fetch gave no usable body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// The URL or a redirect's target is refused by the outbound rules, or malformed.
    Refused(String),
    /// The server answered with an error status (`status`).
    Status(u16),
    /// No answer, or a body that broke off: worth trying again.
    Failed(String),
}

impl FetchError {
    /// Whether another attempt may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            FetchError::Refused(_) => false,
            FetchError::Status(status) => *status >= 500 || *status == 429 || *status == 408,
            FetchError::Failed(_) => true,
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Refused(why) | FetchError::Failed(why) => f.write_str(why),
            FetchError::Status(status) => write!(f, "the server answered {status}"),
        }
    }
}

/// A fetched body, and where it was fetched from at last (after redirects).
pub struct Body {
    /// The URL the body came from.
    pub url: String,
    /// The declared type.
    pub content_type: Option<String>,
    /// The declared length.
    pub content_length: Option<u64>,
    /// The bytes, failing if the server stops sending for [`IDLE`].
    pub stream: BoxStream<'static, Result<Bytes, String>>,
}

/// Fetches `url`, following at most [`MAX_REDIRECTS`] redirects, each target checked; an
/// answer that is not 2xx is an error.
pub async fn follow(
    fetcher: &dyn Fetcher,
    url: &str,
    allow_private: bool,
) -> Result<Body, FetchError> {
    follow_with(fetcher, url, allow_private, &|_| Vec::new()).await
}

/// [`follow`], sending the headers `headers` gives for each URL requested (a signature covers
/// its URL, so each redirect's request is signed anew).
pub async fn follow_with(
    fetcher: &dyn Fetcher,
    url: &str,
    allow_private: bool,
    headers: &(dyn Fn(&str) -> Vec<(String, String)> + Send + Sync),
) -> Result<Body, FetchError> {
    let mut current = url.trim().to_string();
    for hop in 0..=MAX_REDIRECTS {
        if !fetcher.is_local(&current) {
            check_fetch_url(&current, allow_private).map_err(FetchError::Refused)?;
        }
        let answer = fetcher
            .get(FetchRequest {
                url: current.clone(),
                allow_private,
                timeout: ANSWER_TIMEOUT,
                headers: headers(&current),
            })
            .await?;
        match answer.status {
            200..=299 => {
                return Ok(Body {
                    url: current,
                    content_type: answer.content_type,
                    content_length: answer.content_length,
                    stream: idle_limited(answer.body),
                });
            }
            301 | 302 | 303 | 307 | 308 => {
                let location = answer.location.ok_or_else(|| {
                    FetchError::Failed(format!("{current} redirects without a Location"))
                })?;
                let next = url::Url::parse(&current)
                    .and_then(|base| base.join(location.trim()))
                    .map_err(|e| {
                        FetchError::Refused(format!("a redirect to \"{location}\": {e}"))
                    })?;
                if hop == MAX_REDIRECTS {
                    break;
                }
                current = next.to_string();
            }
            status => return Err(FetchError::Status(status)),
        }
    }
    Err(FetchError::Refused(format!(
        "more than {MAX_REDIRECTS} redirects from {url}"
    )))
}

/// A body that fails when no chunk comes for [`IDLE`].
fn idle_limited(
    body: BoxStream<'static, Result<Bytes, String>>,
) -> BoxStream<'static, Result<Bytes, String>> {
    futures::stream::unfold(Some(body), |body| async move {
        let mut body = body?;
        match tokio::time::timeout(IDLE, body.next()).await {
            Ok(Some(chunk)) => Some((chunk, Some(body))),
            Ok(None) => None,
            Err(_) => Some((
                Err(format!("nothing arrived for {} seconds", IDLE.as_secs())),
                None,
            )),
        }
    })
    .boxed()
}

/// Reads a whole body of at most `cap` bytes.
pub async fn read_capped(mut body: Body, cap: u64) -> Result<Bytes, FetchError> {
    if body.content_length.is_some_and(|n| n > cap) {
        return Err(FetchError::Refused(format!(
            "{} is larger than {} MiB",
            body.url,
            cap >> 20
        )));
    }
    let mut out = Vec::new();
    while let Some(chunk) = body.stream.next().await {
        let chunk = chunk.map_err(FetchError::Failed)?;
        if out.len() as u64 + chunk.len() as u64 > cap {
            return Err(FetchError::Refused(format!(
                "{} is larger than {} MiB",
                body.url,
                cap >> 20
            )));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(out))
}
