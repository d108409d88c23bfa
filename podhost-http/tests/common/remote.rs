//! A remote fediverse instance for the tests: a wiremock server on loopback serving actors
//! whose keys the test holds, with a shared inbox, answering every POST 202; and requests to
//! podhost's inboxes signed as Mastodon signs them (the draft HTTP Signature).

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::Full;
use podhost_core::activitypub::{keys::ActorKey, signatures};
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, ResponseTemplate, matchers};

use super::{Answer, Fixture};

/// A remote instance: its server, and the key of each of its actors, by name.
pub struct Instance {
    pub server: MockServer,
    pub keys: Vec<(String, ActorKey)>,
}

impl Instance {
    /// An instance with actors `names`, each with a key of its own.
    pub async fn start(names: &[&str]) -> Instance {
        let server = MockServer::start().await;
        let keys: Vec<(String, ActorKey)> = names
            .iter()
            .map(|n| (n.to_string(), ActorKey::generate()))
            .collect();
        for (name, key) in &keys {
            let id = format!("{}/users/{name}", server.uri());
            Mock::given(matchers::method("GET"))
                .and(matchers::path(format!("/users/{name}")))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                    "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
                    "id": id, "type": "Person", "preferredUsername": name, "name": name.to_uppercase(),
                    "inbox": format!("{id}/inbox"),
                    "endpoints": {"sharedInbox": format!("{}/inbox", server.uri())},
                    "publicKey": {"id": format!("{id}#main-key"), "owner": id, "publicKeyPem": key.public_pem()},
                })))
                .mount(&server)
                .await;
        }
        Mock::given(matchers::method("POST"))
            .respond_with(ResponseTemplate::new(202))
            .mount(&server)
            .await;
        Instance { server, keys }
    }

    /// The key of actor `name`.
    pub fn key(&self, name: &str) -> &ActorKey {
        &self
            .keys
            .iter()
            .find(|(n, _)| n == name)
            .expect("an actor")
            .1
    }

    /// The URL of actor `name`.
    pub fn actor(&self, name: &str) -> String {
        format!("{}/users/{name}", self.server.uri())
    }

    /// The instance's host name and port.
    pub fn host(&self) -> String {
        self.server.uri().trim_start_matches("http://").to_string()
    }

    /// Posts `activity` to `path` of podhost signed by actor `signer`'s key.
    pub async fn post(&self, fx: &Fixture, path: &str, activity: &Value, signer: &str) -> Answer {
        let key_id = format!("{}#main-key", self.actor(signer));
        post_signed(fx, path, activity, self.key(signer), &key_id, false).await
    }

    /// Delivers `activity`, signed by actor `signer`, to `host`'s shared inbox without a socket
    /// (for tests that hold a `PodcastHost`, not a `Fixture`); the host must allow private
    /// addresses, to fetch the signer's key from this instance on loopback.
    pub async fn deliver(
        &self,
        host: &podhost_core::PodcastHost,
        activity: &Value,
        signer: &str,
    ) -> podhost_core::Received {
        let body = serde_json::to_vec(activity).unwrap();
        let path = "/ap/inbox";
        let target = format!("{}{path}", host.urls().base());
        let key_id = format!("{}#main-key", self.actor(signer));
        let headers = signatures::sign_draft(
            self.key(signer),
            &key_id,
            "POST",
            &target,
            Some(&body),
            host.now(),
        )
        .unwrap();
        let inbound = podhost_core::Inbound {
            feed: None,
            method: "POST".into(),
            path: path.into(),
            headers,
            body: Bytes::from(body),
            source: None,
        };
        host.fediverse()
            .receive(inbound, &podhost_http::HttpFetcher::new())
            .await
            .unwrap_or_else(|e| panic!("the inbox refused {}: {e:?}", activity["id"]))
    }

    /// What podhost posted to `path` of the instance: the JSON, the headers, the body.
    pub async fn received(&self, path: &str) -> Vec<(Value, Vec<(String, String)>, Bytes)> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.method.as_str() == "POST" && r.url.path() == path)
            .map(|r| {
                let headers = r
                    .headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect();
                (
                    serde_json::from_slice(&r.body).unwrap_or(Value::Null),
                    headers,
                    Bytes::from(r.body),
                )
            })
            .collect()
    }
}

