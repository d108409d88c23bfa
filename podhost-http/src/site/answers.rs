//! The HTTP of the site's answers: HTML pages with the site's headers, redirects, cookies,
//! forms read, and the pages of a refused form and of a fault. Nothing here knows a visit.

use crate::headers::{self, HTML, SetHeader};
use bytes::Bytes;
use cookie::Cookie;
use http::{HeaderValue, Response, StatusCode, header, request::Parts};
use podhost_core::Error;
use subtle::ConstantTimeEq;

use super::{paths, views, words::Words};
use crate::{
    context::{Api, RequestBody},
    language,
    response::{self, Body},
};

/// The largest form the site reads.
const MAX_FORM_BYTES: usize = 64 << 10;

/// A submitted form's fields, in order.
pub(super) type Form = Vec<(String, String)>;

/// Whether `next` is a path of this site (never another site: no scheme, no `//host`).
pub(super) fn local_path(next: &str) -> bool {
    next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && !next.chars().any(|c| c.is_control() || c.is_whitespace())
}

pub(super) fn same(given: Option<&str>, expected: &str) -> bool {
    given.is_some_and(|g| bool::from(g.as_bytes().ct_eq(expected.as_bytes())))
}

pub(super) use crate::headers::cookie;

pub(super) fn expired(name: &'static str) -> Cookie<'static> {
    let mut cookie = Cookie::build((name, "")).path("/").http_only(true).build();
    cookie.make_removal();
    cookie
}

pub(super) fn set_cookie(answer: &mut Response<Body>, cookie: Cookie<'static>) {
    if let Ok(value) = HeaderValue::from_str(&cookie.to_string()) {
        answer.headers_mut().append(header::SET_COOKIE, value);
    }
}

pub(super) async fn read_form<B: RequestBody>(
    w: &Words,
    parts: &Parts,
    body: B,
) -> Result<Form, Response<Body>> {
    crate::forms::read(parts, body, MAX_FORM_BYTES)
        .await
        .map_err(|problem| {
            tracing::debug!(problem, "site: a form that is not one");
            html(
                w,
                StatusCode::BAD_REQUEST,
                views::message(
                    w,
                    &w.text("site-form-unreadable-title"),
                    &w.text("site-form-unreadable-text"),
                    Some((paths::ACCOUNT, &w.text("site-back"))),
                ),
                &[],
            )
        })
}

pub(super) fn csrf_refused(w: &Words) -> Response<Body> {
    html(
        w,
        StatusCode::FORBIDDEN,
        views::message(
            w,
            &w.text("site-form-refused-title"),
            &w.text("site-form-refused-text"),
            Some((paths::ACCOUNT, &w.text("site-back-to-account"))),
        ),
        &[],
    )
}

/// The page of an internal fault (details in the log).
pub(super) fn failure(w: &Words, error: &Error) -> Response<Body> {
    tracing::error!(%error, "site: internal error");
    html(
        w,
        StatusCode::INTERNAL_SERVER_ERROR,
        views::message(
            w,
            &w.text("site-failure-title"),
            &w.text("site-failure-text"),
            None,
        ),
        &[],
    )
}

/// An HTML page of the site in the visit's language (`Vary` says what chose it; a language a
/// link asked for is remembered): never cached (pages show secrets and CSRF tokens), never
/// framed, with the site's Content-Security-Policy (`form_targets`: where a form's answer may
/// redirect to besides this site).
pub(super) fn html(
    w: &Words,
    status: StatusCode,
    page: String,
    form_targets: &[&str],
) -> Response<Body> {
    let mut answer = answer(status, page, form_targets);
    language::answered_in(&mut answer, w.chosen(), w.https());
    answer
}

/// An answer of the site, with its headers: a page, or (empty) a redirect.
fn answer(status: StatusCode, page: String, form_targets: &[&str]) -> Response<Body> {
    let mut answer = Response::new(response::full(Bytes::from(page)));
    *answer.status_mut() = status;
    headers::kept_to(
        answer.headers_mut(),
        &podhost_core::publish::page::site_policy(form_targets),
    )
    .put(header::CONTENT_TYPE, HTML)
    .put(header::CACHE_CONTROL, "no-store")
    .put(header::X_FRAME_OPTIONS, "DENY")
    // Not `no-referrer`: browsers would then send `Origin: null` with the site's own forms.
    .put(header::REFERRER_POLICY, "same-origin");
    answer
}

/// 303 to a path of this site (absolute, as every `Location`).
pub(super) fn see_other(api: &Api, path: &str) -> Response<Body> {
    redirect_to(&format!("{}{path}", api.host.urls().base()))
}

/// 303 to `url` (a client's redirect URI with the answer of an authorization request).
pub(super) fn redirect_to(url: &str) -> Response<Body> {
    let mut answer = answer(StatusCode::SEE_OTHER, String::new(), &[]);
    answer.headers_mut().put_text(header::LOCATION, url);
    answer
}
