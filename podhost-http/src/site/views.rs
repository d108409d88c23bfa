//! The site's pages as HTML (maud: every interpolation escaped), in the public pages' layout
//! and stylesheet ([`podhost_core::publish::page::site_page`]), in the visit's language (every
//! word a message, [`Words`]), with the switch to the others. Forms post to the site's own
//! routes and carry the CSRF token; nothing needs a script.

use jiff::Timestamp;
use maud::{Markup, html};
use podhost_core::{
    Scope, Scopes,
    authorization::Reach,
    model::{Grant, ListedMember, ListedToken, Member, MemberStatus, OAuthClient, Role},
    publish::page::site_page,
};

use super::{paths, words::Words};

/// A podcast the home page links to.
pub(super) struct Listed {
    pub(super) title: String,
    pub(super) url: String,
}

/// The form field of the CSRF token, in every form.
pub(super) const CSRF_FIELD: &str = "csrf";

/// A table's header row: the messages `ids`, and an empty last column (for the rows' buttons)
/// when `actions`.
fn table_head(w: &Words, ids: &[&str], actions: bool) -> Markup {
    html! {
        thead {
            tr {
                @for id in ids { th { (w.text(id)) } }
                @if actions { th {} }
            }
        }
    }
}

fn csrf(token: &str) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(token); }
}

fn when(w: &Words, t: Timestamp) -> String {
    w.locale().date_time(t)
}

/// A page's `<title>`: what it is, then the brand.
pub(super) fn title(what: &str) -> String {
    format!("{what} · podhost")
}

/// A role's name as people read it.
pub(super) fn role_name(w: &Words, role: Role) -> String {
    w.text(&format!("site-role-{}", role.as_str()))
}

/// What a scope allows, as people read it.
fn scope_description(w: &Words, scope: Scope) -> String {
    w.text(&format!("site-scope-{}", scope.as_str()))
}

/// What the signed-in person's role reaches on the site, asked of the core's authorization
/// table (the same answers the API gives them): what is not theirs is not offered.
#[derive(Clone, Copy)]
pub(super) struct Menu {
    /// The statistics pages.
    pub(super) statistics: bool,
    /// Inviting, changing and removing members.
    pub(super) manage_members: bool,
    /// The fediverse page: followers, comments, blocks.
    pub(super) fediverse: bool,
}

impl Menu {
    /// The menu of `who`.
    pub(super) fn of(who: &podhost_core::Principal) -> Menu {
        use podhost_core::Action;
        Menu {
            statistics: who.may(Action::ReadStatistics),
            manage_members: who.may(Action::ManageMembers),
            fediverse: who.may(Action::ReadComments),
        }
    }
}

/// Who is signed in, as the header shows them: the person (their login), the account they act
/// in, and their menu.
#[derive(Clone, Copy)]
pub(super) struct SignedIn<'a> {
    /// The account the session acts in.
    pub(super) account: &'a str,
    /// The person signed in: their login (the account's name for its founder).
    pub(super) person: &'a str,
    /// What their role reaches.
    pub(super) menu: Menu,
}

impl<'a> SignedIn<'a> {
    /// The person of `session` acting as `who`.
    pub(super) fn of(who: &'a podhost_core::Principal, session: &'a podhost_core::Session) -> Self {
        let account = who.account().as_str();
        SignedIn {
            account,
            person: session
                .login
                .as_ref()
                .map_or(account, |login| login.as_str()),
            menu: Menu::of(who),
        }
    }
}

