//! `podhost metadata get|set`: a media file's tags, chapters, cover and ad breaks.
//!
//! `set` builds the body `PUT /api/media/{id}/metadata` takes and reads it with the API's own
//! reader (`podhost_http::wire::metadata::MetadataUpdate`), so the two accept the same values.

use std::path::PathBuf;

use clap::Subcommand;
use podhost_core::{Metadata, PodcastHost};
use podhost_http::wire::{self, jobs::JobRecord};
use serde_json::{Value, json};

use crate::{
    context::{Env, User},
    error::Failure,
    progress::wait_for_job,
};

/// Metadata commands.
#[derive(Debug, Subcommand)]
pub enum MetadataCommand {
    /// Shows a media file's facts, the tags read from the file, its ad breaks.
    Get {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
    },
    /// Changes tags (written into a new file by a job, a new download URL), chapters, the
    /// cover, ad breaks (stored at once). An empty value removes a tag.
    Set {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
        /// The title tag.
        #[arg(long)]
        title: Option<String>,
        /// The artist tag.
        #[arg(long)]
        artist: Option<String>,
        /// The album tag.
        #[arg(long)]
        album: Option<String>,
        /// The year tag.
        #[arg(long)]
        year: Option<String>,
        /// The comment tag.
        #[arg(long)]
        comment: Option<String>,
        /// A JSON file with every chapter: [{"start": 0, "end": 61.5, "title": "Intro",
        /// "url": "https://..."}], times in seconds (`[]` removes them).
        #[arg(long, value_name = "FILE")]
        chapters: Option<PathBuf>,
        /// The cover to embed: an image media file's id (`none` removes it).
        #[arg(long, value_name = "MEDIA_ID")]
        cover: Option<String>,
        /// Ad breaks: an ad before the content.
        #[arg(long)]
        preroll: bool,
        /// Ad breaks: an ad after the content.
        #[arg(long)]
        postroll: bool,
        /// Ad breaks: mid-roll positions, seconds from the start, comma-separated.
        #[arg(long, value_name = "SECONDS,...")]
        midrolls: Option<String>,
        /// Removes the ad breaks.
        #[arg(long, conflicts_with_all = ["preroll", "postroll", "midrolls"])]
        no_adbreak: bool,
        /// Runs the tag-writing job in this process until it ends, then shows the result.
        #[arg(long)]
        wait: bool,
    },
}

fn print(env: &Env, metadata: &Metadata, job: Option<JobRecord>) -> anyhow::Result<()> {
    let value = serde_json::to_value(wire::metadata(metadata, job))?;
    let lines = lines(&value);
    env.out().fields(value, || lines)?;
    Ok(())
}

/// The metadata as text lines, read from its wire shape.
fn lines(value: &Value) -> Vec<(&'static str, String)> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut lines = vec![
        ("id", text(&value["id"])),
        ("type", text(&value["type"])),
        ("mime", text(&value["mime"])),
        ("info", text(&value["info"])),
        ("duration", text(&value["duration"])),
    ];
    let tags = &value["tags"];
    for key in ["title", "artist", "album", "year", "comment"] {
        lines.push((key, text(&tags[key])));
    }
    for chapter in tags["chapters"].as_array().into_iter().flatten() {
        lines.push((
            "chapter",
            format!("{}s {}", text(&chapter["start"]), text(&chapter["title"])),
        ));
    }
    if let Some(cover) = tags["cover"].as_object() {
        lines.push((
            "cover",
            format!("{} ({} bytes)", text(&cover["mime"]), text(&cover["size"])),
        ));
    }
    if !value["tags_error"].is_null() {
        lines.push(("tags_error", text(&value["tags_error"])));
    }
    if let Some(adbreak) = value["adbreak"].as_object() {
        lines.push((
            "adbreak",
            format!(
                "preroll {}, postroll {}, midrolls {}",
                text(&adbreak["preroll"]),
                text(&adbreak["postroll"]),
                text(&adbreak["midrolls"])
            ),
        ));
    }
    if let Some(artwork) = value["artwork"].as_object() {
        lines.push((
            "artwork",
            format!(
                "{}x{}, meets Apple's rule: {}",
                text(&artwork["width"]),
                text(&artwork["height"]),
                text(&artwork["meets_apple_rule"])
            ),
        ));
    }
    if let Some(job) = value["job"].as_object() {
        lines.push((
            "job",
            format!("{} {}", text(&job["id"]), text(&job["status"])),
        ));
    }
    lines
}

