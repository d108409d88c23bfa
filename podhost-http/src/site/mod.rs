//! The site around the podcasts, for browsers: the home page (`/`), the key-management site
//! (`/account`: sign in and out, personal tokens, OAuth clients, the grants given to clients),
//! the statistics pages ([`stats`]: `/account/stats...`) and the OAuth consent page
//! (`/oauth/authorize`). Server-rendered HTML ([`views`]) that needs
//! no script, sent with a strict Content-Security-Policy.
//!
//! Every rule is the core's (passwords, sessions, throttling, tokens, clients, grants, the
//! authorization request); this module carries them over HTTP: the session cookie, the CSRF
//! token every form carries (the session's own once signed in; before that, a random value in
//! a cookie of its own that the sign-in form repeats), and redirects.

// The `Err` of the handlers here is the page to answer instead (a refusal, the sign-in form):
// one per request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod answers;
mod stats;
mod views;

use answers::{
    Form, cookie, csrf_refused, expired, failure, html, local_path, read_form, redirect_to, same,
    see_other, set_cookie,
};

use cookie::{Cookie, SameSite};
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use podhost_core::{
    AuthorizeError, AuthorizeRequest, ClientId, Error, GrantId, Principal, Scopes, Session,
};

use crate::{
    context::{Api, RequestBody},
    response::Body,
    routes::site::SiteEndpoint,
};

/// The site's paths (its table's rows), and the few of other tables its pages link to.
pub(crate) mod paths {
    pub(crate) use crate::routes::{
        docs::paths::{ApiDocs as API_DOCS, Openapi as OPENAPI},
        oauth::paths::Authorize as AUTHORIZE,
        site::paths::{
            AcceptInvitation as INVITATION, Account as ACCOUNT,
            CampaignStatsPage as CAMPAIGN_STATS, CreateClient as CLIENTS, CreateToken as TOKENS,
            DeleteClient as CLIENT_DELETE, InviteMember as MEMBERS,
            PodcastStatsPage as PODCAST_STATS, RemoveMember as MEMBER_REMOVE,
            RevokeGrant as GRANT_REVOKE, RevokeToken as TOKEN_REVOKE, SignIn as SIGN_IN,
            SignOut as SIGN_OUT, StatsPage as STATS, SwitchAccount as SWITCH,
            UpdateMember as MEMBER_UPDATE,
        },
    };

    pub(crate) fn invitation(secret: &str) -> String {
        fill(INVITATION, secret)
    }

    pub(crate) fn member_update(id: &str) -> String {
        fill(MEMBER_UPDATE, id)
    }

    pub(crate) fn member_remove(id: &str) -> String {
        fill(MEMBER_REMOVE, id)
    }

    fn fill(template: &str, value: &str) -> String {
        let start = template.find('{').unwrap_or(template.len());
        let end = template.find('}').map_or(template.len(), |e| e + 1);
        format!("{}{}{}", &template[..start], value, &template[end..])
    }

    pub(crate) fn podcast_stats(id: &str) -> String {
        fill(PODCAST_STATS, id)
    }

    pub(crate) fn campaign_stats(id: &str) -> String {
        fill(CAMPAIGN_STATS, id)
    }

    pub(crate) fn token_revoke(id: &str) -> String {
        fill(TOKEN_REVOKE, id)
    }

    pub(crate) fn client_delete(id: &str) -> String {
        fill(CLIENT_DELETE, id)
    }

    pub(crate) fn grant_revoke(id: &str) -> String {
        fill(GRANT_REVOKE, id)
    }
}

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "podhost_session";
/// The cookie of the sign-in form's CSRF token (before there is a session).
pub const CSRF_COOKIE: &str = "podhost_csrf";
/// How many podcasts the home page lists.
const HOME_PODCASTS: usize = 100;

