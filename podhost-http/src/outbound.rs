//! Connections podhost opens to other servers (webhook deliveries, imports): hyper-util's
//! client, https by rustls (ring, Mozilla's roots bundled by webpki-roots), and a resolver that
//! checks every address a host name resolves to.
//!
//! The resolver refuses a name when *any* of its addresses is forbidden
//! ([`is_forbidden`]) unless private targets are allowed, and hands exactly the checked
//! addresses to the connector, so a name cannot resolve to a public address when checked and
//! to a private one when connected (DNS rebinding). No proxy from the environment is used.

use std::{
    collections::HashMap,
    future::Future,
    net::{IpAddr, SocketAddr},
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::{
    client::legacy::{
        Client,
        connect::{HttpConnector, dns::Name},
    },
    rt::TokioExecutor,
};
use podhost_core::webhooks::target::is_forbidden;

/// How long an unused connection is kept for the next request to the same server.
const POOL_IDLE: Duration = Duration::from_secs(30);

/// A client whose connections go only to addresses [`CheckedResolver`] let through.
pub(crate) type HttpsClient = Client<HttpsConnector<HttpConnector<CheckedResolver>>, Full<Bytes>>;

/// Host names answered without DNS (as curl's `--resolve`): a deployment that reaches a host by
/// another address, and tests that serve real host names on loopback.
pub(crate) type Overrides = Arc<HashMap<String, Vec<IpAddr>>>;

/// A client for `allow_private` targets or not.
pub(crate) fn client(allow_private: bool, overrides: Overrides) -> Result<HttpsClient, String> {
    let resolver = CheckedResolver {
        allow_private,
        overrides,
    };
    let mut http = HttpConnector::new_with_resolver(resolver);
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .map_err(|e| format!("https cannot be set up: {e}"))?
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
        .build(https))
}

/// Resolves host names with the system's resolver (or the overrides) and refuses a name when
/// any of its addresses is forbidden ([`is_forbidden`]) unless `allow_private`. The connector
/// connects only to the addresses returned here.
#[derive(Debug, Clone)]
pub(crate) struct CheckedResolver {
    pub(crate) allow_private: bool,
    pub(crate) overrides: Overrides,
}

impl tower::Service<Name> for CheckedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let allow_private = self.allow_private;
        let overridden = self.overrides.get(name.as_str()).cloned();
        Box::pin(async move {
            let host = name.as_str();
            // Port 0: the connector puts the URL's port in.
            let addrs: Vec<SocketAddr> = match overridden {
                Some(ips) => ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect(),
                None => tokio::net::lookup_host((host, 0))
                    .await
                    .map_err(|e| std::io::Error::other(format!("{host} cannot be resolved: {e}")))?
                    .collect(),
            };
            if addrs.is_empty() {
                return Err(std::io::Error::other(format!("{host} has no address")));
            }
            if !allow_private && let Some(bad) = addrs.iter().find(|a| is_forbidden(a.ip())) {
                return Err(std::io::Error::other(Forbidden(format!(
                    "{host} resolves to {}, a loopback, private, link-local or reserved \
                     address, which this deployment does not connect to",
                    bad.ip()
                ))));
            }
            Ok(addrs.into_iter())
        })
    }
}

/// The resolver's refusal of a forbidden address, told apart from failures in an error's chain.
#[derive(Debug)]
pub(crate) struct Forbidden(String);

impl std::fmt::Display for Forbidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Forbidden {}

impl Forbidden {
    /// The refusal among `error` and its causes, in words, if it is one.
    pub(crate) fn find(error: &(dyn std::error::Error + 'static)) -> Option<String> {
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(forbidden) = e.downcast_ref::<Forbidden>() {
                return Some(forbidden.0.clone());
            }
            if let Some(forbidden) = e
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|inner| inner.downcast_ref::<Forbidden>())
            {
                return Some(forbidden.0.clone());
            }
            next = e.source();
        }
        None
    }
}

/// An error and its causes in words, without repeats.
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(allow_private: bool) -> CheckedResolver {
        CheckedResolver {
            allow_private,
            overrides: Default::default(),
        }
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_forbidden_addresses_unless_allowed() {
        let name = |s: &str| s.parse::<Name>().unwrap();
        let refused = tower::Service::call(&mut resolver(false), name("localhost"))
            .await
            .unwrap_err()
            .to_string();
        assert!(refused.contains("localhost resolves to"), "{refused}");
        let allowed: Vec<SocketAddr> = tower::Service::call(&mut resolver(true), name("localhost"))
            .await
            .unwrap()
            .collect();
        assert!(!allowed.is_empty() && allowed.iter().all(|a| a.ip().is_loopback()));
        let unknown = tower::Service::call(&mut resolver(true), name("no-such-host.invalid"))
            .await
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("cannot be resolved"), "{unknown}");
        // An override is checked like a resolved address.
        let mut overridden = CheckedResolver {
            allow_private: false,
            overrides: Arc::new(HashMap::from([(
                "cdn.example".to_string(),
                vec!["127.0.0.1".parse().unwrap()],
            )])),
        };
        let refused = tower::Service::call(&mut overridden, name("cdn.example"))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("cdn.example resolves to 127.0.0.1"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn the_client_connects_only_through_the_checking_resolver() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let request = http::Request::post(format!("http://localhost:{port}/"))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            client(false, Default::default()).unwrap().request(request),
        );
        let error = answer
            .await
            .expect("refused at once, not connected")
            .unwrap_err();
        let reason = describe(&error);
        assert!(reason.contains("localhost resolves to"), "{reason}");
    }

    #[test]
    fn errors_are_described_with_their_causes_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("client error (Connect)")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let outer = Outer(std::io::Error::other("connection refused"));
        assert_eq!(
            describe(&outer),
            "client error (Connect): connection refused"
        );
    }
}
