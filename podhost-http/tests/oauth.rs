//! OAuth 2 (the OAuth 2.1 profile) over HTTP, its refusals first: a wrong PKCE verifier, a
//! wrong or unregistered redirect URI (never redirected to), a reused or expired code, a scope
//! the client may not have, a consent form without its CSRF token, confidential clients'
//! authentication, expiring access tokens, and the server metadata. The whole flow with a real
//! client library in a browser is `podhost-cli/tests/oauth_in_a_browser.rs`.

mod common;

use base64::Engine;
use bytes::Bytes;
use common::{Answer, Fixture, send_to};
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use jiff::SignedDuration;
use podhost_core::Scopes;
use sha2::Digest;

const REDIRECT: &str = "http://127.0.0.1:7777/callback";
const VERIFIER: &str = "a-verifier-of-at-least-forty-three-characters-long";

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier))
}

/// alice signed in (her session cookie and its CSRF token), and a public client of hers that
/// may ask for `feeds` and `media-read-only`.
struct Setup {
    fx: Fixture,
    cookie: String,
    csrf: String,
    client: String,
}

async fn setup() -> Setup {
    let fx = Fixture::new().await;
    let alice = "alice".parse().unwrap();
    fx.host
        .access()
        .set_password(&alice, Some("a long enough password"))
        .await
        .unwrap();
    let signed_in = fx
        .host
        .access()
        .sign_in("alice", "a long enough password", "192.0.2.1")
        .await
        .unwrap();
    let owner = fx.host.access().owner(&alice).await.unwrap();
    let client = fx
        .host
        .access()
        .create_client(
            &owner,
            "Test App",
            vec![REDIRECT.into()],
            false,
            Scopes::parse_list("feeds,media-read-only").unwrap(),
        )
        .await
        .unwrap()
        .client
        .id
        .to_string();
    Setup {
        cookie: format!("podhost_session={}", signed_in.cookie),
        csrf: signed_in.session.csrf,
        fx,
        client,
    }
}

/// The authorization request's parameters, with `changes` applied (`None` removes one).
fn authorize_params<'a>(
    client: &'a str,
    changes: &[(&'a str, Option<&'a str>)],
) -> Vec<(&'a str, String)> {
    let challenge = challenge(VERIFIER);
    let mut params: Vec<(&str, String)> = vec![
        ("response_type", "code".into()),
        ("client_id", client.into()),
        ("redirect_uri", REDIRECT.into()),
        ("scope", "feeds".into()),
        ("state", "s-123".into()),
        ("code_challenge", challenge),
        ("code_challenge_method", "S256".into()),
    ];
    for (name, value) in changes {
        params.retain(|(k, _)| k != name);
        if let Some(value) = value {
            params.push((name, value.to_string()));
        }
    }
    params
}

