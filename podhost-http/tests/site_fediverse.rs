//! The fediverse on the site, as a signed-in podcaster's browser uses it: the page of a podcast
//! lists its episodes' comments (a reply from a remote instance, signed as Mastodon signs), Hide
//! and Show change what the episode's public page shows (and what the API says), blocks are
//! made and lifted with the page's forms, forms without the session's CSRF token are refused,
//! and the pages speak German. The remote instance is a wiremock server on loopback serving an
//! actor whose key the test holds, as in `fediverse.rs`.

mod common;

use common::{Answer, Browser, Fixture, remote::Instance};
use http::{Method, StatusCode, header};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery staple";

fn html(answer: &Answer) -> String {
    String::from_utf8_lossy(&answer.raw).into_owned()
}

fn location(answer: &Answer) -> &str {
    answer.headers[header::LOCATION].to_str().unwrap()
}

/// The fixture with alice's password set.
async fn site() -> Fixture {
    let fx = Fixture::new().await;
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some(PASSWORD))
        .await
        .unwrap();
    fx
}

async fn signed_in(fx: &Fixture) -> Browser {
    let mut browser = Browser::default();
    let answer = browser.sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", html(&answer));
    browser.get(&fx.api, "/account").await;
    browser
}

/// What the site's fixture starts from: podcast `show` with episode "Pilot", which ann (of a
/// remote instance) answered with a comment.
struct Commented {
    fx: Fixture,
    instance: Instance,
    episode: String,
    comment: String,
}

async fn commented() -> Commented {
    let fx = site().await;
    fx.titled_feed("show", "The Show").await;
    let audio = fx.upload_wav("pilot.wav").await;
    let episode = fx
        .episode(
            "show",
            &[
                ("title", "Pilot"),
                ("description", "<p>Notes</p>"),
                ("is_public", "1"),
                ("publishing_date", "2025-01-01"),
                ("show_media", &audio.to_string()),
            ],
        )
        .await;
    let instance = Instance::start(&["ann"]).await;
    let ann = instance.actor("ann");
    let note = format!(
        "{}/ap/podcasts/show/episodes/{episode}",
        podhost_testkit::TEST_PUBLIC_URL
    );
    let reply = json!({
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": format!("{ann}/statuses/1/activity"), "type": "Create", "actor": ann,
        "to": ["https://www.w3.org/ns/activitystreams#Public"],
        "object": {
            "id": format!("{ann}/statuses/1"), "type": "Note", "attributedTo": ann,
            "inReplyTo": note, "content": "<p>Loved it!</p>",
            "url": format!("{ann}/statuses/1"),
            "published": "2026-01-02T03:04:05Z",
        },
    });
    let answer = instance.post(&fx, "/ap/inbox", &reply, "ann").await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let comments = comments(&fx, &episode).await;
    assert_eq!(comments.len(), 1, "{comments:?}");
    let comment = comments[0]["id"].as_str().unwrap().to_string();
    Commented {
        fx,
        instance,
        episode,
        comment,
    }
}

/// The episode's comments, as the API lists them.
async fn comments(fx: &Fixture, episode: &str) -> Vec<Value> {
    let answer = fx
        .get(&format!("/api/feeds/show/episodes/{episode}/comments"))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body["data"].as_array().unwrap().clone()
}

/// The account's blocks, as the API lists them.
async fn blocks(fx: &Fixture) -> Vec<Value> {
    let answer = fx.get("/api/fediverse/blocks").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body["data"].as_array().unwrap().clone()
}

/// The episode's public page.
async fn public_page(fx: &Fixture, episode: &str) -> String {
    let page = fx
        .public(Method::GET, &format!("/podcasts/show/{episode}"), &[])
        .await;
    assert_eq!(page.status, StatusCode::OK);
    html(&page)
}

