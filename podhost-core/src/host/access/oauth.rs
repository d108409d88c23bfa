//! OAuth 2 by the OAuth 2.1 profile: clients that accounts register, the authorization code
//! flow with PKCE (S256 only) and exact redirect URIs, access tokens that expire and are
//! accepted wherever personal tokens are, refresh tokens that change at every use (one used
//! twice revokes the whole grant), and revocation (RFC 7009). The HTTP endpoints, the consent
//! page and the server metadata (RFC 8414) are the frontend's; every rule is here.
//!
//! ```text
//! claims/clients/{client}      which account registered a client (client ids are public)
//! claims/grants/{grant}        which account gave a grant (refresh tokens name their grant)
//! oauth/codes/{sha256 of code} an authorization code: who, for which client, redirect URI,
//!                              scopes, PKCE challenge, until when (10 minutes)
//! oauth/codes/{sha256}.used    put-if-absent when the code is exchanged: it is used once
//! ```

use super::Access;
use base64::Engine;
use jiff::{SignedDuration, Timestamp};
use object_store::PutPayload;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::host::{
    PodcastHost, claims,
    secrets::{random_secret, sha256_hex},
};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{AccountId, ClientId, GrantId},
    model::{Actor, Grant, NewOAuthClient, OAuthClient, Token},
    principal::Principal,
    scope::{Scope, Scopes},
    state::Change,
    store::{get_json, layout, put_if_absent},
};

/// How long an authorization code may be exchanged.
const CODE_LIFETIME: SignedDuration = SignedDuration::from_mins(10);
/// Spent refresh tokens a grant remembers (a stolen one coming back revokes the grant).
const SPENT_KEPT: usize = 50;
/// Refresh tokens: `phr_`, the grant id without its prefix, `_`, 43 characters.
const REFRESH_PREFIX: &str = "phr_";

/// An OAuth error response (RFC 6749 §5.2, §4.1.2.1): its code and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error}: {description}")]
pub struct OAuthError {
    /// `invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`,
    /// `unsupported_grant_type`, `invalid_scope`, `access_denied`,
    /// `unsupported_response_type`, `server_error`.
    pub error: &'static str,
    /// What went wrong, for the developer.
    pub description: String,
}

impl OAuthError {
    fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }

    /// The HTTP status of the error on the token and revocation endpoints: 401 for a client
    /// that failed to authenticate, 500 for the server's own fault, 400 otherwise.
    pub fn status(&self) -> u16 {
        match self.error {
            "invalid_client" => 401,
            "server_error" => 500,
            _ => 400,
        }
    }
}

impl From<Error> for OAuthError {
    fn from(e: Error) -> Self {
        match e {
            // RFC 6749's token endpoint has no error of its own for a store that stalls or is
            // full: `server_error`, to be tried again.
            Error::Storage { .. }
            | Error::Unavailable { .. }
            | Error::InsufficientStorage { .. } => {
                tracing::error!(error = %e, "oauth: internal error");
                OAuthError::new("server_error", "the server failed; try again")
            }
            other => OAuthError::new("invalid_request", other.to_string()),
        }
    }
}

/// What a client asks for at the authorization endpoint.
#[derive(Clone, Debug, Default)]
pub struct AuthorizeRequest {
    /// `response_type` (must be `code`).
    pub response_type: Option<String>,
    /// `client_id`.
    pub client_id: Option<String>,
    /// `redirect_uri` (required, and one of the client's, exactly).
    pub redirect_uri: Option<String>,
    /// `scope`: space-separated scope names (default: every scope the client may ask for).
    pub scope: Option<String>,
    /// `state`, carried back.
    pub state: Option<String>,
    /// `code_challenge`: base64url of the SHA-256 of the verifier.
    pub code_challenge: Option<String>,
    /// `code_challenge_method` (must be `S256`).
    pub code_challenge_method: Option<String>,
}

/// An authorization request that may be shown to the user for consent.
#[derive(Clone, Debug, PartialEq)]
pub struct Authorization {
    /// The client.
    pub client: OAuthClient,
    /// The scopes asked for.
    pub scopes: Scopes,
    /// Where the answer goes.
    pub redirect_uri: String,
    /// The client's state, carried back.
    pub state: Option<String>,
    challenge: String,
}

