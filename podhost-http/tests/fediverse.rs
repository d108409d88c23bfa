//! The fediverse, as a remote instance meets it: a podcast found by WebFinger, its actor and
//! posts, followed (the `Accept` arrives signed), its new episode posted to the follower's
//! instance once, replies kept as threaded comments and shown on the episode's page, and what
//! the inbox refuses (a forged signature, an actor that is not the signer, a blocked
//! instance). The remote instance is a wiremock server on loopback serving two actors whose
//! keys the test holds; the test signs as they would (the draft HTTP Signature Mastodon sends).
//! The same flows against Fedify, an implementation no one here wrote, are in
//! `fediverse_fedify.rs`. The attacks an outside prober found are repeated at the end: a
//! signature made for another server, unsigned junk spending a real instance's budget, a block
//! evaded by a port, reactions to posts that are not public, and a post id of another origin.

mod common;

use bytes::Bytes;
use common::{
    Fixture,
    remote::{Instance, post_signed as post, post_signed_for},
};
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use podhost_core::activitypub::signatures::{self, Message};
use serde_json::{Value, json};

/// Delivers what is due (the background loop is off in the fixture).
async fn deliver(fx: &Fixture) {
    let run = fx
        .call(Method::POST, "/api/webhooks-processing", &fx.alice, None)
        .await;
    assert_eq!(run.status, StatusCode::OK, "{}", run.body);
}

/// A published episode with audio in podcast `show`.
async fn published(fx: &Fixture, title: &str) -> String {
    let audio = fx.upload_wav(&format!("{title}.wav")).await;
    fx.episode(
        "show",
        &[
            ("title", title),
            ("description", "<p>Notes</p>"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
            ("show_media", &audio.to_string()),
        ],
    )
    .await
}

fn base() -> &'static str {
    podhost_testkit::TEST_PUBLIC_URL
}

