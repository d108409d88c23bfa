// Drives podhost's key-management site and its OAuth 2 server as a podcaster and a third-party
// application would: a podcaster signs in on the site in headless Chromium, makes a personal
// token and uses it, revokes it, registers an OAuth client; then an application, written with a
// real OAuth client library (oauth4webapi), runs the authorization code flow with PKCE through
// the same browser (sign-in, consent, the code caught by a local redirect server), exchanges the
// code, calls the API, refreshes, sees a reused refresh token revoke the whole grant, and
// revokes another grant's tokens (RFC 7009). Each page of the site on the way passes axe-core's
// WCAG 2.1 AA rules, light and dark; then, in German, the account page, the home page, the
// account page with a new invitation, the sign-in page and the invitation's page.
//
// usage: node check-oauth.mjs --base URL --user NAME --password PASSWORD --out DIR
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Prints one JSON line of what it saw and exits 0 when every step behaved, 1 otherwise (the
// failed step on stderr). Never downloads a browser.

import { createServer } from "node:http";
import { mkdtemp, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";
import { args as CHROMIUM_ARGS, executablePath } from "./chromium.mjs";


function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--")) throw new Error(`unexpected ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const name of ["base", "user", "password", "out"]) {
    if (!args[name]) throw new Error(`--${name} is required`);
  }
  return args;
}

function check(condition, what) {
  if (!condition) throw new Error(what);
}

/** A redirect server on loopback: resolves each `next()` with the URL of the next callback. */
async function redirectServer() {
  const waiting = [];
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>done</title><p>You can close this window.</p>");
    const url = new URL(req.url, `http://${req.headers.host}`);
    const w = waiting.shift();
    if (w) w(url);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The error code of a failed token-endpoint call, as oauth4webapi reports it. */
async function oauthError(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) return e.error;
    throw e;
  }
}

async function api(base, token, path = "/api/feeds") {
  const response = await oauth.protectedResourceRequest(token, "GET", new URL(base + path), undefined, undefined, {
    [oauth.allowInsecureRequests]: true,
  });
  return response.status;
}

