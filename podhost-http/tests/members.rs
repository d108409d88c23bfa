//! Teams over HTTP: an invitation accepted on the site (its CSRF token included), an author's
//! draft and the 403 on publishing it, an analyst refused every write the route table declares,
//! a member restricted to one podcast finding no other, a removed member's token refused on
//! another server within a second, and the last owner kept.

mod common;

use std::time::Duration;

use common::{Browser, Fixture};
use http::{Method, StatusCode, header};
use podhost_core::{Scope, model::Role};
use serde_json::{Value, json};

const PASSWORD: &str = "a long enough password";

/// A member who joined (through the core, as the site does) and a token of theirs with every
/// scope their role allows.
async fn member_token(fx: &Fixture, login: &str, role: Role, feeds: Value) -> (String, String) {
    let (id, path) = fx.invite(login, role.as_str(), feeds).await;
    let secret = path.rsplit('/').next().unwrap();
    let signed_in = fx
        .host
        .access()
        .accept_invitation(secret, PASSWORD, None, "192.0.2.7")
        .await
        .unwrap();
    let (who, _) = fx.host.access().session(&signed_in.cookie).await.unwrap();
    let token = fx
        .host
        .access()
        .create_token(&who, login, podhost_core::authorization::role_scopes(role))
        .await
        .unwrap();
    (id, token.secret)
}

#[tokio::test]
async fn an_invitation_is_accepted_on_the_site_with_its_csrf_token() {
    let fx = Fixture::new().await;
    let (id, path) = fx.invite("sam@example.com", "editor", Value::Null).await;
    let mut browser = Browser::default();
    let page = browser.get(&fx.api, &path).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    assert!(html.contains("Join alice"), "{html}");
    assert!(
        html.contains("password_again"),
        "a new person chooses a password"
    );

    // Without the form's CSRF token: refused, and the invitation still holds.
    let refused = browser
        .post_raw(
            &fx.api,
            &path,
            &[
                ("password", PASSWORD.into()),
                ("password_again", PASSWORD.into()),
            ],
            &[],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let member = fx.get(&format!("/api/members/{id}")).await;
    assert_eq!(member.body["data"]["status"], "invited");

    // Two different passwords: the page again, 422.
    browser.get(&fx.api, &path).await;
    let differ = browser
        .post(
            &fx.api,
            &path,
            &[("password", PASSWORD), ("password_again", "something else")],
        )
        .await;
    assert_eq!(differ.status, StatusCode::UNPROCESSABLE_ENTITY);

    let joined = browser
        .post(
            &fx.api,
            &path,
            &[
                ("name", "Sam"),
                ("password", PASSWORD),
                ("password_again", PASSWORD),
            ],
        )
        .await;
    assert_eq!(
        joined.status,
        StatusCode::SEE_OTHER,
        "{}",
        String::from_utf8_lossy(&joined.raw)
    );
    assert!(browser.cookie("podhost_session").is_some());
    let account = browser.get(&fx.api, "/account").await;
    assert_eq!(account.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&account.raw).into_owned();
    assert!(html.contains("sam@example.com"), "{html}");
    assert!(html.contains("editor of this account"), "{html}");

    let member = fx.get(&format!("/api/members/{id}")).await;
    assert_eq!(member.body["data"]["status"], "active");
    assert_eq!(member.body["data"]["name"], "Sam");

    // Used once.
    let again = Browser::default().get(&fx.api, &path).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);

    // The person signs in with their login from now on.
    let mut other = Browser::default();
    let signed_in = other.sign_in(&fx.api, "sam@example.com", PASSWORD).await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn an_author_drafts_and_is_refused_publishing() {
    let fx = Fixture::new().await;
    fx.titled_feed("daily", "Daily").await;
    let (_, author) = member_token(&fx, "writer", Role::Author, Value::Null).await;
    let draft = fx
        .multipart(
            "/api/feed/daily/show",
            &author,
            &[("title", "Draft"), ("is_public", "0")],
            &[],
        )
        .await;
    assert_eq!(draft.status, StatusCode::CREATED, "{}", draft.body);
    let id = draft.body["data"]["id"].as_str().unwrap().to_string();
    let edited = fx
        .call(
            Method::PUT,
            &format!("/api/feed/daily/show/{id}"),
            &author,
            Some(json!({"description": "Notes"})),
        )
        .await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.body);
    let publish = fx
        .call(
            Method::PUT,
            &format!("/api/feed/daily/show/{id}"),
            &author,
            Some(json!({"is_public": 1})),
        )
        .await;
    assert_eq!(publish.status, StatusCode::FORBIDDEN, "{}", publish.body);
    assert!(
        publish
            .body
            .to_string()
            .contains("the role author may not publish"),
        "{}",
        publish.body
    );
    let published = fx
        .multipart(
            "/api/feed/daily/show",
            &author,
            &[("title", "Out"), ("is_public", "1")],
            &[],
        )
        .await;
    assert_eq!(
        published.status,
        StatusCode::FORBIDDEN,
        "{}",
        published.body
    );
}

