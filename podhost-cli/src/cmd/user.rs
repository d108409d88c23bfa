//! `podhost user create NAME`, `podhost user list`.

use clap::Subcommand;
use podhost_core::PodcastHost;
use serde_json::json;

use crate::output::{Output, time};

/// Account commands.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Creates an account.
    Create {
        /// Lowercase letters, digits, '-' and '_'.
        name: String,
    },
    /// Lists the accounts.
    List,
}

pub(crate) async fn run(
    host: &PodcastHost,
    out: &Output,
    command: UserCommand,
) -> anyhow::Result<()> {
    match command {
        UserCommand::Create { name } => {
            let account = host.create_account(&name).await?;
            out.print(
                json!({"name": account.id.as_str(), "created": time(account.created)}),
                || format!("created user {}", account.id),
            )?;
        }
        UserCommand::List => {
            let rows = host
                .list_accounts()
                .await?
                .into_iter()
                .map(|a| {
                    let created = time(a.created);
                    (
                        json!({"name": a.id.as_str(), "created": created}),
                        vec![a.id.to_string(), created],
                    )
                })
                .collect();
            out.table(&["NAME", "CREATED"], rows)?;
        }
    }
    Ok(())
}