fn encode(params: &[(&str, String)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish()
}

impl Setup {
    async fn authorize_page(&self, params: &[(&str, String)]) -> Answer {
        let request = Request::builder()
            .uri(format!("/oauth/authorize?{}", encode(params)))
            .header(header::COOKIE, &self.cookie)
            .body(Full::new(Bytes::new()))
            .unwrap();
        send_to(&self.fx.api, request).await
    }

    async fn consent(&self, params: &[(&str, String)], decision: &str, csrf: &str) -> Answer {
        let mut form = params.to_vec();
        form.push(("decision", decision.into()));
        if !csrf.is_empty() {
            form.push(("csrf", csrf.into()));
        }
        let request = Request::builder()
            .method(Method::POST)
            .uri("/oauth/authorize")
            .header(header::COOKIE, &self.cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Full::new(Bytes::from(encode(&form))))
            .unwrap();
        send_to(&self.fx.api, request).await
    }

    /// A code for the default request, consented to.
    async fn code(&self) -> String {
        let params = authorize_params(&self.client, &[]);
        let page = self.authorize_page(&params).await;
        assert_eq!(
            page.status,
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&page.raw)
        );
        let answer = self.consent(&params, "allow", &self.csrf).await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER);
        let location = url::Url::parse(answer.headers[header::LOCATION].to_str().unwrap()).unwrap();
        let query: Vec<(String, String)> = location.query_pairs().into_owned().collect();
        assert!(
            query.contains(&("state".into(), "s-123".into())),
            "{location}"
        );
        assert!(
            query.contains(&("iss".into(), "https://pod.test".into())),
            "RFC 9207: {location}"
        );
        query.into_iter().find(|(k, _)| k == "code").unwrap().1
    }

    async fn token(&self, fields: &[(&str, &str)], basic: Option<(&str, &str)>) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut request = Request::builder()
            .method(Method::POST)
            .uri("/oauth/token")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some((id, secret)) = basic {
            let pair = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
            request = request.header(header::AUTHORIZATION, format!("Basic {pair}"));
        }
        send_to(
            &self.fx.api,
            request.body(Full::new(Bytes::from(body))).unwrap(),
        )
        .await
    }

    async fn exchange(&self, code: &str, verifier: &str, redirect: &str) -> Answer {
        self.token(
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("code_verifier", verifier),
                ("redirect_uri", redirect),
                ("client_id", &self.client),
            ],
            None,
        )
        .await
    }

    async fn api_status(&self, token: &str) -> StatusCode {
        self.fx
            .call(Method::GET, "/api/feeds", token, None)
            .await
            .status
    }
}

fn error_of(answer: &Answer) -> (StatusCode, &str) {
    (answer.status, answer.body["error"].as_str().unwrap_or(""))
}

