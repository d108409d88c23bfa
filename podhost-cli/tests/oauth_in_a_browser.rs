//! The key-management site and OAuth 2 as their users meet them: a real `podhost serve`, an
//! account whose password was set with `podhost user passwd --stdin`, and
//! `tests/browser/check-oauth.mjs` driving headless Chromium (Debian `chromium`, through
//! playwright-core) for the person and a real OAuth client library (npm `oauth4webapi`) for the
//! application: sign-in, a personal token made, used and revoked on the site, an OAuth client
//! registered there, the authorization code flow with PKCE (sign-in, consent, the code caught
//! by a local redirect server), the API called with the access token, a refresh, a reused
//! refresh token revoking the grant, revocation.
//!
//! Chromium and `tests/browser/node_modules` are installed by `scripts/test`. Without them this
//! test says SKIPPED and passes, unless `PODHOST_REQUIRE_EXTERNAL=1`, which makes it fail.

mod common;

use std::{
    io::Write,
    process::{Command, Stdio},
};

use common::Cli;
use podhost_testkit::browser;
use serde_json::Value;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_podcaster_and_an_oauth_client_in_headless_chromium() {
    let Some(tools) = browser::find_or_skip(
        "a_podcaster_and_an_oauth_client_in_headless_chromium",
        &["playwright-core", "oauth4webapi"],
    ) else {
        return;
    };
    let cli = Cli::with_users(&["alice"]);
    let password = "correct horse battery staple";
    let mut passwd = cli
        .command(&["user", "passwd", "alice", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(passwd.stdin.take().unwrap(), "{password}").unwrap();
    assert!(passwd.wait().unwrap().success());

    // The issuer is the public URL: serve on a port chosen here, so that they agree.
    let listen = format!("127.0.0.1:{}", free_port());
    let (mut server, _) = common::serve_at(cli.store_path(), &[], &["--listen", &listen]);
    let out = browser::artifacts().join("oauth");
    let run = Command::new("node")
        .current_dir(&tools.scripts)
        .env("PODHOST_CHROMIUM", &tools.chromium)
        .args(["check-oauth.mjs", "--base", &format!("http://{listen}")])
        .args(["--user", "alice", "--password", password])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "check-oauth.mjs failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    let expected = serde_json::json!({
        // A personal token works within its scope until it is revoked.
        "personal_token_before_revoke": 200,
        "personal_token_outside_its_scope": 403,
        "personal_token_after_revoke": 401,
        // The application gets what the user allowed, for an hour.
        "scope": "media-read-only feeds",
        "expires_in": 3600,
        "access_token_call": 200,
        "access_token_outside_its_scope": 403,
        "refreshed_access_token_call": 200,
        // A spent refresh token coming back ends the grant: its tokens stop working.
        "reused_refresh_token": "invalid_grant",
        "after_reuse_access_token_call": 401,
        "after_reuse_current_refresh_token": "invalid_grant",
        // Revocation (RFC 7009) of a refresh token ends its grant.
        "second_grant_call": 200,
        "after_revocation_access_token_call": 401,
        "after_revocation_refresh_token": "invalid_grant",
        "grants": ["revoked", "revoked"],
        // The language switch's `?lang=de` gives the site in German, and the cookie it sets
        // keeps it on the next page.
        "german_account_page": "de",
        "german_home_page": "de",
        "german_sign_in_page": "de",
        "german_invitation_page": "de",
    });
    assert_eq!(seen, expected);
    for shot in [
        "account-de",
        "account-de-dark",
        "account-de-mobile",
        "home-de",
    ] {
        assert!(
            out.join(format!("{shot}.png")).exists(),
            "{shot}.png was saved"
        );
    }
}
