//! [`TestServer`]: the whole podhost service in-process, on an ephemeral loopback port, over a
//! memory store and a manual clock, with two accounts and their all-scope tokens.

use std::{net::SocketAddr, sync::Arc};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{HostConfig, ManualClock, PodcastHost, Principal, Scopes};
use podhost_http::{Api, HttpConfig, Server};
use serde_json::Value;

/// A running podhost: [`base_url`](Self::base_url) answers the REST API, the feeds, the pages
/// and the downloads; background loops (jobs, webhook deliveries, statistics) run unless the
/// builder said not to. Stopped when dropped.
pub struct TestServer {
    addr: SocketAddr,
    host: PodcastHost,
    api: Api,
    clock: ManualClock,
    store: Arc<dyn ObjectStore>,
    http: HttpConfig,
    token: String,
    other_token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    client: hyper_util::client::legacy::Client<
        hyper_util::client::legacy::connect::HttpConnector,
        Full<Bytes>,
    >,
}

/// A change of the host configuration, made before the server starts.
type Adjust = Box<dyn FnOnce(&mut HostConfig) + Send>;

/// How a [`TestServer`] starts: [`TestServer::builder`].
pub struct TestServerBuilder {
    store: Option<Arc<dyn ObjectStore>>,
    http: HttpConfig,
    host_config: Option<HostConfig>,
    adjust: Vec<Adjust>,
    background: bool,
    sender: Option<Arc<dyn podhost_core::webhooks::WebhookSender>>,
}

/// An answer of the server.
#[derive(Debug, Clone)]
pub struct TestResponse {
    /// Its status.
    pub status: StatusCode,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body.
    pub bytes: Bytes,
}

impl TestResponse {
    /// The body as JSON (`Null` when empty or not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or(Value::Null)
    }

    /// The body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

impl TestServer {
    /// The default server: memory store, manual clock at 2026-01-01T00:00:00Z, links to its own
    /// address, background loops running, webhooks to loopback allowed.
    pub async fn start() -> TestServer {
        Self::builder().start().await
    }

    /// A server configured step by step.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder {
            store: None,
            http: HttpConfig::default(),
            host_config: None,
            adjust: Vec::new(),
            background: true,
            sender: None,
        }
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `path` on this server (`/api/feeds` → `http://127.0.0.1:PORT/api/feeds`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    /// The bearer token of the account `alice`, with every scope.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The bearer token of a second account, `mallory`, with every scope: for checking that
    /// one account never reaches another's data.
    pub fn other_token(&self) -> &str {
        &self.other_token
    }

    /// The host behind the server (for setting up state without HTTP).
    pub fn host(&self) -> &PodcastHost {
        &self.host
    }

    /// `alice` as the core sees her: the owner of the account.
    pub async fn owner(&self) -> Principal {
        self.owner_of("alice").await
    }

    /// The owner of account `name`.
    pub async fn owner_of(&self, name: &str) -> Principal {
        self.host
            .access()
            .owner(&name.parse().expect("an account name"))
            .await
            .expect("the account exists")
    }

    /// The request handler the server serves, for requests without a socket.
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// The server's clock.
    pub fn clock(&self) -> &ManualClock {
        &self.clock
    }

    /// The store under the server.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The HTTP configuration the server runs with.
    pub fn http_config(&self) -> &HttpConfig {
        &self.http
    }

    /// Moves the clock on by `by`. Feeds, pages and the API follow at once (a scheduled episode
    /// whose time came is published: they read the clock); the background loops send its
    /// webhooks within a second. Downloads recorded so far are counted now, and the statistics
    /// days that ended are closed, as the statistics loop does every minute.
    pub async fn advance(&self, by: SignedDuration) {
        self.clock.advance(by);
        let _ = self.host.analytics().flush_stats().await;
        let _ = self.host.analytics().close_stats_days().await;
    }

    /// Sends a request over the socket: `token` as a bearer token, `body` as JSON.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> TestResponse {
        let mut request = Request::builder().method(method).uri(self.url(path));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let body = match body {
            Some(json) => {
                request = request.header("content-type", "application/json");
                Bytes::from(json.to_string())
            }
            None => Bytes::new(),
        };
        self.send(request.body(Full::new(body)).expect("a valid request"))
            .await
    }

    /// `GET path` with alice's token.
    pub async fn get(&self, path: &str) -> TestResponse {
        self.request(Method::GET, path, Some(&self.token), None)
            .await
    }

    /// Sends a request built by the test (its URI relative to the server or absolute).
    pub async fn send(&self, mut request: Request<Full<Bytes>>) -> TestResponse {
        if request.uri().host().is_none() {
            let absolute = self.url(&request.uri().to_string());
            *request.uri_mut() = absolute.parse().expect("a valid URI");
        }
        let method = request.method().clone();
        let path = request.uri().path().to_string();
        let response = self
            .client
            .request(request)
            .await
            .expect("the server answers");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("the body arrives")
            .to_bytes();
        // Every answer is held to the OpenAPI document.
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        crate::contract::assert_answer(&method, &path, status.as_u16(), content_type, &bytes);
        TestResponse {
            status,
            headers,
            bytes,
        }
    }

    /// Stops the server: requests in flight finish, background loops stop.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

