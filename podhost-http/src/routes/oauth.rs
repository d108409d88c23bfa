//! OAuth 2: the authorization endpoint, the token endpoint, revocation, the server metadata.

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints, query::*},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// OAuth 2: the authorization endpoint, the token endpoint, revocation, the server metadata.
    pub enum OAuthEndpoint: OAuth, tag "oauth";

    /// OAuth authorization endpoint: the consent page (the sign-in form first when signed out)
    Authorize {} = GET "/oauth/authorize",
        Spec::open()
            .query(&[
                oauth("response_type", "`code`"),
                oauth("client_id", "the client's id"),
                oauth("redirect_uri", "one of the client's redirect URIs, exactly"),
                oauth(
                    "scope",
                    "space-separated scopes (default: all the client may ask for)",
                ),
                oauth("state", "carried back to the client"),
                oauth(
                    "code_challenge",
                    "PKCE: base64url of the SHA-256 of the verifier",
                ),
                oauth("code_challenge_method", "`S256`"),
            ])
            .answers(200, "the consent page, or the sign-in form", Shape::Document("text/html"))
            .errors(&[303, 400]);

    /// OAuth token endpoint: an authorization code (with its PKCE verifier) or a refresh token
    /// exchanged for tokens
    OauthToken {} = POST "/oauth/token",
        Spec::open()
            .body(BodyKind::Form {
                schema: Some(example::<wire::oauth::OAuthTokenRequest>()),
            })
            .answers(200, "the tokens", Shape::Bare(schema::<wire::oauth::OAuthTokens>()))
            .errors(&[400, 401]);

    /// OAuth token revocation (RFC 7009): a refresh token ends its grant, an access token itself
    OauthRevoke {} = POST "/oauth/revoke",
        Spec::open()
            .body(BodyKind::Form {
                schema: Some(example::<wire::oauth::OAuthRevokeRequest>()),
            })
            .answers(200, "revoked, or there was no such token", Shape::Empty)
            .errors(&[400, 401]);

    /// OAuth authorization server metadata (RFC 8414)
    OauthMetadata {} = GET "/.well-known/oauth-authorization-server",
        Spec::open()
            .answers(200, "the metadata", Shape::Bare(schema::<wire::oauth::OAuthMetadata>()));
}
