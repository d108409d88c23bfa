//! Importing a podcast from its RSS feed (the rules are in [`crate::import`]'s module doc).

use super::Podcasts;
use crate::lock::Locked;
use std::{collections::HashMap, sync::Mutex, time::Duration};

use futures::StreamExt;

mod fields;

use crate::host::{
    PodcastHost,
    podcasts::episode_files::EpisodeFiles,
    podcasts::uploads::{StagedUpload, UploadTarget},
    user_text,
};
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{EpisodeId, FeedId},
    import::{
        CONCURRENCY, Fetcher, ImportOptions, ImportProgress, ImportReport, ImportSource,
        MAX_FEED_BYTES,
        fetch::{self, FetchError},
        source::{self, SourceChannel, SourceFile, SourceItem},
        xml,
    },
    model::{EpisodePatch, FeedPatch, NewEpisode, NewFeed},
    principal::Principal,
    probe::MediaKind,
    tags::Chapter,
};
use fields::{channel_patch, item_patch};

/// Attempts per file (the first and two retries).
const ATTEMPTS: u32 = 3;
/// The most a chapters document may weigh.
const MAX_CHAPTERS_BYTES: u64 = 5 << 20;

/// What an episode of the podcast has already (so a second run fetches nothing it holds).
struct Have {
    id: EpisodeId,
    media: bool,
    cover: bool,
    transcript: bool,
}

/// One import under way.
struct Run<'a> {
    host: &'a PodcastHost,
    /// The account's owner: the import was allowed by the caller's `feeds` scope, and acts for
    /// the account in everything it then creates.
    owner: Principal,
    fetcher: &'a dyn Fetcher,
    progress: &'a dyn ImportProgress,
    allow_private: bool,
    report: Mutex<ImportReport>,
}

impl Run<'_> {
    fn problem(&self, message: String) {
        self.progress.problem(&message);
        self.report.locked().problems.push(message);
    }

    fn count(&self, f: impl FnOnce(&mut ImportReport)) {
        f(&mut self.report.locked());
    }

    /// Downloads `file` into a staged upload for `target`, retrying transient failures; checks
    /// the real type (from the bytes) against `kinds` and the length against the declared one.
    async fn stage(
        &self,
        file: &SourceFile,
        target: &UploadTarget,
        kinds: &[MediaKind],
        what: &str,
    ) -> std::result::Result<StagedUpload, String> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = self.stage_once(file, target).await;
            match outcome {
                Ok(staged) => {
                    if !kinds.is_empty() && !kinds.contains(&staged.facts().kind) {
                        return Err(format!(
                            "{what} {} is not {} but {}",
                            file.url,
                            kind_words(kinds),
                            staged.facts().mime
                        ));
                    }
                    if let Some(declared) = file.length
                        && declared != staged.size()
                    {
                        self.problem(format!(
                            "{what} {}: the feed says {declared} bytes, the file has {}",
                            file.url,
                            staged.size()
                        ));
                    }
                    let declared_kind = file.mime.as_deref().and_then(|m| m.split('/').next());
                    let real = staged.facts().mime.split('/').next().unwrap_or_default();
                    if declared_kind.is_some_and(|d| d != real) {
                        self.problem(format!(
                            "{what} {}: the feed says {}, the bytes are {}",
                            file.url,
                            file.mime.as_deref().unwrap_or_default(),
                            staged.facts().mime
                        ));
                    }
                    self.count(|r| {
                        r.files += 1;
                        r.bytes += staged.size();
                    });
                    return Ok(staged);
                }
                Err((e, transient)) if transient && attempt < ATTEMPTS => {
                    tracing::info!(url = %file.url, error = %e, attempt, "import: retrying a file");
                    tokio::time::sleep(Duration::from_millis(500 << attempt)).await;
                }
                Err((e, _)) => {
                    return Err(format!(
                        "{what} {} could not be fetched after {attempt} attempt{}: {e}",
                        file.url,
                        if attempt == 1 { "" } else { "s" }
                    ));
                }
            }
        }
    }

    /// One download; the error says whether another attempt may succeed.
    async fn stage_once(
        &self,
        file: &SourceFile,
        target: &UploadTarget,
    ) -> std::result::Result<StagedUpload, (String, bool)> {
        let body = fetch::follow(self.fetcher, &file.url, self.allow_private)
            .await
            .map_err(|e| {
                let transient = e.is_transient();
                (e.to_string(), transient)
            })?;
        self.progress
            .file_started(body.content_length.or(file.length));
        let name = file_name(&body.url);
        let progress = self.progress;
        let stream = body.stream.inspect(move |chunk| {
            if let Ok(chunk) = chunk {
                progress.bytes(chunk.len() as u64);
            }
        });
        let staged = self
            .host
            .podcasts()
            .stage_upload(&self.owner, target.clone(), &name, stream)
            .await;
        self.progress.file_done();
        staged.map_err(|e| {
            let transient = matches!(
                e,
                Error::Interrupted { .. }
                    | Error::Storage { .. }
                    | Error::Unavailable { .. }
                    | Error::InsufficientStorage { .. }
            );
            (e.to_string(), transient)
        })
    }

    /// Fetches and reads a JSON chapters document.
    async fn chapters(&self, file: &SourceFile) -> std::result::Result<Vec<Chapter>, String> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let read = async {
                let body = fetch::follow(self.fetcher, &file.url, self.allow_private).await?;
                fetch::read_capped(body, MAX_CHAPTERS_BYTES).await
            }
            .await;
            match read {
                Ok(bytes) => {
                    return crate::publish::chapters::parse(&bytes)
                        .map_err(|e| format!("the chapters {}: {e}", file.url));
                }
                Err(e) if e.is_transient() && attempt < ATTEMPTS => {
                    tokio::time::sleep(Duration::from_millis(500 << attempt)).await;
                }
                Err(e) => {
                    return Err(format!(
                        "the chapters {} could not be fetched: {e}",
                        file.url
                    ));
                }
            }
        }
    }
}

