//! Serving the API on a listener, with limits on slow and oversized request heads and a
//! graceful shutdown.

use std::{future::Future, time::Duration};

use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use tokio::net::TcpListener;

use crate::{Api, ClientAddr};

/// Serves `api` on `listener` until `shutdown` completes; requests in flight then finish (up to
/// 30 seconds) before this returns.
pub async fn serve(
    listener: TcpListener,
    api: Api,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(api.config.header_read_timeout)
        .max_buf_size(api.config.max_header_bytes.max(8192));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let service = tower::ServiceBuilder::new()
                    .map_request(move |mut request: http::Request<hyper::body::Incoming>| {
                        request.extensions_mut().insert(ClientAddr(peer));
                        request
                    })
                    .service(api.clone());
                let service = TowerToHyperService::new(service);
                let stream = crate::sendfile::SendfileStream::new(stream);
                let connection = http.serve_connection(TokioIo::new(stream), service);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    if tokio::time::timeout(Duration::from_secs(30), graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after 30 s; stopping anyway");
    }
    Ok(())
}

/// Serves the metrics of `api` on `listener` without a token until `shutdown` completes:
/// `GET /metrics` (and `HEAD`); anything else is 404. For an address only the operator's
/// scraper reaches (`podhost serve --metrics-listen`).
pub async fn serve_metrics(
    listener: TcpListener,
    api: Api,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed (metrics)");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        let timeout = api.config.header_read_timeout;
        let api = api.clone();
        let service = hyper::service::service_fn(move |request: http::Request<_>| {
            let api = api.clone();
            async move { Ok::<_, std::convert::Infallible>(metrics_answer(&api, &request)) }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(timeout)
            .serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "metrics connection ended with an error");
            }
        });
    }
}

/// The answer of the metrics listener.
fn metrics_answer<B>(
    api: &Api,
    request: &http::Request<B>,
) -> http::Response<crate::response::Body> {
    use http::{Method, StatusCode};
    let get = matches!(*request.method(), Method::GET | Method::HEAD);
    if request.uri().path() != "/metrics" || !get {
        return crate::response::error(&crate::error::ApiError::NoRoute);
    }
    let mut answer = crate::response::document(
        StatusCode::OK,
        crate::metrics::CONTENT_TYPE,
        bytes::Bytes::from(api.metrics_text()),
    );
    if request.method() == Method::HEAD {
        *answer.body_mut() = crate::response::full(bytes::Bytes::new());
    }
    answer
}

/// Completes on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

/// The whole podhost service on one listener, from a
/// [`PodcastHost`](podhost_core::PodcastHost): the REST API, the public routes and pages, and
/// every background loop a server runs (job workers, webhook, WebSub and Podping delivery,
/// statistics flushing), with a graceful shutdown that stops them all.
/// `podhost serve` is a thin caller of it; an application embeds the service the same way.
///
/// ```no_run
/// # async fn run(host: podhost_core::PodcastHost) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// podhost_http::Server::new(host)
///     .run(listener, podhost_http::shutdown_signal())
///     .await
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Server {
    host: podhost_core::PodcastHost,
    config: crate::HttpConfig,
    sender: std::sync::Arc<dyn podhost_core::webhooks::WebhookSender>,
    renderer: std::sync::Arc<dyn podhost_core::webhooks::event::EventRenderer>,
    background: bool,
    record: bool,
    metrics: Option<std::sync::Arc<std::net::TcpListener>>,
}

impl Server {
    /// The service of `host` with the default [`HttpConfig`](crate::HttpConfig), webhooks sent
    /// over HTTP(S) ([`HttpWebhookSender`](crate::HttpWebhookSender)) with the API's event
    /// bodies.
    pub fn new(host: podhost_core::PodcastHost) -> Self {
        Server {
            renderer: std::sync::Arc::new(crate::wire::WireEvents::new(host.clone())),
            host,
            config: crate::HttpConfig::default(),
            sender: std::sync::Arc::new(crate::HttpWebhookSender::new()),
            background: true,
            record: true,
            metrics: None,
        }
    }

    /// Also serves the metrics, without a token, on `listener` ([`serve_metrics`]): an
    /// internal address for the operator's scraper.
    pub fn metrics_listener(mut self, listener: std::net::TcpListener) -> Self {
        self.metrics = Some(std::sync::Arc::new(listener));
        self
    }

