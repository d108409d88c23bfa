//! The site's pages as HTML (maud: every interpolation escaped), in the public pages' layout
//! and stylesheet ([`podhost_core::publish::page::site_page`]). Forms post to the site's own
//! routes and carry the CSRF token; nothing needs a script.

use jiff::Timestamp;
use maud::{Markup, html};
use podhost_core::{
    Scope, Scopes,
    model::{Grant, ListedMember, ListedToken, MemberStatus, OAuthClient, Role},
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

/// What the signed-in person's role reaches on the site, asked of the core's authorization
/// table (the same answers the API gives them): what is not theirs is not offered.
#[derive(Clone, Copy)]
pub(super) struct Menu {
    /// The statistics pages.
    pub(super) statistics: bool,
    /// Inviting, changing and removing members.
    pub(super) manage_members: bool,
}

impl Menu {
    /// The menu of `who`.
    pub(super) fn of(who: &podhost_core::Principal) -> Menu {
        use podhost_core::Action;
        Menu {
            statistics: who.may(Action::ReadStatistics),
            manage_members: who.may(Action::ManageMembers),
        }
    }
}

/// Who is signed in, as the header shows them: the account's name and their menu.
pub(super) type SignedIn<'a> = (&'a str, Menu);

fn header(signed_in: Option<SignedIn<'_>>, csrf_token: Option<&str>) -> Markup {
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
                    @if signed_in.is_some_and(|(_, menu)| menu.statistics) {
                        a href=(paths::STATS) { "Statistics" }
                        " · "
                    }
                    a href=(paths::API_DOCS) { "API" }
                    @if let (Some((name, _)), Some(token)) = (signed_in, csrf_token) {
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

/// A page of the site: the header (signed in as `signed_in`, with the sign-out form), `main`.
pub(super) fn page(
    title: &str,
    signed_in: Option<SignedIn<'_>>,
    csrf_token: Option<&str>,
    main: Markup,
) -> String {
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
                    label { "Login (your name or e-mail address)" input type="text" name="name" value=(name) autocomplete="username" required; }
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
    /// The person signed in.
    pub(super) login: &'a str,
    /// Their role in this account.
    pub(super) role: Role,
    /// The accounts they may switch to (this one among them).
    pub(super) accounts: &'a [String],
    /// The account's members, when the role may see them.
    pub(super) members: Option<&'a [ListedMember]>,
    /// What their role reaches.
    pub(super) menu: Menu,
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
        Some((a.name, a.menu)),
        Some(a.csrf),
        html! {
            h1 { "Account " (a.name) }
            p.muted { "Signed in as " strong { (a.login) } ", " (a.role.as_str()) " of this account." }
            @if let Some(notice) = &a.notice { (notice) }
            @if a.accounts.len() > 1 {
                section #accounts {
                    h2 { "Your accounts" }
                    ul {
                        @for account in a.accounts {
                            li {
                                @if account == a.name {
                                    strong { (account) } " (this one)"
                                } @else {
                                    form.inline method="post" action=(paths::SWITCH) {
                                        (csrf(a.csrf))
                                        input type="hidden" name="account" value=(account);
                                        button.quiet type="submit" aria-label={ "Switch to " (account) } { (account) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if let Some(members) = a.members {
                (members_section(members, a.csrf, a.menu.manage_members))
            }
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
    /// What the person's role reaches.
    pub(super) menu: Menu,
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
        Some((c.account, c.menu)),
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

fn status_word(status: MemberStatus) -> &'static str {
    match status {
        MemberStatus::Invited => "invited",
        MemberStatus::Active => "active",
    }
}

/// The account's members: a table, and for those who may, role changes, removals and the
/// invitation form.
fn members_section(members: &[ListedMember], csrf_token: &str, manage: bool) -> Markup {
    html! {
        section #members {
            h2 { "Members" }
            p.muted { "People with a role in this account. Owners and admins manage them." }
            table {
                thead { tr { th { "Login" } th { "Name" } th { "Role" } th { "Podcasts" } th { "Status" } @if manage { th {} } } }
                tbody {
                    @for m in members.iter().map(|m| &m.member) {
                        tr {
                            td { (m.login.as_str()) }
                            td { (m.name) }
                            td {
                                @if manage {
                                    form.inline method="post" action=(paths::member_update(m.id.as_str())) {
                                        (csrf(csrf_token))
                                        select name="role" aria-label={ "Role of " (m.login.as_str()) } {
                                            @for role in Role::ALL {
                                                option value=(role.as_str()) selected[role == m.role] { (role.as_str()) }
                                            }
                                        }
                                        " "
                                        button.quiet type="submit" { "Change" }
                                    }
                                } @else {
                                    (m.role.as_str())
                                }
                            }
                            td { @match &m.feeds { Some(feeds) => { (feeds.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")) }, None => span.muted { "all" } } }
                            td { (status_word(m.status)) }
                            @if manage {
                                td {
                                    form method="post" action=(paths::member_remove(m.id.as_str())) {
                                        (csrf(csrf_token))
                                        button.quiet type="submit" aria-label={ "Remove " (m.login.as_str()) } { "Remove" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if manage {
                div.panel {
                    h3 { "Invite someone" }
                    form method="post" action=(paths::MEMBERS) {
                        (csrf(csrf_token))
                        label { "Login (a name or an e-mail address)" input type="text" name="login" required maxlength="254"; }
                        label { "Name" input type="text" name="name" maxlength="255"; }
                        label { "Role"
                            select name="role" {
                                @for role in Role::ALL {
                                    option value=(role.as_str()) selected[role == Role::Editor] { (role.as_str()) }
                                }
                            }
                        }
                        button type="submit" { "Invite" }
                    }
                }
            }
        }
    }
}

/// A member just invited: the invitation's link, shown this once.
pub(super) fn member_invited(login: &str, url: &str) -> Markup {
    html! {
        div.panel.notice role="status" {
            h2 { "Invited " (login) }
            p { "Send them this link. It works once, for 7 days, and is not shown again:" }
            p { code #invitation-url { (url) } }
        }
    }
}

/// What an invitation's page shows.
pub(super) struct Invitation<'a> {
    pub(super) action: &'a str,
    pub(super) csrf: &'a str,
    pub(super) account: &'a str,
    pub(super) login: &'a str,
    pub(super) role: Role,
    /// The login is a person's already: they sign in with their password.
    pub(super) known_login: bool,
    pub(super) problem: Option<&'a str>,
}

/// The page of an invitation: set a password (or sign in) and join.
pub(super) fn invitation(i: &Invitation<'_>) -> String {
    page(
        "Join an account · podhost",
        None,
        None,
        html! {
            h1 { "Join " (i.account) }
            p { "You are invited to the account " strong { (i.account) } " as " strong { (i.role.as_str()) } ", with the login " strong { (i.login) } "." }
            section.panel {
                @if let Some(problem) = i.problem {
                    p.error role="alert" { (problem) }
                }
                form method="post" action=(i.action) {
                    (csrf(i.csrf))
                    @if i.known_login {
                        p { "You have a podhost login already: sign in with its password to join." }
                        label { "Password" input type="password" name="password" autocomplete="current-password" required; }
                        button type="submit" { "Sign in and join" }
                    } @else {
                        label { "Your name" input type="text" name="name" maxlength="255" autocomplete="name"; }
                        label { "Choose a password (at least 8 characters)" input type="password" name="password" autocomplete="new-password" minlength="8" required; }
                        label { "The password again" input type="password" name="password_again" autocomplete="new-password" minlength="8" required; }
                        button type="submit" { "Join" }
                    }
                }
            }
        },
    )
}