fn header(w: &Words, signed_in: Option<SignedIn<'_>>, csrf_token: Option<&str>) -> Markup {
    let menu = signed_in.map(|s| s.menu);
    html! {
        header.site-header {
            div.wrap.bar {
                a.brand href="/" { "podhost" }
                // Apart in text too (a text browser, a screen reader's reading), not only by
                // the stylesheet's gap.
                " "
                nav aria-label=(w.text("site-nav-label")) {
                    a href=(paths::ACCOUNT) { (w.text("site-nav-account")) }
                    " · "
                    @if menu.is_some_and(|m| m.statistics) {
                        a href=(paths::STATS) { (w.text("site-statistics")) }
                        " · "
                    }
                    @if menu.is_some_and(|m| m.fediverse) {
                        a href=(paths::FEDIVERSE) { (w.text("site-fediverse")) }
                        " · "
                    }
                    a href=(paths::API_DOCS) { "API" }
                }
                @if let (Some(who), Some(token)) = (signed_in, csrf_token) {
                    " "
                    div.who {
                        span.muted {
                            @if who.person == who.account {
                                (w.rich("site-signed-in-as", &[], &[("name", html! { strong { (who.person) } })]))
                            } @else {
                                (w.rich("site-signed-in-as-member", &[], &[
                                    ("name", html! { strong { (who.person) } }),
                                    ("account", html! { strong { (who.account) } }),
                                ]))
                            }
                        }
                        " "
                        form.inline method="post" action=(paths::SIGN_OUT) {
                            (csrf(token))
                            button.quiet type="submit" { (w.text("site-sign-out")) }
                        }
                    }
                }
            }
        }
    }
}

/// A page of the site: the header (signed in as `signed_in`, with the sign-out form), `main`,
/// and the switch to the page in the other languages.
pub(super) fn page(
    w: &Words,
    title: &str,
    signed_in: Option<SignedIn<'_>>,
    csrf_token: Option<&str>,
    main: Markup,
) -> String {
    site_page(
        w.locale(),
        Some(w.here()),
        title,
        html! {
            (header(w, signed_in, csrf_token))
            main #main .wrap { (main) }
        },
    )
}

/// `/`: what this server is, and where to go.
pub(super) fn home(w: &Words, podcasts: &[Listed], more: bool) -> String {
    page(
        w,
        "podhost",
        None,
        None,
        html! {
            h1 { "podhost" }
            p { (w.text("site-home-intro")) }
            section.panel {
                h2 { (w.text("site-home-podcasters")) }
                p {
                    (w.rich("site-home-sign-in", &[], &[(
                        "link",
                        html! { a href=(paths::ACCOUNT) { (w.text("site-home-sign-in-link")) } },
                    )]))
                }
                p {
                    (w.rich("site-home-api", &[], &[
                        ("reference", html! { a href=(paths::API_DOCS) { (w.text("site-home-reference-link")) } }),
                        ("openapi", html! { a href=(paths::OPENAPI) { code { (paths::OPENAPI) } } }),
                    ]))
                }
            }
            section {
                h2 { (w.text("site-home-podcasts")) }
                @if podcasts.is_empty() {
                    p.muted { (w.text("site-home-none")) }
                } @else {
                    ul {
                        @for p in podcasts {
                            li { a href=(p.url) { (p.title) } }
                        }
                    }
                    @if more { p.muted { (w.text("site-home-more")) } }
                }
            }
        },
    )
}

/// The sign-in form. `next` is where a successful sign-in goes (a path of this site).
pub(super) fn sign_in(
    w: &Words,
    csrf_token: &str,
    next: &str,
    name: &str,
    problem: Option<&str>,
) -> String {
    page(
        w,
        &title(&w.text("site-sign-in")),
        None,
        None,
        html! {
            h1 { (w.text("site-sign-in")) }
            section.panel {
                @if let Some(problem) = problem {
                    p.error role="alert" { (problem) }
                }
                form method="post" action=(paths::SIGN_IN) {
                    (csrf(csrf_token))
                    input type="hidden" name="next" value=(next);
                    label { (w.text("site-sign-in-login")) input type="text" name="name" value=(name) autocomplete="username" required; }
                    label { (w.text("site-password")) input type="password" name="password" autocomplete="current-password" required; }
                    button type="submit" { (w.text("site-sign-in")) }
                }
            }
            p.muted { (w.rich("site-sign-in-passwords", &[], &[("command", html! { code { "podhost user passwd NAME" } })])) }
        },
    )
}

