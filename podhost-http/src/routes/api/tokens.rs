//! The caller's personal API tokens.

use podhost_core::{Action, TokenId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// The caller's personal API tokens.
    pub enum TokenEndpoint: Api, tag "tokens";

    /// the caller's personal tokens, oldest first, revoked ones included (never a secret)
    ListTokens {} = GET "/api/tokens",
        Spec::token(Action::ManageTokens)
            .addition()
            .answers(200, "the tokens", Shape::DataList(schema::<wire::access::TokenRecord>()));

    /// a new personal token (scopes at most the caller's); its secret is shown only here
    CreateToken {} = POST "/api/tokens",
        Spec::token(Action::ManageTokens)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::access::NewToken>(),
                required: true,
            })
            .makes(&["token_id"], "/data/id")
            .answers(201, "the token, with its secret in `token`", Shape::Data(schema::<wire::access::CreatedToken>()));

    /// revoke a personal token (it stops working on every server within a second)
    RevokeToken { token_id: TokenId } = DELETE "/api/tokens/{token_id}",
        Spec::token(Action::ManageTokens)
            .addition()
            .answers(204, "revoked (also when it already was)", Shape::Empty);
}