fn field<'f>(form: &'f Form, name: &str) -> Option<&'f str> {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn fields<'f>(form: &'f Form, name: &'f str) -> impl Iterator<Item = &'f str> + 'f {
    form.iter()
        .filter(move |(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A request to the site, as its handlers see it.
struct Visit<'a> {
    api: &'a Api,
    parts: &'a Parts,
    /// The signed-in owner and the session, when the session cookie names a live session.
    session: Option<(Principal, Session)>,
    /// The submitted form (POST).
    form: Form,
}

/// Answers a request to a site route (`Surface::Site`).
pub(crate) async fn answer<B: RequestBody>(
    api: &Api,
    endpoint: SiteEndpoint,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    let answered = match Visit::new(api, parts, body).await {
        Ok(visit) => visit.page(endpoint).await,
        Err(refused) => Err(refused),
    };
    match answered {
        Ok(answer) | Err(answer) => answer,
    }
}

/// Answers the OAuth authorization endpoint (`GET /oauth/authorize`): the consent page, or
/// the sign-in form first.
pub(crate) async fn authorization<B: RequestBody>(
    api: &Api,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    let answered = match Visit::new(api, parts, body).await {
        Ok(visit) => authorize(&visit).await,
        Err(refused) => Err(refused),
    };
    match answered {
        Ok(answer) | Err(answer) => answer,
    }
}

type Page = Result<Response<Body>, Response<Body>>;

impl<'a> Visit<'a> {
    /// The visit of a request: its live session (by the cookie), its form (POST), and for a
    /// form the `Origin` checked.
    async fn new<B: RequestBody>(
        api: &'a Api,
        parts: &'a Parts,
        body: B,
    ) -> Result<Self, Response<Body>> {
        let session = match cookie(parts, SESSION_COOKIE) {
            Some(value) => match api.host.access().session(&value).await {
                Ok(found) => Some(found),
                Err(Error::Unauthenticated) => None,
                Err(e) => return Err(failure(&e)),
            },
            None => None,
        };
        let form = if parts.method == Method::POST {
            read_form(parts, body).await?
        } else {
            Form::new()
        };
        let visit = Visit {
            api,
            parts,
            session,
            form,
        };
        if parts.method == Method::POST {
            visit.check_origin()?;
        }
        Ok(visit)
    }

    /// The page of a site route.
    async fn page(&self, endpoint: SiteEndpoint) -> Page {
        let (api, parts) = (self.api, self.parts);
        use SiteEndpoint as E;
        match endpoint {
            E::Home {} => home(self).await,
            E::Account {} => match &self.session {
                Some(_) => self.account_page(StatusCode::OK, None).await,
                None => Ok(self.sign_in_page(StatusCode::OK, paths::ACCOUNT, "", None)),
            },
            E::SignIn {} => sign_in(self).await,
            E::StatsPage {} => {
                let viewer = self.stats_viewer()?;
                self.stats_page(&viewer, stats::account(api, &viewer).await)
            }
            E::PodcastStatsPage { feed_id } => {
                let viewer = self.stats_viewer()?;
                self.stats_page(&viewer, stats::podcast(api, &viewer, &feed_id).await)
            }
            E::CampaignStatsPage { campaign_id } => {
                let viewer = self.stats_viewer()?;
                self.stats_page(&viewer, stats::campaign(api, &viewer, &campaign_id).await)
            }
            E::SignOut {} => {
                self.signed_in()?;
                if let Some(value) = cookie(parts, SESSION_COOKIE) {
                    api.host
                        .access()
                        .sign_out(&value)
                        .await
                        .map_err(|e| failure(&e))?;
                }
                let mut answer = see_other(api, paths::ACCOUNT);
                set_cookie(&mut answer, expired(SESSION_COOKIE));
                Ok(answer)
            }
            E::CreateToken {} => create_token(self).await,
            E::RevokeToken { token_id } => {
                let who = self.signed_in()?;
                match api.host.access().revoke_token(&who, &token_id).await {
                    Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => Err(failure(&e)),
                }
            }
            E::CreateClient {} => create_client(self).await,
            E::DeleteClient { client_id } => {
                let who = self.signed_in()?;
                let id: ClientId = client_id.parse().map_err(|_| self.not_found())?;
                match api.host.access().delete_client(&who, &id).await {
                    Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => Err(failure(&e)),
                }
            }
            E::RevokeGrant { grant_id } => {
                let who = self.signed_in()?;
                let id: GrantId = grant_id.parse().map_err(|_| self.not_found())?;
                match api.host.access().revoke_grant(&who, &id).await {
                    Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => Err(failure(&e)),
                }
            }
            E::Consent {} => consent(self).await,
            E::Invitation { secret } => invitation(self, &secret, StatusCode::OK, None).await,
            E::AcceptInvitation { secret } => accept_invitation(self, &secret).await,
            E::InviteMember {} => invite_member(self).await,
            E::UpdateMember { member_id } => {
                let who = self.signed_in()?;
                let role = field(&self.form, "role").unwrap_or("");
                let patch = match role.parse() {
                    Ok(role) => podhost_core::model::MemberPatch {
                        role: Some(role),
                        ..Default::default()
                    },
                    Err(e) => return refused(self, "The member was not changed.", e).await,
                };
                match api
                    .host
                    .access()
                    .update_member(&who, &member_id, &patch)
                    .await
                {
                    Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => refused(self, "The member was not changed.", e).await,
                }
            }
            E::RemoveMember { member_id } => {
                let who = self.signed_in()?;
                match api.host.access().remove_member(&who, &member_id).await {
                    Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => refused(self, "The member was not removed.", e).await,
                }
            }
            E::SwitchAccount {} => {
                self.signed_in()?;
                let target = field(&self.form, "account")
                    .and_then(|a| podhost_core::AccountId::new(a).ok())
                    .ok_or_else(|| self.not_found())?;
                let value = cookie(parts, SESSION_COOKIE).unwrap_or_default();
                match api.host.access().switch_account(&value, &target).await {
                    Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
                    Err(Error::NotFound { .. }) => Err(self.not_found()),
                    Err(e) => Err(failure(&e)),
                }
            }
        }
    }
}

impl Visit<'_> {
    /// The signed-in owner, after checking the form's CSRF token against the session's; the
    /// sign-in page (401) when there is no live session.
    fn signed_in(&self) -> Result<Principal, Response<Body>> {
        let Some((who, session)) = &self.session else {
            return Err(self.sign_in_page(
                StatusCode::UNAUTHORIZED,
                paths::ACCOUNT,
                "",
                Some("You are not signed in (or your session has ended). Sign in, then try again."),
            ));
        };
        if self.parts.method == Method::POST
            && !same(field(&self.form, views::CSRF_FIELD), &session.csrf)
        {
            return Err(csrf_refused());
        }
        Ok(who.clone())
    }

    /// Refuses a form posted from another site: its `Origin`, when the browser sent one, must
    /// be this deployment's (`null`, which privacy settings send, leaves it to the CSRF token).
    fn check_origin(&self) -> Result<(), Response<Body>> {
        let Some(origin) = self.parts.headers.get(header::ORIGIN) else {
            return Ok(());
        };
        if origin == "null" {
            return Ok(());
        }
        let base = self.api.host.urls().base();
        let ours = url::Url::parse(base)
            .ok()
            .map(|u| u.origin().ascii_serialization());
        match (origin.to_str().ok(), ours) {
            (Some(origin), Some(ours)) if origin == ours => Ok(()),
            _ => Err(csrf_refused()),
        }
    }

    /// The viewer of a statistics page, or (signed out) the sign-in form that comes back to it,
    /// answered 200 as `/account` answers it.
    fn stats_viewer(&self) -> Result<stats::Viewer<'_>, Response<Body>> {
        let Some((who, _)) = &self.session else {
            let here = self
                .parts
                .uri
                .path_and_query()
                .map_or(paths::STATS, |p| p.as_str());
            return Err(self.sign_in_page(
                StatusCode::OK,
                here,
                "",
                Some("Sign in to see the statistics."),
            ));
        };
        Ok(stats::Viewer {
            who,
            query: self.parts.uri.query().unwrap_or(""),
            today: self.api.host.now().to_zoned(jiff::tz::TimeZone::UTC).date(),
        })
    }

    /// A statistics page in the site's layout, or why there is none.
    fn stats_page(
        &self,
        viewer: &stats::Viewer<'_>,
        shown: Result<stats::Shown, stats::Refusal>,
    ) -> Page {
        let csrf = self.session.as_ref().map(|(_, s)| s.csrf.as_str());
        match shown {
            Ok(shown) => Ok(html(
                shown.status,
                views::page(
                    &format!("{} · podhost", shown.title),
                    Some(viewer.who.account().as_str()),
                    csrf,
                    shown.main,
                ),
                &[],
            )),
            Err(stats::Refusal::NotFound) => Err(self.not_found()),
            Err(stats::Refusal::Failed(e)) => Err(failure(&e)),
        }
    }

    fn not_found(&self) -> Response<Body> {
        html(
            StatusCode::NOT_FOUND,
            views::message(
                "Not found",
                "There is nothing here (or it is not yours).",
                Some((paths::ACCOUNT, "Back to your account")),
            ),
            &[],
        )
    }

    /// The sign-in form, with a new CSRF cookie when the browser has none.
    fn sign_in_page(
        &self,
        status: StatusCode,
        next: &str,
        name: &str,
        problem: Option<&str>,
    ) -> Response<Body> {
        let (token, fresh) = match cookie(self.parts, CSRF_COOKIE).filter(|t| t.len() >= 32) {
            Some(token) => (token, false),
            None => (podhost_core::random_secret(), true),
        };
        let mut answer = html(status, views::sign_in(&token, next, name, problem), &[]);
        if fresh {
            set_cookie(&mut answer, self.cookie(CSRF_COOKIE, token, None));
        }
        answer
    }

    /// A cookie of this site: `HttpOnly`, `SameSite=Lax`, on every path, `Secure` when the
    /// public URL is https.
    fn cookie(&self, name: &'static str, value: String, max_age: Option<u64>) -> Cookie<'static> {
        let mut cookie = Cookie::build((name, value))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.api.host.urls().base().starts_with("https://"))
            .build();
        if let Some(seconds) = max_age {
            cookie.set_max_age(cookie::time::Duration::seconds(
                i64::try_from(seconds).unwrap_or(i64::MAX),
            ));
        }
        cookie
    }

    /// The account page, with a notice on top.
    async fn account_page(&self, status: StatusCode, notice: Option<maud::Markup>) -> Page {
        let api = self.api;
        let Some((who, session)) = &self.session else {
            return Err(self.sign_in_page(StatusCode::UNAUTHORIZED, paths::ACCOUNT, "", None));
        };
        let tokens = api
            .host
            .access()
            .list_tokens(who)
            .await
            .map_err(|e| failure(&e))?;
        let clients = api
            .host
            .access()
            .list_clients(who)
            .await
            .map_err(|e| failure(&e))?;
        let grants = api
            .host
            .access()
            .list_grants(who)
            .await
            .map_err(|e| failure(&e))?;
        // The members, for those who may see them.
        let members = match api.host.access().list_members(who).await {
            Ok(members) => Some(members),
            Err(Error::Forbidden { .. }) => None,
            Err(e) => return Err(failure(&e)),
        };
        let login = match &session.login {
            Some(login) => login.clone(),
            None => podhost_core::Login::new(who.account().as_str()).map_err(|e| failure(&e))?,
        };
        let accounts: Vec<String> = api
            .host
            .access()
            .person_accounts(&login)
            .await
            .map_err(|e| failure(&e))?
            .into_iter()
            .map(|(account, _)| account.to_string())
            .collect();
        let page = views::account(&views::Account {
            name: who.account().as_str(),
            login: login.as_str(),
            role: who.role(),
            accounts: &accounts,
            members: members.as_deref(),
            may_manage_members: who.may(podhost_core::Action::ManageMembers),
            csrf: &session.csrf,
            tokens: &tokens,
            clients: &clients,
            grants: &grants,
            notice,
        });
        Ok(html(status, page, &[]))
    }
}

