//! Deployment-wide names (feed ids, token ids, OAuth clients and grants) as claims in the store:
//! written once with put-if-absent, never released, each naming the account that holds it.

use std::sync::Arc;

use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, path::Path};

use crate::{
    error::{Error, Result},
    ids::AccountId,
};

/// Writes `claims/...` with put-if-absent: the deployment-wide uniqueness of a name. The claim
/// holds the account. Returns the account holding the claim (ours if we won, or if an earlier
/// attempt of ours did).
pub(super) async fn claim(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
    account: &AccountId,
) -> Result<AccountId> {
    let body = serde_json::to_vec(&serde_json::json!({ "account": account.as_str() }))
        .map_err(|e| Error::storage(e.to_string()))?;
    let opts = PutOptions {
        mode: PutMode::Create,
        ..Default::default()
    };
    match store.put_opts(path, PutPayload::from(body), opts).await {
        Ok(_) => Ok(account.clone()),
        Err(object_store::Error::AlreadyExists { .. }) => read_claim(store, path)
            .await?
            .ok_or_else(|| Error::storage(format!("claim {path} vanished"))),
        Err(e) => Err(e.into()),
    }
}

/// Reads a claim: the account that holds it, if any.
pub(super) async fn read_claim(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
) -> Result<Option<AccountId>> {
    #[derive(serde::Deserialize)]
    struct Claim {
        account: AccountId,
    }
    let bytes = match store.get(path).await {
        Ok(got) => got.bytes().await?,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let claim: Claim = serde_json::from_slice(&bytes)
        .map_err(|e| Error::storage(format!("{path} is unreadable: {e}")))?;
    Ok(Some(claim.account))
}
