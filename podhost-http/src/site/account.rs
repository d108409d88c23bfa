//! The account page (`/account`) and its forms: personal tokens, OAuth clients, the grants
//! given to clients; a refused form shows the page again with its problems.

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use http::StatusCode;
use podhost_core::{ClientId, Error, GrantId, Scopes, TokenId};

use super::{
    answers::{Form, see_other},
    paths, views,
    visit::{Page, Visit, field, fields},
};

impl Visit<'_> {
    /// The account page, with a notice on top.
    pub(super) async fn account_page(
        &self,
        status: StatusCode,
        notice: Option<maud::Markup>,
    ) -> Page {
        let api = self.api;
        let Some((who, session)) = &self.session else {
            return Err(self.sign_in_page(StatusCode::UNAUTHORIZED, paths::ACCOUNT, "", None));
        };
        let tokens = api
            .host
            .access()
            .list_tokens(who)
            .await
            .map_err(|e| self.failure(&e))?;
        let clients = api
            .host
            .access()
            .list_clients(who)
            .await
            .map_err(|e| self.failure(&e))?;
        let grants = api
            .host
            .access()
            .list_grants(who)
            .await
            .map_err(|e| self.failure(&e))?;
        // The members, for those who may see them.
        let members = match api.host.access().list_members(who).await {
            Ok(members) => Some(members),
            Err(Error::Forbidden { .. }) => None,
            Err(e) => return Err(self.failure(&e)),
        };
        let login = match &session.login {
            Some(login) => login.clone(),
            None => {
                podhost_core::Login::new(who.account().as_str()).map_err(|e| self.failure(&e))?
            }
        };
        let accounts: Vec<String> = api
            .host
            .access()
            .person_accounts(&login)
            .await
            .map_err(|e| self.failure(&e))?
            .into_iter()
            .map(|(account, _)| account.to_string())
            .collect();
        let page = views::account(
            &self.words,
            &views::Account {
                name: who.account().as_str(),
                login: login.as_str(),
                role: who.role(),
                accounts: &accounts,
                members: members.as_deref(),
                menu: views::Menu::of(who),
                reach: &who.reach(),
                csrf: &session.csrf,
                tokens: &tokens,
                clients: &clients,
                grants: &grants,
                notice,
            },
        );
        Ok(self.html(status, page, &[]))
    }
}

fn scopes_of(form: &Form) -> Result<Scopes, String> {
    let names: Vec<&str> = fields(form, "scope").collect();
    Scopes::parse_list(&names.join(",")).map_err(|e| e.to_string())
}

/// The account page again with the problems of a refused form (422), or an error page.
pub(super) async fn refused(visit: &Visit<'_>, title_id: &str, error: Error) -> Page {
    let title = &visit.text(title_id);
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
        other => Err(visit.failure(&other)),
    }
}

/// `POST /account/tokens`: `label` and `scope` (repeated). The page shows the secret once.
pub(super) async fn create_token(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let label = field(&visit.form, "label").unwrap_or("").trim().to_string();
    let scopes = match scopes_of(&visit.form) {
        Ok(scopes) => scopes,
        Err(e) => {
            return refused(visit, "site-token-not-created", invalid("scopes", e)).await;
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
            let notice = views::token_created(&visit.words, shown, &new.secret);
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "site-token-not-created", e).await,
    }
}

/// `POST /account/clients`: `name`, `redirect_uris` (one per line), `kind`
/// (`public`/`confidential`) and `scope` (repeated).
pub(super) async fn create_client(visit: &Visit<'_>) -> Page {
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
            let problem = visit.text_with(
                "site-kind-invalid",
                &[("kind", format!("{other:?}").into())],
            );
            return refused(visit, "site-client-not-created", invalid("kind", problem)).await;
        }
    };
    let scopes = match scopes_of(form) {
        Ok(scopes) => scopes,
        Err(e) => {
            return refused(visit, "site-client-not-created", invalid("scopes", e)).await;
        }
    };
    match visit
        .api
        .host
        .access()
        .create_client(&who, name, uris, confidential, scopes)
        .await
    {
        Ok(new) => {
            let notice = views::client_created(&visit.words, &new.client, new.secret.as_deref());
            visit.account_page(StatusCode::CREATED, Some(notice)).await
        }
        Err(e) => refused(visit, "site-client-not-created", e).await,
    }
}

fn invalid(field: &str, message: impl Into<String>) -> Error {
    let mut errors = podhost_core::FieldErrors::default();
    errors.add(field, message);
    Error::Invalid(errors)
}

/// `POST /account/tokens/{token_id}/revoke`.
pub(super) async fn revoke_token(visit: &Visit<'_>, token_id: &TokenId) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    match api.host.access().revoke_token(&who, token_id).await {
        Ok(_) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => Err(visit.failure(&e)),
    }
}

/// `POST /account/clients/{client_id}/delete`.
pub(super) async fn delete_client(visit: &Visit<'_>, client_id: &str) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    let id: ClientId = client_id.parse().map_err(|_| visit.not_found())?;
    match api.host.access().delete_client(&who, &id).await {
        Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => Err(visit.failure(&e)),
    }
}

/// `POST /account/grants/{grant_id}/revoke`.
pub(super) async fn revoke_grant(visit: &Visit<'_>, grant_id: &str) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    let id: GrantId = grant_id.parse().map_err(|_| visit.not_found())?;
    match api.host.access().revoke_grant(&who, &id).await {
        Ok(()) => Ok(see_other(api, paths::ACCOUNT)),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => Err(visit.failure(&e)),
    }
}
