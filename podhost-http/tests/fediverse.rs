//! The fediverse, as a remote instance meets it: a podcast found by WebFinger, its actor and
//! posts, followed (the `Accept` arrives signed), its new episode posted to the follower's
//! instance once, replies kept as threaded comments and shown on the episode's page, and what
//! the inbox refuses (a forged signature, an actor that is not the signer, a blocked
//! instance). The remote instance is a wiremock server on loopback serving two actors whose
//! keys the test holds; the test signs as they would (the draft HTTP Signature Mastodon sends).
//! The same flows against Fedify, an implementation no one here wrote, are in
//! `fediverse_fedify.rs`.

mod common;

use bytes::Bytes;
use common::{
    Fixture,
    remote::{Instance, post_signed as post},
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
