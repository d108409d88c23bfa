//! Signing in and out, and the answers of signing in too often.

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use http::{HeaderValue, Response, StatusCode, header};
use podhost_core::Error;

use super::{
    answers::{cookie, expired, local_path, same, see_other, set_cookie},
    paths, views,
    visit::{CSRF_COOKIE, Page, SESSION_COOKIE, Visit, field},
};
use crate::response::Body;

/// `POST /account/sign-in`: `name`, `password`, `next`, and the CSRF token of the form.
pub(super) async fn sign_in(visit: &Visit<'_>) -> Page {
    let api = visit.api;
    let name = field(&visit.form, "name").unwrap_or("");
    let next = field(&visit.form, "next")
        .filter(|n| local_path(n))
        .unwrap_or(paths::ACCOUNT);
    let expected = cookie(visit.parts, CSRF_COOKIE);
    if expected.is_none_or(|expected| !same(field(&visit.form, views::CSRF_FIELD), &expected)) {
        return Err(visit.csrf_refused());
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
            Some(&visit.text("site-sign-in-wrong")),
        )),
        Err(Error::Throttled { retry_after }) => Err(too_many_attempts(
            visit,
            retry_after,
            (paths::ACCOUNT, &visit.text("site-back-to-sign-in")),
        )),
        Err(e) => Err(visit.failure(&e)),
    }
}

/// `POST /account/sign-out`: the session ends, its cookie with it.
pub(super) async fn sign_out(visit: &Visit<'_>) -> Page {
    visit.signed_in()?;
    let api = visit.api;
    if let Some(value) = cookie(visit.parts, SESSION_COOKIE) {
        api.host
            .access()
            .sign_out(&value)
            .await
            .map_err(|e| visit.failure(&e))?;
    }
    let mut answer = see_other(api, paths::ACCOUNT);
    set_cookie(&mut answer, expired(SESSION_COOKIE));
    Ok(answer)
}

/// `POST /account/switch`: the session moves to another account of the same person.
pub(super) async fn switch_account(visit: &Visit<'_>) -> Page {
    visit.signed_in()?;
    let api = visit.api;
    let target = field(&visit.form, "account")
        .and_then(|a| podhost_core::AccountId::new(a).ok())
        .ok_or_else(|| visit.not_found())?;
    let value = cookie(visit.parts, SESSION_COOKIE).unwrap_or_default();
    match api.host.access().switch_account(&value, &target).await {
        Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => Err(visit.failure(&e)),
    }
}

/// The CSRF token of a signed-out form (the cookie's, or a new one to set).
pub(super) fn signed_out_csrf(visit: &Visit<'_>) -> (String, bool) {
    match cookie(visit.parts, CSRF_COOKIE).filter(|t| t.len() >= 32) {
        Some(token) => (token, false),
        None => (podhost_core::random_secret(), true),
    }
}

/// The 429 page of signing in too often (on the sign-in form or an invitation), with
/// `Retry-After`.
pub(super) fn too_many_attempts(
    visit: &Visit<'_>,
    retry_after: std::time::Duration,
    back: (&str, &str),
) -> Response<Body> {
    let seconds = retry_after.as_secs().max(1);
    let w = &visit.words;
    let mut answer = visit.html(
        StatusCode::TOO_MANY_REQUESTS,
        views::message(
            w,
            &w.text("site-too-many-title"),
            &w.text_with("site-too-many-text", &[("seconds", seconds.into())]),
            Some(back),
        ),
        &[],
    );
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    answer
}
