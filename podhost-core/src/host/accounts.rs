//! Accounts and tokens: creating, listing, revoking, authenticating.

use base64::Engine;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload, path::Path};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::PodcastHost;
use crate::{
    catalog::Catalog,
    error::{Error, Result},
    ids::{AccountId, TokenId},
    model::{Account, NewToken, Token},
    principal::Principal,
    scope::Scopes,
    state::Change,
    store::layout,
};

/// Secrets look like `phk_<16 characters of the token id>_<43 characters of base64url>`.
const SECRET_PREFIX: &str = "phk_";

fn token_claim_path(id: &TokenId) -> Path {
    layout::token_claim(id)
}

fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Writes `claims/...` with put-if-absent: the deployment-wide uniqueness of a name. The claim
/// holds the account. Returns the account holding the claim (ours if we won, or if an earlier
/// attempt of ours did).
pub(super) async fn claim(
    host: &PodcastHost,
    path: &Path,
    account: &AccountId,
) -> Result<AccountId> {
    let body = serde_json::to_vec(&serde_json::json!({ "account": account.as_str() }))
        .map_err(|e| Error::storage(e.to_string()))?;
    let opts = PutOptions {
        mode: PutMode::Create,
        ..Default::default()
    };
    match host
        .store()
        .put_opts(path, PutPayload::from(body), opts)
        .await
    {
        Ok(_) => Ok(account.clone()),
        Err(object_store::Error::AlreadyExists { .. }) => read_claim(host, path)
            .await?
            .ok_or_else(|| Error::storage(format!("claim {path} vanished"))),
        Err(e) => Err(e.into()),
    }
}

