//! The site and the public pages in a real browser, every page of them as people see them: in
//! English and in German (the browser's language), 1280 and 390 px wide, through
//! `tests/browser/check-site.mjs` in the system's headless Chromium (Debian `chromium`). The
//! screenshots are kept in `target/artifacts/screenshots/` for a person to look at.
//!
//! Chromium and `tests/browser/node_modules` are installed by `scripts/test`. Without them this
//! test says SKIPPED and passes, unless `PODHOST_REQUIRE_EXTERNAL=1`, which makes it fail.

mod common;

use std::time::Duration;

use podhost_core::{EpisodeId, FeedId};
use podhost_testkit::browser;

/// Every page of the site and the public pages, as people see them: in English and in German
/// (the browser's language), 1280 and 390 px wide, through `tests/browser/check-site.mjs`. A
/// month of downloads (common::history), comments from a fediverse instance, a block, a
/// token, an OAuth client, a campaign, an admin (arthur, in two accounts) beside the owner
/// (alice) and an invitation still open; the pages as alice, as arthur and signed out. On each:
/// nothing overflows its box, every control has a label and a size to hit, no label runs into
/// its control, axe-core finds nothing (WCAG 2.1 AA); a screenshot of each is kept in
/// `target/artifacts/screenshots/` for a person to look at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_of_the_site_in_the_browser_in_both_languages_and_widths() {
    use serde_json::{Value, json};
    let test = "every_page_of_the_site_in_the_browser_in_both_languages_and_widths";
    let Some(tools) = browser::find_or_skip(test, &["playwright-core", "axe-core"]) else {
        return;
    };
    let common::history::History { fx, episodes, .. } = common::history::history().await;
    let password = common::history::PASSWORD;
    let owner = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let show: FeedId = "show".parse().unwrap();
    let first: EpisodeId = episodes[0].0.parse().unwrap();
    common::remote::converse(&fx.host, &show, first).await;
    fx.host
        .fediverse()
        .block(&owner, "spam.example")
        .await
        .unwrap();
    let scopes = podhost_core::Scopes::parse_list("feeds,shows,media").unwrap();
    fx.host
        .access()
        .create_token(&owner, "Upload script on the studio laptop", scopes.clone())
        .await
        .unwrap();
    let redirect = "http://127.0.0.1:9/callback";
    let client = fx
        .host
        .access()
        .create_client(
            &owner,
            "Episode Planner",
            vec![redirect.into()],
            false,
            scopes,
        )
        .await
        .unwrap()
        .client;
    let ad = podhost_testkit::setup::upload(
        &fx.host,
        &owner,
        "ad.wav",
        podhost_testkit::fixtures::wav(1.5, 16000),
    )
    .await;
    let campaign = podhost_testkit::setup::campaign_everywhere(&fx.host, &owner, ad.id).await;
    let public = fx
        .call(
            http::Method::PUT,
            "/api/feeds/show",
            &fx.alice,
            Some(json!({"public_stats": true})),
        )
        .await;
    assert_eq!(public.status, http::StatusCode::OK, "{}", public.body);
    // arthur: an admin of alice's account and an analyst of mallory's.
    let (_, to_alice) = fx.invite("arthur", "admin", Value::Null).await;
    let secret = to_alice.rsplit('/').next().unwrap();
    let arthur = fx
        .host
        .access()
        .accept_invitation(secret, password, Some("Arthur Dent"), "192.0.2.7")
        .await
        .unwrap()
        .cookie;
    let answer = fx
        .call(
            http::Method::POST,
            "/api/members",
            &fx.mallory,
            Some(json!({"login": "arthur", "role": "analyst"})),
        )
        .await;
    assert_eq!(answer.status, http::StatusCode::CREATED, "{}", answer.body);
    let url = answer.body["data"]["invitation_url"].as_str().unwrap();
    fx.host
        .access()
        .accept_invitation(url.rsplit('/').next().unwrap(), password, None, "192.0.2.7")
        .await
        .unwrap();
    // An invitation not yet accepted: its page, signed out.
    let (_, open) = fx.invite("bea@example.com", "editor", Value::Null).await;
    let mut signed_in = common::Browser::default();
    signed_in.sign_in(&fx.api, "alice", password).await;
    let alice = signed_in.cookie("podhost_session").expect("signed in");

    let period = format!(
        "from={}&to={}",
        common::history::FIRST,
        common::history::LAST
    );
    let authorize = format!(
        "/oauth/authorize?response_type=code&client_id={}&redirect_uri={redirect}&scope=feeds%20shows&state=s&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuKcd3-WfJU&code_challenge_method=S256",
        client.id.as_str()
    );
    let episode = format!("show/{first}");
    let pages = [
        ("home", "/".to_string(), None, 200),
        ("sign-in", "/account".into(), None, 200),
        ("invitation", open, None, 200),
        (
            "invitation-broken",
            "/account/invitations/gone".into(),
            None,
            404,
        ),
        ("account", "/account".into(), Some("alice"), 200),
        (
            "account-of-a-member",
            "/account".into(),
            Some("arthur"),
            200,
        ),
        (
            "stats",
            format!("/account/stats?{period}"),
            Some("alice"),
            200,
        ),
        (
            "stats-empty-period",
            "/account/stats?from=2026-01-01&to=2026-01-31".into(),
            Some("alice"),
            200,
        ),
        (
            "podcast-stats",
            format!("/account/stats/podcasts/show?{period}"),
            Some("alice"),
            200,
        ),
        (
            "campaign-stats",
            format!("/account/stats/campaigns/{}", campaign.campaign.id.as_str()),
            Some("alice"),
            200,
        ),
        ("fediverse", "/account/fediverse".into(), Some("alice"), 200),
        (
            "podcast-fediverse",
            "/account/fediverse/podcasts/show".into(),
            Some("alice"),
            200,
        ),
        ("consent", authorize, Some("alice"), 200),
        (
            "not-found",
            "/account/stats/podcasts/nothing-here".into(),
            Some("alice"),
            404,
        ),
        ("podcast-page", "/podcasts/show".into(), None, 200),
        ("episode-page", format!("/podcasts/{episode}"), None, 200),
        ("player", format!("/embed/{episode}"), None, 200),
        ("public-stats", "/podcasts/show/stats".into(), None, 200),
    ];
    let base = fx.server.base_url();
    let out = browser::artifacts().join("screenshots");
    let spec = json!({
        "base": base,
        "public": fx.host.urls().base(),
        "out": out,
        "sessions": { "alice": alice, "arthur": arthur },
        "pages": pages.iter().map(|(name, path, who, status)| json!({
            "name": name, "path": path, "as": who, "status": status,
        })).collect::<Vec<_>>(),
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("site.json");
    std::fs::write(&file, serde_json::to_vec(&spec).unwrap()).unwrap();
    let started = std::time::Instant::now();
    let run = tokio::process::Command::new("node")
        .current_dir(&tools.scripts)
        .env("PODHOST_CHROMIUM", &tools.chromium)
        .arg("check-site.mjs")
        .arg(&file)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("check-site.mjs finishes within 5 minutes")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the site failed in Chromium:\n{stderr}"
    );
    for (name, ..) in &pages {
        for view in ["en-1280", "en-390", "de-1280", "de-390"] {
            let shot = out.join(format!("{name}-{view}.png"));
            assert!(shot.exists(), "{} was saved", shot.display());
        }
    }
    println!(
        "site check: {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
}