/// Why an authorization request cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthorizeError {
    /// The client or its redirect URI is unknown: the answer is shown to the user, never sent
    /// to the redirect URI (which would be an open redirect).
    Show(String),
    /// Anything else goes back to the client at its redirect URI (this URL, with `error`,
    /// `error_description` and `state`).
    Redirect(String),
}

/// The token endpoint's request (RFC 6749 §4.1.3, §6), client authentication included.
#[derive(Clone, Debug, Default)]
pub struct TokenRequest {
    /// `grant_type`: `authorization_code` or `refresh_token`.
    pub grant_type: Option<String>,
    /// `code`.
    pub code: Option<String>,
    /// `redirect_uri`, the one the code was asked with.
    pub redirect_uri: Option<String>,
    /// `code_verifier` (PKCE).
    pub code_verifier: Option<String>,
    /// `refresh_token`.
    pub refresh_token: Option<String>,
    /// `client_id` (from the body, or from HTTP Basic authentication).
    pub client_id: Option<String>,
    /// `client_secret` (confidential clients; from the body or HTTP Basic).
    pub client_secret: Option<String>,
}

/// The token endpoint's answer (RFC 6749 §5.1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TokenResponse {
    /// The access token: a bearer secret, accepted wherever personal tokens are.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: &'static str,
    /// Seconds it works.
    pub expires_in: u64,
    /// The refresh token, which the next refresh replaces.
    pub refresh_token: String,
    /// The scopes granted, space-separated.
    pub scope: String,
}

/// An authorization code as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Code {
    account: AccountId,
    /// The member who consented.
    #[serde(default)]
    member: Option<crate::ids::MemberId>,
    client: ClientId,
    redirect_uri: String,
    scopes: Scopes,
    challenge: String,
    expires: Timestamp,
}

/// An OAuth application acting under a grant (for the member who gave it).
fn oauth_actor(grant: &Grant) -> Actor {
    Actor {
        member: grant.member.clone(),
        login: None,
        via: crate::model::Via::Oauth,
        token: None,
        client: Some(grant.client.clone()),
    }
}

