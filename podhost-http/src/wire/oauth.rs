//! The OAuth 2 endpoints' shapes: the token and revocation forms, the token answer, the error
//! answer and the server metadata, as RFC 6749, 7009 and 8414 write them.

use podhost_core::TokenResponse;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Example;

/// The token endpoint's form (unknown parameters are ignored, as RFC 6749 says).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
pub struct OAuthTokenRequest {
    /// `authorization_code` or `refresh_token`.
    pub grant_type: Option<String>,
    /// The authorization code.
    pub code: Option<String>,
    /// The redirect URI the code was sent to.
    pub redirect_uri: Option<String>,
    /// The PKCE verifier of the code's challenge.
    pub code_verifier: Option<String>,
    /// The refresh token.
    pub refresh_token: Option<String>,
    /// The client's id (a public client, or a confidential one without HTTP Basic).
    pub client_id: Option<String>,
    /// The client's secret (a confidential client without HTTP Basic).
    pub client_secret: Option<String>,
}

/// The revocation endpoint's form.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
pub struct OAuthRevokeRequest {
    /// The access or refresh token to revoke.
    pub token: Option<String>,
    /// `access_token` or `refresh_token` (podhost knows a token by its shape).
    pub token_type_hint: Option<String>,
    /// The client's id.
    pub client_id: Option<String>,
    /// The client's secret.
    pub client_secret: Option<String>,
}

/// The token endpoint's answer.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OAuthTokenResponse")]
pub struct OAuthTokens {
    /// The access token (a bearer token of the API).
    pub access_token: String,
    /// `Bearer`.
    pub token_type: &'static str,
    /// Seconds the access token works.
    pub expires_in: u64,
    /// The refresh token (rotated at each use).
    pub refresh_token: String,
    /// The scopes granted, space-separated.
    pub scope: String,
}

impl From<TokenResponse> for OAuthTokens {
    fn from(t: TokenResponse) -> Self {
        OAuthTokens {
            access_token: t.access_token,
            token_type: t.token_type,
            expires_in: t.expires_in,
            refresh_token: t.refresh_token,
            scope: t.scope,
        }
    }
}

/// An OAuth error answer.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OAuthError")]
pub struct OAuthErrorBody<'a> {
    /// The error's code (`invalid_request`, `invalid_client`, `invalid_grant`, ...).
    pub error: &'a str,
    /// What went wrong, for the developer.
    pub error_description: &'a str,
}

/// The authorization server's metadata (RFC 8414).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OAuthMetadata")]
pub struct OAuthMetadata {
    /// The issuer: this deployment's public URL.
    pub issuer: String,
    /// The authorization endpoint.
    pub authorization_endpoint: String,
    /// The token endpoint.
    pub token_endpoint: String,
    /// The revocation endpoint.
    pub revocation_endpoint: String,
    /// The scopes.
    pub scopes_supported: Vec<&'static str>,
    /// `code`.
    pub response_types_supported: [&'static str; 1],
    /// `query`.
    pub response_modes_supported: [&'static str; 1],
    /// `authorization_code`, `refresh_token`.
    pub grant_types_supported: [&'static str; 2],
    /// `S256`.
    pub code_challenge_methods_supported: [&'static str; 1],
    /// The authorization response names its issuer (RFC 9207).
    pub authorization_response_iss_parameter_supported: bool,
    /// How clients authenticate at the token endpoint.
    pub token_endpoint_auth_methods_supported: [&'static str; 3],
    /// How clients authenticate at the revocation endpoint.
    pub revocation_endpoint_auth_methods_supported: [&'static str; 3],
    /// The API's documentation.
    pub service_documentation: String,
}

impl Example for OAuthTokenRequest {
    fn example() -> Value {
        json!({"grant_type": "refresh_token", "refresh_token": "phr_x", "client_id": "cli_x"})
    }
}

impl Example for OAuthRevokeRequest {
    fn example() -> Value {
        json!({"token": "phr_x", "client_id": "cli_x"})
    }
}
