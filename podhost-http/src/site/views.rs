//! The site's pages as HTML (maud: every interpolation escaped), in the public pages' layout
//! and stylesheet ([`podhost_core::publish::page::site_page`]). Forms post to the site's own
//! routes and carry the CSRF token; nothing needs a script.

use jiff::Timestamp;
use maud::{Markup, html};
use podhost_core::{
    Scope, Scopes,
    model::{Grant, ListedToken, OAuthClient},
    publish::page::site_page,
};

use super::paths;

/// A podcast the home page links to.
pub(super) struct Listed {
    pub(super) title: String,
    pub(super) url: String,
}

/// The form field of the CSRF token, in every form.
pub(super) const CSRF_FIELD: &str = "csrf";

fn csrf(token: &str) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(token); }
}

fn when(t: Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

fn header(signed_in: Option<&str>, csrf_token: Option<&str>) -> Markup {
    html! {
        header.site-header {
            div.wrap.bar {
                a.brand href="/" { "podhost" }
                // Apart in text too (a text browser, a screen reader's reading), not only by
                // the stylesheet's gap.
                " "
                nav aria-label="Site" {
                    a href=(paths::ACCOUNT) { "Account" }
                    " · "
                    a href=(paths::API_DOCS) { "API" }
                    @if let (Some(name), Some(token)) = (signed_in, csrf_token) {
                        " · "
                        span.muted { "Signed in as " strong { (name) } }
                        " "
                        form.inline method="post" action=(paths::SIGN_OUT) {
                            (csrf(token))
                            button.quiet type="submit" { "Sign out" }
                        }
                    }
                }
            }
        }
    }
}

fn page(title: &str, signed_in: Option<&str>, csrf_token: Option<&str>, main: Markup) -> String {
    site_page(
        title,
        html! {
            (header(signed_in, csrf_token))
            main #main .wrap { (main) }
        },
    )
}

/// `/`: what this server is, and where to go.
pub(super) fn home(podcasts: &[Listed], more: bool) -> String {
    page(
        "podhost",
        None,
        None,
        html! {
            h1 { "podhost" }
            p { "This server hosts podcasts: their RSS feeds, their episodes' audio and their web pages." }
            section.panel {
                h2 { "For podcasters" }
                p {
                    a href=(paths::ACCOUNT) { "Sign in to your account" }
                    " to create personal API tokens and OAuth clients, and to see what you allowed applications to do."
                }
                p {
                    "The REST API: "
                    a href=(paths::API_DOCS) { "its reference" }
                    ", and its OpenAPI document for tools: "
                    a href=(paths::OPENAPI) { code { (paths::OPENAPI) } }
                    "."
                }
            }
            section {
                h2 { "Podcasts on this server" }
                @if podcasts.is_empty() {
                    p.muted { "None yet." }
                } @else {
                    ul {
                        @for p in podcasts {
                            li { a href=(p.url) { (p.title) } }
                        }
                    }
                    @if more { p.muted { "And more." } }
                }
            }
        },
    )
}

/// The sign-in form. `next` is where a successful sign-in goes (a path of this site).
pub(super) fn sign_in(csrf_token: &str, next: &str, name: &str, problem: Option<&str>) -> String {
    page(
        "Sign in · podhost",
        None,
        None,
        html! {
            h1 { "Sign in" }
            section.panel {
                @if let Some(problem) = problem {
                    p.error role="alert" { (problem) }
                }
                form method="post" action=(paths::SIGN_IN) {
                    (csrf(csrf_token))
                    input type="hidden" name="next" value=(next);
                    label { "Account" input type="text" name="name" value=(name) autocomplete="username" required; }
                    label { "Password" input type="password" name="password" autocomplete="current-password" required; }
                    button type="submit" { "Sign in" }
                }
            }
            p.muted { "An administrator sets passwords with " code { "podhost user passwd NAME" } "." }
        },
    )
}

/// A short page that says what happened (an error, a refusal).
pub(super) fn message(title: &str, text: &str, back: Option<(&str, &str)>) -> String {
    page(
        title,
        None,
        None,
        html! {
            h1 { (title) }
            p { (text) }
            @if let Some((href, label)) = back { p { a href=(href) { (label) } } }
        },
    )
}

/// One checkbox per scope, none checked, named `scope` (the form repeats the field).
fn scope_checkboxes() -> Markup {
    html! {
        fieldset {
            legend { "Scopes" }
            @for scope in Scope::ALL {
                label.check {
                    input type="checkbox" name="scope" value=(scope.as_str());
                    (scope.as_str())
                }
            }
        }
    }
}

fn scope_list(scopes: &Scopes) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the account page shows.
pub(super) struct Account<'a> {
    pub(super) name: &'a str,
    pub(super) csrf: &'a str,
    pub(super) tokens: &'a [ListedToken],
    pub(super) clients: &'a [OAuthClient],
    pub(super) grants: &'a [Grant],
    /// Shown above everything (a secret shown once, a problem with a form).
    pub(super) notice: Option<Markup>,
}

