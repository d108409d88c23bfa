//! cargo run -p podhost-examples --example mount
//!
//! Mounts podhost under a path prefix (`/podcasts`) inside another hyper application, next to
//! the application's own routes. podhost's links then start with the prefix: the public URL
//! given to the host says where podhost lives. The application strips the prefix before handing
//! a request to podhost's `Api`, and answers everything else itself.

use std::convert::Infallible;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, combinators::UnsyncBoxBody};
use podhost_core::{HostConfig, PodcastHost, Scopes};
use podhost_http::{Api, HttpConfig};

const PREFIX: &str = "/podcasts";

/// The body type of podhost's answers, which the application's own answers share.
type Body = UnsyncBoxBody<Bytes, std::io::Error>;

fn text(status: StatusCode, text: &'static str) -> Response<Body> {
    let body = Full::new(Bytes::from(text))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
}

/// The application: `/health` is its own, `/podcasts/...` is podhost's.
async fn app(
    api: Api,
    request: Request<hyper::body::Incoming>,
) -> Result<Response<Body>, Infallible> {
    let path = request.uri().path().to_string();
    if path == "/health" {
        return Ok(text(StatusCode::OK, "ok"));
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return Ok(text(StatusCode::NOT_FOUND, "not here"));
    };
    // podhost sees the path below the prefix, with the query kept.
    let (mut parts, body) = request.into_parts();
    let query = parts
        .uri
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    parts.uri = format!("{}{query}", if rest.is_empty() { "/" } else { rest })
        .parse()
        .expect("a path");
    Ok(api.handle(Request::from_parts(parts, body)).await)
}

podhost_examples::main!(run);

async fn run() -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    // podhost's public URL includes the prefix: every link it makes points inside the mount.
    let config = HostConfig::new(&format!("{base}{PREFIX}"))?;
    let host = PodcastHost::new(config, podhost_core::open_store("memory://")?.store);
    host.access().create_account("alice").await?;
    let alice = host.access().owner(&"alice".parse()?).await?;
    let token = host
        .access()
        .create_token(&alice, "app", Scopes::all())
        .await?
        .secret;
    let api = Api::new(host, HttpConfig::default());

    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let api = api.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |r| app(api.clone(), r));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });

    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let get = |path: &str, token: Option<&str>| {
        let mut request = Request::get(format!("{base}{path}"));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let request = request.body(Full::new(Bytes::new())).expect("a request");
        let client = client.clone();
        async move {
            let response = client.request(request).await?;
            let status = response.status();
            let body = response.into_body().collect().await?.to_bytes();
            anyhow::Ok((status, String::from_utf8_lossy(&body).into_owned()))
        }
    };

    let (status, body) = get("/health", None).await?;
    println!("GET /health: {status} {body}");
    anyhow::ensure!(status == StatusCode::OK);

    let create = Request::post(format!("{base}{PREFIX}/api/feeds"))
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(
            r#"{"id": "daily", "title": "Daily"}"#,
        )))?;
    let created = client.request(create).await?;
    let location = created.headers()["location"].to_str()?.to_string();
    println!(
        "POST {PREFIX}/api/feeds: {} at {location}",
        created.status()
    );
    anyhow::ensure!(created.status() == StatusCode::CREATED);
    anyhow::ensure!(location.starts_with(&format!("{base}{PREFIX}/api/")));

    let (status, rss) = get(&format!("{PREFIX}/feeds/daily/rss"), None).await?;
    println!(
        "GET {PREFIX}/feeds/daily/rss: {status}, {} bytes",
        rss.len()
    );
    anyhow::ensure!(status == StatusCode::OK);
    anyhow::ensure!(rss.contains(&format!("{base}{PREFIX}/feeds/daily/rss")));

    let (status, _) = get("/elsewhere", None).await?;
    anyhow::ensure!(status == StatusCode::NOT_FOUND);
    Ok(())
}