#[tokio::test]
async fn an_analyst_is_refused_every_write_of_the_route_table() {
    let fx = Fixture::new().await;
    let (_, analyst) = member_token(&fx, "numbers", Role::Analyst, Value::Null).await;
    let wav = podhost_testkit::fixtures::wav(0.1, 8000);
    let mut tried = 0;
    for row in podhost_http::routes() {
        // Writes of the API; the analyst's own tokens are theirs to manage.
        let write = row.method != Method::GET && row.method != Method::HEAD;
        let Some(scope) = row.scope else { continue };
        if !write || scope == Scope::Tokens || scope == Scope::Metrics {
            continue;
        }
        let path = podhost_http::routes::sample_path(row);
        let mut request = http::Request::builder()
            .method(row.method.clone())
            .uri(&path)
            .header(header::AUTHORIZATION, format!("Bearer {analyst}"));
        let body = match row.example_body(&wav) {
            Some((content_type, body)) => {
                request = request.header(header::CONTENT_TYPE, content_type);
                body
            }
            None => Vec::new(),
        };
        let answer = fx
            .send(
                request
                    .body(http_body_util::Full::new(body.into()))
                    .unwrap(),
            )
            .await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{} {path}: {}",
            row.method,
            answer.body
        );
        tried += 1;
    }
    assert!(tried > 20, "only {tried} writes");
    // And reads what it may.
    let stats = fx.call(Method::GET, "/api/stats", &analyst, None).await;
    assert_eq!(stats.status, StatusCode::OK, "{}", stats.body);
}

#[tokio::test]
async fn a_member_restricted_to_a_podcast_finds_no_other() {
    let fx = Fixture::new().await;
    for (id, title) in [("mine", "Mine"), ("theirs", "Theirs")] {
        fx.titled_feed(id, title).await;
    }
    let (_, narrow) = member_token(&fx, "narrow", Role::Editor, json!(["mine"])).await;
    // Alice's list is cached at this version of the account: the member's answer must not be
    // hers.
    assert_eq!(
        fx.get("/api/feeds").await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let listed = fx.call(Method::GET, "/api/feeds", &narrow, None).await;
    let ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mine"]);
    for (method, path, body) in [
        (Method::GET, "/api/feeds/theirs", None),
        (
            Method::PUT,
            "/api/feeds/theirs",
            Some(json!({"title": "Mine now"})),
        ),
        (Method::GET, "/api/feed/theirs/shows", None),
        (Method::GET, "/api/stats/feeds/theirs", None),
    ] {
        let answer = fx.call(method.clone(), path, &narrow, body).await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{method} {path}: {}",
            answer.body
        );
    }
    let episode = fx
        .multipart("/api/feed/theirs/show", &narrow, &[("title", "x")], &[])
        .await;
    assert_eq!(episode.status, StatusCode::NOT_FOUND, "{}", episode.body);
    let own = fx.call(Method::GET, "/api/feeds/mine", &narrow, None).await;
    assert_eq!(own.status, StatusCode::OK);
}

