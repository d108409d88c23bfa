//! One module per subcommand.

pub mod export;
pub mod feed;
pub mod import;
pub mod serve;
pub mod sweep;
pub mod token;
pub mod user;
pub mod webhook;

use podhost_core::{AccountId, PodcastHost, Principal};

/// The owner principal of `--user NAME`.
async fn owner(host: &PodcastHost, user: &str) -> anyhow::Result<Principal> {
    let account: AccountId = user.parse()?;
    Ok(host.owner(&account).await?)
}