impl TestServerBuilder {
    /// Over this store (default: a new memory store).
    pub fn store(mut self, store: Arc<dyn ObjectStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// With this HTTP configuration.
    pub fn http_config(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }

    /// With this whole host configuration (its public URL kept as given) instead of
    /// [`test_config`](crate::test_config) with the server's own address.
    pub fn host_config(mut self, config: HostConfig) -> Self {
        self.host_config = Some(config);
        self
    }

    /// Changes the host configuration before the server starts (after the public URL is set).
    pub fn configure(mut self, adjust: impl FnOnce(&mut HostConfig) + Send + 'static) -> Self {
        self.adjust.push(Box::new(adjust));
        self
    }

    /// Whether the background loops run (default yes); without them a test drives jobs,
    /// deliveries and statistics itself.
    pub fn background(mut self, run: bool) -> Self {
        self.background = run;
        self
    }

    /// Webhooks sent by `sender` instead of over HTTP.
    pub fn webhook_sender(
        mut self,
        sender: Arc<dyn podhost_core::webhooks::WebhookSender>,
    ) -> Self {
        self.sender = Some(sender);
        self
    }

    /// Binds an ephemeral loopback port, creates the accounts `alice` and `mallory` with a
    /// token of every scope each, and starts serving.
    pub async fn start(self) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("an address");
        let mut config = self.host_config.unwrap_or_else(|| {
            let mut config = crate::test_config();
            config.public_url = format!("http://{addr}");
            config
        });
        for adjust in self.adjust {
            adjust(&mut config);
        }
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(object_store::memory::InMemory::new()));
        let (host, clock) = crate::test_host_with(store.clone(), config);
        // What `podhost serve` checks before it serves (and what `/readyz` asks).
        host.check_store()
            .await
            .expect("the store honours conditional writes");
        let mut tokens = Vec::new();
        for name in ["alice", "mallory"] {
            host.access()
                .create_account(name)
                .await
                .expect("a new account");
            let owner = host
                .access()
                .owner(&name.parse().expect("a valid name"))
                .await
                .expect("its owner");
            tokens.push(
                host.access()
                    .create_token(&owner, "all", Scopes::all())
                    .await
                    .expect("a token")
                    .secret,
            );
        }
        // No record of itself in the store: tests count the store's writes, and a renewal
        // every 5 s would be one they did not make.
        let mut server = Server::new(host.clone())
            .config(self.http.clone())
            .background(self.background)
            .keep_record(false);
        if let Some(sender) = self.sender {
            server = server.webhook_sender(sender);
        }
        let api = server.api();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server.run(listener, async {
            let _ = stopped.await;
        }));
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http();
        let other_token = tokens.pop().expect("two tokens");
        let token = tokens.pop().expect("two tokens");
        TestServer {
            addr,
            host,
            api,
            clock,
            store,
            http: self.http,
            token,
            other_token,
            stop: Some(stop),
            client,
        }
    }
}