#[tokio::test]
async fn the_podcast_page_lists_comments_that_hide_and_show() {
    let Commented {
        fx,
        episode,
        comment,
        ..
    } = commented().await;
    let mut browser = signed_in(&fx).await;

    // The header leads there; the overview leads to the podcast.
    let account = browser.get(&fx.api, "/account").await;
    assert!(
        html(&account).contains("<a href=\"/account/fediverse\">Fediverse</a>"),
        "{}",
        html(&account)
    );
    let overview = browser.get(&fx.api, "/account/fediverse").await;
    assert_eq!(overview.status, StatusCode::OK, "{}", html(&overview));
    let page = html(&overview);
    for text in [
        "<h1>Fediverse</h1>",
        "href=\"/account/fediverse/podcasts/show\"",
        "The Show",
        "0 followers",
        "Nobody is blocked.",
        "action=\"/account/fediverse/blocks\"",
    ] {
        assert!(page.contains(text), "{text:?} in {page}");
    }

    let podcast_path = "/account/fediverse/podcasts/show";
    let podcast = browser.get(&fx.api, podcast_path).await;
    assert_eq!(podcast.status, StatusCode::OK, "{}", html(&podcast));
    let page = html(&podcast);
    let hide =
        format!("/account/fediverse/podcasts/show/episodes/{episode}/comments/{comment}/hide");
    let show =
        format!("/account/fediverse/podcasts/show/episodes/{episode}/comments/{comment}/show");
    for text in [
        "<h1 lang=\"en\">The Show</h1>",
        "Nobody follows <code>@show@pod.test</code> on the fediverse yet.",
        ">Pilot</a>",
        "1 comment",
        "<p>Loved it!</p>",
        "ANN (@ann@",
        format!("id=\"{comment}\"").as_str(),
        format!("action=\"{hide}\"").as_str(),
        "aria-label=\"Hide the comment by ANN\"",
        "aria-label=\"Block @ann@",
    ] {
        assert!(page.contains(text), "{text:?} in {page}");
    }
    assert!(!page.contains(&show), "{page}");
    assert!(public_page(&fx, &episode).await.contains("Loved it!"));

    // Hide: back to the comment, hidden in the API and off the public page.
    let hidden = browser.post(&fx.api, &hide, &[]).await;
    assert_eq!(hidden.status, StatusCode::SEE_OTHER, "{}", html(&hidden));
    assert_eq!(
        location(&hidden),
        format!("https://pod.test{podcast_path}#{comment}")
    );
    assert_eq!(comments(&fx, &episode).await[0]["hidden"], true);
    assert!(!public_page(&fx, &episode).await.contains("Loved it!"));
    let page = html(&browser.get(&fx.api, podcast_path).await);
    assert!(
        page.contains("<p>Loved it!</p>"),
        "still listed here: {page}"
    );
    assert!(page.contains("<strong>hidden</strong>"), "{page}");
    assert!(page.contains(&format!("action=\"{show}\"")), "{page}");
    assert!(
        page.contains("aria-label=\"Show the comment by ANN\""),
        "{page}"
    );

    // Show: back on the public page.
    let shown = browser.post(&fx.api, &show, &[]).await;
    assert_eq!(shown.status, StatusCode::SEE_OTHER, "{}", html(&shown));
    assert_eq!(comments(&fx, &episode).await[0]["hidden"], false);
    assert!(public_page(&fx, &episode).await.contains("Loved it!"));

    // Without the session's CSRF token, or from another site: refused, nothing changes.
    let good = browser.csrf.clone();
    for (fields, headers) in [
        (vec![], vec![]),
        (vec![("csrf", "x".repeat(43))], vec![]),
        (
            vec![("csrf", good.clone())],
            vec![("origin", "https://evil.example")],
        ),
    ] {
        let answer = browser.post_raw(&fx.api, &hide, &fields, &headers).await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{fields:?} {headers:?}"
        );
        assert!(html(&answer).contains("The form was refused"));
    }
    assert_eq!(comments(&fx, &episode).await[0]["hidden"], false);

    // Another comment, another podcast, a page of no podcast: not found.
    let nothing =
        format!("/account/fediverse/podcasts/show/episodes/{episode}/comments/cmt_nothing/hide");
    let answer = browser.post(&fx.api, &nothing, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let answer = browser
        .get(&fx.api, "/account/fediverse/podcasts/nothing")
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);

    // Signed out: the sign-in form, which comes back here.
    let mut stranger = Browser::default();
    let answer = stranger.get(&fx.api, podcast_path).await;
    assert_eq!(answer.status, StatusCode::OK);
    let page = html(&answer);
    assert!(page.contains("action=\"/account/sign-in\""), "{page}");
    assert!(
        page.contains(&format!("name=\"next\" value=\"{podcast_path}\"")),
        "{page}"
    );
    assert!(!page.contains("Loved it!"));
    let answer = stranger.post(&fx.api, &show, &[]).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn blocks_are_made_and_lifted_with_the_pages_forms() {
    let Commented {
        fx,
        instance,
        episode,
        comment,
    } = commented().await;
    let (host, ann) = (instance.host(), instance.actor("ann"));
    let mut browser = signed_in(&fx).await;
    browser.get(&fx.api, "/account/fediverse").await;

    // What is neither a URL nor a host name: the page again, with the problem and the text.
    let answer = browser
        .post(
            &fx.api,
            "/account/fediverse/blocks",
            &[("target", "not a host!")],
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let page = html(&answer);
    assert!(page.contains("Nothing was blocked."), "{page}");
    assert!(page.contains("role=\"alert\""), "{page}");
    assert!(page.contains("value=\"not a host!\""), "{page}");
    assert!(blocks(&fx).await.is_empty());

    // Without the CSRF token: refused.
    let answer = browser
        .post_raw(
            &fx.api,
            "/account/fediverse/blocks",
            &[("target", host.clone())],
            &[],
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(blocks(&fx).await.is_empty());

    // The instance, blocked: listed in the API and on the page, its comment hidden.
    browser.get(&fx.api, "/account/fediverse").await;
    let answer = browser
        .post(
            &fx.api,
            "/account/fediverse/blocks",
            &[("target", host.as_str())],
        )
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", html(&answer));
    assert_eq!(
        location(&answer),
        "https://pod.test/account/fediverse#blocks"
    );
    let listed = blocks(&fx).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["kind"], "instance");
    let id = listed[0]["id"].as_str().unwrap().to_string();
    assert_eq!(comments(&fx, &episode).await[0]["hidden"], true);
    let page = html(&browser.get(&fx.api, "/account/fediverse").await);
    let lift = format!("/account/fediverse/blocks/{id}/lift");
    // Typed with the instance's port, kept as its host name: a block covers every port.
    let host_name = host.split(':').next().unwrap();
    assert_eq!(listed[0]["target"], host_name);
    for text in [
        format!("<code>{host_name}</code>").as_str(),
        "instance",
        format!("action=\"{lift}\"").as_str(),
        format!("aria-label=\"Unblock {host_name}\"").as_str(),
    ] {
        assert!(page.contains(text), "{text:?} in {page}");
    }
    assert!(!page.contains("Nobody is blocked."));
    let page = html(
        &browser
            .get(&fx.api, "/account/fediverse/podcasts/show")
            .await,
    );
    assert!(page.contains("<strong>blocked</strong>"), "{page}");
    assert!(!page.contains("aria-label=\"Block @ann@"), "{page}");

    // Unblock without the token: refused; with it: lifted.
    let answer = browser.post_raw(&fx.api, &lift, &[], &[]).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(blocks(&fx).await.len(), 1);
    let answer = browser.post(&fx.api, &lift, &[]).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", html(&answer));
    assert_eq!(
        location(&answer),
        "https://pod.test/account/fediverse#blocks"
    );
    assert!(blocks(&fx).await.is_empty());
    // Lifted, the comment stays hidden until shown.
    assert_eq!(comments(&fx, &episode).await[0]["hidden"], true);
    let answer = browser.post(&fx.api, &lift, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);

    // The author, blocked from their comment: back to it.
    let page = html(
        &browser
            .get(&fx.api, "/account/fediverse/podcasts/show")
            .await,
    );
    assert!(page.contains("aria-label=\"Block @ann@"), "{page}");
    let back = format!("/account/fediverse/podcasts/show#{comment}");
    let answer = browser
        .post(
            &fx.api,
            "/account/fediverse/blocks",
            &[("target", ann.as_str()), ("back", back.as_str())],
        )
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", html(&answer));
    assert_eq!(location(&answer), format!("https://pod.test{back}"));
    let listed = blocks(&fx).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["kind"], "actor");
    // Never back to anywhere else.
    let answer = browser
        .post(
            &fx.api,
            "/account/fediverse/blocks",
            &[("target", "spam.example"), ("back", "//evil.example/")],
        )
        .await;
    assert_eq!(
        location(&answer),
        "https://pod.test/account/fediverse#blocks"
    );
}

