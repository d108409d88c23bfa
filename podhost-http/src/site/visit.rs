//! A request to the site as its handlers see it ([`Visit`]): its live session, its form, the
//! checks every form passes (its `Origin`, its CSRF token), and the answers every page may give
//! instead (the sign-in form, not found).

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use cookie::{Cookie, SameSite};
use http::{Method, Response, StatusCode, header, request::Parts};
use podhost_core::{Error, Principal, Session};

use super::{
    answers::{self, Form, cookie, read_form, same, set_cookie},
    paths, views,
    words::Words,
};
use crate::{
    context::{Api, RequestBody},
    response::Body,
};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "podhost_session";
/// The cookie of the sign-in form's CSRF token (before there is a session).
pub const CSRF_COOKIE: &str = "podhost_csrf";

/// What a page's handler answers: `Ok` the page, or `Err` the page to answer instead (a
/// refusal, the sign-in form).
pub(super) type Page = Result<Response<Body>, Response<Body>>;

pub(super) fn field<'f>(form: &'f Form, name: &str) -> Option<&'f str> {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

pub(super) fn fields<'f>(form: &'f Form, name: &'f str) -> impl Iterator<Item = &'f str> + 'f {
    form.iter()
        .filter(move |(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A request to the site, as its handlers see it.
pub(super) struct Visit<'a> {
    pub(super) api: &'a Api,
    pub(super) parts: &'a Parts,
    /// The signed-in owner and the session, when the session cookie names a live session.
    pub(super) session: Option<(Principal, Session)>,
    /// The submitted form (POST).
    pub(super) form: Form,
    /// The language its answers are in.
    pub(super) words: Words,
}

impl<'a> Visit<'a> {
    /// The visit of a request: its language, its live session (by the cookie), its form
    /// (POST), and for a form the `Origin` checked.
    pub(super) async fn new<B: RequestBody>(
        api: &'a Api,
        parts: &'a Parts,
        body: B,
    ) -> Result<Self, Response<Body>> {
        let words = Words::of(api, parts);
        let session = match cookie(parts, SESSION_COOKIE) {
            Some(value) => match api.host.access().session(&value).await {
                Ok(found) => Some(found),
                Err(Error::Unauthenticated) => None,
                Err(e) => return Err(answers::failure(&words, &e)),
            },
            None => None,
        };
        let form = if parts.method == Method::POST {
            read_form(&words, parts, body).await?
        } else {
            Form::new()
        };
        let visit = Visit {
            api,
            parts,
            session,
            form,
            words,
        };
        if parts.method == Method::POST {
            visit.check_origin()?;
        }
        Ok(visit)
    }
}

impl Visit<'_> {
    /// The message `id` in the visit's language.
    pub(super) fn text(&self, id: &str) -> String {
        self.words.text(id)
    }

    /// The message `id` with its values, in the visit's language.
    pub(super) fn text_with(
        &self,
        id: &str,
        args: &[(&str, podhost_core::locale::Arg<'_>)],
    ) -> String {
        self.words.text_with(id, args)
    }

    /// A page of the site, in the visit's language.
    pub(super) fn html(
        &self,
        status: StatusCode,
        page: String,
        form_targets: &[&str],
    ) -> Response<Body> {
        answers::html(&self.words, status, page, form_targets)
    }

    /// The page of an internal fault.
    pub(super) fn failure(&self, error: &Error) -> Response<Body> {
        answers::failure(&self.words, error)
    }

    /// The page of a form sent from elsewhere, or with a wrong CSRF token.
    pub(super) fn csrf_refused(&self) -> Response<Body> {
        answers::csrf_refused(&self.words)
    }

    /// The signed-in owner, after checking the form's CSRF token against the session's; the
    /// sign-in page (401) when there is no live session.
    pub(super) fn signed_in(&self) -> Result<Principal, Response<Body>> {
        let Some((who, session)) = &self.session else {
            return Err(self.sign_in_page(
                StatusCode::UNAUTHORIZED,
                paths::ACCOUNT,
                "",
                Some(&self.text("site-signed-out")),
            ));
        };
        if self.parts.method == Method::POST
            && !same(field(&self.form, views::CSRF_FIELD), &session.csrf)
        {
            return Err(self.csrf_refused());
        }
        Ok(who.clone())
    }

    /// Refuses a form posted from another site: its `Origin`, when the browser sent one, must
    /// be this deployment's (`null`, which privacy settings send, leaves it to the CSRF token).
    pub(super) fn check_origin(&self) -> Result<(), Response<Body>> {
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
            _ => Err(self.csrf_refused()),
        }
    }

    pub(super) fn not_found(&self) -> Response<Body> {
        let w = &self.words;
        self.html(
            StatusCode::NOT_FOUND,
            views::message(
                w,
                &w.text("site-not-found-title"),
                &w.text("site-not-found-text"),
                Some((paths::ACCOUNT, &w.text("site-back-to-account"))),
            ),
            &[],
        )
    }

    /// The sign-in form, with a new CSRF cookie when the browser has none.
    pub(super) fn sign_in_page(
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
        let mut answer = self.html(
            status,
            views::sign_in(&self.words, &token, next, name, problem),
            &[],
        );
        if fresh {
            set_cookie(&mut answer, self.cookie(CSRF_COOKIE, token, None));
        }
        answer
    }

    /// A cookie of this site: `HttpOnly`, `SameSite=Lax`, on every path, `Secure` when the
    /// public URL is https.
    pub(super) fn cookie(
        &self,
        name: &'static str,
        value: String,
        max_age: Option<u64>,
    ) -> Cookie<'static> {
        let mut cookie = Cookie::build((name, value))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.api.host.urls().is_https())
            .build();
        if let Some(seconds) = max_age {
            cookie.set_max_age(cookie::time::Duration::seconds(
                i64::try_from(seconds).unwrap_or(i64::MAX),
            ));
        }
        cookie
    }
}
