//! `HttpWebhookSender` against wiremock servers on loopback: what arrives, what comes back,
//! time limits, redirects, excerpts, refused targets; and the signature of a delivery as
//! received, checked by our `verify` and by the Standard Webhooks reference library for Python
//! (`standardwebhooks` from PyPI, installed into `.venv` by `scripts/test`; without it that test
//! says SKIPPED loudly and passes, unless `PODHOST_REQUIRE_EXTERNAL=1`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use podhost_core::webhooks::signature::{Secret, sign, verify};
use podhost_core::webhooks::{EXCERPT_BYTES, SendOutcome, WebhookRequest, WebhookSender};
use podhost_http::HttpWebhookSender;
use wiremock::matchers::{body_bytes, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const BODY: &str =
    r#"{"type":"episode.published","timestamp":"2026-01-02T03:04:05Z","data":{"id":"e1"}}"#;

fn request(url: String, allow_private: bool) -> WebhookRequest {
    WebhookRequest {
        method: Default::default(),
        url,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("webhook-id".into(), "msg_2a3b4c".into()),
            ("webhook-timestamp".into(), "1767323045".into()),
            ("webhook-signature".into(), "v1,c2lnbmF0dXJl".into()),
        ],
        body: Bytes::from_static(BODY.as_bytes()),
        allow_private,
    }
}

fn sender() -> HttpWebhookSender {
    HttpWebhookSender::with_timeout(Duration::from_secs(5))
}

fn status(outcome: &SendOutcome) -> Option<u16> {
    match outcome {
        SendOutcome::Answered { status, .. } => Some(*status),
        SendOutcome::Failed { .. } => None,
    }
}

fn failure(outcome: SendOutcome) -> String {
    match outcome {
        SendOutcome::Failed { reason } => reason,
        answered => panic!("expected a failure, got {answered:?}"),
    }
}

#[tokio::test]
async fn headers_and_body_arrive_as_sent() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hooks/in"))
        .and(header("webhook-id", "msg_2a3b4c"))
        .and(header("webhook-timestamp", "1767323045"))
        // (wiremock's `header` splits values at commas: the signature is checked below)
        .and(header("content-type", "application/json"))
        .and(body_bytes(BODY.as_bytes()))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;

    let url = format!("{}/hooks/in?source=podhost", server.uri());
    let outcome = sender().send(request(url, true)).await;
    assert_eq!(
        outcome,
        SendOutcome::Answered {
            status: 204,
            excerpt: String::new()
        }
    );

    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let got = &received[0];
    assert_eq!(got.url.query(), Some("source=podhost"));
    let addr = server.address();
    assert_eq!(
        got.headers["host"],
        format!("{}:{}", addr.ip(), addr.port())
    );
    assert_eq!(got.headers["content-length"], BODY.len().to_string());
    assert_eq!(got.headers["webhook-signature"], "v1,c2lnbmF0dXJl");
    let agent = got.headers["user-agent"].to_str().unwrap();
    assert!(agent.starts_with("podhost-webhooks/"), "{agent}");
    server.verify().await;
}

#[tokio::test]
async fn statuses_and_body_excerpts_come_back() {
    let server = MockServer::start().await;
    for (route, code, body) in [
        ("/ok", 200, "thanks".to_owned()),
        ("/accepted", 202, String::new()),
        ("/broken", 500, "internal error".to_owned()),
        ("/unavailable", 503, "try later".to_owned()),
        ("/gone", 410, String::new()),
        ("/big", 200, "x".repeat(1 << 20)),
    ] {
        Mock::given(path(route))
            .respond_with(ResponseTemplate::new(code).set_body_string(body))
            .mount(&server)
            .await;
    }
    let sender = sender();
    let send = |route: &str| sender.send(request(format!("{}{route}", server.uri()), true));
    let answered = |status: u16, excerpt: &str| SendOutcome::Answered {
        status,
        excerpt: excerpt.to_owned(),
    };
    assert_eq!(send("/ok").await, answered(200, "thanks"));
    assert_eq!(send("/accepted").await, answered(202, ""));
    assert_eq!(send("/broken").await, answered(500, "internal error"));
    assert_eq!(send("/unavailable").await, answered(503, "try later"));
    assert_eq!(send("/gone").await, answered(410, ""));
    // A megabyte of answer: only the excerpt is kept.
    assert_eq!(
        send("/big").await,
        answered(200, &"x".repeat(EXCERPT_BYTES))
    );
    // The sender still works after dropping a half-read answer.
    assert_eq!(send("/ok").await, answered(200, "thanks"));
}

