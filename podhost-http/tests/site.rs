//! The key-management site as a browser uses it: the home page, signing in and out, sessions
//! that end on every process, throttled sign-in (an injected clock), CSRF tokens on every form,
//! no redirect off the site, personal tokens made and revoked on the site and through
//! `/api/tokens`, and failed bearer tokens throttled per address.

mod common;

use bytes::Bytes;
use common::{Answer, Browser, Fixture, send_to};
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use jiff::SignedDuration;
use podhost_core::model::NewFeed;
use serde_json::json;

const PASSWORD: &str = "correct horse battery staple";

/// Whether any object in the store holds `needle`.
async fn store_contains(fx: &Fixture, needle: &[u8]) -> bool {
    use futures::TryStreamExt;
    use object_store::ObjectStoreExt;
    let all: Vec<_> = fx.store.list(None).try_collect().await.unwrap();
    for meta in all {
        let bytes = fx
            .store
            .get(&meta.location)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        if bytes.windows(needle.len()).any(|w| w == needle) {
            return true;
        }
    }
    false
}

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

/// alice's personal tokens, as the core lists them.
async fn tokens_of_alice(fx: &Fixture) -> Vec<String> {
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    fx.host
        .access()
        .list_tokens(&alice)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.token.label)
        .collect()
}

