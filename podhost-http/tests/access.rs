//! Who may do what: every endpoint against every scope, and every endpoint with another
//! account's ids.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use podhost_core::Scope;
use serde_json::{Value, json};

/// A request for each route, with the scope it needs. `{media}`, `{feed}`, `{show}` are filled in.
fn requests() -> Vec<(Method, &'static str, Body, Scope)> {
    use Body::*;
    use Scope as S;
    vec![
        (Method::POST, "/api/webhooks-processing", Empty, S::Webhooks),
        (
            Method::POST,
            "/api/generate/waveform/{media}",
            Empty,
            S::Media,
        ),
        (
            Method::POST,
            "/api/generate/silence/{media}",
            Empty,
            S::Media,
        ),
        (Method::GET, "/api/media", Empty, S::MediaReadOnly),
        (Method::POST, "/api/media", Upload, S::Media),
        (Method::GET, "/api/media/{media}", Empty, S::MediaReadOnly),
        (
            Method::GET,
            "/api/media/{media}/metadata",
            Empty,
            S::MediaReadOnly,
        ),
        (
            Method::PUT,
            "/api/media/{media}/metadata",
            Json(json!({})),
            S::Media,
        ),
        (
            Method::POST,
            "/api/media/{media}/copy",
            Json(json!({"label": "c.wav", "category": "x"})),
            S::Media,
        ),
        (Method::GET, "/api/feeds", Empty, S::FeedsReadOnly),
        (
            Method::POST,
            "/api/feeds",
            Json(json!({"id": "new-{n}", "title": "New"})),
            S::Feeds,
        ),
        (Method::GET, "/api/feeds/{feed}", Empty, S::FeedsReadOnly),
        (
            Method::PUT,
            "/api/feeds/{feed}",
            Json(json!({"description": "changed"})),
            S::Feeds,
        ),
        (
            Method::GET,
            "/api/feed/{feed}/shows",
            Empty,
            S::ShowsReadOnly,
        ),
        (Method::POST, "/api/feed/{feed}/show", Form, S::Shows),
        (
            Method::GET,
            "/api/feed/{feed}/show/{show}",
            Empty,
            S::ShowsReadOnly,
        ),
        (
            Method::PUT,
            "/api/feed/{feed}/show/{show}",
            Json(json!({"title": "changed"})),
            S::Shows,
        ),
        (
            Method::POST,
            "/api/feed/{feed}/show/{show}/copy",
            Empty,
            S::Shows,
        ),
        (
            Method::DELETE,
            "/api/feed/{feed}/show/{show}",
            Empty,
            S::Shows,
        ),
        (Method::DELETE, "/api/media/{spare}", Empty, S::Media),
        (Method::DELETE, "/api/feeds/{feed}", Empty, S::Feeds),
    ]
}

#[derive(Clone)]
enum Body {
    Empty,
    Json(Value),
    Upload,
    Form,
}

struct Ids {
    media: u64,
    spare: u64,
    feed: String,
    show: String,
}

async fn objects(fx: &Fixture) -> Ids {
    let media = fx.upload_wav("a.wav").await;
    let spare = fx.upload_wav("spare.wav").await;
    fx.feed("show").await;
    let show = fx
        .episode(
            "show",
            &[("title", "One"), ("show_media", &media.to_string())],
        )
        .await;
    Ids {
        media,
        spare,
        feed: "show".into(),
        show,
    }
}

async fn send(
    fx: &Fixture,
    token: &str,
    method: &Method,
    template: &str,
    body: &Body,
    ids: &Ids,
    n: usize,
) -> common::Answer {
    let path = template
        .replace("{media}", &ids.media.to_string())
        .replace("{spare}", &ids.spare.to_string())
        .replace("{feed}", &ids.feed)
        .replace("{show}", &ids.show);
    match body {
        Body::Empty => fx.call(method.clone(), &path, token, None).await,
        Body::Json(v) => {
            let text = v.to_string().replace("{n}", &n.to_string());
            fx.call(
                method.clone(),
                &path,
                token,
                Some(serde_json::from_str(&text).unwrap()),
            )
            .await
        }
        Body::Upload => {
            fx.multipart(
                &path,
                token,
                &[],
                &[("media", "u.wav", podhost_testkit::fixtures::wav(0.1, 8000))],
            )
            .await
        }
        Body::Form => fx.multipart(&path, token, &[("title", "Made")], &[]).await,
    }
}

#[tokio::test]
async fn every_endpoint_against_every_scope() {
    for scope in Scope::ALL {
        let fx = Fixture::new().await;
        let ids = objects(&fx).await;
        let token = fx.token(scope.as_str()).await;
        for (n, (method, template, body, needed)) in requests().iter().enumerate() {
            let answer = send(&fx, &token, method, template, body, &ids, n).await;
            let allowed = podhost_core::Scopes::from_iter([scope]).allows(*needed);
            if allowed {
                assert!(
                    answer.status.is_success() || answer.status == StatusCode::NOT_IMPLEMENTED,
                    "{scope} {method} {template}: {} {}",
                    answer.status,
                    answer.body
                );
            } else {
                assert_eq!(
                    answer.status,
                    StatusCode::FORBIDDEN,
                    "{scope} {method} {template}: {}",
                    answer.body
                );
                assert!(
                    answer.body["message"]
                        .as_str()
                        .unwrap()
                        .contains(needed.as_str()),
                    "names the scope: {}",
                    answer.body
                );
            }
        }
        // Nothing the forbidden calls touched changed.
        if scope != Scope::Media && scope != Scope::Feeds && scope != Scope::Shows {
            assert_eq!(fx.get("/api/media").await.body["count"], 2, "{scope}");
            assert_eq!(
                fx.get("/api/feeds/show").await.status,
                StatusCode::OK,
                "{scope}"
            );
        }
    }
}

#[tokio::test]
async fn another_accounts_objects_are_not_found_on_every_endpoint() {
    let fx = Fixture::new().await;
    let ids = objects(&fx).await;
    for (n, (method, template, body, _)) in requests().iter().enumerate() {
        if !template.contains('{') {
            continue; // lists and creations act on the caller's own account
        }
        let answer = send(&fx, &fx.mallory, method, template, body, &ids, n).await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{method} {template}: {}",
            answer.body
        );
    }
    // And alice's things are all still there.
    assert_eq!(fx.get("/api/media").await.body["count"], 2);
    assert_eq!(
        fx.get(&format!("/api/feed/show/show/{}", ids.show))
            .await
            .body["data"]["attributes"]["title"],
        "One"
    );
}

#[tokio::test]
async fn without_a_valid_token_everything_is_401_but_the_document() {
    let fx = Fixture::new().await;
    let ids = objects(&fx).await;
    let owner = fx.host.owner(&"alice".parse().unwrap()).await.unwrap();
    let revoked = fx
        .host
        .create_token(&owner, "gone", podhost_core::Scopes::all())
        .await
        .unwrap();
    fx.host
        .revoke_token(&owner, &revoked.token.id)
        .await
        .unwrap();
    for token in ["", "nonsense", revoked.secret.as_str()] {
        for (n, (method, template, body, _)) in requests().iter().enumerate() {
            let answer = send(&fx, token, method, template, body, &ids, n).await;
            assert_eq!(
                answer.status,
                StatusCode::UNAUTHORIZED,
                "{token:?} {method} {template}"
            );
            assert_eq!(answer.body, json!({"message": "Unauthenticated."}));
        }
    }
    assert_eq!(
        fx.call(Method::GET, "/api/openapi.json", "", None)
            .await
            .status,
        StatusCode::OK
    );
}
