//! Personal tokens of the caller's account (scope `tokens`): `GET`/`POST /api/tokens`,
//! `DELETE /api/tokens/{token_id}`. The key-management site offers the same through the core.

use http::StatusCode;
use podhost_core::{Scopes, TokenId};
use serde_json::{Value, json};

use super::answers::{Answer, data, no_store};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::tokens::TokenEndpoint,
    wire::{self, input::Fields},
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: TokenEndpoint,
    call: Call<B>,
) -> Answer {
    use TokenEndpoint as E;
    match endpoint {
        E::ListTokens {} => list(api, call).await,
        E::CreateToken {} => create(api, call).await,
        E::RevokeToken { token_id } => revoke(api, call, &token_id).await,
    }
}

/// `GET /api/tokens`
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let tokens = api.host.list_tokens(&call.who).await?;
    let items: Vec<Value> = tokens
        .iter()
        .map(|t| wire::token(&t.token, t.last_used))
        .collect();
    data(StatusCode::OK, Value::Array(items))
}

/// `POST /api/tokens`: `{label?, scopes}`; the secret is in the answer and nowhere else.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = Fields::from_json(body.unwrap_or_else(|| json!({})));
    let label = fields.string("label").unwrap_or_default();
    let scopes = match fields.raw("scopes") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|names| Scopes::parse_list(&names.join(","))),
        None => Some(Ok(Scopes::default())),
        Some(_) => None,
    };
    fields.reject_unknown();
    let scopes = match scopes {
        Some(Ok(scopes)) => scopes,
        Some(Err(e)) => {
            fields.errors.add("scopes", e.to_string());
            Scopes::default()
        }
        None => {
            fields.errors.add(
                "scopes",
                "a list of scope names, e.g. [\"media\", \"shows\"]",
            );
            Scopes::default()
        }
    };
    fields.errors.into_result()?;
    let new = api.host.create_token(&who, &label, scopes).await?;
    let mut shown = wire::token(&new.token, None);
    shown["token"] = json!(new.secret);
    Ok(no_store(response::json(
        StatusCode::CREATED,
        &json!({ "data": shown }),
    )))
}

/// `DELETE /api/tokens/{token_id}`
pub(super) async fn revoke<B: RequestBody>(api: &Api, call: Call<B>, id: &TokenId) -> Answer {
    api.host.revoke_token(&call.who, id).await?;
    Ok(response::no_content())
}
