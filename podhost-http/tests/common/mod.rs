//! A fixture for API tests: a `podhost_testkit::TestServer` (the whole service on a loopback
//! port, background loops off so each test drives jobs and deliveries itself), and helpers to
//! call its API without a socket.

#![allow(dead_code, missing_docs)]

pub mod ads;
pub mod charts;
pub mod history;
pub mod remote;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use podhost_core::{PodcastHost, Scopes};
use podhost_http::{Api, HttpConfig};
use serde_json::Value;

pub struct Fixture {
    /// The running server the fixture is made of.
    pub server: podhost_testkit::TestServer,
    pub api: Api,
    pub host: PodcastHost,
    /// A token of `alice` with every scope.
    pub alice: String,
    /// A token of `mallory` with every scope.
    pub mallory: String,
    /// The host's clock.
    pub clock: podhost_core::ManualClock,
    /// The store under the host.
    pub store: std::sync::Arc<dyn object_store::ObjectStore>,
    config: HttpConfig,
}

pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub raw: Bytes,
}

impl Fixture {
    pub async fn new() -> Self {
        Self::with_config(HttpConfig::default()).await
    }

    pub async fn with_config(config: HttpConfig) -> Self {
        Self::on_store(
            std::sync::Arc::new(object_store::memory::InMemory::new()),
            config,
        )
        .await
    }

    /// The fixture with a rate limit of `limit` requests per token per minute.
    pub async fn with_rate_limit(limit: u32) -> Self {
        let mut host_config = podhost_testkit::test_config();
        host_config.rate_limit = limit;
        Self::on_store_with(
            std::sync::Arc::new(object_store::memory::InMemory::new()),
            HttpConfig::default(),
            host_config,
        )
        .await
    }

    /// The fixture over a store of the test's (a `FaultStore` with gates, say).
    pub async fn on_store(
        store: std::sync::Arc<dyn object_store::ObjectStore>,
        config: HttpConfig,
    ) -> Self {
        Self::on_store_with(store, config, podhost_testkit::test_config()).await
    }

    /// The fixture over a host configured as `podhost_testkit::test_host`'s, then `adjust`ed
    /// (a `fetcher` for import jobs, private targets refused...).
    pub async fn with_host_config(adjust: impl FnOnce(&mut podhost_core::HostConfig)) -> Self {
        let mut host_config = podhost_testkit::test_config();
        adjust(&mut host_config);
        Self::on_store_with(
            std::sync::Arc::new(object_store::memory::InMemory::new()),
            HttpConfig::default(),
            host_config,
        )
        .await
    }

    /// The fixture over a store and with a host configuration of the test's.
    pub async fn on_store_with(
        store: std::sync::Arc<dyn object_store::ObjectStore>,
        config: HttpConfig,
        host_config: podhost_core::HostConfig,
    ) -> Self {
        let server = podhost_testkit::TestServer::builder()
            .store(store.clone())
            .http_config(config.clone())
            .host_config(host_config)
            .background(false)
            .start()
            .await;
        Fixture {
            api: server.api().clone(),
            host: server.host().clone(),
            store,
            config,
            mallory: server.other_token().to_string(),
            alice: server.token().to_string(),
            clock: server.clock().clone(),
            server,
        }
    }

    /// Another server process on the same store and clock, with the same configuration: its
    /// own host and API, sharing nothing in memory with this one.
    pub fn another_process(&self) -> (PodcastHost, Api) {
        let host = PodcastHost::with_clock(
            self.host.config().clone(),
            self.store.clone(),
            std::sync::Arc::new(self.clock.clone()),
        );
        (host.clone(), Api::new(host, self.config.clone()))
    }

    /// Runs this host's job workers until the returned sender is dropped.
    pub fn start_workers(&self) -> tokio::sync::oneshot::Sender<()> {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let host = self.host.clone();
        tokio::spawn(async move {
            host.work()
                .run_jobs(async {
                    let _ = stopped.await;
                })
                .await;
        });
        stop
    }

