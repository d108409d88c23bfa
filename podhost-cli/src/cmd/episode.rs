//! `podhost episode create|list|get|update|delete|copy|publish|unpublish`: a podcast's
//! episodes.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use podhost_core::{
    EpisodeFiles, EpisodeId, FeedId, MediaId, PodcastHost, UploadTarget,
    model::{EpisodeListQuery, EpisodePatch, EpisodeType, EpisodeView, NewEpisode},
};
use podhost_http::wire;
use serde_json::json;

use crate::{
    context::{Env, User},
    error::{Code, Failure, shell_word},
    output::{opt, time},
    progress::{LocalFile, upload_bar},
};

/// Episode commands. An episode id (`pod-N`) is unique in the account: `--feed` may be left
/// out where the episode already exists.
#[derive(Debug, Subcommand)]
pub enum EpisodeCommand {
    /// Creates an episode: a draft unless --publish or --at says when it goes out.
    Create {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast (feed id).
        #[arg(long)]
        feed: String,
        /// The title.
        #[arg(long)]
        title: String,
        /// The audio: an existing media file's id.
        #[arg(long, value_name = "MEDIA_ID", conflicts_with = "file")]
        media: Option<String>,
        /// The audio: a local file, uploaded in the same commit as the episode.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// Publishes it now.
        #[arg(long, conflicts_with = "at")]
        publish: bool,
        /// Publishes it at this time (RFC 3339, e.g. 2030-06-01T09:00:00Z; later ones are
        /// scheduled).
        #[arg(long, value_name = "RFC3339")]
        at: Option<String>,
        /// The other fields.
        #[command(flatten)]
        fields: EpisodeFields,
    },
    /// Lists a podcast's episodes, newest first.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast (feed id).
        #[arg(long)]
        feed: String,
        /// Only episodes whose title or description contains this.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Shows an episode.
    Get {
        /// The episode.
        #[command(flatten)]
        target: Target,
    },
    /// Changes an episode's fields (those given).
    Update {
        /// The episode.
        #[command(flatten)]
        target: Target,
        /// The title.
        #[arg(long)]
        title: Option<String>,
        /// The audio: a media id (`none` removes it).
        #[arg(long, value_name = "MEDIA_ID")]
        media: Option<String>,
        /// Its publishing time (RFC 3339); a public episode with a later one is scheduled.
        #[arg(long = "at", value_name = "RFC3339")]
        when: Option<String>,
        /// The other fields.
        #[command(flatten)]
        fields: EpisodeFields,
    },
    /// Deletes an episode (its media files stay).
    Delete {
        /// The episode.
        #[command(flatten)]
        target: Target,
    },
    /// Copies an episode, as a draft, into its podcast or another.
    Copy {
        /// The episode.
        #[command(flatten)]
        target: Target,
        /// The podcast to copy it into (default: its own).
        #[arg(long, value_name = "FEED")]
        to: Option<String>,
    },
    /// Publishes an episode: now, or at --at (an episode already out keeps its date).
    Publish {
        /// The episode.
        #[command(flatten)]
        target: Target,
        /// When (RFC 3339); a later time schedules it.
        #[arg(long = "at", value_name = "RFC3339")]
        when: Option<String>,
    },
    /// Takes an episode back to draft: out of the feed and its page.
    Unpublish {
        /// The episode.
        #[command(flatten)]
        target: Target,
    },
}

/// Which episode: `--user NAME [--feed ID] EPISODE_ID`.
#[derive(Debug, Args)]
pub struct Target {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The podcast (feed id); found by the episode id when left out.
    #[arg(long)]
    feed: Option<String>,
    /// The episode id (pod-N).
    id: String,
}

/// The episode fields `create` and `update` share.
#[derive(Debug, Args)]
pub struct EpisodeFields {
    /// The show notes (HTML allowed: p, br, lists, links, bold, italics).
    #[arg(long)]
    description: Option<String>,
    /// The cover: an image media file's id (`none` removes it).
    #[arg(long, value_name = "MEDIA_ID")]
    cover: Option<String>,
    /// The video: a video media file's id, beside the audio or instead of it (`none` removes
    /// it).
    #[arg(long, value_name = "MEDIA_ID")]
    video_media: Option<String>,
    /// The season number.
    #[arg(long)]
    season: Option<u32>,
    /// The episode number.
    #[arg(long)]
    episode: Option<u32>,
    /// The episode type.
    #[arg(long = "type", value_enum)]
    kind: Option<Kind>,
}