#[tokio::test]
async fn the_pages_speak_german() {
    let Commented { fx, .. } = commented().await;
    let mut browser = signed_in(&fx).await;
    let answer = browser.get(&fx.api, "/account/fediverse?lang=de").await;
    assert_eq!(answer.status, StatusCode::OK);
    let page = html(&answer);
    assert!(page.contains("<html lang=\"de\""), "{page}");
    for text in [
        "<title>Fediverse · podhost</title>",
        "Ihre Podcasts",
        "0 Follower",
        "Blockierte Konten und Instanzen",
        "Niemand ist blockiert.",
        "Ein Konto oder eine Instanz blockieren",
        ">Blockieren</button>",
    ] {
        assert!(page.contains(text), "{text:?} in {page}");
    }
    for text in ["Your podcasts", "Nobody is blocked", ">Block</button>"] {
        assert!(!page.contains(text), "not {text:?} in {page}");
    }
    // The choice is remembered.
    let page = html(
        &browser
            .get(&fx.api, "/account/fediverse/podcasts/show")
            .await,
    );
    assert!(page.contains("<html lang=\"de\""), "{page}");
    for text in [
        "Noch folgt niemand <code>@show@pod.test</code> im Fediverse.",
        "<h2>Kommentare</h2>",
        "1 Kommentar",
        ">Ausblenden</button>",
        "aria-label=\"Kommentar von ANN ausblenden\"",
        "auf ihrer Instanz",
    ] {
        assert!(page.contains(text), "{text:?} in {page}");
    }
    assert!(!page.contains(">Hide</button>"), "{page}");
}
