//! `podhost user create NAME`, `podhost user list`.

use clap::Subcommand;
use serde_json::json;

use crate::{context::Env, output::time};

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

impl super::Run for UserCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
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
}
