//! `podhost campaign create|list|show|update|delete|stats`: ad campaigns, as `/api/campaigns`
//! shows and takes them, and their impressions as `/api/stats/campaigns/{campaign_id}` counts
//! them.

use clap::{Args, Subcommand};
use podhost_core::{
    CampaignId, FeedId, MediaId,
    model::{CampaignPatch, CampaignStatus, CampaignView, NewCampaign, Position},
};
use podhost_http::wire::campaigns::{campaign, campaign_stats};

use crate::{context::Env, error::Failure, output::text_table};

/// Campaign commands.
#[derive(Debug, Subcommand)]
pub enum CampaignCommand {
    /// Creates a campaign: the ad (an audio or video file's media id) and where it goes.
    Create {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// What to call it.
        #[arg(long)]
        name: String,
        /// The ad: an audio or video file's media id (a video ad goes into video streams only).
        #[arg(long, value_name = "MEDIA_ID")]
        media: String,
        /// The fields every change takes.
        #[command(flatten)]
        fields: CampaignFields,
    },
    /// Lists the campaigns, oldest first.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
    /// A campaign's impressions (IAB v2.3): in total, per day since it was made, per episode.
    Stats {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The campaign (cmp_...).
        id: String,
    },
    /// Shows one campaign.
    Show {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The campaign (cmp_...).
        id: String,
    },
    /// Changes a campaign; `--pause` and `--resume` pause and resume it.
    Update {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The campaign (cmp_...).
        id: String,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        /// Another ad: an audio or video file's media id.
        #[arg(long, value_name = "MEDIA_ID")]
        media: Option<String>,
        /// The fields every change takes.
        #[command(flatten)]
        fields: CampaignFields,
        /// Pauses it.
        #[arg(long, conflicts_with = "resume")]
        pause: bool,
        /// Resumes it.
        #[arg(long)]
        resume: bool,
    },
    /// Deletes a campaign (its ad file stays).
    Delete {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The campaign (cmp_...).
        id: String,
    },
}

/// What `create` and `update` both take.
#[derive(Debug, Args)]
pub struct CampaignFields {
    /// Where it goes, comma-separated: preroll, midroll, postroll.
    #[arg(long, value_delimiter = ',')]
    positions: Option<Vec<String>>,
    /// The podcasts it runs in, comma-separated (empty: all of the account's).
    #[arg(long, value_delimiter = ',')]
    feeds: Option<Vec<String>>,
    /// When it starts (RFC 3339; `none`: at once).
    #[arg(long, value_name = "RFC3339")]
    starts: Option<String>,
    /// When it ends (RFC 3339; `none`: never).
    #[arg(long, value_name = "RFC3339")]
    ends: Option<String>,
    /// The impressions after which it stops (`none`: no goal).
    #[arg(long, value_name = "N")]
    goal: Option<String>,
}

fn invalid(message: String) -> anyhow::Error {
    Failure::invalid(message).into()
}

fn media(id: &str) -> anyhow::Result<MediaId> {
    id.trim()
        .parse()
        .map_err(|_| invalid(format!("--media takes a media id, not \"{id}\"")))
}

/// `none` or empty: cleared; else parsed by `parse`.
fn clearable<T>(
    value: &Option<String>,
    parse: impl Fn(&str) -> anyhow::Result<T>,
) -> anyhow::Result<Option<Option<T>>> {
    match value.as_deref().map(str::trim) {
        None => Ok(None),
        Some("" | "none") => Ok(Some(None)),
        Some(text) => parse(text).map(|v| Some(Some(v))),
    }
}

impl CampaignFields {
    fn positions(&self) -> anyhow::Result<Option<Vec<Position>>> {
        self.positions
            .as_ref()
            .map(|list| {
                list.iter()
                    .filter(|p| !p.trim().is_empty())
                    .map(|p| p.trim().parse::<Position>().map_err(anyhow::Error::from))
                    .collect()
            })
            .transpose()
    }

    fn feeds(&self) -> anyhow::Result<Option<Vec<FeedId>>> {
        self.feeds
            .as_ref()
            .map(|list| {
                list.iter()
                    .filter(|f| !f.trim().is_empty())
                    .map(|f| f.trim().parse::<FeedId>().map_err(anyhow::Error::from))
                    .collect()
            })
            .transpose()
    }

    fn times(&self) -> anyhow::Result<[Option<Option<jiff::Timestamp>>; 2]> {
        let time = |flag: &'static str| {
            move |t: &str| {
                t.parse::<jiff::Timestamp>()
                    .map_err(|_| invalid(format!("--{flag} takes an RFC 3339 time, not \"{t}\"")))
            }
        };
        Ok([
            clearable(&self.starts, time("starts"))?,
            clearable(&self.ends, time("ends"))?,
        ])
    }

    fn goal(&self) -> anyhow::Result<Option<Option<u64>>> {
        clearable(&self.goal, |n| {
            n.parse()
                .map_err(|_| invalid(format!("--goal takes a number of impressions, not \"{n}\"")))
        })
    }
}