    /// With this HTTP configuration.
    pub fn config(mut self, config: crate::HttpConfig) -> Self {
        self.config = config;
        self
    }

    /// Webhooks (and WebSub and Podping notifications) sent by `sender` instead of over HTTP.
    pub fn webhook_sender(
        mut self,
        sender: std::sync::Arc<dyn podhost_core::webhooks::WebhookSender>,
    ) -> Self {
        self.sender = sender;
        self
    }

    /// Whether this process runs the background loops (default yes). Several servers on one
    /// store may all run them: each job, delivery and statistics day is claimed by one.
    pub fn background(mut self, run: bool) -> Self {
        self.background = run;
        self
    }

    /// Whether this process keeps a record of itself in the store (default yes): its release
    /// and the formats it reads, which `podhost store upgrade` checks before raising the
    /// store's format. A store of a newer format than this build reads is refused either way.
    /// Only a test that counts the store's writes turns it off.
    pub fn keep_record(mut self, keep: bool) -> Self {
        self.record = keep;
        self
    }

    /// The request handler alone (for mounting in another application's router).
    pub fn api(&self) -> Api {
        Api::new(self.host.clone(), self.config.clone())
    }

    /// Serves on `listener` until `shutdown` completes, with the background loops; then lets
    /// requests in flight finish (up to 30 seconds), stops the loops (statistics are flushed
    /// once more; a job in progress is taken over after its lease) and returns.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let api = self.api();
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let until = move || {
            let mut stopped = stopped.clone();
            async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            }
        };
        let mut loops = Vec::new();
        // This server's record in the store (its release, the formats it reads), renewed while
        // it runs: `podhost store upgrade` raises the format only when every live server reads
        // it. A store of a newer format than this build reads is refused here.
        let listen = listener.local_addr()?.to_string();
        let refused = |e: podhost_core::Error| std::io::Error::other(e.to_string());
        if self.record {
            let record = self
                .host
                .register_server(Some(&listen))
                .await
                .map_err(refused)?;
            let (host, stop_renewing) = (self.host.clone(), until());
            loops.push(tokio::spawn(async move {
                host.keep_server_record(record, stop_renewing).await;
            }));
        } else {
            self.host.store_format().await.map_err(refused)?;
        }
        // The servers of a store go by its time: measured before the first request, then every
        // minute (a clock that jumps is followed).
        if let Err(e) = self.host.sync_clock().await {
            tracing::warn!(error = %e, "could not read the store's time; going by this machine's");
        }
        let (host, stop_syncing) = (self.host.clone(), until());
        loops.push(tokio::spawn(async move {
            let mut stop_syncing = std::pin::pin!(stop_syncing);
            loop {
                tokio::select! {
                    () = &mut stop_syncing => break,
                    () = tokio::time::sleep(std::time::Duration::from_secs(60)) => {}
                }
                if let Err(e) = host.sync_clock().await {
                    tracing::warn!(error = %e, "could not read the store's time; keeping the last correction");
                }
            }
        }));
        // The home page's directory, read before the first visitor asks (one object, then a
        // listing in the background).
        let host = self.host.clone();
        tokio::spawn(async move {
            if let Err(e) = host.delivery().warm_directory().await {
                tracing::warn!(error = %e, "could not read the directory of podcasts");
            }
        });
        if let Some(listener) = &self.metrics {
            let listener = listener.try_clone()?;
            listener.set_nonblocking(true)?;
            let listener = TcpListener::from_std(listener)?;
            let (api, stop) = (api.clone(), until());
            loops.push(tokio::spawn(async move {
                if let Err(e) = serve_metrics(listener, api, stop).await {
                    tracing::warn!(error = %e, "the metrics listener stopped");
                }
            }));
        }
        if self.background {
            let host = self.host.clone();
            let stop = until();
            loops.push(tokio::spawn(
                async move { host.work().run_stats(stop).await },
            ));
            let host = self.host.clone();
            let stop = until();
            loops.push(tokio::spawn(
                async move { host.work().run_jobs(stop).await },
            ));
            let host = self.host.clone();
            let stop = until();
            let (sender, renderer) = (self.sender.clone(), self.renderer.clone());
            loops.push(tokio::spawn(async move {
                host.work().run_webhooks(sender, renderer, stop).await
            }));
        }
        let served = serve(listener, api, shutdown).await;
        let _ = stop.send(true);
        for task in loops {
            let _ = task.await;
        }
        served
    }
}