#[tokio::test]
async fn a_slow_subscriber_is_a_failure_after_the_time_limit() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(10)))
        .mount(&server)
        .await;
    let sender = HttpWebhookSender::with_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let reason = failure(sender.send(request(server.uri(), true)).await);
    let took = started.elapsed();
    assert!(reason.contains("no answer within"), "{reason}");
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

#[tokio::test]
async fn redirects_are_answers_and_not_followed() {
    let server = MockServer::start().await;
    let elsewhere = format!("{}/elsewhere", server.uri());
    for code in [301, 302, 307, 308] {
        Mock::given(path(format!("/moved/{code}")))
            .respond_with(ResponseTemplate::new(code).insert_header("location", elsewhere.as_str()))
            .mount(&server)
            .await;
    }
    Mock::given(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    for code in [301, 302, 307, 308] {
        let url = format!("{}/moved/{code}", server.uri());
        let outcome = sender().send(request(url, true)).await;
        assert_eq!(status(&outcome), Some(code), "{outcome:?}");
    }
    server.verify().await;
}

#[tokio::test]
async fn private_targets_are_refused_unless_allowed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let port = server.address().port();
    let sender = sender();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://2130706433:{port}/"),
    ] {
        let reason = failure(sender.send(request(url.clone(), false)).await);
        assert!(
            reason.contains("does not deliver webhooks to"),
            "{url}: {reason}"
        );
    }
    assert!(server.received_requests().await.unwrap().is_empty());

    // Allowed: the literal address, and a name that goes through the sender's resolver.
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
    ] {
        let outcome = sender.send(request(url.clone(), true)).await;
        assert_eq!(status(&outcome), Some(200), "{url}: {outcome:?}");
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn bad_urls_and_headers_fail_without_sending() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let addr = server.address();
    let sender = sender();
    for (url, says) in [
        (format!("http://user:pw@{addr}/"), "user name or password"),
        (format!("http://user@{addr}/"), "user name or password"),
        (format!("ftp://{addr}/"), "http or https"),
        ("not a url".to_owned(), "not valid"),
    ] {
        let reason = failure(sender.send(request(url.clone(), true)).await);
        assert!(reason.contains(says), "{url}: {reason}");
    }
    let mut bad_header = request(server.uri(), true);
    bad_header
        .headers
        .push(("x-note".into(), "line\r\nbreak".into()));
    let reason = failure(sender.send(bad_header).await);
    assert!(reason.contains("x-note"), "{reason}");
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn connection_and_tls_errors_are_failures() {
    let sender = sender();
    // Nothing listens there (the port of a listener just closed).
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let reason = failure(
        sender
            .send(request(format!("http://127.0.0.1:{port}/"), true))
            .await,
    );
    assert!(!reason.is_empty());
    // https to a server that speaks plain http: the handshake fails.
    let server = MockServer::start().await;
    let url = format!("https://{}/", server.address());
    let reason = failure(sender.send(request(url, true)).await);
    assert!(!reason.is_empty());
}

// ----- the signature as received, checked by us and by the reference library -----

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The version of `standardwebhooks` that `scripts/test` pins.
fn pinned_standardwebhooks() -> String {
    let script = std::fs::read_to_string(workspace().join("scripts/test")).unwrap();
    script
        .lines()
        .find_map(|l| l.strip_prefix("standardwebhooks="))
        .expect("scripts/test pins standardwebhooks=VERSION")
        .trim()
        .to_owned()
}

/// Reports the missing verifier: loudly, or as a failure under `PODHOST_REQUIRE_EXTERNAL=1`.
fn missing(why: &str) {
    let what = format!(
        "the standardwebhooks verifier is not installed ({why}); run scripts/test, which installs it"
    );
    if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what}. PODHOST_REQUIRE_EXTERNAL=1 requires it.");
    }
    let bar = "!".repeat(78);
    let _ = writeln!(std::io::stderr(), "\n{bar}\nSKIPPED: {what}\n{bar}");
}