    /// Waits until alice's job ends (asking the core, so as not to spend the API's rate
    /// limit); returns the job as the API shows it.
    pub async fn until_done(&self, job: &str) -> Value {
        let alice = self
            .host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        let id: podhost_core::JobId = job.parse().unwrap();
        for _ in 0..2400 {
            if self
                .host
                .work()
                .get_job(&alice, &id)
                .await
                .unwrap()
                .status
                .is_final()
            {
                let answer = self.get(&format!("/api/jobs/{job}")).await;
                assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
                return answer.body["data"].clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("job {job} did not end");
    }

    /// A token of alice with exactly these scopes.
    pub async fn token(&self, scopes: &str) -> String {
        let owner = self
            .host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        self.host
            .access()
            .create_token(&owner, scopes, Scopes::parse_list(scopes).unwrap())
            .await
            .unwrap()
            .secret
    }

    pub async fn send(&self, request: Request<Full<Bytes>>) -> Answer {
        send_to(&self.api, request).await
    }

    /// A request without a token, with these headers (the public routes).
    pub async fn public(&self, method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        self.send(request.body(Full::new(Bytes::new())).unwrap())
            .await
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        json: Option<Value>,
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if !token.is_empty() {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let body = match json {
            Some(v) => {
                request = request.header("content-type", "application/json");
                Bytes::from(serde_json::to_vec(&v).unwrap())
            }
            None => Bytes::new(),
        };
        self.send(request.body(Full::new(body)).unwrap()).await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, &self.alice.clone(), None)
            .await
    }

    /// A multipart body: text fields and files (name, file name, bytes).
    pub async fn multipart(
        &self,
        path: &str,
        token: &str,
        texts: &[(&str, &str)],
        files: &[(&str, &str, Vec<u8>)],
    ) -> Answer {
        let (content_type, body) = multipart_body(texts, files);
        let request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", content_type)
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        self.send(request).await
    }

    /// Uploads `bytes` as alice's file `name` through the API; returns the media id.
    pub async fn upload(&self, name: &str, bytes: Vec<u8>) -> u64 {
        let answer = self
            .multipart(
                "/api/media",
                &self.alice.clone(),
                &[],
                &[("media", name, bytes)],
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.body["id"].as_u64().unwrap()
    }

    /// Uploads a one-second WAV as alice; returns the media id.
    pub async fn upload_wav(&self, name: &str) -> u64 {
        self.upload(name, podhost_testkit::fixtures::wav(1.0, 8000))
            .await
    }

    /// Uploads the AAC-in-MP4 fixture of podhost-core's tests.
    pub async fn upload_m4a(&self, name: &str) -> u64 {
        let m4a = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../podhost-core/tests/fixtures/aac_96k_mono.m4a"
        ))
        .unwrap();
        self.upload(name, m4a).await
    }

    /// Uploads a 1400x1400 PNG (a cover) as alice.
    pub async fn upload_png(&self, name: &str) -> u64 {
        self.upload(name, podhost_testkit::fixtures::png(1400, 1400))
            .await
    }

    /// Creates a feed as alice, titled as its id.
    pub async fn feed(&self, id: &str) {
        self.titled_feed(id, id).await;
    }

    /// Creates a feed as alice.
    pub async fn titled_feed(&self, id: &str, title: &str) {
        let answer = self
            .call(
                Method::POST,
                "/api/feeds",
                &self.alice.clone(),
                Some(serde_json::json!({"id": id, "title": title})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    }

    /// Invites `login` as `role` (restricted to `feeds`, null: all) through the API as alice;
    /// the member's id and the invitation's path.
    pub async fn invite(&self, login: &str, role: &str, feeds: Value) -> (String, String) {
        let answer = self
            .call(
                Method::POST,
                "/api/members",
                &self.alice.clone(),
                Some(serde_json::json!({"login": login, "role": role, "feeds": feeds})),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        assert_eq!(answer.headers[header::CACHE_CONTROL], "no-store");
        let data = &answer.body["data"];
        assert_eq!(data["status"], "invited");
        assert_eq!(data["role"], role);
        let url = data["invitation_url"].as_str().unwrap();
        let path = url.split_once("://").unwrap().1;
        let path = &path[path.find('/').unwrap()..];
        (data["id"].as_str().unwrap().to_string(), path.to_string())
    }

    /// Creates an episode as alice; returns its id.
    pub async fn episode(&self, feed: &str, texts: &[(&str, &str)]) -> String {
        let answer = self
            .multipart(
                &format!("/api/feed/{feed}/show"),
                &self.alice.clone(),
                texts,
                &[],
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.body["data"]["id"].as_str().unwrap().to_string()
    }
}

/// One download through `api`: method, client address, user agent, extra headers. The body is
/// read to the end, as an app that plays it would.
pub async fn download(
    api: &Api,
    path: &str,
    method: Method,
    ip: &str,
    agent: &str,
    headers: &[(&str, &str)],
) -> StatusCode {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("x-forwarded-for", format!("198.51.100.1, {ip}"))
        .header("user-agent", agent);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = api
        .handle(request.body(Full::new(Bytes::new())).unwrap())
        .await;
    let status = response.status();
    let _ = response.into_body().collect().await.unwrap();
    status
}

pub fn multipart_body(
    texts: &[(&str, &str)],
    files: &[(&str, &str, Vec<u8>)],
) -> (String, Vec<u8>) {
    let boundary = "podhost-test-boundary-7d9f";
    let mut body = Vec::new();
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (name, file, bytes) in files {
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The keys of a JSON object, in order.
pub fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// True when `s` matches `pattern`, where `9` stands for a digit and every other character for
/// itself.
pub fn shaped(s: &str, pattern: &str) -> bool {
    s.len() == pattern.len()
        && s.chars()
            .zip(pattern.chars())
            .all(|(c, p)| if p == '9' { c.is_ascii_digit() } else { c == p })
}

/// Sends a request to `api` (this fixture's, or another process's) and reads the answer.
pub async fn send_to(api: &Api, request: Request<Full<Bytes>>) -> Answer {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = api.handle(request).await;
    let status = response.status();
    let headers = response.headers().clone();
    let raw = response.into_body().collect().await.unwrap().to_bytes();
    // Every answer is held to the OpenAPI document: a drift fails the test that saw it.
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    podhost_testkit::contract::assert_answer(&method, &path, status.as_u16(), content_type, &raw);
    let body = if raw.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&raw).unwrap_or(Value::Null)
    };
    Answer {
        status,
        headers,
        body,
        raw,
    }
}

/// A browser: its cookies, and the CSRF token of the last page with a form.
#[derive(Clone, Default)]
pub struct Browser {
    pub cookies: Vec<(String, String)>,
    pub csrf: String,
}

impl Browser {
    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Keeps what the answer set (and forgets what it removed), and the form's CSRF token.
    pub fn take(&mut self, answer: &Answer) {
        for set in answer.headers.get_all(header::SET_COOKIE) {
            let set = set.to_str().unwrap();
            let (pair, attributes) = set.split_once(';').unwrap_or((set, ""));
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(k, _)| k != name);
            if !attributes.contains("Max-Age=0") {
                self.cookies.push((name.to_string(), value.to_string()));
            }
        }
        let html = String::from_utf8_lossy(&answer.raw);
        if let Some(at) = html.find("name=\"csrf\" value=\"") {
            let rest = &html[at + 19..];
            self.csrf = rest[..rest.find('"').unwrap()].to_string();
        }
    }

    pub async fn get(&mut self, api: &Api, path: &str) -> Answer {
        let request = Request::builder()
            .uri(path)
            .header(header::COOKIE, self.cookie_header())
            .body(Full::new(Bytes::new()))
            .unwrap();
        let answer = send_to(api, request).await;
        self.take(&answer);
        answer
    }

    /// Posts a form with the page's CSRF token.
    pub async fn post(&mut self, api: &Api, path: &str, fields: &[(&str, &str)]) -> Answer {
        let mut with_csrf = vec![("csrf", self.csrf.clone())];
        with_csrf.extend(fields.iter().map(|(k, v)| (*k, v.to_string())));
        self.post_raw(api, path, &with_csrf, &[]).await
    }

    /// Posts exactly these fields, with extra headers.
    pub async fn post_raw(
        &mut self,
        api: &Api,
        path: &str,
        fields: &[(&str, String)],
        headers: &[(&str, &str)],
    ) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::COOKIE, self.cookie_header())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let answer = send_to(api, request.body(Full::new(Bytes::from(body))).unwrap()).await;
        self.take(&answer);
        answer
    }

    /// Signs in as `name` (the sign-in form first); the answer to the form.
    pub async fn sign_in(&mut self, api: &Api, name: &str, password: &str) -> Answer {
        self.get(api, "/account").await;
        self.post(
            api,
            "/account/sign-in",
            &[("name", name), ("password", password)],
        )
        .await
    }
}