async fn home(visit: &Visit<'_>) -> Page {
    let api = visit.api;
    let podcasts = api
        .host
        .delivery()
        .public_podcasts(HOME_PODCASTS + 1)
        .await
        .map_err(|e| failure(&e))?;
    let more = podcasts.len() > HOME_PODCASTS;
    let listed: Vec<views::Listed> = podcasts
        .into_iter()
        .take(HOME_PODCASTS)
        .map(|(id, title)| views::Listed {
            url: api.host.urls().feed_page(&id),
            title,
        })
        .collect();
    Ok(html(StatusCode::OK, views::home(&listed, more), &[]))
}

/// `POST /account/sign-in`: `name`, `password`, `next`, and the CSRF token of the form.
async fn sign_in(visit: &Visit<'_>) -> Page {
    let api = visit.api;
    let name = field(&visit.form, "name").unwrap_or("");
    let next = field(&visit.form, "next")
        .filter(|n| local_path(n))
        .unwrap_or(paths::ACCOUNT);
    let expected = cookie(visit.parts, CSRF_COOKIE);
    if expected.is_none_or(|expected| !same(field(&visit.form, views::CSRF_FIELD), &expected)) {
        return Err(csrf_refused());
    }
    let password = field(&visit.form, "password").unwrap_or("");
    let address = crate::downloads::client_ip(visit.parts, api.config.trust_forwarded_for);
    match api
        .host
        .access()
        .sign_in(name, password, &address.to_string())
        .await
    {
        Ok(signed_in) => {
            let lifetime = api.host.config().sessions.absolute.as_secs();
            let mut answer = see_other(api, next);
            set_cookie(
                &mut answer,
                visit.cookie(SESSION_COOKIE, signed_in.cookie, Some(lifetime)),
            );
            Ok(answer)
        }
        Err(Error::Unauthenticated) => Err(visit.sign_in_page(
            StatusCode::UNAUTHORIZED,
            next,
            name,
            Some("The login or the password is wrong."),
        )),
        Err(Error::Throttled { retry_after }) => Err(too_many_attempts(
            retry_after,
            (paths::ACCOUNT, "Back to the sign-in form"),
        )),
        Err(e) => Err(failure(&e)),
    }
}