/// `itunes:episodeType`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Kind {
    /// A regular episode.
    Full,
    /// A trailer.
    Trailer,
    /// Bonus content.
    Bonus,
}

impl EpisodeFields {
    fn apply(self, patch: &mut EpisodePatch) -> anyhow::Result<()> {
        patch.description = self.description;
        patch.itunes_logo = self.cover.as_deref().map(media_or_none).transpose()?;
        patch.video = self.video_media.as_deref().map(media_or_none).transpose()?;
        patch.itunes_season = self.season.map(Some);
        patch.itunes_episode = self.episode.map(Some);
        patch.itunes_episode_type = self.kind.map(|k| match k {
            Kind::Full => EpisodeType::Full,
            Kind::Trailer => EpisodeType::Trailer,
            Kind::Bonus => EpisodeType::Bonus,
        });
        Ok(())
    }
}

/// A media id, or `none`/empty for none.
fn media_or_none(id: &str) -> anyhow::Result<Option<MediaId>> {
    match id.trim() {
        "" | "none" => Ok(None),
        id => super::media_id(id).map(Some),
    }
}

/// A time as RFC 3339.
fn timestamp(flag: &str, value: &str) -> anyhow::Result<jiff::Timestamp> {
    value.trim().parse().map_err(|_| {
        Failure::invalid(format!(
            "{flag} takes a time as RFC 3339, e.g. 2030-06-01T09:00:00Z, not \"{value}\""
        ))
        .into()
    })
}

fn episode_id(id: &str) -> anyhow::Result<EpisodeId> {
    Ok(id.trim().parse::<EpisodeId>()?)
}

/// Draft, waiting for its mastered audio, scheduled or published.
fn status(view: &EpisodeView) -> &'static str {
    match (view.episode.is_public, view.is_published) {
        (false, _) => "draft",
        (true, false) if view.episode.awaits_master() => "mastering",
        (true, false) => "scheduled",
        (true, true) => "published",
    }
}

fn print_single(
    env: &Env,
    host: &PodcastHost,
    user: &User,
    view: &EpisodeView,
) -> anyhow::Result<()> {
    let e = &view.episode;
    let record = serde_json::to_value(wire::episode_single(&user.ctx(host), view))?;
    let enclosure = record["attributes"]["enclosure_url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    env.out().fields(record, || {
        vec![
            ("id", e.id.to_string()),
            ("feed", e.feed.to_string()),
            ("title", e.title.clone()),
            ("status", status(view).to_string()),
            ("date", time(e.publish_at)),
            ("media", opt(e.media)),
            ("cover", opt(e.itunes.logo)),
            ("season", opt(e.itunes.season)),
            ("episode", opt(e.itunes.episode)),
            ("type", e.itunes.episode_type.as_str().to_string()),
            ("enclosure", enclosure),
            ("page", host.urls().episode_page(&e.feed, e.id)),
            ("version", e.version.to_string()),
        ]
    })?;
    env.out()
        .warnings(&podhost_core::publish::readiness::episode(view));
    Ok(())
}