fn kind_words(kinds: &[MediaKind]) -> &'static str {
    match kinds {
        [MediaKind::Image] => "an image",
        _ => "audio or video",
    }
}

/// A file name from the last segment of a URL's path (percent-decoded); `file` when it has
/// none.
fn file_name(url: &str) -> String {
    let segment = url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.path_segments()
                .and_then(|mut s| s.next_back().map(str::to_string))
        })
        .unwrap_or_default();
    let decoded = percent_decode(&segment);
    if decoded.trim().is_empty() {
        "file".into()
    } else {
        decoded
    }
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// A feed id made from a title: lowercase letters and digits, words joined by `-`, at most 60
/// characters.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "podcast".into()
    } else {
        out
    }
}

impl PodcastHost {
    /// Creates the podcast, or updates it when a former run created it; returns its id.
    async fn import_channel(
        &self,
        run: &Run<'_>,
        channel: &SourceChannel,
        options: &ImportOptions,
    ) -> Result<FeedId> {
        let mut problems = Vec::new();
        let patch = channel_patch(channel, &mut problems);
        for problem in problems {
            run.problem(problem);
        }
        let chosen = options.feed_id.is_some();
        let id = FeedId::new(
            &options
                .feed_id
                .clone()
                .unwrap_or_else(|| slug(&channel.title)),
        )?;
        let existing = match self.podcasts().get_feed(&run.owner, &id).await {
            Ok(view) => Some(view),
            Err(Error::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        let view = match existing {
            Some(view) => {
                if !chosen
                    && channel
                        .podcast_guid
                        .is_some_and(|guid| guid != view.feed.podcast.guid)
                {
                    return Err(Error::conflict(format!(
                        "you have another podcast with the id {id}; choose an id for this one \
                         (--feed-id, or feed_id)"
                    )));
                }
                let patch = FeedPatch {
                    // Set once, at creation: a podcast keeps its guid.
                    podcast_guid: None,
                    ..patch
                };
                if self.feed_differs(&run.owner, &id, &patch).await? {
                    self.podcasts().update_feed(&run.owner, &id, &patch).await?
                } else {
                    view
                }
            }
            None => {
                let new = NewFeed {
                    id: id.to_string(),
                    fields: patch,
                };
                match self.podcasts().create_feed(&run.owner, new).await {
                    Err(Error::Conflict { .. }) => {
                        return Err(Error::conflict(format!(
                            "the podcast id {id} is taken on this server; choose another \
                             (--feed-id, or feed_id)"
                        )));
                    }
                    other => other?,
                }
            }
        };
        if view.feed.logo.is_none()
            && options.media
            && let Some(image) = &channel.image
        {
            let file = SourceFile {
                url: image.clone(),
                mime: None,
                length: None,
            };
            let target = UploadTarget::Feed(id.clone());
            match run
                .stage(&file, &target, &[MediaKind::Image], "the cover")
                .await
            {
                Ok(staged) => {
                    self.podcasts()
                        .set_feed_logo(&run.owner, &id, staged)
                        .await?;
                }
                Err(problem) => run.problem(problem),
            }
        }
        Ok(id)
    }

    /// The podcast's episodes by guid, with what each holds.
    async fn what_is_there(&self, run: &Run<'_>, feed: &FeedId) -> Result<HashMap<String, Have>> {
        let catalog = self.catalog(run.owner.account()).await?;
        Ok(catalog
            .read(|state| {
                state
                    .feeds
                    .get(feed)
                    .map(|entry| {
                        entry
                            .episodes
                            .values()
                            .map(|e| {
                                let have = Have {
                                    id: e.id,
                                    media: e.media.is_some(),
                                    cover: e.itunes.logo.is_some(),
                                    transcript: e.transcript.is_some(),
                                };
                                (e.guid.clone(), have)
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .await)
    }

    async fn import_item(
        &self,
        run: &Run<'_>,
        feed: &FeedId,
        item: &SourceItem,
        have: Option<&Have>,
        options: &ImportOptions,
        channel_image: Option<&str>,
    ) -> Result<()> {
        let mut problems = Vec::new();
        let mut patch = item_patch(item, self.now(), &mut problems);
        for problem in problems {
            run.problem(problem);
        }
        let name = format!("item \"{}\"", item.guid);
        let target = UploadTarget::Episode(feed.clone());
        let mut files = EpisodeFiles::default();
        let whole = have.is_some_and(|h| {
            (h.media || item.enclosure.is_none())
                && (h.cover || item.itunes_image.is_none())
                && (h.transcript || item.transcripts.is_empty())
        });
        if whole || !options.media {
            if have.is_some() {
                run.count(|r| r.unchanged += 1);
                return Ok(());
            }
        } else {
            if have.is_none_or(|h| !h.media)
                && let Some(enclosure) = &item.enclosure
            {
                let kinds = [MediaKind::Audio, MediaKind::Video];
                match run
                    .stage(
                        enclosure,
                        &target,
                        &kinds,
                        &format!("{name}: the enclosure"),
                    )
                    .await
                {
                    Ok(mut staged) => {
                        if let Some(chapters) = &item.chapters {
                            match run.chapters(chapters).await {
                                Ok(read) => staged.set_chapters(read),
                                Err(problem) => run.problem(format!("{name}: {problem}")),
                            }
                        }
                        files.media = Some(staged);
                    }
                    Err(problem) => {
                        run.problem(format!(
                            "{problem}; the episode stays a draft until a later run fetches it"
                        ));
                        patch.is_public = Some(false);
                    }
                }
            }
            if have.is_none_or(|h| !h.cover)
                && let Some(image) = &item.itunes_image
                && Some(image.as_str()) != channel_image
            {
                let file = SourceFile {
                    url: image.clone(),
                    mime: None,
                    length: None,
                };
                match run
                    .stage(
                        &file,
                        &target,
                        &[MediaKind::Image],
                        &format!("{name}: the artwork"),
                    )
                    .await
                {
                    Ok(staged) => files.cover = Some(staged),
                    Err(problem) => run.problem(problem),
                }
            }
            if have.is_none_or(|h| !h.transcript)
                && let Some(transcript) = item.transcript()
            {
                match run
                    .stage(
                        &transcript.file,
                        &target,
                        &[],
                        &format!("{name}: the transcript"),
                    )
                    .await
                {
                    Ok(staged) => files.transcript = Some(staged),
                    Err(problem) => run.problem(problem),
                }
            }
        }
        match have {
            None => {
                let new = NewEpisode {
                    guid: Some(item.guid.clone()),
                    fields: patch,
                };
                self.podcasts()
                    .create_episode_with_files(&run.owner, feed, new, files)
                    .await?;
                run.count(|r| r.created += 1);
            }
            Some(have) => {
                // Completing what a former run left: the files it lacks, and its publication
                // once its audio is there.
                let fill = EpisodePatch {
                    is_public: match files.media.is_some() {
                        true => patch.is_public,
                        false => None,
                    },
                    ..Default::default()
                };
                if files.is_empty() {
                    run.count(|r| r.unchanged += 1);
                } else {
                    self.podcasts()
                        .update_episode_with_files(&run.owner, feed, have.id, &fill, files)
                        .await?;
                    run.count(|r| r.completed += 1);
                }
            }
        }
        Ok(())
    }
}

impl Podcasts<'_> {
    /// Imports a podcast from its RSS feed (scope `feeds`): the channel with every field podhost
    /// models (`podcast:guid` kept; without one, the one computed from the feed's URL, as the
    /// Podcast Index does), and an episode per item matched by guid (kept verbatim), with its
    /// enclosure, artwork, transcript (captions first) and chapters downloaded into the store
    /// through `fetcher`, `options.concurrency` files at a time. Published items stay published
    /// at their dates; `itunes:block` and unreadable dates make drafts. Running it again changes
    /// nothing and fetches nothing already stored, and completes what an interrupted run left.
    /// Problems that concern one item or file are reported and the import goes on; what makes
    /// the feed unusable (unreadable, not RSS, refused URL, too large) is an `Invalid` error.
    pub async fn import_feed(
        self,
        who: &Principal,
        source: ImportSource,
        options: &ImportOptions,
        fetcher: &dyn Fetcher,
        progress: &dyn ImportProgress,
    ) -> Result<ImportReport> {
        who.authorize(Action::EditPodcasts)?;
        if !who.sees_all() {
            return Err(Error::Forbidden {
                message: "a member restricted to some podcasts cannot import podcasts".into(),
            });
        }
        // The import writes episodes and media as the caller, with every scope (an importer of
        // podcasts brings their episodes and files).
        let owner = who.with_every_scope();
        let allow_private = self.host.config().allow_private_webhooks;
        let refused = |e: String| Error::invalid("feed", e);
        // `address`: where the feed is known to live (the URL asked for, before redirects).
        let (xml_bytes, base, address) = match source {
            ImportSource::Url(url) => {
                let body = fetch::follow(fetcher, &url, allow_private)
                    .await
                    .map_err(|e| refused(format!("the feed {url} could not be fetched: {e}")))?;
                let base = body.url.clone();
                let bytes =
                    fetch::read_capped(body, MAX_FEED_BYTES)
                        .await
                        .map_err(|e| match e {
                            FetchError::Refused(why) => refused(why),
                            other => refused(format!("the feed {url} could not be read: {other}")),
                        })?;
                (bytes, Some(base), Some(url))
            }
            ImportSource::Document { xml, url } => {
                if xml.len() as u64 > MAX_FEED_BYTES {
                    return Err(refused(format!(
                        "the feed is larger than {} MiB",
                        MAX_FEED_BYTES >> 20
                    )));
                }
                (xml, url.clone(), url)
            }
        };
        let root = xml::parse(&xml_bytes).map_err(refused)?;
        let mut feed = source::read(&root, base.as_deref()).map_err(refused)?;
        drop(root);
        drop(xml_bytes);
        // A feed without podcast:guid is known by the guid the namespace computes from its URL
        // (the Podcast Index does, for every feed): the podcast keeps that one when it moves
        // here, or apps that follow guids would take it for a new podcast.
        if feed.channel.podcast_guid.is_none()
            && let Some(address) = &address
        {
            feed.channel.podcast_guid = Some(crate::model::podcast_guid(address.trim()));
        }
        // An item whose guid podhost cannot keep (too long, control characters) would have its
        // files fetched, then its episode refused, and that refusal would end the import half
        // done, on every run: it is skipped, and said, before anything is made.
        feed.items.retain(|item| {
            let mut errors = FieldErrors::default();
            user_text::check_guid(&mut errors, &item.guid);
            if errors.is_empty() {
                return true;
            }
            let why: Vec<&str> = errors
                .fields()
                .values()
                .flatten()
                .map(String::as_str)
                .collect();
            let name = match item.title.is_empty() {
                true => "an item".to_string(),
                false => format!("\"{}\"", item.title),
            };
            feed.problems.push(format!(
                "{name}: its guid cannot be kept ({}); skipped",
                why.join("; ")
            ));
            false
        });
        // The newest first, so that `limit` keeps the newest.
        feed.items
            .sort_by_key(|item| std::cmp::Reverse(item.pub_date));
        if let Some(limit) = options.limit {
            feed.items.truncate(limit);
        }
        let run = Run {
            host: self.host,
            owner,
            fetcher,
            progress,
            allow_private,
            report: Mutex::new(ImportReport {
                items: feed.items.len(),
                ..Default::default()
            }),
        };
        // The feed first, so that a display can say what the problems it reads are about.
        progress.feed(&feed.channel.title, feed.items.len());
        for problem in std::mem::take(&mut feed.problems) {
            run.problem(problem);
        }
        let feed_id = self
            .host
            .import_channel(&run, &feed.channel, options)
            .await?;
        let have = self.host.what_is_there(&run, &feed_id).await?;
        let concurrency = options
            .concurrency
            .clamp(*CONCURRENCY.start(), *CONCURRENCY.end());
        let channel_image = feed.channel.image.clone();
        // At most `concurrency` items (and so files) at once; the first error that is not an
        // item's own (the store failed) ends the import, to be resumed by running it again.
        let mut pending = futures::stream::FuturesUnordered::new();
        let mut items = feed.items.iter();
        loop {
            while pending.len() < concurrency {
                let Some(item) = items.next() else { break };
                let have = have.get(&item.guid);
                pending.push(self.host.import_item(
                    &run,
                    &feed_id,
                    item,
                    have,
                    options,
                    channel_image.as_deref(),
                ));
            }
            match pending.next().await {
                Some(done) => {
                    run.progress.item_done();
                    done?;
                }
                None => break,
            }
        }
        drop(pending);
        let mut report = run.report.into_inner().unwrap_or_else(|e| e.into_inner());
        report.rss_url = self.host.urls().rss(&feed_id);
        report.feed_id = feed_id.to_string();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_ids_from_titles() {
        for (title, id) in [
            ("My Show!", "my-show"),
            ("  The  Daily — News  ", "the-daily-news"),
            ("Über Café", "über-café"),
            ("!!!", "podcast"),
        ] {
            assert_eq!(slug(title), id, "{title}");
        }
        assert!(slug(&"word ".repeat(40)).chars().count() <= 60);
    }

    #[test]
    fn file_names_from_urls() {
        for (url, name) in [
            ("https://cdn.example/show/ep%201.mp3?x=1", "ep 1.mp3"),
            ("https://cdn.example/", "file"),
            ("https://cdn.example/a/b.m4a", "b.m4a"),
        ] {
            assert_eq!(file_name(url), name, "{url}");
        }
    }
}