/// A short page that says what happened (an error, a refusal).
pub(super) fn message(w: &Words, title: &str, text: &str, back: Option<(&str, &str)>) -> String {
    page(
        w,
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
fn scope_checkboxes(w: &Words) -> Markup {
    html! {
        fieldset {
            legend { (w.text("site-scopes")) }
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
    /// What they hold: the members they may change or remove, the roles they may give.
    pub(super) reach: &'a Reach,
    pub(super) csrf: &'a str,
    pub(super) tokens: &'a [ListedToken],
    pub(super) clients: &'a [OAuthClient],
    pub(super) grants: &'a [Grant],
    /// Shown above everything (a secret shown once, a problem with a form).
    pub(super) notice: Option<Markup>,
}

/// The key-management page of a signed-in account.
pub(super) fn account(w: &Words, a: &Account<'_>) -> String {
    let strong = |text: &str| html! { strong { (text) } };
    page(
        w,
        &title(&w.text("site-account-title")),
        Some(SignedIn {
            account: a.name,
            person: a.login,
            menu: a.menu,
        }),
        Some(a.csrf),
        html! {
            h1 { (w.text_with("site-account-heading", &[("name", a.name.into())])) }
            p.muted {
                (w.rich(
                    "site-account-signed-in",
                    &[("role", role_name(w, a.role).into())],
                    &[("login", strong(a.login))],
                ))
            }
            @if let Some(notice) = &a.notice { (notice) }
            @if a.accounts.len() > 1 {
                section #accounts {
                    h2 { (w.text("site-accounts")) }
                    ul {
                        @for account in a.accounts {
                            li {
                                @if account == a.name {
                                    (w.rich("site-accounts-current", &[], &[("account", strong(account))]))
                                } @else {
                                    form.inline method="post" action=(paths::SWITCH) {
                                        (csrf(a.csrf))
                                        input type="hidden" name="account" value=(account);
                                        button.quiet type="submit" aria-label=(w.text_with("site-switch-to", &[("account", account.into())])) { (account) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if let Some(members) = a.members {
                (members_section(w, members, a.csrf, a.menu.manage_members.then_some(a.reach)))
            }
            section #tokens {
                h2 { (w.text("site-tokens")) }
                p.muted { (w.rich("site-tokens-help", &[], &[("header", html! { code { "Authorization: Bearer <token>" } })])) }
                @if a.tokens.is_empty() {
                    p.muted { (w.text("site-tokens-none")) }
                } @else {
                    table.stack {
                        (table_head(w, &["site-label", "site-scopes", "site-created", "site-last-used", "site-state"], true))
                        tbody {
                            @for t in a.tokens {
                                tr {
                                    td data-label=(w.text("site-label")) { (t.token.label) }
                                    td data-label=(w.text("site-scopes")) { (scope_list(&t.token.scopes)) }
                                    td data-label=(w.text("site-created")) { (when(w, t.token.created)) }
                                    td data-label=(w.text("site-last-used")) { @match t.last_used { Some(at) => (when(w, at)), None => span.muted { (w.text("site-never")) } } }
                                    td data-label=(w.text("site-state")) { (state(w, t.token.revoked)) }
                                    td {
                                        @if t.token.revoked.is_none() {
                                            form method="post" action=(paths::token_revoke(t.token.id.as_str())) {
                                                (csrf(a.csrf))
                                                button.quiet type="submit" aria-label=(w.text_with("site-revoke-named", &[("name", (&t.token.label).into())])) { (w.text("site-revoke")) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                div.panel {
                    h3 { (w.text("site-new-token")) }
                    form method="post" action=(paths::TOKENS) {
                        (csrf(a.csrf))
                        label { (w.text("site-label")) input type="text" name="label" maxlength="255" placeholder=(w.text("site-token-label-example")); }
                        (scope_checkboxes(w))
                        button type="submit" { (w.text("site-create-token")) }
                    }
                }
            }
            section #clients {
                h2 { (w.text("site-clients")) }
                p.muted { (w.text("site-clients-help")) }
                @if a.clients.is_empty() {
                    p.muted { (w.text("site-clients-none")) }
                } @else {
                    table.stack {
                        (table_head(w, &["site-name", "site-client-id", "site-kind", "site-redirect-uris", "site-scopes"], true))
                        tbody {
                            @for c in a.clients {
                                tr {
                                    td data-label=(w.text("site-name")) { (c.name) }
                                    td data-label=(w.text("site-client-id")) { code { (c.id.as_str()) } }
                                    td data-label=(w.text("site-kind")) { @if c.confidential { (w.text("site-kind-confidential")) } @else { (w.text("site-kind-public")) } }
                                    td data-label=(w.text("site-redirect-uris")) { @for uri in &c.redirect_uris { code { (uri) } br; } }
                                    td data-label=(w.text("site-scopes")) { (scope_list(&c.scopes)) }
                                    td {
                                        form method="post" action=(paths::client_delete(c.id.as_str())) {
                                            (csrf(a.csrf))
                                            button.quiet type="submit" aria-label=(w.text_with("site-delete-named", &[("name", (&c.name).into())])) { (w.text("site-delete")) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                div.panel {
                    h3 { (w.text("site-new-client")) }
                    form method="post" action=(paths::CLIENTS) {
                        (csrf(a.csrf))
                        label { (w.text("site-client-name-field")) input type="text" name="name" maxlength="255"; }
                        label { (w.text("site-client-uris-field")) textarea name="redirect_uris" rows="3" {} }
                        fieldset {
                            legend { (w.text("site-kind")) }
                            label.check { input type="radio" name="kind" value="public" checked; (w.text("site-kind-public-choice")) }
                            label.check { input type="radio" name="kind" value="confidential"; (w.text("site-kind-confidential-choice")) }
                        }
                        (scope_checkboxes(w))
                        button type="submit" { (w.text("site-create-client")) }
                    }
                }
            }
            section #grants {
                h2 { (w.text("site-grants")) }
                @if a.grants.is_empty() {
                    p.muted { (w.text("site-grants-none")) }
                } @else {
                    table.stack {
                        (table_head(w, &["site-application", "site-scopes", "site-allowed", "site-state"], true))
                        tbody {
                            @for g in a.grants {
                                tr {
                                    td data-label=(w.text("site-application")) { (g.client_name) }
                                    td data-label=(w.text("site-scopes")) { (scope_list(&g.scopes)) }
                                    td data-label=(w.text("site-allowed")) { (when(w, g.created)) }
                                    td data-label=(w.text("site-state")) { (state(w, g.revoked)) }
                                    td {
                                        @if g.revoked.is_none() {
                                            form method="post" action=(paths::grant_revoke(g.id.as_str())) {
                                                (csrf(a.csrf))
                                                button.quiet type="submit" aria-label=(w.text_with("site-revoke-named", &[("name", (&g.client_name).into())])) { (w.text("site-revoke")) }
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

/// The state of a token or a grant: active, or revoked when.
fn state(w: &Words, revoked: Option<Timestamp>) -> String {
    match revoked {
        Some(at) => w.text_with("site-revoked-at", &[("at", when(w, at).into())]),
        None => w.text("site-active"),
    }
}

/// The notice of a token just made: its secret, shown once.
pub(super) fn token_created(w: &Words, label: &str, secret: &str) -> Markup {
    html! {
        div.panel role="status" {
            h2 { (w.text_with("site-token-created", &[("label", label.into())])) }
            p { (w.text("site-token-shown-once")) }
            code.secret #new-token { (secret) }
        }
    }
}

/// The notice of a client just registered: its id, and a confidential client's secret, once.
pub(super) fn client_created(w: &Words, client: &OAuthClient, secret: Option<&str>) -> Markup {
    html! {
        div.panel role="status" {
            h2 { (w.text_with("site-client-created", &[("name", (&client.name).into())])) }
            p { (w.rich("site-client-id-shown", &[], &[("id", html! { code #new-client-id { (client.id.as_str()) } })])) }
            @if let Some(secret) = secret {
                p { (w.text("site-client-secret-shown")) }
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
    /// Who is signed in (the account is the one the application asks for).
    pub(super) signed_in: SignedIn<'a>,
    pub(super) csrf: &'a str,
    pub(super) client: &'a OAuthClient,
    pub(super) scopes: &'a Scopes,
    pub(super) redirect_uri: &'a str,
    /// The authorization request's parameters, posted back with the answer.
    pub(super) request: &'a [(String, String)],
}

/// The consent page: which application asks for what, and Allow or Deny.
pub(super) fn consent(w: &Words, c: &Consent<'_>) -> String {
    page(
        w,
        &title(&w.text("site-consent-title")),
        Some(c.signed_in),
        Some(c.csrf),
        html! {
            h1 { (w.text_with("site-consent-heading", &[("client", (&c.client.name).into())])) }
            section.panel {
                p {
                    (w.rich("site-consent-asks", &[], &[
                        ("client", html! { strong { (c.client.name) } }),
                        ("account", html! { strong { (c.signed_in.account) } }),
                    ]))
                }
                ul #requested-scopes {
                    @for scope in c.scopes.iter() {
                        li { strong { (scope.as_str()) } ": " (scope_description(w, scope)) }
                    }
                }
                p.muted { (w.rich("site-consent-back", &[], &[("uri", html! { code { (c.redirect_uri) } })])) }
                form method="post" action=(paths::AUTHORIZE) {
                    (csrf(c.csrf))
                    @for (name, value) in c.request {
                        input type="hidden" name=(name) value=(value);
                    }
                    button type="submit" name="decision" value="allow" { (w.text("site-allow")) }
                    " "
                    button.quiet type="submit" name="decision" value="deny" { (w.text("site-deny")) }
                }
            }
        },
    )
}

fn status_word(w: &Words, status: MemberStatus) -> String {
    match status {
        MemberStatus::Invited => w.text("site-status-invited"),
        MemberStatus::Active => w.text("site-active"),
    }
}

/// What may be done to one member, as the core would allow it (its [`Reach`] rules): the
/// roles they may be given (theirs among them), and whether they may be removed. An account
/// keeps an active owner: its only one is neither demoted nor removed.
struct Actions {
    roles: Vec<Role>,
    removable: bool,
}

impl Actions {
    fn of(reach: &Reach, member: &Member, active_owners: usize) -> Actions {
        let theirs = Reach::of_role(member.role, member.feeds.clone());
        if reach.may_manage(&theirs, "").is_err() {
            return Actions {
                roles: vec![member.role],
                removable: false,
            };
        }
        let sole_owner = member.is_active_owner() && active_owners <= 1;
        let roles = Role::ALL
            .into_iter()
            .filter(|&role| {
                let after = Reach::of_role(role, member.feeds.clone());
                role == member.role
                    || (!sole_owner
                        && (theirs.covers(&after) || reach.may_grant(&after, "").is_ok()))
            })
            .collect();
        Actions {
            roles,
            removable: !sole_owner,
        }
    }
}

/// The account's members: a table, and for those who may (`manage`: the caller's reach), the
/// role changes and removals the core would accept, and the invitation form.
fn members_section(
    w: &Words,
    members: &[ListedMember],
    csrf_token: &str,
    manage: Option<&Reach>,
) -> Markup {
    let active_owners = members
        .iter()
        .filter(|m| m.member.is_active_owner())
        .count();
    let invitable: Vec<Role> = manage.map_or_else(Vec::new, |reach| {
        Role::ALL
            .into_iter()
            .filter(|&role| reach.may_grant(&Reach::of_role(role, None), "").is_ok())
            .collect()
    });
    html! {
        section #members {
            h2 { (w.text("site-members")) }
            p.muted { (w.text("site-members-help")) }
            table.stack {
                (table_head(w, &["site-login", "site-name", "site-role", "site-podcasts", "site-status"], manage.is_some()))
                tbody {
                    @for m in members.iter().map(|m| &m.member) {
                        @let actions = manage.map(|reach| Actions::of(reach, m, active_owners));
                        tr {
                            td data-label=(w.text("site-login")) { (m.login.as_str()) }
                            td data-label=(w.text("site-name")) { (m.name) }
                            td data-label=(w.text("site-role")) {
                                @match actions.as_ref().filter(|a| a.roles.len() > 1) {
                                    Some(actions) => {
                                        form.inline.role-change method="post" action=(paths::member_update(m.id.as_str())) {
                                            (csrf(csrf_token))
                                            select name="role" aria-label=(w.text_with("site-role-of", &[("login", m.login.as_str().into())])) {
                                                @for &role in &actions.roles {
                                                    option value=(role.as_str()) selected[role == m.role] { (role_name(w, role)) }
                                                }
                                            }
                                            " "
                                            button.quiet type="submit" aria-label=(w.text_with("site-change-role-of", &[("login", m.login.as_str().into())])) { (w.text("site-change")) }
                                        }
                                    }
                                    None => { (role_name(w, m.role)) }
                                }
                            }
                            td data-label=(w.text("site-podcasts")) { @match &m.feeds { Some(feeds) => { (feeds.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")) }, None => span.muted { (w.text("site-all-podcasts")) } } }
                            td data-label=(w.text("site-status")) { (status_word(w, m.status)) }
                            @if let Some(actions) = &actions {
                                td {
                                    @if actions.removable {
                                        form method="post" action=(paths::member_remove(m.id.as_str())) {
                                            (csrf(csrf_token))
                                            button.quiet type="submit" aria-label=(w.text_with("site-remove-named", &[("login", m.login.as_str().into())])) { (w.text("site-remove")) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if !invitable.is_empty() {
                div.panel {
                    h3 { (w.text("site-invite-heading")) }
                    form method="post" action=(paths::MEMBERS) {
                        (csrf(csrf_token))
                        label { (w.text("site-invite-login")) input type="text" name="login" required maxlength="254"; }
                        label { (w.text("site-name")) input type="text" name="name" maxlength="255"; }
                        label { (w.text("site-role"))
                            select name="role" {
                                @for &role in &invitable {
                                    option value=(role.as_str()) selected[role == Role::Editor] { (role_name(w, role)) }
                                }
                            }
                        }
                        button type="submit" { (w.text("site-invite")) }
                    }
                }
            }
        }
    }
}

/// How many days an invitation holds (the core's lifetime of one).
pub(super) const INVITATION_DAYS: u64 =
    podhost_core::INVITATION_LIFETIME.as_hours().unsigned_abs() / 24;

/// A member just invited: the invitation's link, shown this once.
pub(super) fn member_invited(w: &Words, login: &str, url: &str) -> Markup {
    html! {
        div.panel.notice role="status" {
            h2 { (w.text_with("site-invited", &[("login", login.into())])) }
            p { (w.text_with("site-invited-link", &[("days", INVITATION_DAYS.into())])) }
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

/// The shortest password the invitation's form asks for (the core checks it).
const MIN_PASSWORD: u64 = 8;

/// The page of an invitation: set a password (or sign in) and join.
pub(super) fn invitation(w: &Words, i: &Invitation<'_>) -> String {
    let strong = |text: &str| html! { strong { (text) } };
    page(
        w,
        &title(&w.text("site-join-title")),
        None,
        None,
        html! {
            h1 { (w.text_with("site-join-heading", &[("account", i.account.into())])) }
            p {
                (w.rich("site-join-text", &[], &[
                    ("account", strong(i.account)),
                    ("role", strong(&role_name(w, i.role))),
                    ("login", strong(i.login)),
                ]))
            }
            section.panel {
                @if let Some(problem) = i.problem {
                    p.error role="alert" { (problem) }
                }
                form method="post" action=(i.action) {
                    (csrf(i.csrf))
                    @if i.known_login {
                        p { (w.text("site-join-known-login")) }
                        label { (w.text("site-password")) input type="password" name="password" autocomplete="current-password" required; }
                        button type="submit" { (w.text("site-sign-in-and-join")) }
                    } @else {
                        label { (w.text("site-your-name")) input type="text" name="name" maxlength="255" autocomplete="name"; }
                        label { (w.text_with("site-choose-password", &[("min", MIN_PASSWORD.into())])) input type="password" name="password" autocomplete="new-password" minlength=(MIN_PASSWORD) required; }
                        label { (w.text("site-password-again")) input type="password" name="password_again" autocomplete="new-password" minlength=(MIN_PASSWORD) required; }
                        button type="submit" { (w.text("site-join")) }
                    }
                }
            }
        },
    )
}