/// The key-management page of a signed-in account.
pub(super) fn account(a: &Account<'_>) -> String {
    page(
        "Your account · podhost",
        Some(a.name),
        Some(a.csrf),
        html! {
            h1 { "Account " (a.name) }
            @if let Some(notice) = &a.notice { (notice) }
            section #tokens {
                h2 { "Personal tokens" }
                p.muted { "A personal token is sent as " code { "Authorization: Bearer <token>" } " to the API." }
                @if a.tokens.is_empty() {
                    p.muted { "No tokens yet." }
                } @else {
                    table {
                        thead { tr { th { "Label" } th { "Scopes" } th { "Created" } th { "Last used" } th { "State" } th {} } }
                        tbody {
                            @for t in a.tokens {
                                tr {
                                    td { (t.token.label) }
                                    td { (scope_list(&t.token.scopes)) }
                                    td { (when(t.token.created)) }
                                    td { @match t.last_used { Some(at) => (when(at)), None => span.muted { "never" } } }
                                    td { @match t.token.revoked { Some(at) => { "revoked " (when(at)) }, None => "active" } }
                                    td {
                                        @if t.token.revoked.is_none() {
                                            form method="post" action=(paths::token_revoke(t.token.id.as_str())) {
                                                (csrf(a.csrf))
                                                button.quiet type="submit" aria-label={ "Revoke " (t.token.label) } { "Revoke" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                div.panel {
                    h3 { "New token" }
                    form method="post" action=(paths::TOKENS) {
                        (csrf(a.csrf))
                        label { "Label" input type="text" name="label" maxlength="255" placeholder="e.g. upload script"; }
                        (scope_checkboxes())
                        button type="submit" { "Create token" }
                    }
                }
            }
            section #clients {
                h2 { "OAuth clients" }
                p.muted { "Applications that ask podcasters for access to their accounts (OAuth 2 with PKCE)." }
                @if a.clients.is_empty() {
                    p.muted { "No clients yet." }
                } @else {
                    table {
                        thead { tr { th { "Name" } th { "Client id" } th { "Kind" } th { "Redirect URIs" } th { "Scopes" } th {} } }
                        tbody {
                            @for c in a.clients {
                                tr {
                                    td { (c.name) }
                                    td { code { (c.id.as_str()) } }
                                    td { @if c.confidential { "confidential" } @else { "public" } }
                                    td { @for uri in &c.redirect_uris { code { (uri) } br; } }
                                    td { (scope_list(&c.scopes)) }
                                    td {
                                        form method="post" action=(paths::client_delete(c.id.as_str())) {
                                            (csrf(a.csrf))
                                            button.quiet type="submit" aria-label={ "Delete " (c.name) } { "Delete" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                div.panel {
                    h3 { "New client" }
                    form method="post" action=(paths::CLIENTS) {
                        (csrf(a.csrf))
                        label { "Name (shown to users who are asked to consent)" input type="text" name="name" maxlength="255"; }
                        label { "Redirect URIs, one per line (https, or http on loopback)" textarea name="redirect_uris" rows="3" {} }
                        fieldset {
                            legend { "Kind" }
                            label.check { input type="radio" name="kind" value="public" checked; "public (an app in a browser or on a device)" }
                            label.check { input type="radio" name="kind" value="confidential"; "confidential (a server that keeps a secret)" }
                        }
                        (scope_checkboxes())
                        button type="submit" { "Create client" }
                    }
                }
            }
            section #grants {
                h2 { "Applications you allowed" }
                @if a.grants.is_empty() {
                    p.muted { "None." }
                } @else {
                    table {
                        thead { tr { th { "Application" } th { "Scopes" } th { "Allowed" } th { "State" } th {} } }
                        tbody {
                            @for g in a.grants {
                                tr {
                                    td { (g.client_name) }
                                    td { (scope_list(&g.scopes)) }
                                    td { (when(g.created)) }
                                    td { @match g.revoked { Some(at) => { "revoked " (when(at)) }, None => "active" } }
                                    td {
                                        @if g.revoked.is_none() {
                                            form method="post" action=(paths::grant_revoke(g.id.as_str())) {
                                                (csrf(a.csrf))
                                                button.quiet type="submit" aria-label={ "Revoke " (g.client_name) } { "Revoke" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// The notice of a token just made: its secret, shown once.
pub(super) fn token_created(label: &str, secret: &str) -> Markup {
    html! {
        div.panel role="status" {
            h2 { "Token " (label) " created" }
            p { "Copy it now: it is shown only once." }
            code.secret #new-token { (secret) }
        }
    }
}

/// The notice of a client just registered: its id, and a confidential client's secret, once.
pub(super) fn client_created(client: &OAuthClient, secret: Option<&str>) -> Markup {
    html! {
        div.panel role="status" {
            h2 { "Client " (client.name) " created" }
            p { "Client id: " code #new-client-id { (client.id.as_str()) } }
            @if let Some(secret) = secret {
                p { "Client secret (shown only once; copy it now):" }
                code.secret #new-client-secret { (secret) }
            }
        }
    }
}

/// The notice of a form that was refused: what was wrong, field by field.
pub(super) fn problems(title: &str, problems: &[String]) -> Markup {
    html! {
        div.panel role="alert" {
            p.error { (title) }
            ul { @for p in problems { li { (p) } } }
        }
    }
}

/// What the consent page shows.
pub(super) struct Consent<'a> {
    pub(super) account: &'a str,
    pub(super) csrf: &'a str,
    pub(super) client: &'a OAuthClient,
    pub(super) scopes: &'a Scopes,
    pub(super) redirect_uri: &'a str,
    /// The authorization request's parameters, posted back with the answer.
    pub(super) request: &'a [(String, String)],
}

/// The consent page: which application asks for what, and Allow or Deny.
pub(super) fn consent(c: &Consent<'_>) -> String {
    page(
        "Allow access? · podhost",
        Some(c.account),
        Some(c.csrf),
        html! {
            h1 { "Allow " (c.client.name) " to use your account?" }
            section.panel {
                p { strong { (c.client.name) } " asks for access to the account " strong { (c.account) } " to:" }
                ul #requested-scopes {
                    @for scope in c.scopes.iter() {
                        li { strong { (scope.as_str()) } ": " (scope.description()) }
                    }
                }
                p.muted { "You will be sent back to " code { (c.redirect_uri) } ". You can revoke this at any time on your account page." }
                form method="post" action=(paths::AUTHORIZE) {
                    (csrf(c.csrf))
                    @for (name, value) in c.request {
                        input type="hidden" name=(name) value=(value);
                    }
                    button type="submit" name="decision" value="allow" { "Allow" }
                    " "
                    button.quiet type="submit" name="decision" value="deny" { "Deny" }
                }
            }
        },
    )
}