#[tokio::test]
async fn a_removed_members_token_is_refused_on_another_server_within_a_second() {
    // Servers that refresh their catalog as a deployment does (every half second).
    let fx = Fixture::with_host_config(|c| {
        c.catalog.refresh_interval = Duration::from_millis(500);
    })
    .await;
    let (id, token) = member_token(&fx, "leaving", Role::Editor, Value::Null).await;
    let (_, other) = fx.another_process();
    let before = common::send_to(
        &other,
        http::Request::builder()
            .uri("/api/feeds")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap(),
    )
    .await;
    assert_eq!(before.status, StatusCode::OK);
    let removed = fx
        .call(
            Method::DELETE,
            &format!("/api/members/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT, "{}", removed.body);
    // The other server reads the account again once its copy is older than the refresh
    // interval (0.5 s): a request made that long after the removal was answered is refused,
    // however busy the machine (the other server's last read ended before the removal began).
    tokio::time::sleep(Duration::from_millis(520)).await;
    let refused = common::send_to(
        &other,
        http::Request::builder()
            .uri("/api/feeds")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap(),
    )
    .await
    .status;
    assert_eq!(
        refused,
        StatusCode::UNAUTHORIZED,
        "still served past the refresh interval"
    );
}

#[tokio::test]
async fn the_last_owner_is_refused() {
    let fx = Fixture::new().await;
    let members = fx.get("/api/members").await;
    let list = members.body["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "an account begins with its founder");
    assert_eq!(list[0]["login"], "alice");
    assert_eq!(list[0]["role"], "owner");
    let founder = list[0]["id"].as_str().unwrap();
    let removed = fx
        .call(
            Method::DELETE,
            &format!("/api/members/{founder}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(removed.status, StatusCode::CONFLICT, "{}", removed.body);
    let demoted = fx
        .call(
            Method::PUT,
            &format!("/api/members/{founder}"),
            &fx.alice,
            Some(json!({"role": "admin"})),
        )
        .await;
    assert_eq!(demoted.status, StatusCode::CONFLICT, "{}", demoted.body);
    // With a second owner, the founder may step down.
    let (second, _) = member_token(&fx, "second", Role::Owner, Value::Null).await;
    let demoted = fx
        .call(
            Method::PUT,
            &format!("/api/members/{founder}"),
            &fx.alice,
            Some(json!({"role": "admin"})),
        )
        .await;
    assert_eq!(demoted.status, StatusCode::OK, "{}", demoted.body);
    // The founder's token now acts as an admin: owners are not theirs to touch.
    let touched = fx
        .call(
            Method::DELETE,
            &format!("/api/members/{second}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(touched.status, StatusCode::FORBIDDEN, "{}", touched.body);
}

#[tokio::test]
async fn a_person_in_two_accounts_switches_between_them() {
    let fx = Fixture::new().await;
    // Invited to alice's account and to mallory's, with one login.
    let (_, to_alice) = fx.invite("sam", "editor", Value::Null).await;
    let answer = fx
        .call(
            Method::POST,
            "/api/members",
            &fx.mallory,
            Some(json!({"login": "sam", "role": "analyst"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let url = answer.body["data"]["invitation_url"].as_str().unwrap();
    let to_mallory = &url[url.find("/account/").unwrap()..];

    let mut browser = Browser::default();
    browser.get(&fx.api, &to_alice).await;
    let joined = browser
        .post(
            &fx.api,
            &to_alice,
            &[("password", PASSWORD), ("password_again", PASSWORD)],
        )
        .await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER);
    // The second invitation: the login is known, so its password, not a new one.
    let page = browser.get(&fx.api, to_mallory).await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    assert!(html.contains("Sign in and join"), "{html}");
    let wrong = browser
        .post(&fx.api, to_mallory, &[("password", "not the password")])
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    browser.get(&fx.api, to_mallory).await;
    let joined = browser
        .post(&fx.api, to_mallory, &[("password", PASSWORD)])
        .await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER);

    // Signed in afresh: the first account, and the other one offered.
    let mut browser = Browser::default();
    browser.sign_in(&fx.api, "sam", PASSWORD).await;
    let page = browser.get(&fx.api, "/account").await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    assert!(html.contains("Account alice"), "{html}");
    assert!(html.contains("Switch to mallory"), "{html}");
    let switched = browser
        .post(&fx.api, "/account/switch", &[("account", "mallory")])
        .await;
    assert_eq!(switched.status, StatusCode::SEE_OTHER);
    let page = browser.get(&fx.api, "/account").await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    assert!(html.contains("Account mallory"), "{html}");
    assert!(html.contains("analyst of this account"), "{html}");
    // An account they are not in is not offered, and not switched to.
    let refused = browser
        .post(&fx.api, "/account/switch", &[("account", "nobody")])
        .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
}

/// An admin restricted to one podcast grants no more than they hold, themselves included: they
/// may not widen their own podcasts, invite a member reaching every podcast, or give another
/// member a podcast they do not have. Each is 403 with a sentence naming what is beyond them,
/// and changes nothing; within their reach, the same calls work.
#[tokio::test]
async fn a_restricted_admin_does_not_widen_anyones_reach_their_own_included() {
    let fx = Fixture::new().await;
    for (id, title) in [("pub", "Public"), ("priv", "Private")] {
        fx.titled_feed(id, title).await;
    }
    let (admin_id, admin) = member_token(&fx, "narrow-admin", Role::Admin, json!(["pub"])).await;
    let (editor_id, _) = member_token(&fx, "ed", Role::Editor, json!(["pub"])).await;
    let refused = |answer: &common::Answer, says: &str| {
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
        let message = answer.body["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(says) && message.contains("no more than they hold"),
            "{message}"
        );
    };

    let widened = fx
        .call(
            Method::PUT,
            &format!("/api/members/{admin_id}"),
            &admin,
            Some(json!({"feeds": null})),
        )
        .await;
    refused(&widened, "every podcast of the account");
    let private = fx.call(Method::GET, "/api/feeds/priv", &admin, None).await;
    assert_eq!(private.status, StatusCode::NOT_FOUND);
    let invited = fx
        .call(
            Method::POST,
            "/api/members",
            &admin,
            Some(json!({"login": "boss", "role": "admin"})),
        )
        .await;
    refused(&invited, "every podcast of the account");
    let given = fx
        .call(
            Method::PUT,
            &format!("/api/members/{editor_id}"),
            &admin,
            Some(json!({"feeds": ["pub", "priv"]})),
        )
        .await;
    refused(&given, "priv");
    let owner = fx
        .call(
            Method::POST,
            "/api/members",
            &admin,
            Some(json!({"login": "boss", "role": "owner", "feeds": ["pub"]})),
        )
        .await;
    refused(&owner, "make, change or remove owners");

    // Nothing changed: the admin, the editor, and no member "boss".
    let members = fx.get("/api/members").await;
    let list = members.body["data"].as_array().unwrap();
    let feeds_of = |id: &str| {
        list.iter()
            .find(|m| m["id"] == id)
            .map(|m| m["feeds"].clone())
            .unwrap()
    };
    assert_eq!(feeds_of(&admin_id), json!(["pub"]));
    assert_eq!(feeds_of(&editor_id), json!(["pub"]));
    assert!(list.iter().all(|m| m["login"] != "boss"), "{list:?}");

    // Within their reach: an editor of their podcast, and narrowing another.
    let within = fx
        .call(
            Method::POST,
            "/api/members",
            &admin,
            Some(json!({"login": "helper", "role": "editor", "feeds": ["pub"]})),
        )
        .await;
    assert_eq!(within.status, StatusCode::CREATED, "{}", within.body);
    let demoted = fx
        .call(
            Method::PUT,
            &format!("/api/members/{editor_id}"),
            &admin,
            Some(json!({"role": "analyst"})),
        )
        .await;
    assert_eq!(demoted.status, StatusCode::OK, "{}", demoted.body);
}

/// A token grants no scope it lacks: an owner's token of only `members` invites no editor
/// (the role needs scopes the token does not have), while the owner on the site does.
#[tokio::test]
async fn a_token_grants_no_scope_it_lacks() {
    let fx = Fixture::new().await;
    let owner = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let members_only = fx
        .host
        .access()
        .create_token(
            &owner,
            "members only",
            podhost_core::Scopes::from_iter([Scope::Members]),
        )
        .await
        .unwrap();
    let answer = fx
        .call(
            Method::POST,
            "/api/members",
            &members_only.secret,
            Some(json!({"login": "ed", "role": "editor"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the role editor needs the scopes")
            && message.contains("(it has members)"),
        "{message}"
    );
    fx.invite("ed", "editor", Value::Null).await;
}

/// The account page offers no action the core would refuse, and its header names the person
/// signed in: to the sole owner, neither a role to change nor Remove on their own row; to an
/// admin, nothing on the owner's row (only an owner changes an owner) and no owner to invite,
/// while their own row and an editor's have both. The admin's header names them and the account.
#[tokio::test]
async fn the_account_page_offers_no_action_the_core_would_refuse() {
    let fx = Fixture::new().await;
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some(PASSWORD))
        .await
        .unwrap();
    let (arthur, path) = fx.invite("arthur", "admin", Value::Null).await;
    let (editor, _) = fx.invite("eve@example.com", "editor", Value::Null).await;
    let mut browser = Browser::default();
    browser.get(&fx.api, &path).await;
    let joined = browser
        .post(
            &fx.api,
            &path,
            &[("password", PASSWORD), ("password_again", PASSWORD)],
        )
        .await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER);
    let members = fx.get("/api/members").await;
    let owner = members.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "owner")
        .expect("the founder")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let remove = |id: &str| format!("action=\"/account/members/{id}/remove\"");
    let change = |id: &str| format!("action=\"/account/members/{id}\"");

    let page = browser.get(&fx.api, "/account").await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    let header = html.split("</header>").next().unwrap();
    assert!(
        header
            .contains("Signed in as <strong>arthur</strong> in the account <strong>alice</strong>"),
        "{header}"
    );
    assert!(
        !html.contains(&remove(&owner)) && !html.contains(&change(&owner)),
        "{html}"
    );
    for id in [&arthur, &editor] {
        assert!(
            html.contains(&remove(id)) && html.contains(&change(id)),
            "{id}: {html}"
        );
    }
    assert!(
        !html.contains("<option value=\"owner\""),
        "an admin makes no owner: {html}"
    );

    let mut alice = Browser::default();
    alice.sign_in(&fx.api, "alice", PASSWORD).await;
    let page = alice.get(&fx.api, "/account").await;
    let html = String::from_utf8_lossy(&page.raw).into_owned();
    let header = html.split("</header>").next().unwrap();
    assert!(
        header.contains("Signed in as <strong>alice</strong>"),
        "{header}"
    );
    assert!(!header.contains("in the account"), "{header}");
    assert!(
        !html.contains(&remove(&owner)) && !html.contains(&change(&owner)),
        "{html}"
    );
    assert!(html.contains(&remove(&arthur)), "{html}");
    // And the core refuses what is not offered.
    let refused = alice
        .post(&fx.api, &format!("/account/members/{owner}/remove"), &[])
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
}