/// The text of an HTML fragment as a text browser shows it: tags and the skip link's markup
/// dropped, white space collapsed.
fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let body = text.rsplit("Skip to content").next().unwrap_or(&text);
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn the_home_page_leads_to_the_account_site_the_api_and_the_podcasts() {
    let fx = site().await;
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let mut feed = NewFeed::titled("tinkering", "The Tinkering Hour");
    feed.fields.description = Some("Tools.".into());
    fx.host.podcasts().create_feed(&alice, feed).await.unwrap();
    let answer = fx.public(Method::GET, "/", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.headers[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    let page = html(&answer);
    // The header reads as words, brand and links apart, where no stylesheet applies.
    let header = page.split("</header>").next().unwrap();
    assert!(
        text_of(header).starts_with("podhost Account · API"),
        "{}",
        text_of(header)
    );
    for link in [
        "href=\"/account\"",
        "href=\"/api/openapi.json\"",
        "href=\"https://pod.test/podcasts/tinkering\"",
        "The Tinkering Hour",
    ] {
        assert!(page.contains(link), "{link} in {page}");
    }
    let csp = answer.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let head = fx.public(Method::HEAD, "/", &[]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.raw.is_empty());
    assert_eq!(
        head.headers[header::CONTENT_LENGTH],
        answer.raw.len().to_string()
    );
}

#[tokio::test]
async fn signing_in_and_out() {
    let fx = site().await;
    let mut browser = Browser::default();
    let form = browser.get(&fx.api, "/account").await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(html(&form).contains("action=\"/account/sign-in\""));
    assert!(
        browser.cookie("podhost_csrf").is_some(),
        "the sign-in form's CSRF cookie"
    );
    let answer = browser
        .post(
            &fx.api,
            "/account/sign-in",
            &[("name", "alice"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&answer), "https://pod.test/account");
    let set = answer.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(set.starts_with("podhost_session=ses_"), "{set}");
    for attribute in [
        "HttpOnly",
        "SameSite=Lax",
        "Path=/",
        "Secure",
        "Max-Age=43200",
    ] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    let page = browser.get(&fx.api, "/account").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(html(&page).contains("Account alice"), "{}", html(&page));
    assert_eq!(page.headers[header::CACHE_CONTROL], "no-store");
    // The password is nowhere in the store, only its Argon2id hash.
    assert!(!store_contains(&fx, PASSWORD.as_bytes()).await);

    let out = browser.post(&fx.api, "/account/sign-out", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(browser.cookie("podhost_session").is_none());
    let page = browser.get(&fx.api, "/account").await;
    assert!(html(&page).contains("action=\"/account/sign-in\""));
}

#[tokio::test]
async fn an_unknown_account_and_a_wrong_password_get_the_same_answer() {
    let fx = site().await;
    let mut answers = Vec::new();
    for (name, password) in [
        ("alice", "not the password"),
        ("nobody", PASSWORD),
        // An account without a password cannot sign in at all.
        ("mallory", PASSWORD),
    ] {
        let mut browser = Browser::default();
        let answer = browser.sign_in(&fx.api, name, password).await;
        assert!(browser.cookie("podhost_session").is_none());
        let page = html(&answer)
            .replace(&browser.csrf, "CSRF")
            .replace(&format!("value=\"{name}\""), "value=\"NAME\"");
        answers.push((answer.status, page));
    }
    assert_eq!(answers[0].0, StatusCode::UNAUTHORIZED);
    assert!(answers[0].1.contains("The login or the password is wrong."));
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
}

#[tokio::test]
async fn sign_in_is_throttled_with_back_off() {
    let fx = site().await;
    let mut browser = Browser::default();
    // Three failures are free; the fourth makes the account wait a second, then two, ...
    for _ in 0..4 {
        let answer = browser.sign_in(&fx.api, "alice", "wrong").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    let answer = browser.sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(
        answer.status,
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password waits"
    );
    assert_eq!(answer.headers[header::RETRY_AFTER], "1");
    assert!(html(&answer).contains("Too many attempts"));
    fx.clock.advance(SignedDuration::from_secs(1));
    assert_eq!(
        browser.sign_in(&fx.api, "alice", "wrong").await.status,
        StatusCode::UNAUTHORIZED
    );
    let answer = browser.sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(answer.headers[header::RETRY_AFTER], "2", "the wait doubles");
    fx.clock.advance(SignedDuration::from_secs(2));
    assert_eq!(
        browser.sign_in(&fx.api, "alice", PASSWORD).await.status,
        StatusCode::SEE_OTHER
    );
    // The account's failures are forgotten once it signs in; the address still counts its
    // own: failures on other accounts from it make it wait too.
    fx.clock.advance(SignedDuration::from_hours(2));
    for name in ["bob", "carol", "dave", "erin"] {
        assert_eq!(
            Browser::default()
                .sign_in(&fx.api, name, "guess")
                .await
                .status,
            StatusCode::UNAUTHORIZED
        );
    }
    let answer = Browser::default().sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS, "per address");
}

#[tokio::test]
async fn forms_without_this_sites_csrf_token_are_refused() {
    let fx = site().await;
    // Sign-in: the form's token must be the cookie's.
    let mut stranger = Browser::default();
    stranger.get(&fx.api, "/account").await;
    for fields in [
        vec![
            ("name", "alice".to_string()),
            ("password", PASSWORD.to_string()),
        ],
        vec![
            (
                "csrf",
                "forged-forged-forged-forged-forged-forged".to_string(),
            ),
            ("name", "alice".to_string()),
            ("password", PASSWORD.to_string()),
        ],
    ] {
        let answer = stranger
            .post_raw(&fx.api, "/account/sign-in", &fields, &[])
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{fields:?}");
        assert!(stranger.cookie("podhost_session").is_none());
    }
    // Signed in: every form needs the session's token, and this site's origin.
    let mut browser = signed_in(&fx).await;
    let good = browser.csrf.clone();
    type Fields<'a> = Vec<(&'a str, String)>;
    let cases: Vec<(Fields<'_>, Vec<(&str, &str)>)> = vec![
        (
            vec![("label", "no token".into()), ("scope", "feeds".into())],
            vec![],
        ),
        (
            vec![
                ("csrf", "x".repeat(43)),
                ("label", "wrong token".into()),
                ("scope", "feeds".into()),
            ],
            vec![],
        ),
        (
            vec![
                ("csrf", good.clone()),
                ("label", "other site".into()),
                ("scope", "feeds".into()),
            ],
            vec![("origin", "https://evil.example")],
        ),
    ];
    for (fields, headers) in cases {
        let answer = browser
            .post_raw(&fx.api, "/account/tokens", &fields, &headers)
            .await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{fields:?} {headers:?}"
        );
    }
    assert!(
        tokens_of_alice(&fx).await.iter().all(|l| l == "all"),
        "no token was made"
    );
    // A form that is not a form is a 400.
    let answer = send_to(
        &fx.api,
        Request::builder()
            .method(Method::POST)
            .uri("/account/tokens")
            .header(header::COOKIE, browser.cookie_header())
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from_static(b"{}")))
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    // With its own token and origin, the same form works.
    let answer = browser
        .post_raw(
            &fx.api,
            "/account/tokens",
            &[
                ("csrf", good),
                ("label", "mine".into()),
                ("scope", "feeds".into()),
            ],
            &[("origin", "https://pod.test")],
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", html(&answer));
}

#[tokio::test]
async fn signing_in_goes_back_only_to_a_page_of_this_site() {
    let fx = site().await;
    for (next, expected) in [
        (
            "/oauth/authorize?client_id=x",
            "https://pod.test/oauth/authorize?client_id=x",
        ),
        ("//evil.example/path", "https://pod.test/account"),
        ("https://evil.example/", "https://pod.test/account"),
        ("/\\evil.example", "https://pod.test/account"),
        ("/ evil", "https://pod.test/account"),
        ("", "https://pod.test/account"),
    ] {
        let mut browser = Browser::default();
        browser.get(&fx.api, "/account").await;
        let answer = browser
            .post(
                &fx.api,
                "/account/sign-in",
                &[("name", "alice"), ("password", PASSWORD), ("next", next)],
            )
            .await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{next}");
        assert_eq!(location(&answer), expected, "{next}");
    }
}

#[tokio::test]
async fn a_session_ended_on_one_process_is_refused_on_the_others() {
    let fx = site().await;
    let mut browser = signed_in(&fx).await;
    let (_, other) = fx.another_process();
    // The same browser, through the other process: signed in there too.
    let mut elsewhere = browser.clone();
    assert!(html(&elsewhere.get(&other, "/account").await).contains("Account alice"));
    elsewhere.post(&other, "/account/sign-out", &[]).await;
    // Within a second the first process refuses the session as well.
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    let page = browser.get(&fx.api, "/account").await;
    assert!(html(&page).contains("action=\"/account/sign-in\""));
    let answer = browser
        .post(
            &fx.api,
            "/account/tokens",
            &[("label", "late"), ("scope", "feeds")],
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(!tokens_of_alice(&fx).await.contains(&"late".to_string()));
}

#[tokio::test]
async fn sessions_end_when_idle_and_when_old() {
    let fx = site().await;
    let signed_in_page = |answer: &Answer| html(answer).contains("Account alice");
    // Not used for an hour: over.
    let mut idle = signed_in(&fx).await;
    fx.clock.advance(SignedDuration::from_mins(59));
    let mut used = signed_in(&fx).await;
    fx.clock.advance(SignedDuration::from_mins(1));
    assert!(!signed_in_page(&idle.get(&fx.api, "/account").await));
    // Used every 50 minutes: alive until 12 hours after signing in, not a minute more.
    for _ in 0..14 {
        assert!(signed_in_page(&used.get(&fx.api, "/account").await));
        fx.clock.advance(SignedDuration::from_mins(50));
    }
    // 11 h 41 min after signing in (700 + 1 minutes).
    assert!(signed_in_page(&used.get(&fx.api, "/account").await));
    fx.clock.advance(SignedDuration::from_mins(19));
    assert!(!signed_in_page(&used.get(&fx.api, "/account").await));
}

#[tokio::test]
async fn personal_tokens_on_the_site() {
    let fx = site().await;
    let mut browser = signed_in(&fx).await;
    let answer = browser
        .post(
            &fx.api,
            "/account/tokens",
            &[
                ("label", "uploads"),
                ("scope", "media"),
                ("scope", "feeds-read-only"),
            ],
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED);
    let page = html(&answer);
    let at = page.find("id=\"new-token\">").unwrap() + 15;
    let secret = page[at..at + page[at..].find('<').unwrap()].to_string();
    assert!(secret.starts_with("phk_"), "{secret}");
    // Shown once: the account page never shows it again.
    assert!(!html(&browser.get(&fx.api, "/account").await).contains(&secret));
    assert_eq!(
        fx.call(Method::GET, "/api/media", &secret, None)
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        fx.call(Method::GET, "/api/feed/x/shows", &secret, None)
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    // Listed with when it was last used; revoked from the list.
    let listed = fx.get("/api/tokens").await;
    let uploads = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "uploads")
        .unwrap()
        .clone();
    assert_eq!(uploads["scopes"], json!(["media", "feeds-read-only"]));
    assert!(uploads["last_used"].is_string(), "{uploads}");
    let id = uploads["id"].as_str().unwrap();
    let revoke = browser
        .post(&fx.api, &format!("/account/tokens/{id}/revoke"), &[])
        .await;
    assert_eq!(revoke.status, StatusCode::SEE_OTHER);
    assert_eq!(
        fx.call(Method::GET, "/api/media", &secret, None)
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    // Bad forms: the account page again with what was wrong, nothing made.
    for (fields, problem) in [
        (
            vec![("label", "none")],
            "scopes: a token needs at least one scope",
        ),
        (vec![("label", "odd"), ("scope", "root")], "unknown scope"),
    ] {
        let answer = browser.post(&fx.api, "/account/tokens", &fields).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            html(&answer).contains(problem),
            "{problem}: {}",
            html(&answer)
        );
    }
    // Another account's token is not found.
    let mallory = fx
        .host
        .access()
        .owner(&"mallory".parse().unwrap())
        .await
        .unwrap();
    let theirs = fx.host.access().list_tokens(&mallory).await.unwrap()[0]
        .token
        .id
        .clone();
    let answer = browser
        .post(&fx.api, &format!("/account/tokens/{theirs}/revoke"), &[])
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &fx.mallory, None)
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn personal_tokens_through_the_api() {
    let fx = site().await;
    let manager = fx.token("tokens,feeds").await;
    let made = fx
        .call(
            Method::POST,
            "/api/tokens",
            &manager,
            Some(json!({"label": "reader", "scopes": ["feeds-read-only"]})),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    assert_eq!(made.headers[header::CACHE_CONTROL], "no-store");
    let secret = made.body["data"]["token"].as_str().unwrap().to_string();
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &secret, None)
            .await
            .status,
        StatusCode::OK
    );
    // A token cannot make one with more than it has.
    let more = fx
        .call(
            Method::POST,
            "/api/tokens",
            &manager,
            Some(json!({"scopes": ["media"]})),
        )
        .await;
    assert_eq!(more.status, StatusCode::FORBIDDEN);
    for (body, field) in [
        (json!({"scopes": []}), "scopes"),
        (json!({"scopes": "feeds"}), "scopes"),
        (json!({"scopes": ["nope"]}), "scopes"),
        (json!({"scopes": ["feeds"], "extra": 1}), "extra"),
    ] {
        let answer = fx
            .call(Method::POST, "/api/tokens", &manager, Some(body.clone()))
            .await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(
            answer.body["errors"][field].is_array(),
            "{body}: {}",
            answer.body
        );
    }
    let id = made.body["data"]["id"].as_str().unwrap();
    let listed = fx.call(Method::GET, "/api/tokens", &manager, None).await;
    assert!(
        listed.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("token").is_none())
    );
    assert_eq!(
        fx.call(
            Method::DELETE,
            &format!("/api/tokens/{id}"),
            &fx.mallory.clone(),
            None
        )
        .await
        .status,
        StatusCode::NOT_FOUND,
        "another account's token"
    );
    assert_eq!(
        fx.call(Method::DELETE, &format!("/api/tokens/{id}"), &manager, None)
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &secret, None)
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        fx.call(Method::DELETE, "/api/tokens/garbage", &manager, None)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn failed_bearer_tokens_are_throttled_per_address() {
    let fx = site().await;
    // alice's token is used before; mallory's never is on this process.
    assert_eq!(fx.get("/api/feeds").await.status, StatusCode::OK);
    let bad = "phk_aaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    // Ten failures are free; the eleventh makes the address wait.
    for _ in 0..11 {
        let answer = fx.call(Method::GET, "/api/feeds", bad, None).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    // While it waits, secrets are not looked up: refused unchecked, unless the process already
    // knows the token (so that one bad client does not lock out others at its address).
    for token in [bad, &fx.mallory.clone()] {
        let answer = fx.call(Method::GET, "/api/feeds", token, None).await;
        assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(answer.headers[header::RETRY_AFTER], "1");
    }
    assert_eq!(fx.get("/api/feeds").await.status, StatusCode::OK);
    fx.clock.advance(SignedDuration::from_secs(1));
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &fx.mallory.clone(), None)
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn an_exempt_address_is_not_throttled_but_its_accounts_are() {
    // Requests without a connection come from 0.0.0.0 here.
    let fx = Fixture::with_host_config(|config| {
        config.throttle_exempt = vec!["0.0.0.0/32".parse().unwrap()];
    })
    .await;
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some(PASSWORD))
        .await
        .unwrap();
    let bad = "phk_aaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    for _ in 0..30 {
        let answer = fx.call(Method::GET, "/api/feeds", bad, None).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        fx.call(Method::GET, "/api/feeds", &fx.mallory.clone(), None)
            .await
            .status,
        StatusCode::OK
    );
    // Failures on other accounts do not make the address wait...
    for name in ["bob", "carol", "dave", "erin", "frank", "grace"] {
        let answer = Browser::default().sign_in(&fx.api, name, "guess").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        Browser::default()
            .sign_in(&fx.api, "alice", PASSWORD)
            .await
            .status,
        StatusCode::SEE_OTHER
    );
    // ...but an account guessed at still does.
    for _ in 0..4 {
        let answer = Browser::default().sign_in(&fx.api, "alice", "wrong").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    let answer = Browser::default().sign_in(&fx.api, "alice", PASSWORD).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
}

/// A GET as `browser`, with `Accept-Language` when given.
async fn get_speaking(
    fx: &Fixture,
    browser: &mut Browser,
    path: &str,
    accept_language: Option<&str>,
) -> Answer {
    let mut request = Request::builder()
        .uri(path)
        .header(header::COOKIE, browser.cookie_header());
    if let Some(languages) = accept_language {
        request = request.header(header::ACCEPT_LANGUAGE, languages);
    }
    let answer = send_to(&fx.api, request.body(Full::new(Bytes::new())).unwrap()).await;
    browser.take(&answer);
    answer
}

#[tokio::test]
async fn the_site_speaks_the_browsers_language() {
    const GERMAN: Option<&str> = Some("de-DE,de;q=0.9");
    let fx = site().await;
    let mut stranger = Browser::default();
    let mut alice = signed_in(&fx).await;
    // (signed in, path, Accept-Language, the page's language, what it says, what it does not)
    type Case<'a> = (
        bool,
        &'a str,
        Option<&'a str>,
        &'a str,
        &'a [&'a str],
        &'a [&'a str],
    );
    let cases: [Case<'_>; 8] = [
        (
            false,
            "/account",
            GERMAN,
            "de",
            &[
                "<title>Anmelden · podhost</title>",
                "Anmeldename (Ihr Name oder Ihre E-Mail-Adresse)",
                "Passwort",
                ">Anmelden</button>",
                "action=\"/account/sign-in\"",
            ],
            &["Sign in", "Password"],
        ),
        (
            false,
            "/account",
            None,
            "en",
            &[
                "<title>Sign in · podhost</title>",
                "Password",
                ">Sign in</button>",
            ],
            &["Anmelden", "Passwort"],
        ),
        (
            false,
            "/account/stats",
            GERMAN,
            "de",
            &["Melden Sie sich an, um die Statistik zu sehen."],
            &["Sign in to see the statistics."],
        ),
        (
            true,
            "/account",
            GERMAN,
            "de",
            &[
                "<title>Ihr Konto · podhost</title>",
                "Konto alice",
                "Angemeldet als <strong>alice</strong>, Rolle in diesem Konto: Inhaber.",
                "Persönliche Tokens",
                "Zuletzt verwendet",
                ">Abmelden</button>",
                "Von Ihnen erlaubte Anwendungen",
                "Mitglieder",
                "Jemanden einladen",
                "<option value=\"editor\" selected>Redakteur</option>",
            ],
            &["Account alice", "Sign out", "Personal tokens"],
        ),
        (
            true,
            "/account",
            None,
            "en",
            &[
                "Account alice",
                "Signed in as <strong>alice</strong>, owner of this account.",
                "Personal tokens",
                ">Sign out</button>",
            ],
            &["Konto alice", "Abmelden"],
        ),
        (
            true,
            "/account/stats",
            GERMAN,
            "de",
            &[
                "<title>Statistik · podhost</title>",
                "<h1>Statistik</h1>",
                "Letzte 7 Tage",
                "Letzte 12 Monate",
                // Nothing downloaded yet: said once, with no chart.
                "In diesem Zeitraum wurde nichts gezählt.",
                "Die einzelnen Podcasts",
            ],
            &["Statistics", "Last 7 days"],
        ),
        (
            true,
            "/account/stats",
            None,
            "en",
            &[
                "<h1>Statistics</h1>",
                "Last 7 days",
                "Nothing was counted in this period.",
            ],
            &["Statistik", "Downloads per day"],
        ),
        (
            true,
            "/account/stats?from=yesterday",
            GERMAN,
            "de",
            &[
                "Die Statistik kann nicht angezeigt werden.",
                "from: muss ein Tag im Format JJJJ-MM-TT sein",
            ],
            &["must be a day"],
        ),
    ];
    for (signed, path, languages, lang, says, does_not) in cases {
        let browser = if signed { &mut alice } else { &mut stranger };
        let answer = get_speaking(&fx, browser, path, languages).await;
        let page = html(&answer);
        let case = format!("{path} {languages:?}");
        assert!(
            page.contains(&format!("<html lang=\"{lang}\"")),
            "{case}: {page}"
        );
        for text in says {
            assert!(page.contains(text), "{case}: {text:?} in {page}");
        }
        for text in does_not {
            assert!(!page.contains(text), "{case}: not {text:?} in {page}");
        }
        let vary: Vec<_> = answer.headers.get_all(header::VARY).iter().collect();
        assert!(
            vary.iter()
                .any(|v| v.to_str().unwrap().contains("Accept-Language")),
            "{case}: {vary:?}"
        );
        assert!(
            !answer
                .headers
                .get_all(header::SET_COOKIE)
                .iter()
                .any(|v| v.to_str().unwrap().starts_with("podhost_lang=")),
            "{case}: only a link's choice is remembered"
        );
    }

    // A form's answer is in the browser's language too.
    let refused = alice
        .post_raw(
            &fx.api,
            "/account/tokens",
            &[("csrf", alice.csrf.clone()), ("label", "none".into())],
            &[("accept-language", "de")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(html(&refused).contains("Das Token wurde nicht erstellt."));

    // The switch's link asks for German: remembered in a cookie, which then chooses alone,
    // over what the browser accepts; English the same way back.
    let english = html(&alice.get(&fx.api, "/account").await);
    assert!(english.contains("href=\"/account?lang=de\""), "{english}");
    let chosen = alice.get(&fx.api, "/account?lang=de").await;
    assert!(html(&chosen).contains("Konto alice"));
    let set = chosen
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap())
        .find(|v| v.starts_with("podhost_lang="))
        .expect("the choice is remembered");
    assert!(set.starts_with("podhost_lang=de;"), "{set}");
    for attribute in ["Path=/", "SameSite=Lax", "Secure", "Max-Age=31536000"] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    assert_eq!(alice.cookie("podhost_lang"), Some("de"));
    for path in ["/account", "/account/stats"] {
        let page = html(&alice.get(&fx.api, path).await);
        assert!(page.contains("<html lang=\"de\""), "{path}: {page}");
    }
    let page = html(&get_speaking(&fx, &mut alice, "/account", Some("en-US,en")).await);
    assert!(
        page.contains("Konto alice"),
        "the cookie over Accept-Language"
    );
    let page = html(&get_speaking(&fx, &mut alice, "/account/stats?lang=en", GERMAN).await);
    assert!(page.contains("<h1>Statistics</h1>"), "{page}");
    assert_eq!(alice.cookie("podhost_lang"), Some("en"));
    let page = html(&get_speaking(&fx, &mut alice, "/account", GERMAN).await);
    assert!(page.contains("Account alice"), "English remembered");
}
