//! The account's members on the site: an invitation's page and its acceptance, inviting,
//! changing and removing members (the account page lists them).

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use http::StatusCode;
use podhost_core::{Error, MemberId};

use super::{
    account::refused,
    answers::{cookie, same, see_other, set_cookie},
    paths,
    signing_in::{signed_out_csrf, too_many_attempts},
    views,
    visit::{CSRF_COOKIE, Page, SESSION_COOKIE, Visit, field},
};

/// `GET /account/invitations/{secret}`: the page of an invitation.
pub(super) async fn invitation(
    visit: &Visit<'_>,
    secret: &str,
    status: StatusCode,
    problem: Option<&str>,
) -> Page {
    let api = visit.api;
    // A form's answer shows the invitation again: the switch goes to its page.
    let w = &visit.words.on(paths::invitation(secret));
    let found = match api.host.access().invitation(secret).await {
        Ok(found) => found,
        Err(Error::NotFound { .. }) => {
            let days = views::INVITATION_DAYS;
            return Err(visit.html(
                StatusCode::NOT_FOUND,
                views::message(
                    w,
                    &w.text("site-invitation-broken-title"),
                    &w.text_with("site-invitation-broken-text", &[("days", days.into())]),
                    Some((paths::ACCOUNT, &w.text("site-sign-in"))),
                ),
                &[],
            ));
        }
        Err(e) => return Err(visit.failure(&e)),
    };
    let (token, fresh) = signed_out_csrf(visit);
    let mut answer = visit.html(
        status,
        views::invitation(
            w,
            &views::Invitation {
                action: &paths::invitation(secret),
                csrf: &token,
                account: found.account.as_str(),
                login: found.member.login.as_str(),
                role: found.member.role,
                known_login: found.known_login,
                problem,
            },
        ),
        &[],
    );
    if fresh {
        set_cookie(&mut answer, visit.cookie(CSRF_COOKIE, token, None));
    }
    Ok(answer)
}

/// `POST /account/invitations/{secret}`: `password` (and `name`, `password_again` for a new
/// person), with the CSRF token of the form.
pub(super) async fn accept_invitation(visit: &Visit<'_>, secret: &str) -> Page {
    let api = visit.api;
    let expected = cookie(visit.parts, CSRF_COOKIE);
    if expected.is_none_or(|expected| !same(field(&visit.form, views::CSRF_FIELD), &expected)) {
        return Err(visit.csrf_refused());
    }
    let password = field(&visit.form, "password").unwrap_or("");
    if let Some(again) = field(&visit.form, "password_again")
        && again != password
    {
        return invitation(
            visit,
            secret,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(&visit.text("site-passwords-differ")),
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
                Some(&visit.text("site-password-wrong")),
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
            visit,
            retry_after,
            (
                &paths::invitation(secret),
                &visit.text("site-back-to-invitation"),
            ),
        )),
        Err(Error::NotFound { .. }) => invitation(visit, secret, StatusCode::OK, None).await,
        Err(e) => Err(visit.failure(&e)),
    }
}

/// `POST /account/members`: `login`, `name`, `role`. The page shows the invitation's URL once.
pub(super) async fn invite_member(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let form = &visit.form;
    let role = match field(form, "role").unwrap_or("").parse() {
        Ok(role) => role,
        Err(e) => return refused(visit, "site-nobody-invited", e).await,
    };
    let new = podhost_core::model::NewMember {
        login: field(form, "login").unwrap_or("").to_string(),
        name: field(form, "name").unwrap_or("").to_string(),
        role,
        feeds: None,
    };
    match visit.api.host.access().invite_member(&who, new).await {
        Ok(invited) => {
            let notice = views::member_invited(
                &visit.words,
                invited.member.login.as_str(),
                &invited.invitation_url,
            );
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "site-nobody-invited", e).await,
    }
}

/// `POST /account/members/{member_id}`: `role`.
pub(super) async fn update_member(visit: &Visit<'_>, member_id: &MemberId) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    let role = field(&visit.form, "role").unwrap_or("");
    let patch = match role.parse() {
        Ok(role) => podhost_core::model::MemberPatch {
            role: Some(role),
            ..Default::default()
        },
        Err(e) => return refused(visit, "site-member-not-changed", e).await,
    };
    match api
        .host
        .access()
        .update_member(&who, member_id, &patch)
        .await
    {
        Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => refused(visit, "site-member-not-changed", e).await,
    }
}

/// `POST /account/members/{member_id}/remove`.
pub(super) async fn remove_member(visit: &Visit<'_>, member_id: &MemberId) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    match api.host.access().remove_member(&who, member_id).await {
        Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => refused(visit, "site-member-not-removed", e).await,
    }
}
