//! `podhost import`: moving in. A podcast from its RSS feed (a URL, or a file such as the
//! `feed.xml` of `podhost export`, whose files are then taken from its folder).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
};

use clap::Args;
use futures::StreamExt;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use podhost_core::{
    PodcastHost,
    import::{
        FetchRequest, Fetched, Fetcher, ImportOptions, ImportProgress, ImportSource,
        fetch::FetchError,
    },
};

use crate::{
    context::{Env, User},
    output::Output,
};

/// Import options.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The account to import into.
    #[arg(long)]
    pub user: Option<String>,
    /// The feed: an http(s) URL, or a file (the feed.xml of `podhost export` restores that
    /// podcast with the files beside it).
    pub source: String,
    /// The podcast's id here [default: one made from its title].
    #[arg(long)]
    pub feed_id: Option<String>,
    /// Only the newest N episodes.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Make the episodes without downloading their files.
    #[arg(long)]
    pub no_media: bool,
}

/// What `podhost export` writes: the feed as served, its drafts and scheduled episodes as RSS,
/// and the records with the file names of its media.
pub(crate) const FEED: &str = "feed.xml";
pub(crate) const DRAFTS: &str = "drafts.xml";
pub(crate) const RECORDS: &str = "podcast.json";

impl super::Run for ImportArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.as_deref()).await?;
        import(&host, env.out(), &user, self).await
    }
}

async fn import(
    host: &PodcastHost,
    out: &Output,
    user: &User,
    args: ImportArgs,
) -> anyhow::Result<()> {
    let owner = &user.who;
    let network: Arc<dyn Fetcher> = host
        .config()
        .fetcher
        .clone()
        .unwrap_or_else(|| Arc::new(podhost_http::HttpFetcher::new()));
    let is_url = args.source.starts_with("http://") || args.source.starts_with("https://");
    let (source, fetcher): (ImportSource, Arc<dyn Fetcher>) = if is_url {
        (ImportSource::Url(args.source.clone()), network)
    } else {
        let path = PathBuf::from(&args.source);
        let xml = tokio::fs::read(&path)
            .await
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let files = exported_files(&dir).await?;
        let xml = with_drafts(xml, &dir).await?;
        let fetcher: Arc<dyn Fetcher> = match files {
            Some(files) => Arc::new(LocalFiles {
                dir,
                files,
                network,
            }),
            None => network,
        };
        let source = ImportSource::Document {
            xml: xml.into(),
            url: None,
        };
        (source, fetcher)
    };
    let options = ImportOptions {
        feed_id: args.feed_id.clone(),
        limit: args.limit,
        media: !args.no_media,
        ..Default::default()
    };
    let progress = Bars::new(out.is_json());
    let report = host
        .podcasts()
        .import_feed(owner, source, &options, fetcher.as_ref(), &progress)
        .await;
    progress.finish();
    let report = report?;
    out.print(serde_json::to_value(&report)?, || {
        let mut lines = vec![
            format!(
                "imported {} as {}: {} items ({} new, {} completed, {} already here), {} files, {}",
                args.source,
                report.feed_id,
                report.items,
                report.created,
                report.completed,
                report.unchanged,
                report.files,
                podhost_core::model::human_size(report.bytes),
            ),
            format!("{} problems", report.problems.len()),
        ];
        lines.extend(report.problems.iter().map(|p| format!("  - {p}")));
        lines.push(format!(
            "To complete the move, on the old host either\n  1. set the feed's itunes:new-feed-url to {url}, or\n  2. redirect the old feed URL to {url} with a 301,\nso that apps follow the podcast here.",
            url = report.rss_url
        ));
        lines.join("\n")
    })?;
    Ok(())
}

