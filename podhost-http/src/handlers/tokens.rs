//! Personal tokens of the caller's account (scope `tokens`): `GET`/`POST /api/tokens`,
//! `DELETE /api/tokens/{token_id}`. The key-management site offers the same through the core.

use http::StatusCode;
use podhost_core::{Scopes, TokenId};

use super::answers::{Answer, data, no_store};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::tokens::TokenEndpoint,
    wire,
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
    let tokens = api.host.access().list_tokens(&call.who).await?;
    let items: Vec<_> = tokens
        .iter()
        .map(|t| wire::token(&t.token, t.last_used))
        .collect();
    data(StatusCode::OK, items)
}

/// `POST /api/tokens`: `{label?, scopes}`; the secret is in the answer and nowhere else.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, new) = call
        .read::<wire::access::NewToken>(api.config.max_json_bytes)
        .await?;
    let scopes: Scopes = new.scopes.into_iter().map(|s| s.0).collect();
    let label = new.label.unwrap_or_default();
    let made = api.host.access().create_token(&who, &label, scopes).await?;
    let shown = wire::access::CreatedToken {
        record: wire::token(&made.token, None),
        token: made.secret,
    };
    Ok(no_store(response::json(
        StatusCode::CREATED,
        &wire::Data { data: shown },
    )))
}

/// `DELETE /api/tokens/{token_id}`
pub(super) async fn revoke<B: RequestBody>(api: &Api, call: Call<B>, id: &TokenId) -> Answer {
    api.host.access().revoke_token(&call.who, id).await?;
    Ok(response::no_content())
}
