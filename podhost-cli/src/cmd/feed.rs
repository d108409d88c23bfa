//! `podhost feed create|list|get|update|delete|rss`: an account's podcasts.

use clap::{Args, Subcommand};
use podhost_core::{
    FeedId, MediaId, PodcastHost,
    model::{AudioPatch, FeedAudio, FeedPatch, FeedView, NewFeed},
    publish::PublicFeed,
};
use podhost_http::wire;
use serde_json::json;

use crate::{
    context::{Env, User},
    error::{Code, Failure},
    output::{opt, time},
};

/// Feed commands.
#[derive(Debug, Subcommand)]
pub enum FeedCommand {
    /// Creates a podcast.
    Create {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The feed id: unique in the deployment, part of public URLs.
        #[arg(long)]
        id: String,
        /// The title.
        #[arg(long)]
        title: String,
        /// The channel fields.
        #[command(flatten)]
        fields: FeedFields,
    },
    /// Lists an account's podcasts.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
    /// Shows a podcast.
    Get {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The feed id.
        #[arg(long)]
        id: String,
    },
    /// Changes a podcast's channel fields (those given).
    Update {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The feed id.
        #[arg(long)]
        id: String,
        /// The title.
        #[arg(long)]
        title: Option<String>,
        /// The channel fields.
        #[command(flatten)]
        fields: FeedFields,
        /// The cover: the id of an image media file (`none` removes it).
        #[arg(long, value_name = "MEDIA_ID")]
        logo: Option<String>,
    },
    /// Deletes a podcast and its episodes (its media files stay; its id stays taken).
    Delete {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The feed id.
        #[arg(long)]
        id: String,
    },
    /// Prints the RSS feed podhost serves for a podcast (its published episodes).
    Rss {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The feed id.
        #[arg(long)]
        id: String,
    },
}

/// The channel fields `feed create` and `feed update` take.
#[derive(Debug, Args)]
pub struct FeedFields {
    /// The description.
    #[arg(long)]
    description: Option<String>,
    /// The language tag (default en).
    #[arg(long)]
    language: Option<String>,
    /// The author shown in podcast apps.
    #[arg(long)]
    author: Option<String>,
    /// Apple Podcasts category, e.g. Technology.
    #[arg(long)]
    category: Option<String>,
    /// Marks the podcast explicit (`--explicit false` unmarks it).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    explicit: Option<bool>,
    /// Makes the podcast private: no public feed or pages, a feed URL per subscriber
    /// (`podhost subscriber add`); `--private false` makes it public again.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    private: Option<bool>,
    /// Masters each episode's audio in the background (loudness, true peak, encoding; see
    /// `podhost master`): the feed's enclosure is the mastered file, and an episode waits for it
    /// before it is published. `--master false` stops.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    master: Option<bool>,
    /// The mastering's loudness target in LUFS (-70 to -5; default -16 stereo, -19 mono).
    #[arg(long, value_name = "LUFS", allow_negative_numbers = true)]
    target: Option<f64>,
    /// The mastering's true-peak ceiling in dBTP (-9 to 0; default -1).
    #[arg(long, value_name = "DBTP", allow_negative_numbers = true)]
    true_peak: Option<f64>,
    /// The enclosure's encoding: mp3 (default), aac (AAC-LC in M4A, by ffmpeg) or opus.
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
    /// The enclosure's bitrate in kbit/s (default 128 stereo, 64 mono for MP3).
    #[arg(long, value_name = "KBITS")]
    bitrate: Option<u32>,
    /// Other encodings published beside the enclosure, comma-separated (e.g. opus); empty for
    /// none.
    #[arg(long, value_name = "FORMATS", value_delimiter = ',')]
    alternates: Option<Vec<String>>,
}

impl FeedFields {
    fn patch(self, title: Option<String>) -> FeedPatch {
        let audio = self.audio_patch();
        FeedPatch {
            title,
            description: self.description,
            language: self.language,
            itunes_author: self.author,
            itunes_category: self.category,
            itunes_explicit: self.explicit,
            private: self.private,
            audio,
            ..Default::default()
        }
    }

    /// The audio setting's change, when a flag names one.
    fn audio_patch(&self) -> Option<AudioPatch> {
        let patch = AudioPatch {
            master: self.master,
            target: self.target.map(Some),
            true_peak: self.true_peak,
            format: self.format.clone(),
            bitrate: self.bitrate.map(Some),
            alternates: self
                .alternates
                .as_ref()
                .map(|names| names.iter().filter(|n| !n.is_empty()).cloned().collect()),
        };
        (patch != AudioPatch::default()).then_some(patch)
    }
}

/// `--logo`: a media id, or `none`/empty to remove the cover.
fn parse_logo(logo: &str) -> anyhow::Result<Option<MediaId>> {
    match logo.trim() {
        "" | "none" => Ok(None),
        id => id.parse::<MediaId>().map(Some).map_err(|_| {
            Failure::invalid(format!(
                "--logo takes a media id (see `podhost media list`) or none, not \"{id}\""
            ))
            .into()
        }),
    }
}

