//! The OAuth consent page (`/oauth/authorize`): the authorization request checked by the core,
//! the sign-in form first when nobody is signed in, and the user's answer.

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use http::{Response, StatusCode};
use podhost_core::{AuthorizeError, AuthorizeRequest};

use super::{
    answers::{Form, redirect_to},
    paths, views,
    visit::{Page, Visit, field},
};
use crate::response::Body;

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
        Err(AuthorizeError::Show(message)) => Err(visit.html(
            StatusCode::BAD_REQUEST,
            views::message(
                &visit.words,
                &visit.text("site-authorize-invalid"),
                &message,
                None,
            ),
            &[],
        )),
        Err(AuthorizeError::Redirect(url)) => Err(redirect_to(&url)),
    }
}

/// `GET /oauth/authorize`: the consent page, or the sign-in form that comes back here.
pub(super) async fn authorize(visit: &Visit<'_>) -> Page {
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
    let page = views::consent(
        &visit.words,
        &views::Consent {
            signed_in: views::SignedIn::of(who, session),
            csrf: &session.csrf,
            client: &authorization.client,
            scopes: &authorization.scopes,
            redirect_uri: &authorization.redirect_uri,
            request: &request,
        },
    );
    Ok(visit.html(StatusCode::OK, page, &[authorization.redirect_uri.as_str()]))
}

/// `POST /oauth/authorize`: the user's answer on the consent page (`decision` allow or deny,
/// with the request's parameters), checked again by the core.
pub(super) async fn consent(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let authorization = check(visit, &visit.form).await?;
    let api = visit.api;
    let url = match field(&visit.form, "decision") {
        Some("allow") => api
            .host
            .access()
            .approve(&who, &authorization)
            .await
            .map_err(|e| visit.failure(&e))?,
        _ => api.host.access().deny(&authorization),
    };
    Ok(redirect_to(&url))
}
