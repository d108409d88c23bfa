//! The OAuth 2 endpoints that answer clients rather than people: the token endpoint
//! (`POST /oauth/token`), revocation (`POST /oauth/revoke`, RFC 7009) and the server metadata
//! (`GET /.well-known/oauth-authorization-server`, RFC 8414). Requests are forms, answers JSON
//! as RFC 6749 §5 says (errors `{error, error_description}`). The authorization endpoint is a
//! page of the site (`site/`); every rule is the core's (`podhost_core::host::oauth`).

use crate::headers::SetHeader;
use base64::Engine;
use bytes::Bytes;
use http::{Response, StatusCode, header, request::Parts};
use podhost_core::{OAuthError, Scope, TokenRequest};

use crate::{
    context::{Api, RequestBody},
    response::{self, Body},
    routes::{
        docs::paths::Openapi as OPENAPI,
        oauth::{
            OAuthEndpoint,
            paths::{Authorize as AUTHORIZE, OauthRevoke as REVOKE, OauthToken as TOKEN},
        },
    },
    site,
    wire::{
        self,
        oauth::{
            OAuthErrorBody, OAuthMetadata, OAuthRevokeRequest, OAuthTokenRequest, OAuthTokens,
        },
    },
};

/// The largest request the endpoints read.
const MAX_FORM_BYTES: usize = 16 << 10;

/// Answers a request to an OAuth route (`Surface::OAuth`); the authorization endpoint is a
/// page of the site.
pub(crate) async fn answer<B: RequestBody>(
    api: &Api,
    endpoint: OAuthEndpoint,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    match endpoint {
        OAuthEndpoint::Authorize {} => site::authorization(api, parts, body).await,
        OAuthEndpoint::OauthMetadata {} => response::json(StatusCode::OK, &metadata(api)),
        OAuthEndpoint::OauthToken {} => exchange(api, parts, body, token).await,
        OAuthEndpoint::OauthRevoke {} => exchange(api, parts, body, revoke).await,
    }
}

/// A form read and answered by `answer_with`, errors as OAuth writes them.
async fn exchange<B: RequestBody, F>(
    api: &Api,
    parts: &Parts,
    body: B,
    answer_with: F,
) -> Response<Body>
where
    F: AsyncFnOnce(&Api, &Request) -> Result<Response<Body>, OAuthError>,
{
    let request = match read(parts, body).await {
        Ok(request) => request,
        Err(e) => return error(&e, false),
    };
    let basic = parts.headers.contains_key(header::AUTHORIZATION);
    match answer_with(api, &request).await {
        Ok(answer) => answer,
        Err(e) => error(&e, basic),
    }
}

/// A request's form and client credentials (from HTTP Basic, RFC 6749 §2.3.1, or the form).
struct Request {
    form: Vec<(String, String)>,
    client: TokenRequest,
}

fn invalid_request(description: &str) -> OAuthError {
    OAuthError {
        error: "invalid_request",
        description: description.to_string(),
    }
}

async fn read<B: RequestBody>(parts: &Parts, body: B) -> Result<Request, OAuthError> {
    let form = crate::forms::read(parts, body, MAX_FORM_BYTES)
        .await
        .map_err(invalid_request)?;
    // Parameters sent twice are refused (RFC 6749 §3.1, §3.2).
    for (i, (name, _)) in form.iter().enumerate() {
        if form[..i].iter().any(|(n, _)| n == name) {
            return Err(invalid_request(&format!("{name} is sent more than once")));
        }
    }
    let fields: OAuthTokenRequest = as_body(&form)
        .read()
        .map_err(|e| invalid_request(&e.to_string()))?;
    let (client_id, client_secret) = match basic(parts)? {
        Some((id, secret)) => {
            if fields.client_secret.is_some() {
                return Err(invalid_request(
                    "the client authenticates one way only: HTTP Basic or the form",
                ));
            }
            (Some(id), Some(secret))
        }
        None => (fields.client_id, fields.client_secret),
    };
    let client = TokenRequest {
        grant_type: fields.grant_type,
        code: fields.code,
        redirect_uri: fields.redirect_uri,
        code_verifier: fields.code_verifier,
        refresh_token: fields.refresh_token,
        client_id,
        client_secret,
    };
    Ok(Request { form, client })
}

