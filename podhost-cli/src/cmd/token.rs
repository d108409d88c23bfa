//! `podhost token create|list|revoke`.

use clap::Subcommand;
use podhost_core::{Scopes, TokenId};
use podhost_http::wire::access;

use crate::{context::Env, output::time};

/// Token commands.
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Creates a token and prints its secret alone on stdout (shown this once).
    Create {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// Comma-separated: media, media-read-only, feeds, feeds-read-only, shows,
        /// shows-read-only, webhooks, stats, tokens, metrics, ads, ads-read-only, members,
        /// members-read-only.
        #[arg(long)]
        scopes: String,
        /// The member (login) the token acts as: its scopes are limited by their role at every
        /// use, and it stops when they are removed (default: the account's founding owner).
        #[arg(long)]
        member: Option<String>,
        /// Words to recognise the token by.
        #[arg(long, default_value = "")]
        label: String,
    },
    /// Lists an account's tokens (never their secrets).
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
    /// Revokes a token by its id (tok_...); it stops working on every server within a second.
    Revoke {
        /// The token id from `podhost token list`.
        token_id: String,
    },
}

impl super::Run for TokenCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            TokenCommand::Create {
                user,
                scopes,
                label,
                member,
            } => {
                let scopes = Scopes::parse_list(&scopes)?;
                let user = env.user(&host, user.name()).await?;
                let new = match member {
                    Some(login) => {
                        host.access()
                            .create_member_token(user.who.account(), &login, &label, scopes)
                            .await?
                    }
                    None => {
                        host.access()
                            .create_token(&user.who, &label, scopes)
                            .await?
                    }
                };
                let shown = access::CreatedToken {
                    record: access::token(&new.token, None),
                    token: new.secret.clone(),
                };
                out.print(shown, || new.secret.clone())?;
            }
            TokenCommand::List { user } => {
                let user = env.user(&host, user.name()).await?;
                let rows = host
                    .access()
                    .list_tokens(&user.who)
                    .await?
                    .into_iter()
                    .map(|listed| {
                        let t = &listed.token;
                        let record = access::token(t, listed.last_used);
                        let cells = vec![
                            t.id.to_string(),
                            t.label.clone(),
                            t.scopes.to_string(),
                            time(t.created),
                            listed.last_used.map(time).unwrap_or_default(),
                            t.revoked.map(time).unwrap_or_default(),
                        ];
                        (record, cells)
                    })
                    .collect();
                out.table(
                    &["ID", "LABEL", "SCOPES", "CREATED", "LAST USED", "REVOKED"],
                    rows,
                )?;
            }
            TokenCommand::Revoke { token_id } => {
                let id: TokenId = token_id.parse()?;
                let token = host.access().revoke_token_by_id(&id).await?;
                out.print(access::token(&token, None), || {
                    format!("revoked {}", token.id)
                })?;
            }
        }
        Ok(())
    }
}