/// The audio setting in words: `as uploaded`, or what mastering makes.
fn audio_line(audio: &FeedAudio) -> String {
    if !audio.master {
        return "as uploaded".into();
    }
    let mut line = format!(
        "mastered to {}, {} dBTP, {} at {}",
        audio
            .target
            .map_or("-16 LUFS (mono -19)".into(), |t| format!("{t} LUFS")),
        audio.true_peak,
        audio.format.extension(),
        audio
            .bitrate
            .map_or("the default bitrate".into(), |b| format!("{b} kbit/s")),
    );
    for alternate in &audio.alternates {
        line.push_str(&format!(", and {}", alternate.extension()));
    }
    line
}

fn feed_id(id: &str) -> anyhow::Result<FeedId> {
    Ok(id.parse::<FeedId>()?)
}

fn print_single(env: &Env, host: &PodcastHost, user: &User, view: &FeedView) -> anyhow::Result<()> {
    let f = &view.feed;
    let urls = host.urls();
    env.out()
        .fields(wire::feed_single(&user.ctx(host), view), || {
            vec![
                ("id", f.id.to_string()),
                ("title", f.title.clone()),
                ("description", f.description.clone()),
                ("language", f.language.clone()),
                ("author", f.itunes.author.clone()),
                ("category", f.itunes.category.clone()),
                ("explicit", f.itunes.explicit.to_string()),
                ("logo", opt(f.logo)),
                ("audio", audio_line(&f.audio)),
                ("episodes", view.episode_count.to_string()),
                ("rss", urls.rss(&f.id)),
                ("web", urls.feed_page(&f.id)),
                ("updated", time(f.updated)),
            ]
        })?;
    env.out()
        .warnings(&podhost_core::publish::readiness::podcast(view));
    Ok(())
}

impl super::Run for FeedCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            FeedCommand::Create {
                user,
                id,
                title,
                mut fields,
            } => {
                let user = env.user(&host, user.name()).await?;
                fields.explicit = Some(fields.explicit.unwrap_or(false));
                let new = NewFeed {
                    id,
                    fields: fields.patch(Some(title)),
                };
                let view = host.podcasts().create_feed(&user.who, new).await?;
                out.print(wire::feed_single(&user.ctx(&host), &view), || {
                    format!(
                        "created feed {} at {}",
                        view.feed.id,
                        host.urls().rss(&view.feed.id)
                    )
                })?;
                out.warnings(&podhost_core::publish::readiness::podcast(&view));
            }
            FeedCommand::List { user } => {
                let user = env.user(&host, user.name()).await?;
                let views = super::all_pages(|page| {
                    let (host, who) = (&host, &user.who);
                    async move { Ok(host.podcasts().list_feeds(who, page).await?.items) }
                })
                .await?;
                let ctx = user.ctx(&host);
                let rows = views
                    .iter()
                    .map(|view| {
                        (
                            wire::feed_list_item(&ctx, view),
                            vec![
                                view.feed.id.to_string(),
                                view.episode_count.to_string(),
                                view.feed.title.clone(),
                            ],
                        )
                    })
                    .collect();
                out.table(&["ID", "EPISODES", "TITLE"], rows)?;
            }
            FeedCommand::Get { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let view = user.hint(host.podcasts().get_feed(&user.who, &feed_id(&id)?).await)?;
                print_single(env, &host, &user, &view)?;
            }
            FeedCommand::Update {
                user,
                id,
                title,
                fields,
                logo,
            } => {
                let user = env.user(&host, user.name()).await?;
                let mut patch = fields.patch(title);
                patch.logo = logo.as_deref().map(parse_logo).transpose()?;
                let view = user.hint(
                    host.podcasts()
                        .update_feed(&user.who, &feed_id(&id)?, &patch)
                        .await,
                )?;
                print_single(env, &host, &user, &view)?;
            }
            FeedCommand::Delete { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let id = feed_id(&id)?;
                user.hint(host.podcasts().delete_feed(&user.who, &id).await)?;
                out.print(json!({"id": id.as_str(), "deleted": true}), || {
                    format!("deleted feed {id}")
                })?;
            }
            FeedCommand::Rss { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let id = feed_id(&id)?;
                // The feed is public, but the command answers for the user's own podcasts.
                user.hint(host.podcasts().get_feed(&user.who, &id).await)?;
                match host.delivery().public_feed(&id).await? {
                    PublicFeed::Live(rendered) => {
                        let xml = String::from_utf8_lossy(&rendered.xml).into_owned();
                        out.print(
                            json!({
                                "id": id.as_str(),
                                "url": host.urls().rss(&id),
                                "etag": rendered.etag,
                                "last_modified": time(rendered.last_modified),
                                "xml": xml,
                            }),
                            || xml.trim_end().to_string(),
                        )?;
                    }
                    PublicFeed::Moved(to) => {
                        return Err(Failure::new(
                            Code::NotFound,
                            format!("feed {id} has moved to {to} (its itunes new-feed-url): podcast apps are redirected there"),
                        )
                        .into());
                    }
                    PublicFeed::Gone => {
                        return Err(Failure::new(
                            Code::NotFound,
                            format!("feed {id} was deleted: its RSS URL answers 410 Gone"),
                        )
                        .into());
                    }
                }
            }
        }
        Ok(())
    }
}