/// The CSRF token of a signed-out form (the cookie's, or a new one to set).
fn signed_out_csrf(visit: &Visit<'_>) -> (String, bool) {
    match cookie(visit.parts, CSRF_COOKIE).filter(|t| t.len() >= 32) {
        Some(token) => (token, false),
        None => (podhost_core::random_secret(), true),
    }
}

/// `GET /account/invitations/{secret}`: the page of an invitation.
async fn invitation(
    visit: &Visit<'_>,
    secret: &str,
    status: StatusCode,
    problem: Option<&str>,
) -> Page {
    let api = visit.api;
    let found = match api.host.access().invitation(secret).await {
        Ok(found) => found,
        Err(Error::NotFound { .. }) => {
            return Err(html(
                StatusCode::NOT_FOUND,
                views::message(
                    "This invitation does not work",
                    "It was used already, it expired (invitations hold 7 days), or the link is not whole. Ask for a new one.",
                    Some((paths::ACCOUNT, "Sign in")),
                ),
                &[],
            ));
        }
        Err(e) => return Err(failure(&e)),
    };
    let (token, fresh) = signed_out_csrf(visit);
    let mut answer = html(
        status,
        views::invitation(&views::Invitation {
            action: &paths::invitation(secret),
            csrf: &token,
            account: found.account.as_str(),
            login: found.member.login.as_str(),
            role: found.member.role,
            known_login: found.known_login,
            problem,
        }),
        &[],
    );
    if fresh {
        set_cookie(&mut answer, visit.cookie(CSRF_COOKIE, token, None));
    }
    Ok(answer)
}