/// Runs `tests/webhooks/verify_standardwebhooks.py`: `None` if it cannot run (missing), else
/// whether the library accepted the delivery.
fn reference_accepts(secret: &Secret, headers: &serde_json::Value, body: &str) -> Option<bool> {
    let python = workspace().join(".venv/bin/python");
    let input = serde_json::json!({ "secret": secret.as_str(), "headers": headers, "body": body });
    let mut child = match Command::new(&python)
        .arg(workspace().join("tests/webhooks/verify_standardwebhooks.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            missing(&format!("{} cannot run: {e}", python.display()));
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.to_string().as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("ModuleNotFoundError") || stderr.contains("PackageNotFoundError") {
        missing("no standardwebhooks in .venv");
        return None;
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let pinned = pinned_standardwebhooks();
    if version != pinned {
        missing(&format!(
            ".venv has standardwebhooks {version:?}, scripts/test pins {pinned}"
        ));
        return None;
    }
    match out.status.code() {
        Some(0) => Some(true),
        Some(1) => Some(false),
        _ => panic!("the verifier did not run: {stderr}"),
    }
}

#[tokio::test]
async fn a_signed_delivery_verifies_as_received_here_and_with_the_reference_library() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let secret = Secret::generate();
    let id = "msg_podhost_0001";
    // The reference library refuses timestamps more than five minutes from now.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let body = r#"{"type":"feed.updated","data":{"title":"Ünïcode & \"quotes\" — ok"}}"#;
    let signature = sign(&secret, id, now, body.as_bytes());
    let mut delivery = request(server.uri(), true);
    delivery.body = Bytes::from(body);
    delivery.headers = vec![
        ("content-type".into(), "application/json".into()),
        ("webhook-id".into(), id.into()),
        ("webhook-timestamp".into(), now.to_string()),
        ("webhook-signature".into(), signature),
    ];
    assert_eq!(status(&sender().send(delivery).await), Some(200));

    let received = server.received_requests().await.unwrap();
    let got = &received[0];
    let header = |name: &str| got.headers[name].to_str().unwrap().to_owned();
    let got_body = String::from_utf8(got.body.clone()).unwrap();
    assert_eq!(got_body, body);
    let timestamp: i64 = header("webhook-timestamp").parse().unwrap();
    assert!(verify(
        &secret,
        &header("webhook-id"),
        timestamp,
        &got.body,
        &header("webhook-signature")
    ));
    // Anything changed, and the signature no longer holds.
    assert!(!verify(
        &secret,
        &header("webhook-id"),
        timestamp,
        format!("{got_body} ").as_bytes(),
        &header("webhook-signature")
    ));

    let headers = serde_json::json!({
        "webhook-id": header("webhook-id"),
        "webhook-timestamp": header("webhook-timestamp"),
        "webhook-signature": header("webhook-signature"),
    });
    let Some(accepted) = reference_accepts(&secret, &headers, &got_body) else {
        return;
    };
    assert!(accepted, "standardwebhooks refused our signature");
    // The reference refuses what it should, so its acceptance means something.
    assert_eq!(
        reference_accepts(&secret, &headers, &format!("{got_body} ")),
        Some(false)
    );
    assert_eq!(
        reference_accepts(&Secret::generate(), &headers, &got_body),
        Some(false)
    );
}