#[tokio::test]
async fn a_code_is_exchanged_once_with_its_verifier_and_redirect_uri() {
    let s = setup().await;
    // The wrong verifier, another redirect URI, another client: refused, and the code still
    // works afterwards for the right request (each refusal is checked before the code is spent).
    let code = s.code().await;
    let cases = [
        (
            "another verifier",
            s.exchange(
                &code,
                "a-different-verifier-of-forty-three-characters",
                REDIRECT,
            )
            .await,
        ),
        (
            "no verifier",
            s.token(
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", REDIRECT),
                    ("client_id", &s.client),
                ],
                None,
            )
            .await,
        ),
        (
            "another redirect URI",
            s.exchange(&code, VERIFIER, "http://127.0.0.1:7777/other")
                .await,
        ),
    ];
    for (what, answer) in cases {
        let expected = match what {
            "no verifier" => "invalid_request",
            _ => "invalid_grant",
        };
        assert_eq!(
            error_of(&answer),
            (StatusCode::BAD_REQUEST, expected),
            "{what}: {}",
            answer.body
        );
        assert_eq!(answer.headers[header::CACHE_CONTROL], "no-store");
    }
    let tokens = s.exchange(&code, VERIFIER, REDIRECT).await;
    assert_eq!(tokens.status, StatusCode::OK, "{}", tokens.body);
    assert_eq!(tokens.body["token_type"], "Bearer");
    assert_eq!(tokens.body["expires_in"], 3600);
    assert_eq!(tokens.body["scope"], "feeds");
    let access = tokens.body["access_token"].as_str().unwrap();
    assert_eq!(s.api_status(access).await, StatusCode::OK);
    assert_eq!(
        s.fx.call(Method::GET, "/api/media", access, None)
            .await
            .status,
        StatusCode::FORBIDDEN,
        "only the scope asked for"
    );
    // A reused code is refused, and what it gave is revoked.
    let again = s.exchange(&code, VERIFIER, REDIRECT).await;
    assert_eq!(error_of(&again), (StatusCode::BAD_REQUEST, "invalid_grant"));
    assert_eq!(s.api_status(access).await, StatusCode::UNAUTHORIZED);
    // An expired code (ten minutes) is refused.
    let code = s.code().await;
    s.fx.clock.advance(SignedDuration::from_mins(10));
    let late = s.exchange(&code, VERIFIER, REDIRECT).await;
    assert_eq!(error_of(&late), (StatusCode::BAD_REQUEST, "invalid_grant"));
    assert!(
        late.body["error_description"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[tokio::test]
async fn unknown_clients_and_redirect_uris_are_shown_never_redirected_to() {
    let s = setup().await;
    let evil = "https://evil.example/callback";
    for changes in [
        vec![("redirect_uri", Some(evil))],
        vec![("redirect_uri", Some("http://127.0.0.1:7777/callback/"))],
        vec![(
            "redirect_uri",
            Some("http://127.0.0.1:7777/callback?extra=1"),
        )],
        vec![("redirect_uri", None)],
        vec![("client_id", Some("cli_aaaaaaaaaaaaaaaa"))],
        vec![("client_id", None)],
    ] {
        let params = authorize_params(&s.client, &changes);
        let page = s.authorize_page(&params).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{changes:?}");
        assert!(page.headers.get(header::LOCATION).is_none(), "{changes:?}");
        assert!(String::from_utf8_lossy(&page.raw).contains("not valid"));
        // Posting the consent form with such a request is refused the same way.
        let answer = s.consent(&params, "allow", &s.csrf).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{changes:?}");
        assert!(
            answer.headers.get(header::LOCATION).is_none(),
            "{changes:?}"
        );
    }
}

#[tokio::test]
async fn other_problems_go_back_to_the_client_with_the_state() {
    let s = setup().await;
    for (changes, error) in [
        (vec![("scope", Some("feeds stats"))], "invalid_scope"),
        (vec![("scope", Some("everything"))], "invalid_scope"),
        (
            vec![("response_type", Some("token"))],
            "unsupported_response_type",
        ),
        (
            vec![("code_challenge", None), ("code_challenge_method", None)],
            "invalid_request",
        ),
        (
            vec![("code_challenge_method", Some("plain"))],
            "invalid_request",
        ),
        (vec![("code_challenge", Some("short"))], "invalid_request"),
    ] {
        let page = s
            .authorize_page(&authorize_params(&s.client, &changes))
            .await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{changes:?}");
        let location = url::Url::parse(page.headers[header::LOCATION].to_str().unwrap()).unwrap();
        assert_eq!(location.as_str().split('?').next(), Some(REDIRECT));
        let query: Vec<(String, String)> = location.query_pairs().into_owned().collect();
        assert!(
            query.contains(&("error".into(), error.into())),
            "{changes:?}: {location}"
        );
        assert!(
            query.contains(&("state".into(), "s-123".into())),
            "{changes:?}"
        );
        assert!(!query.iter().any(|(k, _)| k == "code"));
    }
    // The user says no.
    let params = authorize_params(&s.client, &[]);
    let answer = s.consent(&params, "deny", &s.csrf).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    let location = answer.headers[header::LOCATION].to_str().unwrap();
    assert!(
        location.starts_with(&format!("{REDIRECT}?error=access_denied")),
        "{location}"
    );
    assert!(location.contains("&state=s-123&iss="), "{location}");
}

#[tokio::test]
async fn consent_needs_a_live_session_and_its_csrf_token() {
    let s = setup().await;
    let params = authorize_params(&s.client, &[]);
    for csrf in ["", "forged-forged-forged-forged-forged-forged-xx"] {
        let answer = s.consent(&params, "allow", csrf).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{csrf:?}");
        assert!(answer.headers.get(header::LOCATION).is_none());
    }
    // Signed out: the authorization page asks to sign in and comes back; the form is refused.
    s.fx.host
        .access()
        .sign_out(s.cookie.trim_start_matches("podhost_session="))
        .await
        .unwrap();
    let page = s.authorize_page(&params).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.raw);
    assert!(html.contains("action=\"/account/sign-in\""), "{html}");
    assert!(
        html.contains("name=\"next\" value=\"/oauth/authorize?response_type=code"),
        "{html}"
    );
    let answer = s.consent(&params, "allow", &s.csrf).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(answer.headers.get(header::LOCATION).is_none());
}

#[tokio::test]
async fn the_consent_page_may_send_its_answer_to_the_client_and_nowhere_else() {
    let s = setup().await;
    let page = s.authorize_page(&authorize_params(&s.client, &[])).await;
    let csp = page.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        csp.contains(&format!("form-action 'self' {REDIRECT};")),
        "{csp}"
    );
    assert_eq!(page.headers[header::X_FRAME_OPTIONS], "DENY");
    let html = String::from_utf8_lossy(&page.raw);
    assert!(html.contains("Test App"));
    assert!(
        html.contains("create, change and delete podcasts"),
        "{html}"
    );
}

