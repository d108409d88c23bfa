//! `podhost user create NAME [--password-stdin | --existing-person]`, `podhost user list`,
//! `podhost user passwd NAME [--stdin | --remove]`.

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
        /// Also set the account's password for the key-management site, read from the first
        /// line of standard input.
        #[arg(long, conflicts_with = "existing_person")]
        password_stdin: bool,
        /// When a person holds the login NAME already (they joined another account by an
        /// invitation), make the account theirs: they are its owner and sign in with their own
        /// password. Without it, such a name is refused, saying who holds it.
        #[arg(long)]
        existing_person: bool,
    },
    /// Lists the accounts.
    List,
    /// Sets the password an account signs in to the key-management site (`/account`) with:
    /// asked for twice on a terminal, or read from the first line of standard input.
    Passwd {
        /// The account.
        name: String,
        /// Read the password from the first line of standard input instead of asking.
        #[arg(long, conflicts_with = "remove")]
        stdin: bool,
        /// Remove the password: the account can no longer sign in (its tokens keep working).
        #[arg(long)]
        remove: bool,
    },
}

/// The first line of standard input, without its line ending.
fn password_from_stdin() -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

/// Asks for a new password twice on the terminal, without echo.
fn password_from_terminal() -> anyhow::Result<String> {
    let first = rpassword::prompt_password("New password: ")?;
    let again = rpassword::prompt_password("Again: ")?;
    if first != again {
        return Err(crate::error::Failure::invalid(
            "the two passwords differ; nothing was changed",
        )
        .into());
    }
    Ok(first)
}

impl super::Run for UserCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            UserCommand::Create {
                name,
                password_stdin,
                existing_person,
            } => {
                let password = match password_stdin {
                    true => Some(password_from_stdin()?),
                    false => None,
                };
                let created = match existing_person {
                    true => host.access().create_account_for_person(&name).await,
                    false => host.access().create_account(&name).await,
                };
                let account = match created {
                    Err(podhost_core::Error::Conflict { message })
                        if host.access().login_holder(&name).await?.is_some() =>
                    {
                        return Err(crate::error::Failure {
                            code: crate::error::Code::Conflict,
                            message: format!(
                                "{message} (podhost user create {name} --existing-person); nothing was created"
                            ),
                        }
                        .into());
                    }
                    other => other?,
                };
                let holder = match existing_person {
                    true => host.access().login_holder(account.id.as_str()).await?,
                    false => None,
                };
                if let Some(password) = password {
                    host.access()
                        .set_password(&account.id, Some(&password))
                        .await?;
                }
                out.print(
                    json!({
                        "name": account.id.as_str(),
                        "created": time(account.created),
                        "existing_person": holder.is_some(),
                    }),
                    || match &holder {
                        Some(holder) => format!(
                            "created user {}: {holder}; they own it now and sign in to it with their password",
                            account.id
                        ),
                        None => format!("created user {}", account.id),
                    },
                )?;
            }
            UserCommand::List => {
                let rows = host
                    .access()
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
            UserCommand::Passwd {
                name,
                stdin,
                remove,
            } => {
                let account: podhost_core::AccountId = name.trim().parse()?;
                // Refuse an unknown account before asking for anything.
                host.access().owner(&account).await?;
                let password = match (remove, stdin) {
                    (true, _) => None,
                    (false, true) => Some(password_from_stdin()?),
                    (false, false) => Some(password_from_terminal()?),
                };
                host.access()
                    .set_password(&account, password.as_deref())
                    .await?;
                let set = password.is_some();
                out.print(
                    json!({"name": account.as_str(), "password": set}),
                    || match set {
                        true => {
                            format!("the password of {account} is set; it signs in at /account")
                        }
                        false => format!("{account} has no password now; it cannot sign in"),
                    },
                )?;
            }
        }
        Ok(())
    }
}