fn campaign_id(id: &str) -> anyhow::Result<CampaignId> {
    Ok(id.trim().parse::<CampaignId>()?)
}

fn print(env: &Env, view: &CampaignView) -> anyhow::Result<()> {
    let c = &view.campaign;
    let or = |v: Option<String>, none: &str| v.unwrap_or_else(|| none.to_string());
    env.out().fields(campaign(view), || {
        vec![
            ("id", c.id.to_string()),
            ("name", c.name.clone()),
            ("status", view.status.as_str().to_string()),
            ("ad", c.media.to_string()),
            (
                "positions",
                c.positions
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            (
                "podcasts",
                match c.feeds.is_empty() {
                    true => "all".to_string(),
                    false => c
                        .feeds
                        .iter()
                        .map(|f| f.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                },
            ),
            ("starts", or(c.starts.map(|t| t.to_string()), "at once")),
            ("ends", or(c.ends.map(|t| t.to_string()), "never")),
            (
                "goal",
                or(c.impressions_goal.map(|g| g.to_string()), "none"),
            ),
            ("impressions", view.impressions.to_string()),
        ]
    })?;
    Ok(())
}

impl super::Run for CampaignCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        match self {
            CampaignCommand::Create {
                user,
                name,
                media: ad,
                fields,
            } => {
                let user = env.user(&host, user.name()).await?;
                let [starts, ends] = fields.times()?;
                let new = NewCampaign {
                    name,
                    media: Some(media(&ad)?),
                    positions: fields.positions()?.unwrap_or_default(),
                    feeds: fields.feeds()?.unwrap_or_default(),
                    starts: starts.flatten(),
                    ends: ends.flatten(),
                    impressions_goal: fields.goal()?.flatten(),
                };
                let view = user.hint(host.ads().create_campaign(&user.who, new).await)?;
                print(env, &view)?;
            }
            CampaignCommand::List { user } => {
                let user = env.user(&host, user.name()).await?;
                let rows = user
                    .hint(host.ads().list_campaigns(&user.who).await)?
                    .iter()
                    .map(|v| {
                        let c = &v.campaign;
                        (
                            campaign(v),
                            vec![
                                c.id.to_string(),
                                v.status.as_str().to_string(),
                                v.impressions.to_string(),
                                c.name.clone(),
                            ],
                        )
                    })
                    .collect();
                env.out()
                    .table(&["ID", "STATUS", "IMPRESSIONS", "NAME"], rows)?;
            }
            CampaignCommand::Show { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let view =
                    user.hint(host.ads().get_campaign(&user.who, &campaign_id(&id)?).await)?;
                print(env, &view)?;
            }
            CampaignCommand::Update {
                user,
                id,
                name,
                media: ad,
                fields,
                pause,
                resume,
            } => {
                let user = env.user(&host, user.name()).await?;
                let [starts, ends] = fields.times()?;
                let patch = CampaignPatch {
                    name,
                    media: ad.as_deref().map(media).transpose()?,
                    positions: fields.positions()?,
                    feeds: fields.feeds()?,
                    starts,
                    ends,
                    impressions_goal: fields.goal()?,
                    status: match (pause, resume) {
                        (true, _) => Some(CampaignStatus::Paused),
                        (_, true) => Some(CampaignStatus::Active),
                        _ => None,
                    },
                };
                let id = campaign_id(&id)?;
                let view = user.hint(host.ads().update_campaign(&user.who, &id, &patch).await)?;
                print(env, &view)?;
            }
            CampaignCommand::Stats { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let id = campaign_id(&id)?;
                // As `podhost stats`: the days due are closed first.
                host.analytics().close_stats_days().await?;
                let stats = user.hint(host.ads().campaign_stats(&user.who, &id).await)?;
                env.out().print(campaign_stats(&stats), || {
                    let days: Vec<Vec<String>> = stats
                        .days
                        .iter()
                        .map(|d| vec![d.date.to_string(), d.impressions.to_string()])
                        .collect();
                    let episodes: Vec<Vec<String>> = stats
                        .episodes
                        .iter()
                        .map(|e| {
                            vec![
                                e.feed_id.to_string(),
                                e.episode_id.to_string(),
                                e.impressions.to_string(),
                            ]
                        })
                        .collect();
                    [
                        format!("impressions of {id}: {}", stats.impressions),
                        text_table(&["DAY", "IMPRESSIONS"], &days),
                        text_table(&["FEED", "EPISODE", "IMPRESSIONS"], &episodes),
                    ]
                    .join("\n\n")
                })?;
            }
            CampaignCommand::Delete { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let id = campaign_id(&id)?;
                user.hint(host.ads().delete_campaign(&user.who, &id).await)?;
                env.out().print(
                    serde_json::json!({"id": id.to_string(), "deleted": true}),
                    || format!("deleted campaign {id}"),
                )?;
            }
        }
        Ok(())
    }
}
