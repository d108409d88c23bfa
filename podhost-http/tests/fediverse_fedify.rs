//! The fediverse against Fedify (`@fedify/fedify`, pinned in `tests/fediverse`), an ActivityPub
//! implementation no one here wrote, running as a second server on loopback
//! (`tests/fediverse/peer.mjs`) and driven through its control API. Fedify looks the podcast
//! up by WebFinger with signed fetches, follows it from its own actor and receives the
//! `Accept` (Fedify's inbox verifies each signature before its listener sees an activity),
//! receives the episode's `Create`, and replies: the reply is a comment. A forged signature, a
//! signer that is not the activity's actor, and a blocked instance are refused. Without Node or
//! the installed peer the test says SKIPPED loudly and passes, unless
//! `PODHOST_REQUIRE_EXTERNAL=1` (`scripts/test` installs it with `npm ci`).

use std::io::{BufRead, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

mod common;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The peer, stopped when dropped.
struct Peer {
    child: Child,
    base: String,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the peer for podhost at `podhost` (its origin), or says why it cannot.
fn start_peer(podhost: &str) -> Result<Peer, String> {
    let dir = workspace().join("tests/fediverse");
    if !dir.join("node_modules/@fedify/fedify").exists() {
        return Err("tests/fediverse/node_modules has no @fedify/fedify (npm ci there)".into());
    }
    let mut child = Command::new("node")
        .arg(dir.join("peer.mjs"))
        .args([
            "--port",
            "0",
            "--podhost",
            podhost,
            "--exit-with-stdin",
            "--rsa-only",
        ])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("node could not start: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let line = receiver
        .recv_timeout(Duration::from_secs(60))
        .map_err(|_| "the peer did not say it was ready within 60 s".to_string())?;
    let base = line
        .trim()
        .strip_prefix("ready ")
        .ok_or_else(|| format!("the peer said {line:?}"))?
        .to_string();
    Ok(Peer { child, base })
}

/// Reports the missing peer: loudly, or as a failure under `PODHOST_REQUIRE_EXTERNAL=1`.
fn missing(why: &str) {
    let what = format!("the Fedify peer cannot run ({why}); run scripts/test, which installs it");
    if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what}. PODHOST_REQUIRE_EXTERNAL=1 requires it.");
    }
    let bar = "!".repeat(78);
    let _ = writeln!(std::io::stderr(), "\n{bar}\nSKIPPED: {what}\n{bar}");
}

/// A call of the peer's control API.
async fn control(peer: &Peer, method: &str, path: &str, body: Option<Value>) -> Value {
    let client = reqwest_like(method, &format!("{}{path}", peer.base), body).await;
    serde_json::from_slice(&client).unwrap_or(Value::Null)
}

/// One HTTP request with hyper's client: the body of the answer.
async fn reqwest_like(method: &str, url: &str, body: Option<Value>) -> Vec<u8> {
    use http_body_util::{BodyExt, Full};
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<bytes::Bytes>>();
    let mut request = http::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json");
    if method == "GET" {
        request = request.header("accept", "application/json");
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let answer = client
        .request(request.body(Full::new(bytes::Bytes::from(body))).unwrap())
        .await
        .expect("the peer answers");
    answer
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes()
        .to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fedify_follows_receives_and_replies_and_its_forgeries_are_refused() {
    let server = podhost_testkit::TestServer::builder()
        .background(false)
        .start()
        .await;
    // Fedify signs by the real clock: podhost's must agree within its hour.
    server.clock().set(jiff::Timestamp::now());
    let origin = server.base_url();
    let peer = match start_peer(&origin) {
        Ok(peer) => peer,
        Err(why) => return missing(&why),
    };
    let token = server.token().to_string();
    let made = server
        .request(
            http::Method::POST,
            "/api/feeds",
            Some(&token),
            Some(json!({"id": "show", "title": "The Show", "description": "<p>Talk.</p>"})),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let authority = origin.trim_start_matches("http://");
    let actor_url = format!("{origin}/ap/podcasts/show");

    // Looked up by its handle: WebFinger, then the actor, fetched signed.
    let actor = control(
        &peer,
        "POST",
        "/control/lookup",
        Some(json!({"handle": format!("@show@{authority}")})),
    )
    .await;
    assert_eq!(actor["id"], actor_url, "{actor}");
    assert_eq!(actor["name"], "The Show");
    assert_eq!(actor["inbox"], format!("{actor_url}/inbox"));
    assert_eq!(actor["sharedInbox"], format!("{origin}/ap/inbox"));
    assert_eq!(actor["featured"], format!("{actor_url}/featured"));
    assert_eq!(actor["publicKeyId"], format!("{actor_url}#main-key"));

    // Followed from Fedify's actor; the Accept comes back signed, and Fedify verified it.
    let follow = control(
        &peer,
        "POST",
        "/control/follow",
        Some(json!({"actor": actor_url})),
    )
    .await;
    assert_eq!(follow["ok"], true, "{follow}");
    let run = server
        .request(
            http::Method::POST,
            "/api/webhooks-processing",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(run.status, 200, "{}", run.text());
    let received = control(&peer, "GET", "/control/received", None).await;
    let accept = received["activities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "Accept")
        .unwrap_or_else(|| panic!("no Accept: {received}"));
    assert_eq!(accept["actor"], actor_url);
    assert_eq!(accept["verified"], true);
    assert_eq!(accept["objectId"], follow["id"]);

    // An episode published: its Create reaches Fedify, verified, with the audio attached.
    let (content_type, body) = common::multipart_body(
        &[
            ("title", "Pilot"),
            ("description", "<p>Hello</p>"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
        ],
        &[],
    );
    let episode = server
        .send(
            http::Request::post(server.url("/api/feed/show/show"))
                .header("authorization", format!("Bearer {token}"))
                .header("content-type", content_type)
                .body(http_body_util::Full::new(bytes::Bytes::from(body)))
                .unwrap(),
        )
        .await;
    assert_eq!(episode.status, 201, "{}", episode.text());
    let episode_id = episode.json()["data"]["id"].as_str().unwrap().to_string();
    let run = server
        .request(
            http::Method::POST,
            "/api/webhooks-processing",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(run.status, 200);
    let note_url = format!("{actor_url}/episodes/{episode_id}");
    let received = control(&peer, "GET", "/control/received", None).await;
    let create = received["activities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "Create")
        .unwrap_or_else(|| panic!("no Create: {received}"));
    assert_eq!(create["objectId"], note_url, "{create}");
    assert_eq!(create["verified"], true);
    assert!(
        create["signature"]["keyId"]
            .as_str()
            .is_some_and(|k| k == format!("{actor_url}#main-key")),
        "{create}"
    );

    // The post looked up through a signed fetch.
    let note = control(
        &peer,
        "POST",
        "/control/lookup-object",
        Some(json!({"uri": note_url})),
    )
    .await;
    assert_eq!(note["found"], true, "{note}");
    assert_eq!(note["attributedTo"], actor_url);

    // A reply from Fedify's actor is a comment, signed by RFC 9421 on the first knock.
    let reply = control(
        &peer,
        "POST",
        "/control/reply",
        Some(json!({"to": actor_url, "inReplyTo": note_url, "content": "<p>Great episode!</p>"})),
    )
    .await;
    assert_eq!(reply["ok"], true, "{reply}");
    let first = &reply["attempts"][0];
    assert_eq!(first["spec"], "rfc9421", "{reply}");
    assert!(
        first["status"]
            .as_u64()
            .is_some_and(|s| (200..300).contains(&s)),
        "{reply}"
    );
    let comments = server
        .request(
            http::Method::GET,
            &format!("/api/feeds/show/episodes/{episode_id}/comments"),
            Some(&token),
            None,
        )
        .await;
    let list = comments.json()["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(list.len(), 1, "{}", comments.text());
    assert!(
        list[0]["content"]
            .as_str()
            .unwrap()
            .contains("Great episode!")
    );
    assert_eq!(list[0]["object"], reply["note"]);

    // Forged: the body changed after signing, under either standard; a signer that is not the
    // actor.
    for spec in ["draft-cavage-http-signatures-12", "rfc9421"] {
        let forged = control(
            &peer,
            "POST",
            "/control/forged",
            Some(json!({"to": actor_url, "inReplyTo": note_url, "spec": spec})),
        )
        .await;
        assert_eq!(forged["status"], 401, "{spec}: {forged}");
        let mismatch = control(
            &peer,
            "POST",
            "/control/mismatch",
            Some(json!({"to": actor_url, "inReplyTo": note_url, "spec": spec})),
        )
        .await;
        assert_eq!(mismatch["status"], 401, "{spec}: {mismatch}");
    }

    // The peer's instance blocked: its reply is refused.
    let blocked = server
        .request(
            http::Method::POST,
            "/api/fediverse/blocks",
            Some(&token),
            Some(json!({"target": peer.base.trim_start_matches("http://")})),
        )
        .await;
    assert_eq!(blocked.status, 201, "{}", blocked.text());
    let refused = control(
        &peer,
        "POST",
        "/control/reply",
        Some(json!({"to": actor_url, "inReplyTo": note_url, "content": "<p>again</p>"})),
    )
    .await;
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(refused["status"], 403, "{refused}");
    let comments = server
        .request(
            http::Method::GET,
            &format!("/api/feeds/show/episodes/{episode_id}/comments"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(comments.json()["data"].as_array().map(Vec::len), Some(1));
}