/// `POST /account/invitations/{secret}`: `password` (and `name`, `password_again` for a new
/// person), with the CSRF token of the form.
async fn accept_invitation(visit: &Visit<'_>, secret: &str) -> Page {
    let api = visit.api;
    let expected = cookie(visit.parts, CSRF_COOKIE);
    if expected.is_none_or(|expected| !same(field(&visit.form, views::CSRF_FIELD), &expected)) {
        return Err(csrf_refused());
    }
    let password = field(&visit.form, "password").unwrap_or("");
    if let Some(again) = field(&visit.form, "password_again")
        && again != password
    {
        return invitation(
            visit,
            secret,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("The two passwords differ."),
        )
        .await;
    }
    let name = field(&visit.form, "name").filter(|n| !n.trim().is_empty());
    let address = crate::downloads::client_ip(visit.parts, api.config.trust_forwarded_for);
    match api
        .host
        .access()
        .accept_invitation(secret, password, name, &address.to_string())
        .await
    {
        Ok(signed_in) => {
            let lifetime = api.host.config().sessions.absolute.as_secs();
            let mut answer = see_other(api, paths::ACCOUNT);
            set_cookie(
                &mut answer,
                visit.cookie(SESSION_COOKIE, signed_in.cookie, Some(lifetime)),
            );
            Ok(answer)
        }
        Err(Error::Unauthenticated) => {
            invitation(
                visit,
                secret,
                StatusCode::UNAUTHORIZED,
                Some("The password is wrong."),
            )
            .await
        }
        Err(Error::Invalid(fields)) => {
            let problems: Vec<String> = fields
                .fields()
                .iter()
                .flat_map(|(f, messages)| messages.iter().map(move |m| format!("{f}: {m}")))
                .collect();
            invitation(
                visit,
                secret,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(&problems.join("; ")),
            )
            .await
        }
        Err(Error::Conflict { message }) => {
            invitation(visit, secret, StatusCode::CONFLICT, Some(&message)).await
        }
        Err(Error::Throttled { retry_after }) => Err(too_many_attempts(
            retry_after,
            (&paths::invitation(secret), "Back to the invitation"),
        )),
        Err(Error::NotFound { .. }) => invitation(visit, secret, StatusCode::OK, None).await,
        Err(e) => Err(failure(&e)),
    }
}