#[tokio::test]
async fn confidential_clients_authenticate() {
    let s = setup().await;
    let owner =
        s.fx.host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
    let new =
        s.fx.host
            .access()
            .create_client(
                &owner,
                "Server",
                vec![REDIRECT.into()],
                true,
                Scopes::parse_list("feeds").unwrap(),
            )
            .await
            .unwrap();
    let secret = new.secret.unwrap();
    let id = new.client.id.to_string();
    let code_for = |client: String| {
        let s = &s;
        async move {
            let params = authorize_params(&client, &[]);
            let answer = s.consent(&params, "allow", &s.csrf).await;
            let location =
                url::Url::parse(answer.headers[header::LOCATION].to_str().unwrap()).unwrap();
            location
                .query_pairs()
                .find(|(k, _)| k == "code")
                .unwrap()
                .1
                .into_owned()
        }
    };
    let fields = |code: &str| {
        vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code.to_string()),
            ("code_verifier", VERIFIER.to_string()),
            ("redirect_uri", REDIRECT.to_string()),
        ]
    };
    let code = code_for(id.clone()).await;
    let as_pairs = |v: &[(&'static str, String)]| -> Vec<(&'static str, String)> { v.to_vec() };
    // No secret, a wrong one (Basic or form): 401 invalid_client.
    for (extra, basic) in [
        (vec![("client_id", id.clone())], None),
        (
            vec![
                ("client_id", id.clone()),
                ("client_secret", "phs_wrong".to_string()),
            ],
            None,
        ),
        (vec![], Some((id.as_str(), "phs_wrong"))),
    ] {
        let mut all = as_pairs(&fields(&code));
        all.extend(extra);
        let borrowed: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let answer = s.token(&borrowed, basic).await;
        assert_eq!(
            error_of(&answer),
            (StatusCode::UNAUTHORIZED, "invalid_client"),
            "{basic:?}"
        );
        assert!(answer.headers.contains_key(header::WWW_AUTHENTICATE));
    }
    // With HTTP Basic: tokens.
    let all = fields(&code);
    let borrowed: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let answer = s.token(&borrowed, Some((&id, &secret))).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // A public client sending a secret is refused; sending a parameter twice too.
    let code = s.code().await;
    let answer = s
        .token(
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
                ("redirect_uri", REDIRECT),
                ("client_id", &s.client),
                ("client_secret", "anything"),
            ],
            None,
        )
        .await;
    assert_eq!(
        error_of(&answer),
        (StatusCode::UNAUTHORIZED, "invalid_client")
    );
    let answer = s
        .token(
            &[
                ("grant_type", "authorization_code"),
                ("grant_type", "refresh_token"),
            ],
            None,
        )
        .await;
    assert_eq!(
        error_of(&answer),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
}