/// Posts `activity` to `path` of podhost, signed by `key` as `key_id` (the draft HTTP
/// Signature); `tamper` changes the body after signing.
pub async fn post_signed(
    fx: &Fixture,
    path: &str,
    activity: &Value,
    key: &ActorKey,
    key_id: &str,
    tamper: bool,
) -> Answer {
    let body = serde_json::to_vec(activity).unwrap();
    let target = format!("{}{path}", podhost_testkit::TEST_PUBLIC_URL);
    let request = signed_request(fx, path, &target, &body, key, key_id, &[]);
    let body = if tamper {
        let mut tampered = activity.clone();
        tampered["object"]["content"] = json!("<p>something else</p>");
        serde_json::to_vec(&tampered).unwrap()
    } else {
        body
    };
    fx.send(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
}

/// Posts `activity` to `path` of podhost signed by `key` as `key_id` for the URL `signed_for`
/// (as a sender signs who posts to that URL: its host is the `Host` sent and signed), with the
/// headers `extra` besides (one named as a signed header, `host` say, replaces it).
pub async fn post_signed_for(
    fx: &Fixture,
    path: &str,
    signed_for: &str,
    activity: &Value,
    key: &ActorKey,
    key_id: &str,
    extra: &[(&str, &str)],
) -> Answer {
    let body = serde_json::to_vec(activity).unwrap();
    let request = signed_request(fx, path, signed_for, &body, key, key_id, extra);
    fx.send(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
}

/// A POST of `body` to `path`, signed for the URL `signed_for`, with the headers `extra`.
fn signed_request(
    fx: &Fixture,
    path: &str,
    signed_for: &str,
    body: &[u8],
    key: &ActorKey,
    key_id: &str,
    extra: &[(&str, &str)],
) -> http::request::Builder {
    let headers =
        signatures::sign_draft(key, key_id, "POST", signed_for, Some(body), fx.host.now()).unwrap();
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", "application/activity+json");
    for (name, value) in headers {
        if !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
            request = request.header(name, value);
        }
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    request
}

/// Replies from the fediverse to `episode`'s post, so its page shows comments (the browser
/// tests'): a comment with a link, an answer to it (a thread), and an answer to that
/// from a second listener. The instance is gone once they arrived, as a remote one may be.
pub async fn converse(
    host: &podhost_core::PodcastHost,
    feed: &podhost_core::FeedId,
    episode: podhost_core::EpisodeId,
) {
    let instance = Instance::start(&["ann", "bob"]).await;
    let post = host.urls().episode_note(feed, episode);
    let replies = [
        (
            "ann",
            1,
            post.clone(),
            "<p>The pegboard wall is genius. I built one after \
             <a href=\"https://example.org/pegboard\">this guide</a>.</p>",
        ),
        (
            "bob",
            2,
            instance.actor("ann") + "/statuses/1",
            "<p>Same here, and a magnetic strip for the chisels.</p>",
        ),
        (
            "ann",
            3,
            instance.actor("bob") + "/statuses/2",
            "<p>Good idea, <strong>thanks</strong>!</p>",
        ),
    ];
    for (who, n, in_reply_to, content) in replies {
        let actor = instance.actor(who);
        let activity = serde_json::json!({
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": format!("{actor}/statuses/{n}/activity"), "type": "Create", "actor": actor,
            "to": ["https://www.w3.org/ns/activitystreams#Public"],
            "cc": [host.urls().actor(feed)],
            "object": {
                "id": format!("{actor}/statuses/{n}"), "type": "Note", "attributedTo": actor,
                "inReplyTo": in_reply_to, "content": content,
                "url": format!("{actor}/statuses/{n}"),
                "published": format!("2026-01-0{n}T10:00:00Z"),
            },
        });
        let received = instance.deliver(host, &activity, who).await;
        assert_eq!(received, podhost_core::Received::Accepted);
    }
}