/// `POST /account/members`: `login`, `name`, `role`. The page shows the invitation's URL once.
async fn invite_member(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let form = &visit.form;
    let role = match field(form, "role").unwrap_or("").parse() {
        Ok(role) => role,
        Err(e) => return refused(visit, "Nobody was invited.", e).await,
    };
    let new = podhost_core::model::NewMember {
        login: field(form, "login").unwrap_or("").to_string(),
        name: field(form, "name").unwrap_or("").to_string(),
        role,
        feeds: None,
    };
    match visit.api.host.access().invite_member(&who, new).await {
        Ok(invited) => {
            let notice =
                views::member_invited(invited.member.login.as_str(), &invited.invitation_url);
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "Nobody was invited.", e).await,
    }
}

/// The 429 page of signing in too often (on the sign-in form or an invitation), with
/// `Retry-After`.
fn too_many_attempts(retry_after: std::time::Duration, back: (&str, &str)) -> Response<Body> {
    let seconds = retry_after.as_secs().max(1);
    let mut answer = html(
        StatusCode::TOO_MANY_REQUESTS,
        views::message(
            "Too many attempts",
            &format!("Signing in failed too often. Try again in {seconds} seconds."),
            Some(back),
        ),
        &[],
    );
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    answer
}

fn scopes_of(form: &Form) -> Result<Scopes, String> {
    let names: Vec<&str> = fields(form, "scope").collect();
    Scopes::parse_list(&names.join(",")).map_err(|e| e.to_string())
}

/// The account page again with the problems of a refused form (422), or an error page.
async fn refused(visit: &Visit<'_>, title: &str, error: Error) -> Page {
    match error {
        Error::Invalid(fields) => {
            let problems: Vec<String> = fields
                .fields()
                .iter()
                .flat_map(|(field, messages)| messages.iter().map(move |m| format!("{field}: {m}")))
                .collect();
            visit
                .account_page(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    Some(views::problems(title, &problems)),
                )
                .await
        }
        Error::Forbidden { message } => {
            visit
                .account_page(
                    StatusCode::FORBIDDEN,
                    Some(views::problems(title, &[message])),
                )
                .await
        }
        Error::Conflict { message } => {
            visit
                .account_page(
                    StatusCode::CONFLICT,
                    Some(views::problems(title, &[message])),
                )
                .await
        }
        other => Err(failure(&other)),
    }
}

/// `POST /account/tokens`: `label` and `scope` (repeated). The page shows the secret once.
async fn create_token(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let label = field(&visit.form, "label").unwrap_or("").trim().to_string();
    let scopes = match scopes_of(&visit.form) {
        Ok(scopes) => scopes,
        Err(e) => {
            return refused(visit, "The token was not created.", invalid("scopes", e)).await;
        }
    };
    match visit
        .api
        .host
        .access()
        .create_token(&who, &label, scopes)
        .await
    {
        Ok(new) => {
            let shown = if label.is_empty() {
                new.token.id.as_str()
            } else {
                &label
            };
            let notice = views::token_created(shown, &new.secret);
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "The token was not created.", e).await,
    }
}