/// Reads a claim: the account that holds it, if any.
pub(super) async fn read_claim(host: &PodcastHost, path: &Path) -> Result<Option<AccountId>> {
    #[derive(serde::Deserialize)]
    struct Claim {
        account: AccountId,
    }
    let bytes = match host.store().get(path).await {
        Ok(got) => got.bytes().await?,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let claim: Claim = serde_json::from_slice(&bytes)
        .map_err(|e| Error::storage(format!("{path} is unreadable: {e}")))?;
    Ok(Some(claim.account))
}

impl PodcastHost {
    /// Creates an account. Operator-level: the embedding application decides who may call it.
    /// `Conflict` when the name is taken.
    pub async fn create_account(&self, name: &str) -> Result<Account> {
        let id = AccountId::new(name)?;
        let account = Account {
            id: id.clone(),
            created: self.now(),
        };
        let catalog = Catalog::create(
            self.store().clone(),
            Self::account_root(&id),
            self.config().catalog.clone(),
            account.created,
            vec![Change::AccountCreated(account.clone())],
        )
        .await
        .map_err(|e| match e {
            Error::Conflict { .. } => Error::conflict(format!("the account {id} exists already")),
            other => other,
        })?;
        let cell = {
            let mut accounts = self
                .inner
                .accounts
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            accounts.entry(id).or_default().clone()
        };
        let _ = cell.set(std::sync::Arc::new(catalog));
        Ok(account)
    }

    /// The accounts of the deployment, by name. Operator-level.
    pub async fn list_accounts(&self) -> Result<Vec<Account>> {
        let listed = self
            .store()
            .list_with_delimiter(Some(&layout::accounts()))
            .await?;
        let mut accounts = Vec::new();
        for prefix in listed.common_prefixes {
            let Some(id) = layout::account_of(&prefix) else {
                continue;
            };
            match self.catalog(&id).await {
                Ok(catalog) => {
                    if let Some(account) = catalog.read(|s| s.account.clone()).await {
                        accounts.push(account);
                    }
                }
                // A folder with blobs but no log (an upload cut off before the account was
                // created cannot happen, but a stranger's folder can): not an account.
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        accounts.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(accounts)
    }

    /// The owner of an account, with every scope: for operators (the CLI) and embedding
    /// applications that authenticate users themselves. `NotFound` for an unknown account.
    pub async fn owner(&self, account: &AccountId) -> Result<Principal> {
        self.catalog(account).await?;
        Ok(Principal::owner(account.clone()))
    }

    /// Creates a token for the caller's account. Only the owner manages tokens. The secret is
    /// in the answer and nowhere else.
    pub async fn create_token(
        &self,
        who: &Principal,
        label: &str,
        scopes: Scopes,
    ) -> Result<NewToken> {
        who.require_owner()?;
        let mut errors = crate::error::FieldErrors::default();
        super::text::check_line(&mut errors, "label", label);
        if scopes.is_empty() {
            errors.add("scopes", "a token needs at least one scope");
        }
        errors.into_result()?;
        let catalog = self.catalog(who.account()).await?;
        // The claim maps the token id to the account, so a secret finds its account without a
        // deployment-wide index of secrets. Ids are random: a taken one is drawn again.
        let mut id = TokenId::random();
        while &claim(self, &token_claim_path(&id), who.account()).await? != who.account() {
            id = TokenId::random();
        }
        let mut random = [0u8; 32];
        rand::rng().fill_bytes(&mut random);
        let secret = format!(
            "{SECRET_PREFIX}{}_{}",
            &id.as_str()[4..],
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random)
        );
        let token = Token {
            id,
            label: label.to_string(),
            scopes,
            created: self.now(),
            revoked: None,
            secret_sha256: sha256_hex(&secret),
        };
        let stored = token.clone();
        catalog
            .commit(self.now(), move |_| {
                Ok((vec![Change::TokenPut(stored.clone())], ()))
            })
            .await?;
        Ok(NewToken { token, secret })
    }

    /// The caller's account's tokens (revoked ones included), oldest first. Owner only.
    pub async fn list_tokens(&self, who: &Principal) -> Result<Vec<Token>> {
        who.require_owner()?;
        let catalog = self.catalog(who.account()).await?;
        let mut tokens = catalog
            .read(|s| s.tokens.values().cloned().collect::<Vec<_>>())
            .await;
        tokens.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        Ok(tokens)
    }

    /// Revokes a token of the caller's account. Owner only. Revoking twice is not an error.
    pub async fn revoke_token(&self, who: &Principal, id: &TokenId) -> Result<Token> {
        who.require_owner()?;
        let catalog = self.catalog(who.account()).await?;
        let now = self.now();
        catalog
            .commit(now, |state| {
                let mut token = state
                    .tokens
                    .get(id)
                    .cloned()
                    .ok_or_else(|| Error::not_found("token", id))?;
                if token.revoked.is_some() {
                    return Ok((vec![], token));
                }
                token.revoked = Some(now);
                Ok((vec![Change::TokenPut(token.clone())], token))
            })
            .await
    }

    /// Revokes a token by id alone, whatever its account. Operator-level (the CLI).
    pub async fn revoke_token_by_id(&self, id: &TokenId) -> Result<Token> {
        let account = read_claim(self, &token_claim_path(id))
            .await?
            .ok_or_else(|| Error::not_found("token", id))?;
        let owner = self.owner(&account).await?;
        self.revoke_token(&owner, id).await
    }

    /// Turns a bearer secret into its principal. `Unauthenticated` for a malformed, unknown or
    /// revoked secret; the comparison takes the same time whatever the secret.
    pub async fn authenticate(&self, secret: &str) -> Result<Principal> {
        let id = parse_secret(secret).ok_or(Error::Unauthenticated)?;
        let cached = self
            .inner
            .token_accounts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id.as_str())
            .cloned();
        let account = match cached {
            Some(account) => account,
            None => {
                let account = read_claim(self, &token_claim_path(&id))
                    .await?
                    .ok_or(Error::Unauthenticated)?;
                // Claims never change, so the mapping can be kept.
                self.inner
                    .token_accounts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.as_str().to_string(), account.clone());
                account
            }
        };
        let catalog = match self.catalog(&account).await {
            Ok(catalog) => catalog,
            Err(Error::NotFound { .. }) => return Err(Error::Unauthenticated),
            Err(e) => return Err(e),
        };
        let digest = sha256_hex(secret);
        let token = catalog.read(|s| s.tokens.get(&id).cloned()).await;
        match token {
            Some(token)
                if token.revoked.is_none()
                    && bool::from(token.secret_sha256.as_bytes().ct_eq(digest.as_bytes())) =>
            {
                Ok(Principal::token(account, token.scopes, token.id))
            }
            _ => Err(Error::Unauthenticated),
        }
    }
}

fn parse_secret(secret: &str) -> Option<TokenId> {
    let rest = secret.trim().strip_prefix(SECRET_PREFIX)?;
    let (id_tail, random) = (rest.get(..16)?, rest.get(16..)?);
    let random = random.strip_prefix('_')?;
    if random.len() != 43 {
        return None;
    }
    format!("tok_{id_tail}").parse().ok()
}
