//! `podhost media upload|list|get|update|delete|copy|download`: an account's media files.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
};

use clap::{Subcommand, ValueEnum};
use futures::StreamExt;
use podhost_core::{
    PodcastHost,
    model::{Media, MediaCopy, MediaListQuery, MediaPatch, MediaSort, NewMedia, SortDir},
};
use podhost_http::wire;
use serde_json::{Value, json};

use crate::{
    context::{Env, User},
    error::Failure,
    output::{opt, time},
    progress::{LocalFile, upload_bar},
};

/// Media commands.
#[derive(Debug, Subcommand)]
pub enum MediaCommand {
    /// Uploads files (a progress bar per file on a terminal); prints their records.
    Upload {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The files to upload; each is named after its file name, made unique in the account.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// The category (group) of the files.
        #[arg(long)]
        category: Option<String>,
    },
    /// Lists an account's media files.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// Only files whose name contains this (case-insensitive).
        #[arg(long)]
        filter: Option<String>,
        /// The order.
        #[arg(long, value_enum, default_value_t = SortKey::Name)]
        sort: SortKey,
        /// Largest, newest or last name first.
        #[arg(long)]
        desc: bool,
    },
    /// Shows a media file's record.
    Get {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
    },
    /// Renames a media file, moves it to another category, or opens or closes its public URL;
    /// the download URL stays.
    Update {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
        /// The new name (cleaned, made unique with a numbered suffix).
        #[arg(long)]
        name: Option<String>,
        /// The new category; empty for the default one.
        #[arg(long)]
        category: Option<String>,
        /// Keeps the file's public URL from anyone but the subscribers of private podcasts
        /// that use it (it still serves while a public podcast shows the file).
        #[arg(long, conflicts_with = "public")]
        private: bool,
        /// Opens the file's public URL to anyone (a file a private podcast used is kept from
        /// the public until then).
        #[arg(long)]
        public: bool,
    },
    /// Deletes a media file (refused while an episode or podcast uses it).
    Delete {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
    },
    /// Copies a media file under a new name and category (the bytes are shared).
    Copy {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
        /// The name of the copy.
        #[arg(long)]
        label: String,
        /// The category of the copy.
        #[arg(long)]
        category: String,
    },
    /// Writes a media file's bytes to FILE, or to stdout without -o.
    Download {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The media id.
        id: String,
        /// Where to write the file (replaced when it exists).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// The orders of `media list`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SortKey {
    /// By file name.
    Name,
    /// By size in bytes.
    Size,
    /// By upload time.
    Created,
}