async function signIn(tab, user, password) {
  await tab.fill('input[name="name"]', user);
  await tab.fill('input[name="password"]', password);
  await Promise.all([tab.waitForLoadState("load"), tab.click('button[type="submit"]:has-text("Sign in")')]);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const base = args.base.replace(/\/$/, "");
  await mkdir(args.out, { recursive: true });
  const seen = {};
  const problems = [];
  const callback = await redirectServer();
  const profile = await mkdtemp(join(tmpdir(), "podhost-oauth-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const tab = await context.newPage();
  tab.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error on ${tab.url()}: ${msg.text()}`);
  });
  tab.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  // Accessibility of each page of the site on the way: WCAG 2.1 AA by axe-core, light and dark.
  const accessible = async (where) => {
    for (const colorScheme of ["light", "dark"]) {
      await tab.emulateMedia({ colorScheme });
      for (const v of await axeViolations(tab)) problems.push(`${where} (${colorScheme}): ${v}`);
    }
    await tab.emulateMedia({ colorScheme: "light" });
  };
  let step = "start";
  try {
    // The home page links to the account site.
    step = "home page";
    await tab.goto(`${base}/`);
    await accessible("home page");
    await Promise.all([tab.waitForLoadState("load"), tab.click('main a[href="/account"]')]);
    await accessible("sign-in page");

    // Sign in on the site.
    step = "sign-in on the site";
    await signIn(tab, args.user, args.password);
    check(new URL(tab.url()).pathname === "/account", `after sign-in: ${tab.url()}`);
    await tab.screenshot({ path: join(args.out, "account.png"), fullPage: true });
    await accessible("account page");

    // A personal token: created with one scope, shown once, used, revoked.
    step = "personal token";
    await tab.fill('#tokens input[name="label"]', "browser token");
    await tab.check('#tokens input[name="scope"][value="feeds-read-only"]');
    await Promise.all([tab.waitForLoadState("load"), tab.click('button:has-text("Create token")')]);
    const personal = (await tab.textContent("#new-token")).trim();
    check(personal.startsWith("phk_"), `the new token: ${personal}`);
    seen.personal_token_before_revoke = await api(base, personal);
    seen.personal_token_outside_its_scope = await api(base, personal, "/api/media");
    await tab.screenshot({ path: join(args.out, "token-created.png"), fullPage: true });
    await accessible("account page with a new token");
    await Promise.all([
      tab.waitForLoadState("load"),
      tab.click('#tokens button[aria-label="Revoke browser token"]'),
    ]);
    seen.personal_token_after_revoke = await api(base, personal);
    check((await tab.textContent("#tokens")).includes("revoked"), "the list shows the token revoked");

    // An OAuth client, registered on the site.
    step = "OAuth client";
    await tab.fill('#clients input[name="name"]', "Browser Test App");
    await tab.fill('#clients textarea[name="redirect_uris"]', callback.uri);
    for (const scope of ["feeds", "media-read-only"]) {
      await tab.check(`#clients input[name="scope"][value="${scope}"]`);
    }
    await Promise.all([tab.waitForLoadState("load"), tab.click('button:has-text("Create client")')]);
    const clientId = (await tab.textContent("#new-client-id")).trim();
    check(clientId.startsWith("cli_"), `the new client: ${clientId}`);

    // Signed out: the authorization request asks to sign in first.
    step = "sign-out";
    await Promise.all([tab.waitForLoadState("load"), tab.click('button:has-text("Sign out")')]);

    // The application: discovery, PKCE, the authorization request in the browser.
    step = "discovery";
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }),
    );
    const client = { client_id: clientId };
    const auth = oauth.None();
    const insecure = { [oauth.allowInsecureRequests]: true };

    /** One authorization: the browser signs in when asked, consents, and the code comes back. */
    async function authorize(expectSignIn) {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("client_id", clientId);
      url.searchParams.set("redirect_uri", callback.uri);
      url.searchParams.set("scope", "feeds media-read-only");
      url.searchParams.set("state", state);
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set("code_challenge_method", "S256");
      await tab.goto(url.href);
      if (expectSignIn) {
        check((await tab.locator('input[name="password"]').count()) === 1, "the sign-in form comes first");
        await signIn(tab, args.user, args.password);
      }
      check(new URL(tab.url()).pathname === "/oauth/authorize", `the consent page: ${tab.url()}`);
      const requested = await tab.locator("#requested-scopes li").allTextContents();
      check(requested.length === 2, `the consent page lists the scopes: ${requested}`);
      await tab.screenshot({ path: join(args.out, "consent.png"), fullPage: true });
      await accessible("consent page");
      const arrived = callback.next();
      await tab.click('button[value="allow"]');
      const back = await arrived;
      const params = oauth.validateAuthResponse(as, client, back, state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, callback.uri, verifier, insecure);
      return oauth.processAuthorizationCodeResponse(as, client, response);
    }

    step = "authorization code flow";
    const first = await authorize(true);
    seen.scope = first.scope;
    seen.expires_in = first.expires_in;
    seen.access_token_call = await api(base, first.access_token);
    seen.access_token_outside_its_scope = await api(base, first.access_token, "/api/stats");

    step = "refresh";
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure),
    );
    check(refreshed.refresh_token !== first.refresh_token, "the refresh token rotates");
    seen.refreshed_access_token_call = await api(base, refreshed.access_token);

    step = "reuse of a spent refresh token";
    seen.reused_refresh_token = await oauthError(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure),
      ),
    );
    seen.after_reuse_access_token_call = await api(base, refreshed.access_token);
    seen.after_reuse_current_refresh_token = await oauthError(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token, insecure),
      ),
    );

    step = "revocation";
    const second = await authorize(false);
    seen.second_grant_call = await api(base, second.access_token);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, second.refresh_token, insecure));
    seen.after_revocation_access_token_call = await api(base, second.access_token);
    seen.after_revocation_refresh_token = await oauthError(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, second.refresh_token, insecure),
      ),
    );

    // The account page lists both grants, revoked.
    step = "grants on the site";
    await tab.goto(`${base}/account`);
    const grants = await tab.locator("#grants tbody tr").allTextContents();
    seen.grants = grants.map((row) => (row.includes("revoked") ? "revoked" : "active"));
    await tab.screenshot({ path: join(args.out, "grants.png"), fullPage: true });
    await accessible("account page with grants");

    // The site in German, as its language switch asks for it and then remembers: the account
    // page (screenshots on a desktop, dark, and on a phone) and the home page by the cookie
    // alone, each passing axe in German.
    step = "the site in German";
    const language = () => tab.evaluate(() => document.documentElement.lang);
    await tab.goto(`${base}/account?lang=de`);
    seen.german_account_page = await language();
    await accessible("account page in German");
    await tab.screenshot({ path: join(args.out, "account-de.png"), fullPage: true });
    await tab.emulateMedia({ colorScheme: "dark" });
    await tab.screenshot({ path: join(args.out, "account-de-dark.png"), fullPage: true });
    await tab.emulateMedia({ colorScheme: "light" });
    await tab.setViewportSize({ width: 390, height: 844 });
    await tab.screenshot({ path: join(args.out, "account-de-mobile.png"), fullPage: true });
    await tab.setViewportSize({ width: 1280, height: 900 });
    await tab.goto(`${base}/`);
    seen.german_home_page = await language();
    await accessible("home page in German");
    await tab.screenshot({ path: join(args.out, "home-de.png"), fullPage: true });

    // An invitation, in German: made on the account page (its link shown once), then its page
    // opened signed out, and the sign-in page.
    step = "an invitation in German";
    await tab.goto(`${base}/account`);
    const invite = 'form[action="/account/members"]';
    await tab.fill(`${invite} input[name="login"]`, "bob@example.com");
    await Promise.all([tab.waitForLoadState("load"), tab.click(`${invite} button[type="submit"]`)]);
    const invitation = (await tab.textContent("#invitation-url")).trim();
    check(invitation.includes("/account/invitations/"), `the invitation's link: ${invitation}`);
    await accessible("account page with a new invitation, in German");
    await Promise.all([
      tab.waitForLoadState("load"),
      tab.click('form[action="/account/sign-out"] button[type="submit"]'),
    ]);
    await tab.goto(`${base}/account`);
    seen.german_sign_in_page = await language();
    await accessible("sign-in page in German");
    await tab.goto(invitation);
    seen.german_invitation_page = await language();
    await accessible("invitation page in German");
    await tab.screenshot({ path: join(args.out, "invitation-de.png"), fullPage: true });
  } catch (e) {
    problems.push(`${step}: ${e.stack || e}`);
  } finally {
    await context.close();
    await callback.close();
    await rm(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(seen));
  for (const p of problems) console.error(p);
  process.exit(problems.length === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e.stack || e);
  process.exit(1);
});