/// The body of `PUT /api/media/{id}/metadata` the flags make.
#[allow(clippy::too_many_arguments)]
fn body(
    tags: [(&str, Option<String>); 5],
    chapters: Option<PathBuf>,
    cover: Option<String>,
    preroll: bool,
    postroll: bool,
    midrolls: Option<String>,
    no_adbreak: bool,
) -> anyhow::Result<Value> {
    let mut body = serde_json::Map::new();
    for (key, value) in tags {
        if let Some(value) = value {
            body.insert(key.into(), Value::String(value));
        }
    }
    if let Some(path) = chapters {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::invalid(format!("cannot read {}: {e}", path.display())))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            Failure::invalid(format!(
                "{} is not JSON ({e}): chapters are [{{\"start\": 0, \"title\": \"Intro\"}}, ...]",
                path.display()
            ))
        })?;
        body.insert("chapters".into(), value);
    }
    if let Some(cover) = cover {
        let value = match cover.trim() {
            "" | "none" => Value::Null,
            id => json!(super::media_id(id)?.get()),
        };
        body.insert("image".into(), value);
    }
    if no_adbreak {
        body.insert("adbreak".into(), Value::Null);
    } else if preroll || postroll || midrolls.is_some() {
        let midrolls = midrolls
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<f64>().map_err(|_| {
                    Failure::invalid(format!(
                        "--midrolls takes seconds separated by commas, e.g. 600,1260.5, not \"{s}\""
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        body.insert(
            "adbreak".into(),
            json!({"preroll": preroll, "postroll": postroll, "midrolls": midrolls}),
        );
    }
    if body.is_empty() {
        return Err(Failure::invalid(
            "nothing to change: give --title, --artist, --album, --year, --comment, --chapters, --cover or the ad breaks",
        )
        .into());
    }
    Ok(Value::Object(body))
}

async fn set(
    env: &Env,
    host: &PodcastHost,
    user: &User,
    id: podhost_core::MediaId,
    body: Value,
    wait: bool,
) -> anyhow::Result<()> {
    let patch = wire::Body::json(Some(body))
        .read::<wire::metadata::MetadataUpdate>()?
        .patch()?;
    let (metadata, job) = user.hint(host.podcasts().update_metadata(&user.who, id, patch).await)?;
    match job {
        Some(job) if wait => {
            let ended = wait_for_job(host, user, &job).await?;
            let metadata = user.hint(host.podcasts().media_metadata(&user.who, id).await)?;
            print(env, &metadata, Some(wire::job(host, &ended)))
        }
        job => print(env, &metadata, job.map(|job| wire::job(host, &job))),
    }
}

impl super::Run for MetadataCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        match self {
            MetadataCommand::Get { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let metadata = user.hint(
                    host.podcasts()
                        .media_metadata(&user.who, super::media_id(&id)?)
                        .await,
                )?;
                print(env, &metadata, None)?;
            }
            MetadataCommand::Set {
                user,
                id,
                title,
                artist,
                album,
                year,
                comment,
                chapters,
                cover,
                preroll,
                postroll,
                midrolls,
                no_adbreak,
                wait,
            } => {
                let user = env.user(&host, user.name()).await?;
                let id = super::media_id(&id)?;
                let tags = [
                    ("title", title),
                    ("artist", artist),
                    ("album", album),
                    ("year", year),
                    ("comment", comment),
                ];
                let body = body(
                    tags, chapters, cover, preroll, postroll, midrolls, no_adbreak,
                )?;
                set(env, &host, &user, id, body, wait).await?;
            }
        }
        Ok(())
    }
}