#[tokio::test]
async fn access_tokens_expire_and_refresh_tokens_rotate() {
    let s = setup().await;
    let code = s.code().await;
    let first = s.exchange(&code, VERIFIER, REDIRECT).await.body;
    let access = first["access_token"].as_str().unwrap();
    s.fx.clock.advance(SignedDuration::from_mins(59));
    assert_eq!(s.api_status(access).await, StatusCode::OK);
    s.fx.clock.advance(SignedDuration::from_mins(1));
    assert_eq!(
        s.api_status(access).await,
        StatusCode::UNAUTHORIZED,
        "an hour later"
    );
    let refresh = |token: String| {
        let s = &s;
        async move {
            s.token(
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &token),
                    ("client_id", &s.client),
                ],
                None,
            )
            .await
        }
    };
    let second = refresh(first["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_ne!(second.body["refresh_token"], first["refresh_token"]);
    assert_eq!(
        s.api_status(second.body["access_token"].as_str().unwrap())
            .await,
        StatusCode::OK
    );
    // The first refresh token again: the grant ends.
    let reused = refresh(first["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(
        error_of(&reused),
        (StatusCode::BAD_REQUEST, "invalid_grant")
    );
    assert_eq!(
        s.api_status(second.body["access_token"].as_str().unwrap())
            .await,
        StatusCode::UNAUTHORIZED
    );
    let current = refresh(second.body["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(
        error_of(&current),
        (StatusCode::BAD_REQUEST, "invalid_grant")
    );
    // Other shapes of bad requests.
    for (fields, error) in [
        (vec![("grant_type", "password")], "unsupported_grant_type"),
        (vec![], "invalid_request"),
    ] {
        let answer = s.token(&fields, None).await;
        assert_eq!(
            error_of(&answer),
            (StatusCode::BAD_REQUEST, error),
            "{fields:?}"
        );
    }
    let json = send_to(
        &s.fx.api,
        Request::builder()
            .method(Method::POST)
            .uri("/oauth/token")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from_static(
                b"{\"grant_type\":\"refresh_token\"}",
            )))
            .unwrap(),
    )
    .await;
    assert_eq!(
        error_of(&json),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
}

#[tokio::test]
async fn revocation_and_grants_on_the_site() {
    let s = setup().await;
    let code = s.code().await;
    let tokens = s.exchange(&code, VERIFIER, REDIRECT).await.body;
    let access = tokens["access_token"].as_str().unwrap().to_string();
    let revoke = |token: String, client: String| {
        let s = &s;
        async move {
            s.token_at(
                "/oauth/revoke",
                &[("token", &token), ("client_id", &client)],
            )
            .await
        }
    };
    // An unknown token is no error (RFC 7009 §2.2).
    let answer = revoke("phr_nothing".into(), s.client.clone()).await;
    assert_eq!(answer.status, StatusCode::OK);
    // The access token alone.
    assert_eq!(
        revoke(access.clone(), s.client.clone()).await.status,
        StatusCode::OK
    );
    assert_eq!(s.api_status(&access).await, StatusCode::UNAUTHORIZED);
    // The refresh token ends the grant: listed revoked on the account site.
    let refresh = tokens["refresh_token"].as_str().unwrap().to_string();
    assert_eq!(
        revoke(refresh.clone(), s.client.clone()).await.status,
        StatusCode::OK
    );
    let owner =
        s.fx.host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
    let grants = s.fx.host.access().list_grants(&owner).await.unwrap();
    assert_eq!(grants.len(), 1);
    assert!(grants[0].revoked.is_some());
}

#[tokio::test]
async fn the_server_metadata_names_every_endpoint() {
    let s = setup().await;
    let answer =
        s.fx.public(Method::GET, "/.well-known/oauth-authorization-server", &[])
            .await;
    assert_eq!(answer.status, StatusCode::OK);
    let m = &answer.body;
    assert_eq!(m["issuer"], "https://pod.test");
    assert_eq!(
        m["authorization_endpoint"],
        "https://pod.test/oauth/authorize"
    );
    assert_eq!(m["token_endpoint"], "https://pod.test/oauth/token");
    assert_eq!(m["revocation_endpoint"], "https://pod.test/oauth/revoke");
    assert_eq!(
        m["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(m["response_types_supported"], serde_json::json!(["code"]));
    assert_eq!(
        m["grant_types_supported"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    assert!(
        m["scopes_supported"]
            .as_array()
            .unwrap()
            .contains(&"tokens".into())
    );
    assert_eq!(m["authorization_response_iss_parameter_supported"], true);
}

impl Setup {
    async fn token_at(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        send_to(&self.fx.api, request).await
    }
}
