//! Importing a podcast from its RSS feed (the rules are in [`crate::import`]'s module doc).

use std::{collections::HashMap, sync::Mutex, time::Duration};

use futures::StreamExt;

use super::{
    PodcastHost,
    episodes::EpisodeFiles,
    text,
    uploads::{StagedUpload, UploadTarget},
};
use crate::{
    error::{Error, FieldErrors, Result},
    ids::{EpisodeId, FeedId},
    import::{
        CONCURRENCY, Fetcher, ImportOptions, ImportProgress, ImportReport, ImportSource,
        MAX_FEED_BYTES,
        fetch::{self, FetchError},
        source::{self, SourceChannel, SourceFile, SourceItem},
        xml,
    },
    model::{
        EpisodePatch, EpisodeType, FeedPatch, Funding, NewEpisode, NewFeed, Reading, ShowType,
    },
    principal::Principal,
    probe::MediaKind,
    scope::Scope,
    tags::Chapter,
};

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
        self.report
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .problems
            .push(message);
    }

    fn count(&self, f: impl FnOnce(&mut ImportReport)) {
        f(&mut self.report.lock().unwrap_or_else(|e| e.into_inner()));
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
            .stage_upload(&self.owner, target.clone(), &name, stream)
            .await;
        self.progress.file_done();
        staged.map_err(|e| {
            let transient = matches!(e, Error::Interrupted { .. } | Error::Storage { .. });
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

/// Text fit for a one-line field: control characters and line breaks made spaces, at most
/// [`text::MAX_LINE_CHARS`] characters (cut with an ellipsis, reported).
fn line(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let flat: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= text::MAX_LINE_CHARS {
        return flat;
    }
    problems.push(format!(
        "{field} is longer than Apple's {} characters; cut",
        text::MAX_LINE_CHARS
    ));
    let mut cut: String = flat.chars().take(text::MAX_LINE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// Notes fit for a multi-line field: no control characters but line breaks and tabs, at most
/// [`text::MAX_TEXT_BYTES`] (HTML cut and cleaned again so its tags close; reported).
fn notes(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let clean: String = value
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    if clean.len() <= text::MAX_TEXT_BYTES {
        return clean;
    }
    problems.push(format!(
        "{field} is longer than Apple's {} bytes; cut",
        text::MAX_TEXT_BYTES
    ));
    let html = crate::publish::notes::is_html(&clean);
    let mut budget = text::MAX_TEXT_BYTES - 8;
    loop {
        let mut end = budget.min(clean.len());
        while !clean.is_char_boundary(end) {
            end -= 1;
        }
        let mut cut = clean[..end].to_string();
        if html {
            cut = crate::publish::notes::clean(&cut, crate::publish::notes::Medium::Feed);
        }
        cut.push('…');
        if cut.len() <= text::MAX_TEXT_BYTES || budget < 100 {
            return cut;
        }
        budget -= 200;
    }
}

/// A web address if it is one podhost accepts, else nothing (reported).
fn web(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let mut errors = FieldErrors::default();
    text::check_url(&mut errors, field, value.trim());
    if errors.is_empty() {
        value.trim().to_string()
    } else {
        problems.push(format!("{field} {value:?} is not a web address; left out"));
        String::new()
    }
}

fn channel_patch(c: &SourceChannel, problems: &mut Vec<String>) -> FeedPatch {
    let mut patch = FeedPatch {
        title: Some(line(&c.title, "the title", problems)),
        description: Some(notes(&c.description, "the description", problems)),
        copyright: Some(line(&c.copyright, "the copyright", problems)),
        link: Some(web(&c.link, "the link", problems)),
        itunes_subtitle: Some(line(&c.itunes_subtitle, "itunes:subtitle", problems)),
        itunes_summary: Some(notes(&c.itunes_summary, "itunes:summary", problems)),
        itunes_author: Some(line(&c.itunes_author, "itunes:author", problems)),
        itunes_owner_name: Some(line(&c.itunes_owner_name, "itunes:owner name", problems)),
        itunes_explicit: c.itunes_explicit,
        itunes_type: c.itunes_serial.map(|serial| match serial {
            true => ShowType::Serial,
            false => ShowType::Episodic,
        }),
        itunes_block: Some(c.itunes_block),
        itunes_complete: Some(c.itunes_complete),
        googleplay_author: Some(line(&c.googleplay_author, "googleplay:author", problems)),
        googleplay_description: Some(notes(
            &c.googleplay_description,
            "googleplay:description",
            problems,
        )),
        podcast_locked: c.podcast_locked,
        podcast_funding: Some(
            c.podcast_funding
                .iter()
                .map(|(url, text)| Funding {
                    url: url.clone(),
                    text: line(text, "podcast:funding", problems),
                })
                .collect(),
        ),
        podcast_guid: c.podcast_guid,
        ..Default::default()
    };
    let mut errors = FieldErrors::default();
    text::check_email(&mut errors, "email", c.itunes_owner_email.trim());
    if errors.is_empty() {
        patch.itunes_owner_email = Some(c.itunes_owner_email.trim().to_string());
    } else {
        problems.push(format!(
            "itunes:owner email {:?} is not an email address; left out",
            c.itunes_owner_email
        ));
    }
    // The first category that is Apple's as written, else the first one named, read through
    // the names Apple retired in 2019: a podcast named a category keeps one.
    let resolved = c
        .itunes_categories
        .iter()
        .filter_map(|(category, sub)| {
            Some((
                category,
                sub,
                crate::model::resolve_category(category, sub)?,
            ))
        })
        .min_by_key(|(_, _, r)| r.reading != Reading::Exact);
    if let Some((category, sub, r)) = resolved {
        patch.itunes_category = Some(r.category.to_string());
        patch.itunes_subcategory = Some(r.subcategory.to_string());
        let named = if sub.is_empty() {
            format!("{category:?}")
        } else {
            format!("{category:?} › {sub:?}")
        };
        let became = if r.subcategory.is_empty() {
            format!("{:?}", r.category)
        } else {
            format!("{:?} › {:?}", r.category, r.subcategory)
        };
        let note = match r.reading {
            Reading::Exact if r.subcategory.is_empty() && !sub.is_empty() => Some(format!(
                "itunes:category {category:?} has no subcategory {sub:?} in Apple's list; the subcategory is left out"
            )),
            Reading::Exact => None,
            Reading::Case => Some(format!(
                "itunes:category {named} is spelled as Apple spells it: {became}"
            )),
            Reading::Retired => Some(format!(
                "itunes:category {named} is a name Apple retired in 2019; imported as {became}"
            )),
            Reading::Subcategory => Some(format!(
                "itunes:category {named} is not in Apple's list; imported as {became}, where Apple lists it"
            )),
            Reading::Fallback => Some(format!(
                "itunes:category {named} is not in Apple's list nor like any of it; imported as {became}: choose the podcast's category"
            )),
        };
        problems.extend(note);
    }
    if let Some(language) = &c.language {
        let tag = language.trim();
        let ok = tag.split('-').enumerate().all(|(i, p)| match i {
            0 => (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()),
            _ => (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()),
        });
        if ok {
            patch.language = Some(tag.to_string());
        } else {
            problems.push(format!(
                "the language {language:?} is not a language tag; left out"
            ));
        }
    }
    if let Some(medium) = &c.podcast_medium {
        if super::feeds::MEDIUMS.contains(&medium.as_str()) {
            patch.podcast_medium = Some(medium.clone());
        } else {
            problems.push(format!(
                "podcast:medium {medium:?} is not one podhost knows; left out"
            ));
        }
    }
    patch
}

fn item_patch(item: &SourceItem, now: jiff::Timestamp, problems: &mut Vec<String>) -> EpisodePatch {
    let name = format!("item {:?}", item.guid);
    let mut title = line(&item.title, &format!("{name}: the title"), problems);
    if title.trim().is_empty() {
        title = line(&item.itunes_title, &format!("{name}: the title"), problems);
    }
    if title.trim().is_empty() {
        problems.push(format!("{name} has no title; it is called \"Untitled\""));
        title = "Untitled".into();
    }
    let episode_type = match item
        .itunes_episode_type
        .as_deref()
        .map(str::to_ascii_lowercase)
    {
        None => None,
        Some(t) => match t.parse::<EpisodeType>() {
            Ok(t) => Some(t),
            Err(_) => {
                problems.push(format!(
                    "{name}: itunes:episodeType {t:?} is not full, trailer or bonus; left out"
                ));
                None
            }
        },
    };
    EpisodePatch {
        title: Some(title),
        description: Some(notes(
            &item.description,
            &format!("{name}: the description"),
            problems,
        )),
        author: Some(line(
            &item.itunes_author,
            &format!("{name}: itunes:author"),
            problems,
        )),
        link: Some(web(&item.link, &format!("{name}: the link"), problems)),
        // Published items stay published at their dates; blocked ones and those without a
        // readable date become drafts.
        is_public: Some(item.pub_date.is_some() && !item.itunes_block),
        publish_at: Some(item.pub_date.unwrap_or(now)),
        itunes_title: Some(line(
            &item.itunes_title,
            &format!("{name}: itunes:title"),
            problems,
        )),
        itunes_subtitle: Some(line(
            &item.itunes_subtitle,
            &format!("{name}: itunes:subtitle"),
            problems,
        )),
        itunes_summary: Some(notes(
            &item.itunes_summary,
            &format!("{name}: itunes:summary"),
            problems,
        )),
        itunes_author: Some(line(
            &item.itunes_author,
            &format!("{name}: itunes:author"),
            problems,
        )),
        itunes_episode: Some(item.itunes_episode),
        itunes_season: Some(item.itunes_season),
        itunes_episode_type: episode_type,
        itunes_explicit: item.itunes_explicit.map(Some),
        ..Default::default()
    }
}

impl PodcastHost {
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
        &self,
        who: &Principal,
        source: ImportSource,
        options: &ImportOptions,
        fetcher: &dyn Fetcher,
        progress: &dyn ImportProgress,
    ) -> Result<ImportReport> {
        who.require(Scope::Feeds)?;
        let owner = Principal::owner(who.account().clone());
        let allow_private = self.config().allow_private_webhooks;
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
            feed.channel.podcast_guid = Some(super::feeds::podcast_guid(address.trim()));
        }
        // An item whose guid podhost cannot keep (too long, control characters) would have its
        // files fetched, then its episode refused, and that refusal would end the import half
        // done, on every run: it is skipped, and said, before anything is made.
        feed.items.retain(|item| {
            let mut errors = FieldErrors::default();
            super::episodes::check_guid(&mut errors, &item.guid);
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
                false => format!("{:?}", item.title),
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
            host: self,
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
        let feed_id = self.import_channel(&run, &feed.channel, options).await?;
        let have = self.what_is_there(&run, &feed_id).await?;
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
                pending.push(self.import_item(
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
        report.rss_url = self.urls().rss(&feed_id);
        report.feed_id = feed_id.to_string();
        Ok(report)
    }

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
        let existing = match self.get_feed(&run.owner, &id).await {
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
                    self.update_feed(&run.owner, &id, &patch).await?
                } else {
                    view
                }
            }
            None => {
                let new = NewFeed {
                    id: id.to_string(),
                    fields: patch,
                };
                match self.create_feed(&run.owner, new).await {
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
                    self.set_feed_logo(&run.owner, &id, staged).await?;
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
        let name = format!("item {:?}", item.guid);
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
                self.create_episode_with_files(&run.owner, feed, new, files)
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
                    self.update_episode_with_files(&run.owner, feed, have.id, &fill, files)
                        .await?;
                    run.count(|r| r.completed += 1);
                }
            }
        }
        Ok(())
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

    /// The category an imported podcast gets from its feed's `itunes:category` elements, and
    /// what the import says of it.
    fn imported_category(categories: &str) -> (String, String, Vec<String>) {
        let xml = format!(
            r#"<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>T</title>{categories}</channel></rss>"#
        );
        let root = xml::parse(xml.as_bytes()).unwrap();
        let feed = source::read(&root, None).unwrap();
        let mut problems = Vec::new();
        let patch = channel_patch(&feed.channel, &mut problems);
        problems.retain(|p| p.contains("category"));
        (
            patch.itunes_category.unwrap_or_default(),
            patch.itunes_subcategory.unwrap_or_default(),
            problems,
        )
    }

    #[test]
    fn a_podcast_named_a_category_keeps_one_of_apples() {
        let cat = |c: &str| format!(r#"<itunes:category text="{c}"/>"#);
        let sub = |c: &str, s: &str| {
            format!(
                r#"<itunes:category text="{c}"><itunes:category text="{s}"/></itunes:category>"#
            )
        };
        let cases: [(String, &str, &str, Option<&str>); 7] = [
            (sub("Business", "Careers"), "Business", "Careers", None),
            (
                cat("News &amp; Politics"),
                "News",
                "Politics",
                Some("retired in 2019"),
            ),
            (
                sub("Games &amp; Hobbies", "Video Games"),
                "Leisure",
                "Video Games",
                Some("retired"),
            ),
            (
                cat("technology"),
                "Technology",
                "",
                Some("spelled as Apple spells it"),
            ),
            (
                sub("Arts", "Knitting"),
                "Arts",
                "",
                Some("no subcategory \"Knitting\""),
            ),
            (
                format!("{}{}", cat("Noise"), cat("Comedy")),
                "Comedy",
                "",
                None,
            ),
            (
                cat("Noise"),
                "Society & Culture",
                "",
                Some("choose the podcast's category"),
            ),
        ];
        for (xml, category, subcategory, note) in cases {
            let (got, got_sub, problems) = imported_category(&xml);
            assert_eq!(
                (got.as_str(), got_sub.as_str()),
                (category, subcategory),
                "{xml}"
            );
            match note {
                None => assert!(problems.is_empty(), "{xml}: {problems:?}"),
                Some(note) => assert!(
                    problems.len() == 1 && problems[0].contains(note),
                    "{xml}: {problems:?}"
                ),
            }
        }
        let (none, _, problems) = imported_category("");
        assert_eq!(none, "");
        assert!(problems.is_empty());
    }

    #[test]
    fn long_notes_are_cut_and_stay_html() {
        let mut problems = Vec::new();
        let long = format!("<p>{}</p><p>{}</p>", "a".repeat(3000), "b".repeat(3000));
        let cut = notes(&long, "notes", &mut problems);
        assert!(cut.len() <= text::MAX_TEXT_BYTES, "{}", cut.len());
        assert!(cut.starts_with("<p>aaa"));
        assert_eq!(problems.len(), 1);
        let mut problems = Vec::new();
        assert_eq!(
            notes("short\nnotes", "notes", &mut problems),
            "short\nnotes"
        );
        assert!(problems.is_empty());
    }
}