/// A media record as text lines, read from its wire shape (one source for both).
fn record_lines(record: &Value, media: &Media) -> Vec<(&'static str, String)> {
    let text = |key: &str| match &record[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    vec![
        ("id", media.id.to_string()),
        ("name", media.name.clone()),
        ("size", format!("{} ({} bytes)", text("size"), media.size)),
        ("category", opt(media.category.as_deref())),
        ("type", text("type")),
        ("mime", media.facts.mime.clone()),
        ("info", media.facts.info.clone()),
        ("duration", text("duration")),
        ("url", text("url")),
        ("private", text("private")),
        ("created", time(media.created)),
        ("updated", time(media.updated)),
    ]
}

pub(crate) fn print_record(
    env: &Env,
    host: &PodcastHost,
    user: &User,
    media: &Media,
) -> anyhow::Result<()> {
    let record = serde_json::to_value(wire::media_single(&user.ctx(host), media))?;
    let lines = record_lines(&record, media);
    env.out().fields(record, || lines)?;
    Ok(())
}

impl super::Run for MediaCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            MediaCommand::Upload {
                user,
                files,
                category,
            } => {
                let user = env.user(&host, user.name()).await?;
                // Every file is opened first: a typo uploads nothing.
                let mut opened = Vec::new();
                for path in &files {
                    opened.push(LocalFile::open(path).await?);
                }
                let mut uploaded = Vec::new();
                for file in opened {
                    let bar = upload_bar(&file.name, file.len);
                    let new = NewMedia {
                        name: file.name.clone(),
                        category: category.clone(),
                    };
                    let media = host
                        .podcasts()
                        .upload_media(&user.who, new, file.into_stream(bar.clone()))
                        .await;
                    bar.finish_and_clear();
                    uploaded.push(media?);
                }
                let ctx = user.ctx(&host);
                let rows = uploaded
                    .iter()
                    .map(|m| {
                        let record =
                            serde_json::to_value(wire::media_single(&ctx, m)).unwrap_or_default();
                        let cells = vec![
                            m.id.to_string(),
                            m.name.clone(),
                            record["size"].as_str().unwrap_or_default().to_string(),
                            record["type"].as_str().unwrap_or_default().to_string(),
                            record["url"].as_str().unwrap_or_default().to_string(),
                        ];
                        (record, cells)
                    })
                    .collect();
                out.table(&["ID", "NAME", "SIZE", "TYPE", "URL"], rows)?;
            }
            MediaCommand::List {
                user,
                filter,
                sort,
                desc,
            } => {
                let user = env.user(&host, user.name()).await?;
                let items = super::all_pages(|page| {
                    let query = MediaListQuery {
                        sort_by: match sort {
                            SortKey::Name => MediaSort::Name,
                            SortKey::Size => MediaSort::Size,
                            SortKey::Created => MediaSort::Created,
                        },
                        sort_dir: if desc { SortDir::Desc } else { SortDir::Asc },
                        filter: filter.clone(),
                        strict: false,
                        page,
                    };
                    let host = &host;
                    let who = &user.who;
                    async move { Ok(host.podcasts().list_media(who, &query).await?.items) }
                })
                .await?;
                let ctx = user.ctx(&host);
                let rows = items
                    .iter()
                    .map(|m| {
                        let item =
                            serde_json::to_value(wire::media_item(&ctx, m)).unwrap_or_default();
                        let cells = vec![
                            m.id.to_string(),
                            m.name.clone(),
                            item["size"].as_str().unwrap_or_default().to_string(),
                            item["cat"].as_str().unwrap_or_default().to_string(),
                            item["type"].as_str().unwrap_or_default().to_string(),
                            time(m.created),
                        ];
                        (item, cells)
                    })
                    .collect();
                out.table(&["ID", "NAME", "SIZE", "CATEGORY", "TYPE", "CREATED"], rows)?;
            }
            MediaCommand::Get { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let media = user.hint(
                    host.podcasts()
                        .get_media(&user.who, super::media_id(&id)?)
                        .await,
                )?;
                print_record(env, &host, &user, &media)?;
            }
            MediaCommand::Update {
                user,
                id,
                name,
                category,
                private,
                public,
            } => {
                let user = env.user(&host, user.name()).await?;
                let patch = MediaPatch {
                    name,
                    category: category.map(Some),
                    private: (private || public).then_some(private),
                };
                let media = user.hint(
                    host.podcasts()
                        .update_media(&user.who, super::media_id(&id)?, patch)
                        .await,
                )?;
                print_record(env, &host, &user, &media)?;
            }
            MediaCommand::Delete { user, id } => {
                let user = env.user(&host, user.name()).await?;
                let id = super::media_id(&id)?;
                user.hint(host.podcasts().delete_media(&user.who, id).await)?;
                out.print(json!({"id": id.get(), "deleted": true}), || {
                    format!("deleted media {id}")
                })?;
            }
            MediaCommand::Copy {
                user,
                id,
                label,
                category,
            } => {
                let user = env.user(&host, user.name()).await?;
                let copy = MediaCopy { label, category };
                let media = user.hint(
                    host.podcasts()
                        .copy_media(&user.who, super::media_id(&id)?, copy)
                        .await,
                )?;
                print_record(env, &host, &user, &media)?;
            }
            MediaCommand::Download { user, id, output } => {
                download(env, &host, user.name(), &id, output).await?;
            }
        }
        Ok(())
    }
}

async fn download(
    env: &Env,
    host: &PodcastHost,
    user: Option<&str>,
    id: &str,
    output: Option<PathBuf>,
) -> anyhow::Result<()> {
    let out = env.out();
    if output.is_none() && out.is_json() {
        return Err(Failure::invalid(
            "with --json the bytes need a file: give -o FILE (the JSON then describes it)",
        )
        .into());
    }
    if output.is_none() && std::io::stdout().is_terminal() {
        return Err(Failure::invalid(
            "stdout is a terminal: give -o FILE, or send the bytes to a pipe or a file",
        )
        .into());
    }
    let user = env.user(host, user).await?;
    let (media, mut bytes) = user.hint(
        host.podcasts()
            .download_media(&user.who, super::media_id(id)?)
            .await,
    )?;
    let Some(path) = output else {
        let mut stdout = std::io::stdout().lock();
        while let Some(chunk) = bytes.next().await {
            stdout.write_all(&chunk?)?;
        }
        stdout.flush()?;
        return Ok(());
    };
    // Written beside the target and renamed into place: a failed download leaves no half file.
    // A target that is not a file (`/dev/null`, a pipe) is written to as it is: a rename would
    // replace it.
    let special = std::fs::metadata(&path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let mut partial = path.clone().into_os_string();
    partial.push(".podhost-part");
    let partial = if special {
        path.clone()
    } else {
        PathBuf::from(partial)
    };
    let cannot = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
    let written = async {
        let mut file = tokio::fs::File::create(&partial).await.map_err(cannot)?;
        let mut written = 0u64;
        while let Some(chunk) = bytes.next().await {
            let chunk = chunk?;
            tokio::io::AsyncWriteExt::write_all(&mut file, &chunk)
                .await
                .map_err(cannot)?;
            written += chunk.len() as u64;
        }
        if !special {
            file.sync_all().await.map_err(cannot)?;
            tokio::fs::rename(&partial, &path).await.map_err(cannot)?;
        }
        anyhow::Ok(written)
    }
    .await;
    let written = match written {
        Ok(written) => written,
        Err(e) => {
            if !special {
                let _ = tokio::fs::remove_file(&partial).await;
            }
            return Err(e);
        }
    };
    out.print(
        json!({"id": media.id.get(), "name": media.name, "file": path.display().to_string(), "bytes": written}),
        || format!("wrote {} ({written} bytes) to {}", media.name, path.display()),
    )?;
    Ok(())
}