/// The user, the podcast and the id of `target`; the podcast is looked for among the user's
/// when `--feed` is left out.
async fn locate(
    env: &Env,
    host: &PodcastHost,
    target: &Target,
) -> anyhow::Result<(User, FeedId, EpisodeId)> {
    let user = env.user(host, target.user.name()).await?;
    let id = episode_id(&target.id)?;
    if let Some(feed) = &target.feed {
        return Ok((user, feed.parse()?, id));
    }
    let feeds = super::all_pages(|page| {
        let (host, who) = (&host, &user.who);
        async move { Ok(host.podcasts().list_feeds(who, page).await?.items) }
    })
    .await?;
    for view in feeds {
        match host
            .podcasts()
            .get_episode(&user.who, &view.feed.id, id)
            .await
        {
            Ok(_) => return Ok((user, view.feed.id, id)),
            Err(podhost_core::Error::NotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(Failure::new(
        Code::NotFound,
        format!(
            "no episode {id} for {}: list a podcast's with `podhost episode list --user {} --feed FEED`",
            user.name, user.name
        ),
    )
    .into())
}

impl super::Run for EpisodeCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            EpisodeCommand::Create {
                user,
                feed,
                title,
                media,
                file,
                publish,
                at,
                fields,
            } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let mut new = NewEpisode::titled(title);
                fields.apply(&mut new.fields)?;
                new.fields.media = media.as_deref().map(media_or_none).transpose()?;
                if publish {
                    new.fields.is_public = Some(true);
                }
                if let Some(at) = &at {
                    new.fields.is_public = Some(true);
                    new.fields.publish_at = Some(timestamp("--at", at)?);
                }
                let mut files = EpisodeFiles::default();
                if let Some(path) = &file {
                    let file = LocalFile::open(path).await?;
                    let bar = upload_bar(&file.name, file.len);
                    let name = file.name.clone();
                    let staged = host
                        .podcasts()
                        .stage_upload(
                            &user.who,
                            UploadTarget::Episode(feed.clone()),
                            &name,
                            file.into_stream(bar.clone()),
                        )
                        .await;
                    bar.finish_and_clear();
                    files.media = Some(user.hint(staged)?);
                }
                let view = user.hint(
                    host.podcasts()
                        .create_episode_with_files(&user.who, &feed, new, files)
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            EpisodeCommand::List { user, feed, filter } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let views = super::all_pages(|page| {
                    let query = EpisodeListQuery {
                        filter: filter.clone(),
                        page,
                        ..Default::default()
                    };
                    let (host, user, feed) = (&host, &user, &feed);
                    async move {
                        Ok(user
                            .hint(host.podcasts().list_episodes(&user.who, feed, &query).await)?
                            .items)
                    }
                })
                .await?;
                let ctx = user.ctx(&host);
                let rows = views
                    .iter()
                    .map(|view| {
                        let e = &view.episode;
                        (
                            serde_json::to_value(wire::episode_item(&ctx, view))
                                .unwrap_or_default(),
                            vec![
                                e.id.to_string(),
                                status(view).to_string(),
                                time(e.publish_at),
                                e.title.clone(),
                            ],
                        )
                    })
                    .collect();
                out.table(&["ID", "STATUS", "DATE", "TITLE"], rows)?;
            }
            EpisodeCommand::Get { target } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                let view = user.hint_in(
                    feed.as_str(),
                    host.podcasts().get_episode(&user.who, &feed, id).await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            EpisodeCommand::Update {
                target,
                title,
                media,
                when,
                fields,
            } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                let mut patch = EpisodePatch {
                    title,
                    media: media.as_deref().map(media_or_none).transpose()?,
                    publish_at: when.as_deref().map(|t| timestamp("--at", t)).transpose()?,
                    ..Default::default()
                };
                fields.apply(&mut patch)?;
                let view = user.hint_in(
                    feed.as_str(),
                    host.podcasts()
                        .update_episode(&user.who, &feed, id, &patch)
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            EpisodeCommand::Delete { target } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                user.hint_in(
                    feed.as_str(),
                    host.podcasts().delete_episode(&user.who, &feed, id).await,
                )?;
                out.print(
                    json!({"id": id.to_string(), "feed_id": feed.as_str(), "deleted": true}),
                    || format!("deleted episode {id} of {}", shell_word(feed.as_str())),
                )?;
            }
            EpisodeCommand::Copy { target, to } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                let to: Option<FeedId> = to.as_deref().map(str::parse).transpose()?;
                let view = user.hint_in(
                    feed.as_str(),
                    host.podcasts()
                        .copy_episode(&user.who, &feed, id, to.as_ref())
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            EpisodeCommand::Publish { target, when } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                let current = user.hint_in(
                    feed.as_str(),
                    host.podcasts().get_episode(&user.who, &feed, id).await,
                )?;
                let publish_at = match &when {
                    Some(when) => Some(timestamp("--at", when)?),
                    // Already out: its date stays. A draft goes out now.
                    None if current.is_published => None,
                    None => Some(host.now()),
                };
                let patch = EpisodePatch {
                    // Refused (4) if it changed since it was read.
                    if_version: Some(current.episode.version),
                    is_public: Some(true),
                    publish_at,
                    ..Default::default()
                };
                let view = user.hint_in(
                    feed.as_str(),
                    host.podcasts()
                        .update_episode(&user.who, &feed, id, &patch)
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            EpisodeCommand::Unpublish { target } => {
                let (user, feed, id) = locate(env, &host, &target).await?;
                let patch = EpisodePatch {
                    is_public: Some(false),
                    ..Default::default()
                };
                let view = user.hint_in(
                    feed.as_str(),
                    host.podcasts()
                        .update_episode(&user.who, &feed, id, &patch)
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
        }
        Ok(())
    }
}