/// A form's fields as a body to read.
fn as_body(form: &[(String, String)]) -> wire::Body {
    let mut body = wire::Body::form();
    for (name, value) in form {
        body.add(name, value.clone());
    }
    body
}

/// The client's id and secret from `Authorization: Basic`, each form-urlencoded (RFC 6749
/// §2.3.1).
fn basic(parts: &Parts) -> Result<Option<(String, String)>, OAuthError> {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let bad = || OAuthError {
        error: "invalid_client",
        description: "the Authorization header is not HTTP Basic with the client's id and secret"
            .into(),
    };
    let encoded = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .ok_or_else(bad)?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()
        .and_then(|d| String::from_utf8(d).ok())
        .ok_or_else(bad)?;
    let (id, secret) = decoded.split_once(':').ok_or_else(bad)?;
    let unescape = |s: &str| {
        form_urlencoded::parse(format!("v={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}

/// `POST /oauth/token`
async fn token(api: &Api, request: &Request) -> Result<Response<Body>, OAuthError> {
    let tokens = api.host.access().token(&request.client).await?;
    Ok(no_store(response::json(
        StatusCode::OK,
        &OAuthTokens::from(tokens),
    )))
}

/// `POST /oauth/revoke`: `token` (and an optional `token_type_hint`, which podhost does not
/// need: it knows a token by its shape).
async fn revoke(api: &Api, request: &Request) -> Result<Response<Body>, OAuthError> {
    let fields: OAuthRevokeRequest = as_body(&request.form)
        .read()
        .map_err(|e| invalid_request(&e.to_string()))?;
    let token = fields
        .token
        .ok_or_else(|| invalid_request("token is missing"))?;
    api.host
        .access()
        .revoke_oauth_token(&token, &request.client)
        .await?;
    let mut answer = response::json_bytes(StatusCode::OK, Bytes::new());
    answer.headers_mut().remove(header::CONTENT_TYPE);
    Ok(no_store(answer))
}

/// An OAuth error answer: its status, `WWW-Authenticate` when a client that tried HTTP Basic
/// failed to authenticate (RFC 6749 §5.2).
fn error(e: &OAuthError, basic: bool) -> Response<Body> {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let mut answer = no_store(response::json(
        status,
        &OAuthErrorBody {
            error: e.error,
            error_description: &e.description,
        },
    ));
    if status == StatusCode::UNAUTHORIZED {
        let challenge = if basic {
            "Basic realm=\"podhost\""
        } else {
            "Basic realm=\"podhost\", error=\"invalid_client\""
        };
        answer
            .headers_mut()
            .put(header::WWW_AUTHENTICATE, challenge);
    }
    answer
}

/// Token answers are never stored (RFC 6749 §5.1).
fn no_store(mut answer: Response<Body>) -> Response<Body> {
    let h = answer.headers_mut();
    h.put(header::CACHE_CONTROL, "no-store");
    h.put(header::PRAGMA, "no-cache");
    answer
}

/// The server metadata (RFC 8414): the issuer is the deployment's public URL.
fn metadata(api: &Api) -> OAuthMetadata {
    let base = api.host.urls().base();
    let auth_methods = ["none", "client_secret_basic", "client_secret_post"];
    OAuthMetadata {
        issuer: base.to_string(),
        authorization_endpoint: format!("{base}{AUTHORIZE}"),
        token_endpoint: format!("{base}{TOKEN}"),
        revocation_endpoint: format!("{base}{REVOKE}"),
        scopes_supported: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: auth_methods,
        revocation_endpoint_auth_methods_supported: auth_methods,
        service_documentation: format!("{base}{OPENAPI}"),
    }
}