/// `POST /account/clients`: `name`, `redirect_uris` (one per line), `kind`
/// (`public`/`confidential`) and `scope` (repeated).
async fn create_client(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let form = &visit.form;
    let name = field(form, "name").unwrap_or("");
    let uris: Vec<String> = field(form, "redirect_uris")
        .unwrap_or("")
        .lines()
        .map(str::to_string)
        .collect();
    let confidential = match field(form, "kind").unwrap_or("public") {
        "public" => false,
        "confidential" => true,
        other => {
            let e = invalid("kind", format!("{other:?}: public or confidential"));
            return refused(visit, "The client was not created.", e).await;
        }
    };
    let scopes = match scopes_of(form) {
        Ok(scopes) => scopes,
        Err(e) => return refused(visit, "The client was not created.", invalid("scopes", e)).await,
    };
    match visit
        .api
        .host
        .access()
        .create_client(&who, name, uris, confidential, scopes)
        .await
    {
        Ok(new) => {
            let notice = views::client_created(&new.client, new.secret.as_deref());
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "The client was not created.", e).await,
    }
}

fn invalid(field: &str, message: impl Into<String>) -> Error {
    let mut errors = podhost_core::FieldErrors::default();
    errors.add(field, message);
    Error::Invalid(errors)
}

/// The authorization request's parameters, from the query (GET) or the consent form (POST).
const AUTHORIZE_PARAMS: [&str; 7] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
];

fn authorize_request(params: &Form) -> AuthorizeRequest {
    let get = |name: &str| field(params, name).map(str::to_string);
    AuthorizeRequest {
        response_type: get("response_type"),
        client_id: get("client_id"),
        redirect_uri: get("redirect_uri"),
        scope: get("scope"),
        state: get("state"),
        code_challenge: get("code_challenge"),
        code_challenge_method: get("code_challenge_method"),
    }
}

/// Checks an authorization request with the core: `Ok` to ask the user, or the answer (an
/// error page for an unknown client or redirect URI, a redirect back to the client otherwise).
async fn check(
    visit: &Visit<'_>,
    params: &Form,
) -> Result<podhost_core::Authorization, Response<Body>> {
    let api = visit.api;
    match api
        .host
        .access()
        .check_authorize(&authorize_request(params))
        .await
    {
        Ok(authorization) => Ok(authorization),
        Err(AuthorizeError::Show(message)) => Err(html(
            StatusCode::BAD_REQUEST,
            views::message("This authorization request is not valid", &message, None),
            &[],
        )),
        Err(AuthorizeError::Redirect(url)) => Err(redirect_to(&url)),
    }
}

/// `GET /oauth/authorize`: the consent page, or the sign-in form that comes back here.
async fn authorize(visit: &Visit<'_>) -> Page {
    let params: Form = visit
        .parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let authorization = check(visit, &params).await?;
    let Some((who, session)) = &visit.session else {
        let here = visit
            .parts
            .uri
            .path_and_query()
            .map_or(paths::AUTHORIZE, |p| p.as_str());
        return Ok(visit.sign_in_page(StatusCode::OK, here, "", None));
    };
    let request: Form = params
        .into_iter()
        .filter(|(k, _)| AUTHORIZE_PARAMS.contains(&k.as_str()))
        .collect();
    let page = views::consent(&views::Consent {
        account: who.account().as_str(),
        csrf: &session.csrf,
        client: &authorization.client,
        scopes: &authorization.scopes,
        redirect_uri: &authorization.redirect_uri,
        request: &request,
    });
    Ok(html(
        StatusCode::OK,
        page,
        &[authorization.redirect_uri.as_str()],
    ))
}

/// `POST /oauth/authorize`: the user's answer on the consent page (`decision` allow or deny,
/// with the request's parameters), checked again by the core.
async fn consent(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let authorization = check(visit, &visit.form).await?;
    let api = visit.api;
    let url = match field(&visit.form, "decision") {
        Some("allow") => api
            .host
            .access()
            .approve(&who, &authorization)
            .await
            .map_err(|e| failure(&e))?,
        _ => api.host.access().deny(&authorization),
    };
    Ok(redirect_to(&url))
}
