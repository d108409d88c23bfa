//! `podhost member invite|list|show|update|remove` and `podhost member activity`.

use clap::Subcommand;
use podhost_core::{
    ActivityQuery, FeedId, MemberId,
    model::{Member, MemberPatch, NewMember, PageRequest, Role},
};
use serde_json::json;

use podhost_http::wire::members;

use crate::{context::Env, output::time};

/// Member commands.
#[derive(Debug, Subcommand)]
pub enum MemberCommand {
    /// Invites a person with a role and prints the invitation's URL (one use, 7 days).
    Invite {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The person's login: a lowercase name or an e-mail address.
        login: String,
        /// owner, admin, editor, author or analyst.
        #[arg(long)]
        role: String,
        /// Their name (default: the login).
        #[arg(long, default_value = "")]
        name: String,
        /// The podcasts they may touch, comma-separated (default: all).
        #[arg(long)]
        feeds: Option<String>,
    },
    /// Lists the account's members.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
    /// Shows a member (by id or login).
    Show {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The member's id (mem_...) or login.
        member: String,
    },
    /// Changes a member's role, name or podcasts.
    Update {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The member's id (mem_...) or login.
        member: String,
        /// A new role.
        #[arg(long)]
        role: Option<String>,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        /// New podcasts, comma-separated; `all` for every podcast of the account.
        #[arg(long)]
        feeds: Option<String>,
    },
    /// Removes a member: their tokens and grants stop on every server within a second.
    Remove {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The member's id (mem_...) or login.
        member: String,
    },
    /// Who did what: the account's changes, newest first.
    Activity {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// Only changes to this podcast.
        #[arg(long)]
        feed: Option<String>,
        /// Only changes by this member (id or login).
        #[arg(long)]
        member: Option<String>,
        /// Only changes at or after this moment (RFC 3339).
        #[arg(long)]
        from: Option<String>,
        /// Only changes before this moment (RFC 3339).
        #[arg(long)]
        to: Option<String>,
        /// At most this many (newest first).
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
}

fn feed_list(list: &str) -> anyhow::Result<Vec<FeedId>> {
    list.split(',')
        .filter(|f| !f.trim().is_empty())
        .map(|f| Ok(FeedId::new(f.trim())?))
        .collect()
}

/// A member as the API shows them, and their cells in the text table.
fn row(m: &Member, last_seen: Option<jiff::Timestamp>) -> (members::MemberRecord, Vec<String>) {
    let record = members::member(m, last_seen);
    let cells = vec![
        record.id.clone(),
        record.login.clone(),
        record.name.clone(),
        m.role.as_str().to_string(),
        record.feeds.as_ref().map_or("all".into(), |f| f.join(",")),
        record.status.clone(),
        time(m.created),
    ];
    (record, cells)
}

/// The member named by an id or a login.
async fn find(
    host: &podhost_core::PodcastHost,
    who: &podhost_core::Principal,
    member: &str,
) -> anyhow::Result<MemberId> {
    if let Ok(id) = member.parse::<MemberId>() {
        return Ok(id);
    }
    let login = podhost_core::Login::new(member)?;
    host.access()
        .list_members(who)
        .await?
        .into_iter()
        .find(|m| m.member.login == login)
        .map(|m| m.member.id)
        .ok_or_else(|| anyhow::anyhow!("no member {login} (see `podhost member list`)"))
}

impl super::Run for MemberCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            MemberCommand::Invite {
                user,
                login,
                role,
                name,
                feeds,
            } => {
                let user = env.user(&host, user.name()).await?;
                let role: Role = role.parse()?;
                let feeds = feeds.as_deref().map(feed_list).transpose()?;
                let invited = host
                    .access()
                    .invite_member(
                        &user.who,
                        NewMember {
                            login,
                            name,
                            role,
                            feeds,
                        },
                    )
                    .await?;
                out.print(members::invited(&invited), || {
                    invited.invitation_url.clone()
                })?;
            }
            MemberCommand::List { user } => {
                let user = env.user(&host, user.name()).await?;
                let rows = host
                    .access()
                    .list_members(&user.who)
                    .await?
                    .iter()
                    .map(|m| row(&m.member, m.last_seen))
                    .collect();
                out.table(
                    &[
                        "ID", "LOGIN", "NAME", "ROLE", "PODCASTS", "STATUS", "CREATED",
                    ],
                    rows,
                )?;
            }
            MemberCommand::Show { user, member } => {
                let user = env.user(&host, user.name()).await?;
                let id = find(&host, &user.who, &member).await?;
                let member = host.access().get_member(&user.who, &id).await?;
                let seen = host.access().member_last_seen(&user.who, &id).await?;
                let (record, cells) = row(&member, seen);
                out.print(record, || cells.join("  "))?;
            }
            MemberCommand::Update {
                user,
                member,
                role,
                name,
                feeds,
            } => {
                let user = env.user(&host, user.name()).await?;
                let id = find(&host, &user.who, &member).await?;
                let patch = MemberPatch {
                    name,
                    role: role.map(|r| r.parse()).transpose()?,
                    feeds: match feeds.as_deref() {
                        None => None,
                        Some("all") => Some(None),
                        Some(list) => Some(Some(feed_list(list)?)),
                    },
                };
                let member = host.access().update_member(&user.who, &id, &patch).await?;
                let seen = host.access().member_last_seen(&user.who, &id).await?;
                let (record, cells) = row(&member, seen);
                out.print(record, || cells.join("  "))?;
            }
            MemberCommand::Remove { user, member } => {
                let user = env.user(&host, user.name()).await?;
                let id = find(&host, &user.who, &member).await?;
                host.access().remove_member(&user.who, &id).await?;
                out.print(json!({"id": id.to_string(), "removed": true}), || {
                    format!("removed {id}")
                })?;
            }
            MemberCommand::Activity {
                user,
                feed,
                member,
                from,
                to,
                limit,
            } => {
                let user = env.user(&host, user.name()).await?;
                let member = match member {
                    Some(m) => Some(find(&host, &user.who, &m).await?),
                    None => None,
                };
                let query = ActivityQuery {
                    feed: feed.as_deref().map(FeedId::new).transpose()?,
                    member,
                    from: from.as_deref().map(str::parse).transpose()?,
                    to: to.as_deref().map(str::parse).transpose()?,
                    page: PageRequest::new(Some(1), Some(i64::from(limit)))?,
                };
                let rows = host
                    .access()
                    .activity(&user.who, &query)
                    .await?
                    .items
                    .into_iter()
                    .map(|a| {
                        let who = a
                            .actor
                            .login
                            .as_ref()
                            .map(|l| l.to_string())
                            .unwrap_or_else(|| a.actor.via.as_str().to_string());
                        let object = match &a.object.feed {
                            Some(feed) if a.object.kind != "podcast" => {
                                format!("{} {} of {feed}", a.object.kind, a.object.id)
                            }
                            _ => format!("{} {}", a.object.kind, a.object.id),
                        };
                        (
                            serde_json::to_value(podhost_http::wire::members::activity(&a))
                                .unwrap_or_default(),
                            vec![
                                time(a.at),
                                who,
                                a.actor.via.as_str().to_string(),
                                a.action,
                                object,
                            ],
                        )
                    })
                    .collect();
                out.table(&["AT", "WHO", "VIA", "ACTION", "OBJECT"], rows)?;
            }
        }
        Ok(())
    }
}