/// Where each file of an exported podcast is in its folder, by its URL, when `dir` holds the
/// records of `podhost export`.
async fn exported_files(dir: &Path) -> anyhow::Result<Option<HashMap<String, String>>> {
    let path = dir.join(RECORDS);
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let records: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!("{} is not what podhost export writes: {e}", path.display())
    })?;
    Ok(Some(
        records["files"]
            .as_object()
            .map(|files| {
                files
                    .iter()
                    .filter_map(|(url, name)| Some((url.clone(), name.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
    ))
}

/// The feed with the items of an exported `drafts.xml` beside it added (drafts are marked
/// `itunes:block`, which an import makes drafts again; scheduled episodes keep their dates).
async fn with_drafts(xml: Vec<u8>, dir: &Path) -> anyhow::Result<Vec<u8>> {
    let path = dir.join(DRAFTS);
    let drafts = match tokio::fs::read_to_string(&path).await {
        Ok(drafts) => drafts,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(xml),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let items = match (drafts.find("<item>"), drafts.rfind("</item>")) {
        (Some(start), Some(end)) => &drafts[start..end + "</item>".len()],
        _ => return Ok(xml),
    };
    let text = String::from_utf8(xml).map_err(|_| anyhow::anyhow!("the feed is not UTF-8"))?;
    let at = text
        .rfind("</channel>")
        .ok_or_else(|| anyhow::anyhow!("the feed has no </channel>"))?;
    Ok(format!("{}{}{}", &text[..at], items, &text[at..]).into_bytes())
}

/// Reads the files of an exported podcast from its folder, and anything else from the network.
#[derive(Debug)]
struct LocalFiles {
    dir: PathBuf,
    files: HashMap<String, String>,
    network: Arc<dyn Fetcher>,
}

#[async_trait::async_trait]
impl Fetcher for LocalFiles {
    fn is_local(&self, url: &str) -> bool {
        self.files.contains_key(url)
    }

    async fn get(&self, request: FetchRequest) -> Result<Fetched, FetchError> {
        let Some(name) = self.files.get(&request.url) else {
            return self.network.get(request).await;
        };
        let path = self.dir.join(name);
        let file = tokio::fs::File::open(&path)
            .await
            .map_err(|e| FetchError::Refused(format!("cannot read {}: {e}", path.display())))?;
        let length = file.metadata().await.map(|m| m.len()).ok();
        let body = futures::stream::unfold(Some(file), |file| async move {
            use tokio::io::AsyncReadExt;
            let mut file = file?;
            let mut buf = vec![0u8; 256 << 10];
            match file.read(&mut buf).await {
                Ok(0) => None,
                Ok(n) => {
                    buf.truncate(n);
                    Some((Ok(bytes::Bytes::from(buf)), Some(file)))
                }
                Err(e) => Some((Err(e.to_string()), None)),
            }
        })
        .boxed();
        Ok(Fetched {
            status: 200,
            location: None,
            content_type: None,
            content_length: length,
            body,
        })
    }
}

/// Progress on a terminal: the feed, then one bar for the bytes of the files. Nothing when
/// stderr is not a terminal or the output is JSON.
struct Bars {
    bars: MultiProgress,
    bytes: ProgressBar,
}

impl Bars {
    fn new(json: bool) -> Self {
        let target = if json {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bars = MultiProgress::with_draw_target(target);
        let bytes = bars.add(ProgressBar::new(0));
        bytes.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Bars { bars, bytes }
    }

    fn finish(&self) {
        self.bytes.finish_and_clear();
    }
}

impl ImportProgress for Bars {
    fn feed(&self, title: &str, items: usize) {
        let _ = self
            .bars
            .println(format!("reading \"{title}\": {items} episodes"));
        self.bytes.set_message("files");
    }

    fn file_started(&self, expected: Option<u64>) {
        self.bytes.inc_length(expected.unwrap_or(0));
    }

    fn bytes(&self, n: u64) {
        self.bytes.inc(n);
    }

    fn problem(&self, message: &str) {
        let _ = self.bars.println(format!("warning: {message}"));
    }
}