#[tokio::test]
async fn a_podcast_is_found_by_webfinger_and_serves_its_actor() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let finger = fx
        .public(
            Method::GET,
            "/.well-known/webfinger?resource=acct:show@pod.test",
            &[],
        )
        .await;
    assert_eq!(finger.status, StatusCode::OK, "{}", finger.body);
    assert_eq!(finger.headers["content-type"], "application/jrd+json");
    assert_eq!(finger.body["subject"], "acct:show@pod.test");
    let actor_url = format!("{}/ap/podcasts/show", base());
    assert_eq!(finger.body["links"][0]["href"], actor_url);

    let actor = fx
        .public(
            Method::GET,
            "/ap/podcasts/show",
            &[("accept", "application/activity+json")],
        )
        .await;
    assert_eq!(actor.status, StatusCode::OK);
    assert!(
        actor.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/activity+json")
    );
    let a = &actor.body;
    assert_eq!(a["id"], actor_url);
    assert_eq!(a["name"], "The Show");
    assert_eq!(a["preferredUsername"], "show");
    assert_eq!(a["url"], format!("{}/podcasts/show", base()));
    assert_eq!(a["inbox"], format!("{actor_url}/inbox"));
    assert_eq!(
        a["endpoints"]["sharedInbox"],
        format!("{}/ap/inbox", base())
    );
    assert_eq!(a["publicKey"]["owner"], actor_url);
    assert!(
        a["publicKey"]["publicKeyPem"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN PUBLIC KEY-----")
    );
    let rss = a["attachment"].to_string();
    assert!(rss.contains("/feeds/show/rss"), "{rss}");

    // A browser is sent to the page.
    let browser = fx
        .public(Method::GET, "/ap/podcasts/show", &[("accept", "text/html")])
        .await;
    assert_eq!(browser.status, StatusCode::SEE_OTHER);
    assert_eq!(
        browser.headers["location"],
        format!("{}/podcasts/show", base())
    );

    let nodeinfo = fx.public(Method::GET, "/.well-known/nodeinfo", &[]).await;
    let href = nodeinfo.body["links"][0]["href"]
        .as_str()
        .unwrap()
        .to_string();
    let info = fx
        .public(Method::GET, href.trim_start_matches(base()), &[])
        .await;
    assert_eq!(info.body["software"]["name"], "podhost");
    assert_eq!(info.body["protocols"], json!(["activitypub"]));

    // Unknown accounts, another host, no resource.
    for (resource, status) in [
        ("acct:nobody@pod.test", StatusCode::NOT_FOUND),
        ("acct:show@elsewhere.test", StatusCode::NOT_FOUND),
    ] {
        let answer = fx
            .public(
                Method::GET,
                &format!("/.well-known/webfinger?resource={resource}"),
                &[],
            )
            .await;
        assert_eq!(answer.status, status, "{resource}");
    }
    let none = fx.public(Method::GET, "/.well-known/webfinger", &[]).await;
    assert_eq!(none.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_private_podcast_or_one_turned_off_is_no_actor() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    for (patch, status) in [
        (json!({"fediverse": false}), StatusCode::NOT_FOUND),
        (json!({"fediverse": true}), StatusCode::OK),
        (json!({"private": true}), StatusCode::NOT_FOUND),
        (json!({"private": false}), StatusCode::OK),
    ] {
        let changed = fx
            .call(
                Method::PUT,
                "/api/feeds/show",
                &fx.alice,
                Some(patch.clone()),
            )
            .await;
        assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
        for path in [
            "/ap/podcasts/show",
            "/ap/podcasts/show/outbox",
            "/.well-known/webfinger?resource=acct:show@pod.test",
        ] {
            let answer = fx.public(Method::GET, path, &[]).await;
            assert_eq!(answer.status, status, "{patch} {path}");
        }
        let rss = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
        if status == StatusCode::OK {
            assert_eq!(rss.status, StatusCode::OK);
        }
    }
    let deleted = fx
        .call(Method::DELETE, "/api/feeds/show", &fx.alice, None)
        .await;
    assert!(deleted.status.is_success());
    let gone = fx.public(Method::GET, "/ap/podcasts/show", &[]).await;
    assert_eq!(gone.status, StatusCode::GONE);
}

#[tokio::test]
async fn followers_get_the_accept_and_each_new_episode_once_per_instance() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let instance = Instance::start(&["ann", "bob"]).await;
    let ann = instance.actor("ann");
    let bob = instance.actor("bob");
    let actor_url = format!("{}/ap/podcasts/show", base());
    for (who, key) in [(&ann, instance.key("ann")), (&bob, instance.key("bob"))] {
        let follow = json!({
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": format!("{who}#follows/1"), "type": "Follow", "actor": who, "object": actor_url,
        });
        let answer = post(
            &fx,
            "/ap/podcasts/show/inbox",
            &follow,
            key,
            &format!("{who}#main-key"),
            false,
        )
        .await;
        assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
        // Sent again (a retry of the remote's): nothing more.
        let again = post(
            &fx,
            "/ap/podcasts/show/inbox",
            &follow,
            key,
            &format!("{who}#main-key"),
            false,
        )
        .await;
        assert_eq!(again.status, StatusCode::ACCEPTED);
    }
    let followers = fx.get("/api/feeds/show/followers").await;
    assert_eq!(
        followers.body["data"].as_array().unwrap().len(),
        2,
        "{}",
        followers.body
    );
    assert!(
        followers.body["data"][0]["handle"]
            .as_str()
            .unwrap()
            .starts_with('@')
    );
    let collection = fx
        .public(Method::GET, "/ap/podcasts/show/followers", &[])
        .await;
    assert_eq!(collection.body["totalItems"], 2);

    deliver(&fx).await;
    // Each follower's Accept reaches their own inbox, signed with the podcast's key.
    let actor = fx.public(Method::GET, "/ap/podcasts/show", &[]).await;
    let pem = actor.body["publicKey"]["publicKeyPem"]
        .as_str()
        .unwrap()
        .to_string();
    for name in ["ann", "bob"] {
        let accepts = instance.received(&format!("/users/{name}/inbox")).await;
        assert_eq!(accepts.len(), 1, "one Accept for {name}");
        let (accept, headers, body) = &accepts[0];
        assert_eq!(accept["type"], "Accept");
        assert_eq!(accept["actor"], actor_url);
        assert_eq!(
            accept["object"]["id"],
            format!("{}#follows/1", instance.actor(name))
        );
        let target = format!("{}/users/{name}/inbox", instance.server.uri());
        let message = Message {
            method: "POST",
            target_uri: &target,
            headers,
            body,
        };
        let signer = signatures::signer(&message).unwrap();
        assert_eq!(signer.key_id, format!("{actor_url}#main-key"));
        signatures::verify(&message, &signer, &pem, fx.host.now())
            .expect("the Accept is signed with the podcast's key");
    }

    let episode = published(&fx, "Pilot").await;
    deliver(&fx).await;
    deliver(&fx).await;
    // Both followers are on one instance with a shared inbox: the post arrives there once.
    let posts = instance.received("/inbox").await;
    assert_eq!(posts.len(), 1, "{posts:?}");
    let (create, _, _) = &posts[0];
    let note_url = format!("{actor_url}/episodes/{episode}");
    assert_eq!(create["type"], "Create");
    assert_eq!(create["object"]["id"], note_url);
    assert_eq!(create["object"]["type"], "Note");
    assert_eq!(
        create["object"]["url"],
        format!("{}/podcasts/show/{episode}", base())
    );
    let audio = &create["object"]["attachment"][0];
    assert_eq!(audio["mediaType"], "audio/wav");
    assert!(
        audio["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/media/", base()))
    );
    assert!(audio["duration"].as_str().unwrap().starts_with("PT"));

    // The post as fetched, and in the outbox.
    let note = fx
        .public(Method::GET, note_url.trim_start_matches(base()), &[])
        .await;
    assert_eq!(note.body["id"], note_url);
    let outbox = fx
        .public(Method::GET, "/ap/podcasts/show/outbox?page=1", &[])
        .await;
    assert_eq!(outbox.body["orderedItems"][0]["object"]["id"], note_url);

    // The feed names the post.
    let rss = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&rss.raw);
    assert!(
        xml.contains(&format!(
            "<podcast:socialInteract protocol=\"activitypub\" uri=\"{note_url}\" accountId=\"@show@pod.test\" accountUrl=\"{actor_url}\"/>"
        )),
        "{xml}"
    );

    // A change of the published episode is an Update; made a draft again, its post is deleted.
    for (change, kind) in [
        (json!({"title": "Pilot (remastered)"}), "Update"),
        (json!({"is_public": 0}), "Delete"),
    ] {
        let changed = fx
            .call(
                Method::PUT,
                &format!("/api/feed/show/show/{episode}"),
                &fx.alice,
                Some(change.clone()),
            )
            .await;
        assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
        deliver(&fx).await;
        let posts = instance.received("/inbox").await;
        let (last, _, _) = posts.last().unwrap();
        assert_eq!(last["type"], kind, "{change}: {last}");
        assert_eq!(
            last["object"]["id"], note_url,
            "{change}: the activity is about the episode's post"
        );
        if kind == "Update" {
            assert_eq!(last["object"]["name"], "Pilot (remastered)");
        }
    }
    assert_eq!(instance.received("/inbox").await.len(), 3);

    // The outbox counts what is published: nothing now; a scheduled episode once its time
    // comes, with no write in between (the count is kept until then, not past it).
    let posts_in_outbox = || async {
        fx.public(Method::GET, "/ap/podcasts/show/outbox", &[])
            .await
            .body["totalItems"]
            .clone()
    };
    assert_eq!(posts_in_outbox().await, 0);
    let tomorrow = (fx.host.now() + jiff::SignedDuration::from_hours(24))
        .strftime("%Y-%m-%d")
        .to_string();
    fx.episode(
        "show",
        &[
            ("title", "Tomorrow"),
            ("is_public", "1"),
            ("publishing_date", &tomorrow),
        ],
    )
    .await;
    assert_eq!(posts_in_outbox().await, 0);
    assert_eq!(
        posts_in_outbox().await,
        0,
        "from the kept count, still right"
    );
    fx.clock.advance(jiff::SignedDuration::from_hours(48));
    assert_eq!(posts_in_outbox().await, 1);
    deliver(&fx).await;
    let posts = instance.received("/inbox").await;
    assert_eq!(
        posts.len(),
        4,
        "the scheduled episode's Create, when its time came"
    );
    assert_eq!(posts[3].0["type"], "Create");

    // Ann stops following; bob still gets the next episode, at the shared inbox, once.
    let undo = json!({
        "id": format!("{ann}#undo/1"), "type": "Undo", "actor": ann,
        "object": {"id": format!("{ann}#follows/1"), "type": "Follow", "actor": ann, "object": actor_url},
    });
    let answer = post(
        &fx,
        "/ap/inbox",
        &undo,
        instance.key("ann"),
        &format!("{ann}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let followers = fx.get("/api/feeds/show/followers").await;
    assert_eq!(followers.body["data"].as_array().unwrap().len(), 1);
    published(&fx, "Second").await;
    deliver(&fx).await;
    let posts = instance.received("/inbox").await;
    assert_eq!(posts.len(), 5);
    assert_eq!(posts[4].0["type"], "Create");
}

#[tokio::test]
async fn replies_become_threaded_comments_and_the_inbox_refuses_what_it_must() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let episode = published(&fx, "Pilot").await;
    let instance = Instance::start(&["ann", "bob"]).await;
    let (ann, bob) = (instance.actor("ann"), instance.actor("bob"));
    let note_url = format!("{}/ap/podcasts/show/episodes/{episode}", base());
    let reply = |who: &str, n: u32, in_reply_to: &str, content: &str| {
        json!({
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": format!("{who}/statuses/{n}/activity"), "type": "Create", "actor": who,
            "to": ["https://www.w3.org/ns/activitystreams#Public"],
            "cc": [format!("{}/ap/podcasts/show", base())],
            "object": {
                "id": format!("{who}/statuses/{n}"), "type": "Note", "attributedTo": who,
                "inReplyTo": in_reply_to, "content": content,
                "url": format!("{who}/statuses/{n}"),
                "published": "2026-01-02T03:04:05Z",
            },
        })
    };
    let first = reply(
        &ann,
        1,
        &note_url,
        "<p>Loved it! <script>alert(1)</script></p>",
    );
    let answer = post(
        &fx,
        "/ap/inbox",
        &first,
        instance.key("ann"),
        &format!("{ann}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let second = reply(&bob, 2, &format!("{ann}/statuses/1"), "<p>Me too</p>");
    let answer = post(
        &fx,
        "/ap/podcasts/show/inbox",
        &second,
        instance.key("bob"),
        &format!("{bob}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    // The same reply delivered twice is one comment.
    post(
        &fx,
        "/ap/inbox",
        &first,
        instance.key("ann"),
        &format!("{ann}#main-key"),
        false,
    )
    .await;

    let comments = fx
        .get(&format!("/api/feeds/show/episodes/{episode}/comments"))
        .await;
    assert_eq!(comments.status, StatusCode::OK, "{}", comments.body);
    let list = comments.body["data"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{}", comments.body);
    assert_eq!(list[0]["author"]["actor"], ann);
    assert_eq!(list[0]["parent_id"], Value::Null);
    assert!(!list[0]["content"].as_str().unwrap().contains("script"));
    assert_eq!(list[1]["parent_id"], list[0]["id"]);
    let first_id = list[0]["id"].as_str().unwrap().to_string();

    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{episode}"), &[])
        .await;
    let html = String::from_utf8_lossy(&page.raw).to_string();
    assert!(
        html.contains("Loved it!") && html.contains("Me too"),
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "the comment is cleaned");
    assert!(html.contains("@show@pod.test"));

    // Refused: a forged signature, a signer that is not the actor.
    let forged = reply(&ann, 3, &note_url, "<p>forged</p>");
    let answer = post(
        &fx,
        "/ap/inbox",
        &forged,
        instance.key("ann"),
        &format!("{ann}#main-key"),
        true,
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    let answer = post(
        &fx,
        "/ap/inbox",
        &forged,
        instance.key("bob"),
        &format!("{bob}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    let unsigned = fx
        .send(
            Request::post("/ap/inbox")
                .header("content-type", "application/activity+json")
                .body(Full::new(Bytes::from(forged.to_string())))
                .unwrap(),
        )
        .await;
    assert_eq!(unsigned.status, StatusCode::UNAUTHORIZED);
    let garbage = fx
        .send(
            Request::post("/ap/inbox")
                .body(Full::new(Bytes::from("{nope")))
                .unwrap(),
        )
        .await;
    assert_eq!(garbage.status, StatusCode::BAD_REQUEST);

    // The podcaster hides a comment: gone from the page, kept in the API.
    let hidden = fx
        .call(
            Method::PUT,
            &format!("/api/feeds/show/episodes/{episode}/comments/{first_id}"),
            &fx.alice,
            Some(json!({"hidden": true})),
        )
        .await;
    assert_eq!(hidden.status, StatusCode::OK, "{}", hidden.body);
    assert_eq!(hidden.body["data"]["hidden"], true);
    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{episode}"), &[])
        .await;
    assert!(!String::from_utf8_lossy(&page.raw).contains("Loved it!"));

    // Blocking the instance: nothing more of it is accepted.
    let block = fx
        .call(
            Method::POST,
            "/api/fediverse/blocks",
            &fx.alice,
            Some(json!({"target": instance.host()})),
        )
        .await;
    assert_eq!(block.status, StatusCode::CREATED, "{}", block.body);
    assert_eq!(block.body["data"]["kind"], "instance");
    let again = reply(&bob, 4, &note_url, "<p>after the block</p>");
    let answer = post(
        &fx,
        "/ap/inbox",
        &again,
        instance.key("bob"),
        &format!("{bob}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    let comments = fx
        .get(&format!("/api/feeds/show/episodes/{episode}/comments"))
        .await;
    let list = comments.body["data"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(
        list.iter().all(|c| c["hidden"] == true),
        "a block hides what it wrote"
    );
    // Lifted, it is accepted again.
    let id = block.body["data"]["id"].as_str().unwrap();
    let lifted = fx
        .call(
            Method::DELETE,
            &format!("/api/fediverse/blocks/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(lifted.status, StatusCode::NO_CONTENT);
    let answer = post(
        &fx,
        "/ap/inbox",
        &again,
        instance.key("bob"),
        &format!("{bob}#main-key"),
        false,
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
}

// ---- what an outside prober found, repeated from outside ----

/// The entries of alice's account log: a refused activity adds none.
async fn log_entries(fx: &Fixture) -> usize {
    use futures::TryStreamExt;
    let prefix = object_store::path::Path::from("accounts/alice/log");
    let listed: Vec<_> = fx.store.list(Some(&prefix)).try_collect().await.unwrap();
    listed.len()
}

/// The error sentence of a refusal.
fn error(answer: &common::Answer) -> &str {
    answer.body["error"].as_str().unwrap_or_default()
}

fn follow_of(who: &str, n: u32) -> Value {
    json!({
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": format!("{who}#follows/{n}"), "type": "Follow", "actor": who,
        "object": format!("{}/ap/podcasts/show", base()),
    })
}

async fn followers(fx: &Fixture) -> Vec<Value> {
    let answer = fx.get("/api/feeds/show/followers").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body["data"].as_array().unwrap().clone()
}

async fn comments_of(fx: &Fixture, episode: &str) -> Vec<Value> {
    let answer = fx
        .get(&format!("/api/feeds/show/episodes/{episode}/comments"))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_signature_made_for_another_server_is_refused() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let instance = Instance::start(&["ann"]).await;
    let ann = instance.actor("ann");
    let key_id = format!("{ann}#main-key");
    let before = log_entries(&fx).await;

    // Signed over `Host: podcasts.elsewhere.example` (a request made for another server,
    // replayed here): the host signed must be this deployment's.
    let answer = post_signed_for(
        &fx,
        "/ap/podcasts/show/inbox",
        "https://podcasts.elsewhere.example/ap/podcasts/show/inbox",
        &follow_of(&ann, 1),
        instance.key("ann"),
        &key_id,
        &[],
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    assert!(
        error(&answer)
            .contains("signed for host podcasts.elsewhere.example, but this server is pod.test"),
        "{}",
        answer.body
    );
    // The same at the shared inbox.
    let answer = post_signed_for(
        &fx,
        "/ap/inbox",
        "https://podcasts.elsewhere.example/ap/inbox",
        &follow_of(&ann, 2),
        instance.key("ann"),
        &key_id,
        &[],
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    assert!(followers(&fx).await.is_empty());
    assert_eq!(log_entries(&fx).await, before, "nothing was written");

    // Signed for this deployment, it is taken whatever `Host` a proxy passed on.
    let answer = post_signed_for(
        &fx,
        "/ap/podcasts/show/inbox",
        &format!("{}/ap/podcasts/show/inbox", base()),
        &follow_of(&ann, 3),
        instance.key("ann"),
        &key_id,
        &[("host", "podhost-backend.internal:8080")],
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert_eq!(followers(&fx).await.len(), 1);
}

#[tokio::test]
async fn unsigned_junk_does_not_spend_a_real_instances_budget() {
    let fx = Fixture::with_config(podhost_http::HttpConfig {
        trust_forwarded_for: true,
        ..Default::default()
    })
    .await;
    fx.titled_feed("show", "The Show").await;
    let episode = published(&fx, "Pilot").await;
    let note_url = format!("{}/ap/podcasts/show/episodes/{episode}", base());
    let instance = Instance::start(&["ann", "bob"]).await;
    let (ann, bob) = (instance.actor("ann"), instance.actor("bob"));
    let before = log_entries(&fx).await;

    // 600 unsigned likes claiming the instance's actors (its whole minute's share, were they
    // counted against it): each refused, and nothing kept.
    for n in 0..600 {
        let actor = format!("{}/users/u{n}", instance.server.uri());
        let like = json!({
            "id": format!("{actor}#likes/1"), "type": "Like", "actor": actor, "object": note_url,
        });
        let answer = fx
            .send(
                Request::post("/ap/inbox")
                    .header("content-type", "application/activity+json")
                    .header("x-forwarded-for", "203.0.113.7")
                    .body(Full::new(Bytes::from(like.to_string())))
                    .unwrap(),
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
        assert!(error(&answer).contains("not signed"), "{}", answer.body);
    }
    assert_eq!(log_entries(&fx).await, before, "nothing was written");
    // The instance's own, signed follow is taken, even from that address.
    let answer = post_signed_for(
        &fx,
        "/ap/podcasts/show/inbox",
        &format!("{}/ap/podcasts/show/inbox", base()),
        &follow_of(&ann, 1),
        instance.key("ann"),
        &format!("{ann}#main-key"),
        &[("x-forwarded-for", "203.0.113.7")],
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert_eq!(followers(&fx).await.len(), 1);

    // Signed junk whose key cannot be had: counted against the address it came from, which
    // past its share has no more keys fetched for it this minute.
    let ghost_fetches = || async {
        instance
            .server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.method.as_str() == "GET" && r.url.path().starts_with("/users/ghost"))
            .count()
    };
    let mut refused = None;
    for n in 0..200 {
        let ghost = format!("{}/users/ghost{n}", instance.server.uri());
        let like = json!({
            "id": format!("{ghost}#likes/1"), "type": "Like", "actor": ghost, "object": note_url,
        });
        let answer = post_signed_for(
            &fx,
            "/ap/inbox",
            &format!("{}/ap/inbox", base()),
            &like,
            instance.key("ann"),
            &format!("{ghost}#main-key"),
            &[("x-forwarded-for", "203.0.113.66")],
        )
        .await;
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some((n, answer));
            break;
        }
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    }
    let (n, answer) = refused.expect("the address is held back");
    assert_eq!(n, 120, "after 120 failures a minute");
    assert!(
        error(&answer)
            .contains("too many requests from this address whose signature could not be verified"),
        "{}",
        answer.body
    );
    assert_eq!(answer.headers["retry-after"], "60");
    assert_eq!(ghost_fetches().await, 120, "no key fetched past the share");
    // The instance's actors, from their own address, are not held back.
    let answer = post_signed_for(
        &fx,
        "/ap/podcasts/show/inbox",
        &format!("{}/ap/podcasts/show/inbox", base()),
        &follow_of(&bob, 1),
        instance.key("bob"),
        &format!("{bob}#main-key"),
        &[("x-forwarded-for", "198.51.100.1")],
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert_eq!(followers(&fx).await.len(), 2);
}

#[tokio::test]
async fn a_block_by_host_name_covers_every_port() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    // The instance is on a port of its host (`http://127.0.0.1:PORT/users/ann`).
    let instance = Instance::start(&["ann", "bob"]).await;
    let (ann, bob) = (instance.actor("ann"), instance.actor("bob"));
    assert!(ann.contains("127.0.0.1:"), "{ann}");
    for (who, name) in [(&ann, "ann"), (&bob, "bob")] {
        let answer = instance
            .post(&fx, "/ap/podcasts/show/inbox", &follow_of(who, 1), name)
            .await;
        assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    }
    deliver(&fx).await;
    assert_eq!(followers(&fx).await.len(), 2);

    // Blocked by its host name alone (no port, any case).
    let block = fx
        .call(
            Method::POST,
            "/api/fediverse/blocks",
            &fx.alice,
            Some(json!({"target": "127.0.0.1"})),
        )
        .await;
    assert_eq!(block.status, StatusCode::CREATED, "{}", block.body);
    assert_eq!(block.body["data"]["kind"], "instance");
    assert_eq!(block.body["data"]["target"], "127.0.0.1");
    // Its followers at that port stop following, as they would at the default port.
    assert!(followers(&fx).await.is_empty());
    // Blocking it again with a port names the same block.
    let again = fx
        .call(
            Method::POST,
            "/api/fediverse/blocks",
            &fx.alice,
            Some(json!({"target": instance.host()})),
        )
        .await;
    assert!(again.status.is_success(), "{}", again.body);
    assert_eq!(again.body["data"]["id"], block.body["data"]["id"]);
    let listed = fx.get("/api/fediverse/blocks").await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 1);

    // Following again is refused, and changes nothing.
    let before = log_entries(&fx).await;
    let answer = instance
        .post(&fx, "/ap/podcasts/show/inbox", &follow_of(&ann, 2), "ann")
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    assert!(error(&answer).contains("blocked"), "{}", answer.body);
    assert!(followers(&fx).await.is_empty());
    assert_eq!(log_entries(&fx).await, before, "nothing was written");

    // Its inbox gets no more posts: the delivery channel it shared went with its followers.
    published(&fx, "After the block").await;
    deliver(&fx).await;
    assert!(instance.received("/inbox").await.is_empty());
}

#[tokio::test]
async fn replies_likes_and_boosts_of_posts_that_are_not_public_are_refused() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let published_episode = published(&fx, "Pilot").await;
    let draft = fx
        .episode("show", &[("title", "Draft"), ("is_public", "0")])
        .await;
    let tomorrow = (fx.host.now() + jiff::SignedDuration::from_hours(24))
        .strftime("%Y-%m-%d")
        .to_string();
    let scheduled = fx
        .episode(
            "show",
            &[
                ("title", "Tomorrow"),
                ("is_public", "1"),
                ("publishing_date", &tomorrow),
            ],
        )
        .await;
    let instance = Instance::start(&["ann", "bob"]).await;
    let (ann, bob) = (instance.actor("ann"), instance.actor("bob"));
    let post_of = |episode: &str| format!("{}/ap/podcasts/show/episodes/{episode}", base());
    let reply = |who: &str, n: u32, in_reply_to: &str| {
        json!({
            "id": format!("{who}/statuses/{n}/activity"), "type": "Create", "actor": who,
            "object": {
                "id": format!("{who}/statuses/{n}"), "type": "Note", "attributedTo": who,
                "inReplyTo": in_reply_to, "content": "<p>first!</p>",
            },
        })
    };
    let react = |who: &str, kind: &str, n: u32, object: &str| json!({"id": format!("{who}#{kind}/{n}"), "type": kind, "actor": who, "object": object});
    let before = log_entries(&fx).await;
    // A draft's and a scheduled episode's posts (and one that never was): 404 to everyone,
    // and every reaction to them refused alike.
    let mut n = 0;
    for episode in [draft.as_str(), scheduled.as_str(), "pod-9999"] {
        let post = post_of(episode);
        let document = fx
            .public(Method::GET, post.trim_start_matches(base()), &[])
            .await;
        assert_eq!(document.status, StatusCode::NOT_FOUND, "{post}");
        for activity in [
            reply(&ann, 100 + n, &post),
            react(&ann, "Like", n, &post),
            react(&ann, "Announce", n, &post),
        ] {
            n += 1;
            let answer = instance.post(&fx, "/ap/inbox", &activity, "ann").await;
            assert_eq!(
                answer.status,
                StatusCode::NOT_FOUND,
                "{activity}: {}",
                answer.body
            );
            assert!(
                error(&answer).contains(&format!("{post} is not a public post"))
                    && error(&answer).contains("accepted only for the posts of published episodes"),
                "{}",
                answer.body
            );
        }
    }
    for episode in [&draft, &scheduled] {
        assert!(comments_of(&fx, episode).await.is_empty());
    }
    assert_eq!(log_entries(&fx).await, before, "nothing was written");

    // A comment of a published episode is answered; once the episode is a draft again,
    // neither it nor its comments take replies.
    let answer = instance
        .post(
            &fx,
            "/ap/inbox",
            &reply(&ann, 1, &post_of(&published_episode)),
            "ann",
        )
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let unpublished = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{published_episode}"),
            &fx.alice,
            Some(json!({"is_public": 0})),
        )
        .await;
    assert_eq!(unpublished.status, StatusCode::OK, "{}", unpublished.body);
    let comment = format!("{ann}/statuses/1");
    let answer = instance
        .post(
            &fx,
            "/ap/podcasts/show/inbox",
            &reply(&bob, 2, &comment),
            "bob",
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.body);
    assert!(
        error(&answer).contains(&format!("{comment} is not a public post")),
        "{}",
        answer.body
    );
    let answer = instance
        .post(
            &fx,
            "/ap/inbox",
            &react(&bob, "Like", 1, &post_of(&published_episode)),
            "bob",
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.body);
    assert_eq!(comments_of(&fx, &published_episode).await.len(), 1);

    // The scheduled episode, once its time came, takes them.
    fx.clock.advance(jiff::SignedDuration::from_hours(48));
    let answer = instance
        .post(
            &fx,
            "/ap/inbox",
            &reply(&ann, 3, &post_of(&scheduled)),
            "ann",
        )
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert_eq!(comments_of(&fx, &scheduled).await.len(), 1);
}

#[tokio::test]
async fn a_post_or_activity_with_an_id_of_another_origin_is_refused() {
    let fx = Fixture::new().await;
    fx.titled_feed("show", "The Show").await;
    let episode = published(&fx, "Pilot").await;
    let note_url = format!("{}/ap/podcasts/show/episodes/{episode}", base());
    // Two instances: ann's, and bob's (another port of loopback: another origin).
    let mallory_instance = Instance::start(&["ann"]).await;
    let bob_instance = Instance::start(&["bob"]).await;
    let (ann, bob) = (mallory_instance.actor("ann"), bob_instance.actor("bob"));
    let bobs_post = format!("{bob}/statuses/1");
    let before = log_entries(&fx).await;

    // Ann's reply claims the id of bob's post (on bob's origin): refused.
    let claimed = json!({
        "id": format!("{ann}/statuses/9/activity"), "type": "Create", "actor": ann,
        "object": {
            "id": bobs_post, "type": "Note", "attributedTo": ann,
            "inReplyTo": note_url, "content": "<p>not bob's</p>",
        },
    });
    let answer = mallory_instance
        .post(&fx, "/ap/inbox", &claimed, "ann")
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    let expected = format!(
        "the post {bobs_post} is not on its author's origin ({})",
        mallory_instance.server.uri()
    );
    assert!(error(&answer).contains(&expected), "{}", answer.body);
    // And an edit of it.
    let mut edit = claimed.clone();
    edit["type"] = json!("Update");
    edit["id"] = json!(format!("{ann}/statuses/9/edit"));
    let answer = mallory_instance.post(&fx, "/ap/inbox", &edit, "ann").await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    // Follows, likes and boosts are kept by their activity's id: the same rule.
    for activity in [
        json!({"id": format!("{bob}#follows/1"), "type": "Follow", "actor": ann,
               "object": format!("{}/ap/podcasts/show", base())}),
        json!({"id": format!("{bob}#likes/1"), "type": "Like", "actor": ann, "object": note_url}),
        json!({"id": format!("{bob}#boosts/1"), "type": "Announce", "actor": ann, "object": note_url}),
    ] {
        let answer = mallory_instance
            .post(&fx, "/ap/inbox", &activity, "ann")
            .await;
        assert_eq!(
            answer.status,
            StatusCode::UNAUTHORIZED,
            "{activity}: {}",
            answer.body
        );
        assert!(
            error(&answer).contains("is not on its actor's origin"),
            "{}",
            answer.body
        );
    }
    assert!(comments_of(&fx, &episode).await.is_empty());
    assert!(followers(&fx).await.is_empty());
    assert_eq!(log_entries(&fx).await, before, "nothing was written");

    // Bob's own post under that id is kept, and his Delete removes it.
    let real = json!({
        "id": format!("{bobs_post}/activity"), "type": "Create", "actor": bob,
        "object": {
            "id": bobs_post, "type": "Note", "attributedTo": bob,
            "inReplyTo": note_url, "content": "<p>bob's own</p>",
        },
    });
    let answer = bob_instance.post(&fx, "/ap/inbox", &real, "bob").await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let list = comments_of(&fx, &episode).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["author"]["actor"], bob);
    assert!(list[0]["content"].as_str().unwrap().contains("bob's own"));
    let delete = json!({
        "id": format!("{bobs_post}#delete"), "type": "Delete", "actor": bob,
        "object": {"id": bobs_post, "type": "Tombstone"},
    });
    let answer = bob_instance
        .post(&fx, "/ap/podcasts/show/inbox", &delete, "bob")
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert!(comments_of(&fx, &episode).await.is_empty());
}