fn scope_words(scopes: &Scopes) -> String {
    scopes
        .iter()
        .map(Scope::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A redirect URI podhost accepts for a client: https with a host, or http to this machine
/// (native apps listen on loopback, RFC 8252); no fragment, no user name or password.
fn check_redirect_uri(errors: &mut FieldErrors, uri: &str) {
    match url::Url::parse(uri) {
        Ok(u) => {
            let loopback = matches!(
                u.host(),
                Some(url::Host::Domain("localhost"))
                    | Some(url::Host::Ipv4(_))
                    | Some(url::Host::Ipv6(_))
            ) && u.host().is_some_and(|h| match h {
                url::Host::Ipv4(ip) => ip.is_loopback(),
                url::Host::Ipv6(ip) => ip.is_loopback(),
                url::Host::Domain(d) => d == "localhost",
            });
            let ok_scheme = u.scheme() == "https" || (u.scheme() == "http" && loopback);
            if !ok_scheme || u.host().is_none() {
                errors.add(
                    "redirect_uris",
                    format!("{uri}: https, or http to this machine (127.0.0.1, [::1], localhost)"),
                );
            }
            if u.fragment().is_some() || !u.username().is_empty() || u.password().is_some() {
                errors.add(
                    "redirect_uris",
                    format!("{uri}: no fragment, user name or password"),
                );
            }
        }
        Err(e) => errors.add("redirect_uris", format!("{uri}: not a URL ({e})")),
    }
}

/// `uri` with `params` added to its query.
fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let mut url = match url::Url::parse(uri) {
        Ok(url) => url,
        Err(_) => return uri.to_string(),
    };
    {
        let mut query = url.query_pairs_mut();
        for (k, v) in params {
            query.append_pair(k, v);
        }
    }
    url.to_string()
}

impl PodcastHost {
    /// Revokes a grant and its tokens, whoever asks; `NotFound` when the account has no such
    /// grant.
    async fn end_grant(&self, account: &AccountId, id: &GrantId, by: &Actor) -> Result<Grant> {
        let catalog = self.catalog(account).await?;
        let now = self.now();
        catalog
            .commit(now, by, |state| {
                let mut grant = state
                    .grants
                    .get(id)
                    .cloned()
                    .ok_or_else(|| Error::not_found("grant", id))?;
                if grant.revoked.is_some() {
                    return Ok((Vec::new(), grant));
                }
                grant.revoked = Some(now);
                let mut changes = vec![Change::GrantPut(grant.clone())];
                for token in state.tokens.values() {
                    if token.grant.as_ref() == Some(id) && token.revoked.is_none() {
                        changes.push(Change::TokenPut(Token {
                            revoked: Some(now),
                            ..token.clone()
                        }));
                    }
                }
                Ok((changes, grant))
            })
            .await
    }

    /// A client by its public id, wherever it is registered.
    async fn find_client(&self, id: &str) -> Result<Option<(AccountId, OAuthClient)>> {
        let Ok(id) = id.trim().parse::<ClientId>() else {
            return Ok(None);
        };
        let Some(account) = claims::read_claim(self.store(), &layout::client_claim(&id)).await?
        else {
            return Ok(None);
        };
        let Some(catalog) = self.existing_catalog(&account).await? else {
            return Ok(None);
        };
        Ok(catalog
            .read(|s| s.clients.get(&id).cloned())
            .await
            .map(|c| (account, c)))
    }

    /// Authenticates the client of a token or revocation request: a confidential client by its
    /// secret, a public one by its id alone.
    async fn client_of(
        &self,
        request: &TokenRequest,
    ) -> std::result::Result<(AccountId, OAuthClient), OAuthError> {
        let invalid = || {
            OAuthError::new(
                "invalid_client",
                "the client is unknown, or its secret is wrong",
            )
        };
        let id = request.client_id.as_deref().ok_or_else(invalid)?;
        let (account, client) = self.find_client(id).await?.ok_or_else(invalid)?;
        match (&client.secret_sha256, &request.client_secret) {
            (Some(hash), Some(secret)) => {
                let given = sha256_hex(secret);
                if !bool::from(hash.as_bytes().ct_eq(given.as_bytes())) {
                    return Err(invalid());
                }
            }
            (Some(_), None) => return Err(invalid()),
            (None, Some(_)) => {
                return Err(OAuthError::new(
                    "invalid_client",
                    "a public client has no secret to send",
                ));
            }
            (None, None) => {}
        }
        Ok((account, client))
    }

    async fn exchange_code(
        &self,
        request: &TokenRequest,
    ) -> std::result::Result<TokenResponse, OAuthError> {
        let (_, client) = self.client_of(request).await?;
        let bad = |m: &str| OAuthError::new("invalid_grant", m);
        let code = request
            .code
            .as_deref()
            .ok_or_else(|| OAuthError::new("invalid_request", "code is missing"))?;
        let hash = sha256_hex(code);
        let stored: Code = get_json(self.store(), &layout::oauth_code(&hash))
            .await?
            .ok_or_else(|| bad("the code is unknown"))?;
        if stored.client != client.id {
            return Err(bad("the code was given to another client"));
        }
        if request.redirect_uri.as_deref() != Some(stored.redirect_uri.as_str()) {
            return Err(bad(
                "the redirect_uri differs from the one the code was asked with",
            ));
        }
        if self.now() >= stored.expires {
            return Err(bad("the code has expired"));
        }
        let verifier = request
            .code_verifier
            .as_deref()
            .ok_or_else(|| OAuthError::new("invalid_request", "code_verifier is missing"))?;
        let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        if !(43..=128).contains(&verifier.len())
            || !bool::from(computed.as_bytes().ct_eq(stored.challenge.as_bytes()))
        {
            return Err(bad("the code_verifier does not match the code_challenge"));
        }
        // Used once: the first exchange takes the mark; a second one finds it taken and revokes
        // what the first got (the code leaked).
        let grant = GrantId::random();
        let first = put_if_absent(
            self.store(),
            &layout::oauth_code_used(&hash),
            PutPayload::from(grant.as_str().as_bytes().to_vec()),
        )
        .await?;
        if !first {
            if let Some(bytes) =
                crate::store::get_optional(self.store(), &layout::oauth_code_used(&hash)).await?
                && let Ok(issued) = String::from_utf8_lossy(&bytes).parse::<GrantId>()
            {
                let _ = self
                    .end_grant(&stored.account, &issued, &Actor::podhost())
                    .await;
            }
            return Err(bad("the code was used already; what it gave is revoked"));
        }
        let account = stored.account.clone();
        if claims::claim(self.store(), &layout::grant_claim(&grant), &account).await? != account {
            return Err(OAuthError::new(
                "server_error",
                "a grant id clashed; try again",
            ));
        }
        let refresh = format!(
            "{REFRESH_PREFIX}{}_{}",
            &grant.as_str()[3..],
            random_secret()
        );
        let now = self.now();
        let record = Grant {
            id: grant.clone(),
            client: client.id.clone(),
            client_name: client.name.clone(),
            scopes: stored.scopes.clone(),
            created: now,
            revoked: None,
            refresh_sha256: sha256_hex(&refresh),
            spent: Vec::new(),
            member: stored.member.clone(),
        };
        let access = self.access_token(&account, &record).await?;
        let catalog = self.catalog(&account).await?;
        let token = access.token.clone();
        let by = oauth_actor(&record);
        catalog
            .commit(now, &by, |_| {
                Ok((
                    vec![
                        Change::GrantPut(record.clone()),
                        Change::TokenPut(token.clone()),
                    ],
                    (),
                ))
            })
            .await?;
        Ok(self.token_response(access.secret, refresh, &record.scopes))
    }

    async fn access_token(
        &self,
        account: &AccountId,
        grant: &Grant,
    ) -> Result<crate::model::NewToken> {
        let lifetime = SignedDuration::try_from(self.config().oauth.access_token_lifetime)
            .unwrap_or(SignedDuration::from_hours(1));
        self.mint_token(
            account,
            &grant.client_name,
            grant.scopes.clone(),
            Some(self.now() + lifetime),
            Some(grant.id.clone()),
            None,
        )
        .await
    }

    fn token_response(&self, access: String, refresh: String, scopes: &Scopes) -> TokenResponse {
        TokenResponse {
            access_token: access,
            token_type: "Bearer",
            expires_in: self.config().oauth.access_token_lifetime.as_secs(),
            refresh_token: refresh,
            scope: scope_words(scopes),
        }
    }

    /// The grant a refresh token names, and its account.
    async fn grant_of(&self, refresh: &str) -> Result<Option<(AccountId, GrantId)>> {
        let Some(rest) = refresh.trim().strip_prefix(REFRESH_PREFIX) else {
            return Ok(None);
        };
        let Some((tail, _)) = rest.split_once('_') else {
            return Ok(None);
        };
        let Ok(grant) = format!("gr_{tail}").parse::<GrantId>() else {
            return Ok(None);
        };
        Ok(
            claims::read_claim(self.store(), &layout::grant_claim(&grant))
                .await?
                .map(|account| (account, grant)),
        )
    }

    async fn refresh(
        &self,
        request: &TokenRequest,
    ) -> std::result::Result<TokenResponse, OAuthError> {
        let (_, client) = self.client_of(request).await?;
        let bad = |m: &str| OAuthError::new("invalid_grant", m);
        let refresh = request
            .refresh_token
            .as_deref()
            .ok_or_else(|| OAuthError::new("invalid_request", "refresh_token is missing"))?;
        let (account, grant_id) = self
            .grant_of(refresh)
            .await?
            .ok_or_else(|| bad("the refresh token is unknown"))?;
        let given = sha256_hex(refresh);
        let catalog = self.catalog(&account).await?;
        let grant = catalog
            .read(|s| s.grants.get(&grant_id).cloned())
            .await
            .ok_or_else(|| bad("the refresh token is unknown"))?;
        if grant.client != client.id {
            return Err(bad("the refresh token was given to another client"));
        }
        if grant.revoked.is_some() {
            return Err(bad("the grant was revoked"));
        }
        if grant
            .spent
            .iter()
            .any(|s| s.as_bytes().ct_eq(given.as_bytes()).into())
        {
            // A refresh token used twice was stolen (or copied): the whole grant goes.
            self.end_grant(&account, &grant_id, &Actor::podhost())
                .await?;
            return Err(bad(
                "the refresh token was used already; the grant is revoked",
            ));
        }
        let new_refresh = format!(
            "{REFRESH_PREFIX}{}_{}",
            &grant_id.as_str()[3..],
            random_secret()
        );
        let access = self.access_token(&account, &grant).await?;
        let now = self.now();
        let token = access.token.clone();
        // Decided on the grant as it is when written: a concurrent refresh with the same token
        // finds it spent.
        let by = oauth_actor(&grant);
        let outcome = catalog
            .commit(now, &by, |state| {
                let Some(current) = state.grants.get(&grant_id) else {
                    return Ok((Vec::new(), Err("the refresh token is unknown".to_string())));
                };
                if current.revoked.is_some() {
                    return Ok((Vec::new(), Err("the grant was revoked".to_string())));
                }
                if !bool::from(current.refresh_sha256.as_bytes().ct_eq(given.as_bytes())) {
                    return Ok((Vec::new(), Err("spent".to_string())));
                }
                let mut updated = current.clone();
                updated.spent.push(given.clone());
                let excess = updated.spent.len().saturating_sub(SPENT_KEPT);
                updated.spent.drain(..excess);
                updated.refresh_sha256 = sha256_hex(&new_refresh);
                Ok((
                    vec![Change::GrantPut(updated), Change::TokenPut(token.clone())],
                    Ok(()),
                ))
            })
            .await?;
        match outcome.as_ref().map_err(String::as_str) {
            Ok(()) => Ok(self.token_response(access.secret, new_refresh, &grant.scopes)),
            Err("spent") => {
                self.end_grant(&account, &grant_id, &Actor::podhost())
                    .await?;
                Err(bad(
                    "the refresh token was used already; the grant is revoked",
                ))
            }
            Err(why) => Err(bad(why)),
        }
    }
}

impl Access<'_> {
    /// Registers an OAuth client of the caller's account (scope `tokens`): its name, the redirect
    /// URIs it may use, whether it is confidential (then a secret is made and shown once), and
    /// the scopes it may ask for.
    pub async fn create_client(
        self,
        who: &Principal,
        name: &str,
        redirect_uris: Vec<String>,
        confidential: bool,
        scopes: Scopes,
    ) -> Result<NewOAuthClient> {
        who.authorize(Action::ManageTokens)?;
        let mut errors = FieldErrors::default();
        crate::host::user_text::check_line(&mut errors, "name", name);
        if name.trim().is_empty() {
            errors.add(
                "name",
                "a name, shown to users when they are asked to consent",
            );
        }
        let redirect_uris: Vec<String> = redirect_uris
            .into_iter()
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .collect();
        if redirect_uris.is_empty() {
            errors.add("redirect_uris", "at least one redirect URI");
        }
        for uri in &redirect_uris {
            check_redirect_uri(&mut errors, uri);
        }
        if scopes.is_empty() {
            errors.add("scopes", "at least one scope the client may ask for");
        }
        errors.into_result()?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut id = ClientId::random();
        while &claims::claim(self.host.store(), &layout::client_claim(&id), who.account()).await?
            != who.account()
        {
            id = ClientId::random();
        }
        let secret = confidential.then(|| format!("phs_{}", random_secret()));
        let client = OAuthClient {
            id,
            name: name.trim().to_string(),
            redirect_uris,
            confidential,
            scopes,
            created: self.host.now(),
            secret_sha256: secret.as_deref().map(sha256_hex),
        };
        let stored = client.clone();
        catalog
            .commit(self.host.now(), &who.actor(), move |_| {
                Ok((vec![Change::ClientPut(stored.clone())], ()))
            })
            .await?;
        Ok(NewOAuthClient { client, secret })
    }

    /// The caller's OAuth clients (scope `tokens`), oldest first.
    pub async fn list_clients(self, who: &Principal) -> Result<Vec<OAuthClient>> {
        who.authorize(Action::ManageTokens)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut clients: Vec<OAuthClient> = catalog
            .read(|s| s.clients.values().cloned().collect())
            .await;
        clients.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        Ok(clients)
    }

    /// Deletes one of the caller's OAuth clients (scope `tokens`): no more codes or refreshes
    /// for it (its access tokens end when they expire).
    pub async fn delete_client(self, who: &Principal, id: &ClientId) -> Result<()> {
        who.authorize(Action::ManageTokens)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .commit(self.host.now(), &who.actor(), |state| {
                if !state.clients.contains_key(id) {
                    return Err(Error::not_found("client", id));
                }
                Ok((vec![Change::ClientRemoved { id: id.clone() }], ()))
            })
            .await
    }

    /// The grants the caller's account gave to OAuth clients (scope `tokens`), newest first,
    /// revoked ones included.
    pub async fn list_grants(self, who: &Principal) -> Result<Vec<Grant>> {
        who.authorize(Action::ManageTokens)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut grants: Vec<Grant> = catalog.read(|s| s.grants.values().cloned().collect()).await;
        grants.sort_by(|a, b| b.created.cmp(&a.created).then(a.id.cmp(&b.id)));
        Ok(grants)
    }

    /// Revokes a grant of the caller's account (scope `tokens`): its tokens stop working on
    /// every process within a second, its refresh token is refused.
    pub async fn revoke_grant(self, who: &Principal, id: &GrantId) -> Result<()> {
        who.authorize(Action::ManageTokens)?;
        self.host
            .end_grant(who.account(), id, &who.actor())
            .await
            .map(drop)
    }

    /// Checks an authorization request (the authorization endpoint, before the user is asked).
    /// The client and its redirect URI must be known exactly, or the error is shown to the user;
    /// other problems go back to the client's redirect URI.
    pub async fn check_authorize(
        self,
        request: &AuthorizeRequest,
    ) -> std::result::Result<Authorization, AuthorizeError> {
        let show = |m: &str| AuthorizeError::Show(m.to_string());
        let client_id = request
            .client_id
            .as_deref()
            .ok_or_else(|| show("the request names no client (client_id)"))?;
        let (_, client) = self
            .host
            .find_client(client_id)
            .await
            .map_err(|e| show(&format!("the client cannot be read now: {e}")))?
            .ok_or_else(|| show("there is no such client (client_id)"))?;
        let redirect_uri = request
            .redirect_uri
            .as_deref()
            .ok_or_else(|| show("the request has no redirect_uri"))?;
        if !client.redirect_uris.iter().any(|u| u == redirect_uri) {
            return Err(show(
                "the redirect_uri is not one this client registered (it must match exactly)",
            ));
        }
        let back = |error: &str, description: &str| {
            let mut params = vec![("error", error), ("error_description", description)];
            if let Some(state) = &request.state {
                params.push(("state", state));
            }
            // RFC 9207: the issuer, so that a client of several servers knows who answered.
            params.push(("iss", self.host.urls().base()));
            AuthorizeError::Redirect(with_query(redirect_uri, &params))
        };
        if request.response_type.as_deref() != Some("code") {
            return Err(back(
                "unsupported_response_type",
                "only the authorization code flow (response_type=code) is offered",
            ));
        }
        let challenge = match (
            request.code_challenge.as_deref(),
            request.code_challenge_method.as_deref(),
        ) {
            (Some(c), Some("S256")) if (43..=128).contains(&c.len()) => c.to_string(),
            (Some(_), Some("S256")) => {
                return Err(back("invalid_request", "the code_challenge is malformed"));
            }
            (_, Some(other)) if other != "S256" => {
                return Err(back(
                    "invalid_request",
                    "only the S256 code_challenge_method is accepted",
                ));
            }
            _ => {
                return Err(back(
                    "invalid_request",
                    "PKCE is required: code_challenge and code_challenge_method=S256",
                ));
            }
        };
        let scopes = match request.scope.as_deref().map(str::trim) {
            None | Some("") => client.scopes.clone(),
            Some(words) => match Scopes::parse_list(&words.replace(' ', ",")) {
                Ok(scopes) => scopes,
                Err(e) => return Err(back("invalid_scope", &e.to_string())),
            },
        };
        if !client.scopes.covers(&scopes) {
            return Err(back(
                "invalid_scope",
                &format!(
                    "this client may ask for {} only",
                    scope_words(&client.scopes)
                ),
            ));
        }
        Ok(Authorization {
            client,
            scopes,
            redirect_uri: redirect_uri.to_string(),
            state: request.state.clone(),
            challenge,
        })
    }

    /// The user (the owner of their account, signed in to the site) consented: a code for the
    /// client, and the redirect URI with it and the state.
    pub async fn approve(self, who: &Principal, authorization: &Authorization) -> Result<String> {
        who.authorize(Action::ManageTokens)?;
        let code = random_secret();
        let stored = Code {
            account: who.account().clone(),
            member: who.member_id().cloned(),
            client: authorization.client.id.clone(),
            redirect_uri: authorization.redirect_uri.clone(),
            scopes: authorization.scopes.clone(),
            challenge: authorization.challenge.clone(),
            expires: self.host.now() + CODE_LIFETIME,
        };
        let body = serde_json::to_vec(&stored).map_err(|e| Error::storage(e.to_string()))?;
        put_if_absent(
            self.host.store(),
            &layout::oauth_code(&sha256_hex(&code)),
            PutPayload::from(body),
        )
        .await?;
        let mut params = vec![("code", code.as_str())];
        if let Some(state) = &authorization.state {
            params.push(("state", state));
        }
        params.push(("iss", self.host.urls().base()));
        Ok(with_query(&authorization.redirect_uri, &params))
    }

    /// The user refused: the redirect URI with `access_denied` and the state.
    pub fn deny(self, authorization: &Authorization) -> String {
        let mut params = vec![
            ("error", "access_denied"),
            ("error_description", "the user refused"),
        ];
        if let Some(state) = &authorization.state {
            params.push(("state", state));
        }
        params.push(("iss", self.host.urls().base()));
        with_query(&authorization.redirect_uri, &params)
    }

    /// The token endpoint: an authorization code (with its PKCE verifier and redirect URI) or a
    /// refresh token exchanged for tokens.
    pub async fn token(
        self,
        request: &TokenRequest,
    ) -> std::result::Result<TokenResponse, OAuthError> {
        match request.grant_type.as_deref() {
            Some("authorization_code") => self.host.exchange_code(request).await,
            Some("refresh_token") => self.host.refresh(request).await,
            Some(other) => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("{other} is not offered: authorization_code or refresh_token"),
            )),
            None => Err(OAuthError::new("invalid_request", "grant_type is missing")),
        }
    }

    /// Revocation (RFC 7009): a refresh token ends its grant, an access token itself. The
    /// client must authenticate and may only revoke its own tokens; an unknown token is no
    /// error (the answer is the same either way).
    pub async fn revoke_oauth_token(
        self,
        token: &str,
        client: &TokenRequest,
    ) -> std::result::Result<(), OAuthError> {
        let (_, client) = self.host.client_of(client).await?;
        if let Some((account, grant_id)) = self.host.grant_of(token).await? {
            let catalog = self.host.catalog(&account).await?;
            let grant = catalog.read(|s| s.grants.get(&grant_id).cloned()).await;
            if let Some(grant) = grant {
                let given = sha256_hex(token);
                let current = grant
                    .refresh_sha256
                    .as_bytes()
                    .ct_eq(given.as_bytes())
                    .into()
                    || grant
                        .spent
                        .iter()
                        .any(|s| s.as_bytes().ct_eq(given.as_bytes()).into());
                if current {
                    if grant.client != client.id {
                        return Err(OAuthError::new(
                            "unauthorized_client",
                            "the token was given to another client",
                        ));
                    }
                    self.host
                        .end_grant(&account, &grant_id, &Actor::podhost())
                        .await?;
                }
            }
            return Ok(());
        }
        // An access token: find it as authentication does, then revoke it.
        if let Ok(who) = self.host.access().authenticate(token).await
            && let Some(id) = who.token_id()
        {
            let catalog = self.host.catalog(who.account()).await?;
            let grant = catalog
                .read(|s| s.tokens.get(id).and_then(|t| t.grant.clone()))
                .await;
            let owned = match &grant {
                Some(g) => catalog
                    .read(|s| s.grants.get(g).map(|g| g.client == client.id))
                    .await
                    .unwrap_or(false),
                None => false,
            };
            if grant.is_some() && !owned {
                return Err(OAuthError::new(
                    "unauthorized_client",
                    "the token was given to another client",
                ));
            }
            if owned {
                let now = self.host.now();
                catalog
                    .commit(now, &who.actor(), |state| {
                        let Some(token) = state.tokens.get(id) else {
                            return Ok((Vec::new(), ()));
                        };
                        Ok((
                            vec![Change::TokenPut(Token {
                                revoked: Some(now),
                                ..token.clone()
                            })],
                            (),
                        ))
                    })
                    .await?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_or_loopback_without_fragments() {
        let cases = [
            ("https://app.example/callback", true),
            ("http://127.0.0.1:8123/cb", true),
            ("http://[::1]/cb", true),
            ("http://localhost:9000/cb", true),
            ("http://app.example/callback", false),
            ("https://app.example/cb#frag", false),
            ("https://user:pw@app.example/cb", false),
            ("javascript:alert(1)", false),
            ("not a url", false),
        ];
        for (uri, ok) in cases {
            let mut errors = FieldErrors::default();
            check_redirect_uri(&mut errors, uri);
            assert_eq!(errors.is_empty(), ok, "{uri}: {errors}");
        }
    }

    #[test]
    fn redirects_keep_the_uris_own_query() {
        assert_eq!(
            with_query(
                "https://app.example/cb?x=1",
                &[("code", "a b"), ("state", "s&t")]
            ),
            "https://app.example/cb?x=1&code=a+b&state=s%26t"
        );
    }
}
