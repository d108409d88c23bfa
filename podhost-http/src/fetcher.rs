//! The HTTP implementation of the core's [`Fetcher`] (what imports read), on the checked
//! connections of `outbound.rs`: one `GET`, no redirect followed (the core follows them and
//! checks each target), the answer within the request's time limit, the body streamed.

use std::{collections::HashMap, fmt, net::IpAddr, sync::Arc};

use bytes::Bytes;
use futures::StreamExt;
use http::{Request, Uri, header};
use http_body_util::{BodyDataStream, Full};
use podhost_core::import::{FetchRequest, Fetched, Fetcher, fetch::FetchError};
use podhost_core::webhooks::target::check_fetch_url;

use crate::outbound::{Forbidden, HttpsClient, Overrides, client, describe};

/// The `user-agent` of imports.
const USER_AGENT: &str = concat!("podhost-import/", env!("CARGO_PKG_VERSION"));

/// Fetches feeds and files over HTTP/1.1 (http and https) for imports.
///
/// Cheap to clone (the clients and their connection pools are shared).
#[derive(Clone)]
pub struct HttpFetcher {
    /// Clients that refuse forbidden addresses, and that allow them; `Err` when TLS could not
    /// be set up (every fetch fails with that reason).
    clients: Result<(HttpsClient, HttpsClient), String>,
    overrides: Overrides,
}

impl HttpFetcher {
    /// A fetcher that resolves host names with the system's resolver.
    pub fn new() -> HttpFetcher {
        HttpFetcher::with_hosts(HashMap::new())
    }

    /// A fetcher that answers these host names with these addresses instead of asking DNS (as
    /// curl's `--resolve`); the addresses are checked like resolved ones.
    pub fn with_hosts(hosts: HashMap<String, Vec<IpAddr>>) -> HttpFetcher {
        let overrides: Overrides = Arc::new(hosts);
        let clients = client(false, overrides.clone())
            .and_then(|strict| Ok((strict, client(true, overrides.clone())?)));
        HttpFetcher { clients, overrides }
    }
}

impl Default for HttpFetcher {
    fn default() -> HttpFetcher {
        HttpFetcher::new()
    }
}

impl fmt::Debug for HttpFetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpFetcher")
            .field("tls", &self.clients.as_ref().map(|_| "rustls"))
            .field("hosts", &self.overrides)
            .finish()
    }
}

#[async_trait::async_trait]
impl Fetcher for HttpFetcher {
    async fn get(&self, request: FetchRequest) -> Result<Fetched, FetchError> {
        let (strict, lenient) = self
            .clients
            .as_ref()
            .map_err(|e| FetchError::Failed(e.clone()))?;
        check_fetch_url(&request.url, request.allow_private).map_err(FetchError::Refused)?;
        let url = request.url.trim();
        let url = url.split_once('#').map_or(url, |(before, _)| before);
        let uri = Uri::try_from(url)
            .map_err(|e| FetchError::Refused(format!("{url} cannot be requested: {e}")))?;
        let mut http_request = Request::get(uri)
            .header(header::USER_AGENT, USER_AGENT)
            .header(header::ACCEPT, "*/*")
            .body(Full::new(Bytes::new()))
            .map_err(|e| FetchError::Refused(format!("{url} cannot be requested: {e}")))?;
        for (name, value) in &request.headers {
            let (Ok(name), Ok(value)) = (
                header::HeaderName::try_from(name.as_str()),
                header::HeaderValue::try_from(value.as_str()),
            ) else {
                return Err(FetchError::Refused(format!(
                    "{url} cannot be requested with the header \"{name}\""
                )));
            };
            http_request.headers_mut().insert(name, value);
        }
        let client = if request.allow_private {
            lenient
        } else {
            strict
        };
        let response =
            match tokio::time::timeout(request.timeout, client.request(http_request)).await {
                Ok(Ok(response)) => response,
                // A name that resolves to a forbidden address is refused, not failed: asking
                // again would be refused again.
                Ok(Err(e)) => {
                    return Err(match Forbidden::find(&e) {
                        Some(refusal) => FetchError::Refused(refusal),
                        None => FetchError::Failed(describe(&e)),
                    });
                }
                Err(_) => {
                    return Err(FetchError::Failed(format!(
                        "{url} did not answer within {} seconds",
                        request.timeout.as_secs()
                    )));
                }
            };
        let headers = response.headers();
        let text = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let fetched = Fetched {
            status: response.status().as_u16(),
            location: text(header::LOCATION),
            content_type: text(header::CONTENT_TYPE),
            content_length: text(header::CONTENT_LENGTH).and_then(|l| l.trim().parse().ok()),
            body: BodyDataStream::new(response.into_body())
                .map(|chunk| chunk.map_err(|e| describe(&e)))
                .boxed(),
        };
        Ok(fetched)
    }
}
