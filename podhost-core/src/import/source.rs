//! A feed as its source host wrote it: the channel and items read from the XML tree, with what
//! could not be read reported rather than guessed.

use jiff::Timestamp;

use super::{
    dates::parse_date,
    xml::{Element, Ns},
};

/// An enclosure or another file an item links to.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFile {
    /// Its absolute URL.
    pub url: String,
    /// The declared MIME type.
    pub mime: Option<String>,
    /// The declared length in bytes.
    pub length: Option<u64>,
}

/// A `podcast:transcript`.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceTranscript {
    /// The file.
    pub file: SourceFile,
    /// Its language.
    pub language: Option<String>,
    /// Its `rel` (`captions`).
    pub rel: Option<String>,
}

/// The channel of the source feed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceChannel {
    pub title: String,
    pub description: String,
    pub language: Option<String>,
    pub copyright: String,
    pub link: String,
    pub image: Option<String>,
    pub itunes_author: String,
    pub itunes_owner_name: String,
    pub itunes_owner_email: String,
    /// Each `itunes:category` with its first subcategory (empty for none), in feed order.
    pub itunes_categories: Vec<(String, String)>,
    pub itunes_explicit: Option<bool>,
    pub itunes_serial: Option<bool>,
    pub itunes_block: bool,
    pub itunes_complete: bool,
    pub itunes_subtitle: String,
    pub itunes_summary: String,
    pub googleplay_author: String,
    pub googleplay_description: String,
    pub podcast_guid: Option<uuid::Uuid>,
    pub podcast_locked: Option<bool>,
    pub podcast_funding: Vec<(String, String)>,
    pub podcast_medium: Option<String>,
}

/// One item of the source feed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceItem {
    /// The guid verbatim (or the enclosure URL when the item has none; see [`SourceFeed`]).
    pub guid: String,
    pub title: String,
    /// The richer of `description` and `content:encoded`.
    pub description: String,
    /// `pubDate` as written.
    pub pub_date_text: String,
    /// `pubDate` read; `None` when missing or unreadable.
    pub pub_date: Option<Timestamp>,
    pub link: String,
    pub itunes_title: String,
    pub itunes_episode: Option<u32>,
    pub itunes_season: Option<u32>,
    pub itunes_episode_type: Option<String>,
    pub itunes_explicit: Option<bool>,
    /// `itunes:duration` as written.
    pub itunes_duration: Option<String>,
    pub itunes_image: Option<String>,
    pub itunes_author: String,
    pub itunes_subtitle: String,
    pub itunes_summary: String,
    pub itunes_block: bool,
    pub enclosure: Option<SourceFile>,
    pub transcripts: Vec<SourceTranscript>,
    pub chapters: Option<SourceFile>,
}

impl SourceItem {
    /// The transcript to import (podhost publishes one): the first in a captions format
    /// (WebVTT or SRT: what Apple reads and apps show in time with the audio), else the first
    /// JSON one, else the first. Hosts list several, and not best first: Buzzsprout lists its
    /// HTML page before its captions.
    pub(crate) fn transcript(&self) -> Option<&SourceTranscript> {
        self.transcripts.iter().min_by_key(|t| transcript_rank(t))
    }
}

/// How fit a transcript is to import, by its declared type or else its extension: 0 captions,
/// 1 JSON, 2 anything else (HTML, plain text).
fn transcript_rank(transcript: &SourceTranscript) -> u8 {
    let file = &transcript.file;
    match file.mime.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some(
            "text/vtt"
            | "application/x-subrip"
            | "application/srt"
            | "application/x-srt"
            | "text/srt",
        ) => 0,
        Some("application/json") => 1,
        Some(_) => 2,
        None => {
            let path = url::Url::parse(&file.url)
                .map(|u| u.path().to_ascii_lowercase())
                .unwrap_or_default();
            match path.rsplit_once('.').map(|(_, extension)| extension) {
                Some("vtt" | "srt") => 0,
                Some("json") => 1,
                _ => 2,
            }
        }
    }
}

/// A source feed and what reading it found wrong.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceFeed {
    pub channel: SourceChannel,
    /// Items in document order, without the ones refused (see `problems`).
    pub items: Vec<SourceItem>,
    /// What could not be read, in words.
    pub problems: Vec<String>,
}

fn yes(text: Option<String>) -> Option<bool> {
    let text = text?.to_ascii_lowercase();
    match text.as_str() {
        "yes" | "true" | "explicit" | "1" => Some(true),
        "no" | "false" | "clean" | "0" => Some(false),
        _ => None,
    }
}

/// Resolves `url` against `base` (relative URLs happen); `None` when it cannot be made absolute
/// http(s).
fn absolute(url: &str, base: Option<&url::Url>, problems: &mut Vec<String>) -> Option<String> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Some(parsed.to_string()),
        Ok(parsed) => {
            problems.push(format!("{url}: a {} URL is not fetched", parsed.scheme()));
            None
        }
        Err(_) => match base.and_then(|b| b.join(url).ok()) {
            Some(joined) => {
                problems.push(format!("{url}: a relative URL, read as {joined}"));
                Some(joined.to_string())
            }
            None => {
                problems.push(format!("{url}: not a URL"));
                None
            }
        },
    }
}

fn file(
    element: &Element,
    base: Option<&url::Url>,
    problems: &mut Vec<String>,
) -> Option<SourceFile> {
    let url = absolute(element.attr("url")?, base, problems)?;
    Some(SourceFile {
        url,
        mime: element
            .attr("type")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
        length: element
            .attr("length")
            .and_then(|l| l.trim().parse().ok())
            .filter(|l| *l > 0),
    })
}

/// Reads a feed's tree. `base` resolves relative URLs (the feed's own URL).
pub(crate) fn read(root: &Element, base: Option<&str>) -> Result<SourceFeed, String> {
    if root.name != "rss" {
        return Err(format!(
            "this is not an RSS feed (its root element is <{}>)",
            root.name
        ));
    }
    let channel = root
        .child(Ns::Rss, "channel")
        .ok_or("the feed has no <channel>")?;
    let base = base.and_then(|b| url::Url::parse(b).ok());
    let base = base.as_ref();
    let mut problems = Vec::new();
    let text = |e: &Element, ns, name| e.text_of(ns, name).unwrap_or_default();
    let mut c = SourceChannel {
        title: text(channel, Ns::Rss, "title"),
        description: richer(
            text(channel, Ns::Rss, "description"),
            text(channel, Ns::Content, "encoded"),
        ),
        language: channel.text_of(Ns::Rss, "language"),
        copyright: text(channel, Ns::Rss, "copyright"),
        link: text(channel, Ns::Rss, "link"),
        itunes_author: text(channel, Ns::Itunes, "author"),
        itunes_subtitle: text(channel, Ns::Itunes, "subtitle"),
        itunes_summary: text(channel, Ns::Itunes, "summary"),
        itunes_explicit: yes(channel.text_of(Ns::Itunes, "explicit")),
        itunes_serial: channel
            .text_of(Ns::Itunes, "type")
            .map(|t| t.eq_ignore_ascii_case("serial")),
        itunes_block: yes(channel.text_of(Ns::Itunes, "block")).unwrap_or(false),
        itunes_complete: yes(channel.text_of(Ns::Itunes, "complete")).unwrap_or(false),
        googleplay_author: text(channel, Ns::GooglePlay, "author"),
        googleplay_description: text(channel, Ns::GooglePlay, "description"),
        podcast_locked: yes(channel.text_of(Ns::Podcast, "locked")),
        podcast_medium: channel.text_of(Ns::Podcast, "medium"),
        ..Default::default()
    };
    if c.title.is_empty() {
        return Err("the feed's channel has no title".into());
    }
    if let Some(owner) = channel.child(Ns::Itunes, "owner") {
        c.itunes_owner_name = text(owner, Ns::Itunes, "name");
        c.itunes_owner_email = text(owner, Ns::Itunes, "email");
    }
    for category in channel.all(Ns::Itunes, "category") {
        let name = |e: &Element| e.attr("text").unwrap_or_default().trim().to_string();
        let sub = category
            .child(Ns::Itunes, "category")
            .map(name)
            .unwrap_or_default();
        c.itunes_categories.push((name(category), sub));
    }
    let image = channel
        .child(Ns::Itunes, "image")
        .and_then(|i| i.attr("href"))
        .map(str::to_string)
        .or_else(|| {
            channel
                .child(Ns::Rss, "image")
                .and_then(|i| i.text_of(Ns::Rss, "url"))
        });
    c.image = image.and_then(|url| absolute(&url, base, &mut problems));
    if let Some(guid) = channel.text_of(Ns::Podcast, "guid") {
        match uuid::Uuid::parse_str(&guid) {
            Ok(guid) => c.podcast_guid = Some(guid),
            Err(_) => problems.push(format!("podcast:guid \"{guid}\" is not a UUID; left out")),
        }
    }
    for funding in channel.all(Ns::Podcast, "funding") {
        if let Some(url) = funding
            .attr("url")
            .and_then(|u| absolute(u, base, &mut problems))
        {
            c.podcast_funding
                .push((url, funding.text.trim().to_string()));
        }
    }

    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (n, element) in channel.all(Ns::Rss, "item").enumerate() {
        let mut item = read_item(element, base, &mut problems);
        let name = if item.title.is_empty() {
            format!("item {}", n + 1)
        } else {
            format!("\"{}\"", item.title)
        };
        if item.guid.is_empty() {
            match &item.enclosure {
                // What apps fall back to as well.
                Some(enclosure) => {
                    problems.push(format!("{name} has no guid; its enclosure URL is its guid"));
                    item.guid = enclosure.url.clone();
                }
                None => {
                    problems.push(format!(
                        "{name} has neither a guid nor an enclosure; skipped"
                    ));
                    continue;
                }
            }
        }
        if !seen.insert(item.guid.clone()) {
            problems.push(format!(
                "{name} repeats the guid \"{}\" of an earlier item; skipped",
                item.guid
            ));
            continue;
        }
        if item.pub_date.is_none() {
            problems.push(format!(
                "{name}: its date \"{}\" cannot be read; imported as a draft dated now",
                item.pub_date_text
            ));
        }
        items.push(item);
    }
    Ok(SourceFeed {
        channel: c,
        items,
        problems,
    })
}

fn read_item(e: &Element, base: Option<&url::Url>, problems: &mut Vec<String>) -> SourceItem {
    let text = |ns, name| e.text_of(ns, name).unwrap_or_default();
    let number = |ns, name| -> Option<u32> { e.text_of(ns, name)?.parse().ok() };
    let pub_date_text = text(Ns::Rss, "pubDate");
    let mut item = SourceItem {
        guid: text(Ns::Rss, "guid"),
        title: text(Ns::Rss, "title"),
        description: richer(text(Ns::Rss, "description"), text(Ns::Content, "encoded")),
        pub_date: parse_date(&pub_date_text),
        pub_date_text,
        link: text(Ns::Rss, "link"),
        itunes_title: text(Ns::Itunes, "title"),
        itunes_episode: number(Ns::Itunes, "episode"),
        itunes_season: number(Ns::Itunes, "season"),
        itunes_episode_type: e.text_of(Ns::Itunes, "episodeType"),
        itunes_explicit: yes(e.text_of(Ns::Itunes, "explicit")),
        itunes_duration: e.text_of(Ns::Itunes, "duration"),
        itunes_author: text(Ns::Itunes, "author"),
        itunes_subtitle: text(Ns::Itunes, "subtitle"),
        itunes_summary: text(Ns::Itunes, "summary"),
        itunes_block: yes(e.text_of(Ns::Itunes, "block")).unwrap_or(false),
        ..Default::default()
    };
    item.itunes_image = e
        .child(Ns::Itunes, "image")
        .and_then(|i| i.attr("href"))
        .and_then(|u| absolute(u, base, problems));
    item.enclosure = e
        .child(Ns::Rss, "enclosure")
        .and_then(|en| file(en, base, problems));
    for t in e.all(Ns::Podcast, "transcript") {
        if let Some(file) = file(t, base, problems) {
            item.transcripts.push(SourceTranscript {
                file,
                language: t.attr("language").map(str::to_string),
                rel: t.attr("rel").map(str::to_string),
            });
        }
    }
    item.chapters = e
        .child(Ns::Podcast, "chapters")
        .and_then(|c| file(c, base, problems));
    item
}

/// The richer of two renderings of the same notes: the longer one (`content:encoded` usually
/// carries the HTML that `description` flattens).
fn richer(a: String, b: String) -> String {
    if b.len() > a.len() { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transcript_imported_is_captions_first() {
        let t = |url: &str, mime: Option<&str>| SourceTranscript {
            file: SourceFile {
                url: url.into(),
                mime: mime.map(str::to_string),
                length: None,
            },
            language: None,
            rel: None,
        };
        let cases: [(Vec<SourceTranscript>, Option<&str>); 5] = [
            // Buzzsprout's order: the HTML page first.
            (
                vec![
                    t("https://b.example/1/transcript", Some("text/html")),
                    t(
                        "https://b.example/1/transcript.json",
                        Some("application/json"),
                    ),
                    t(
                        "https://b.example/1/transcript.srt",
                        Some("application/x-subrip"),
                    ),
                    t("https://b.example/1/transcript.vtt", Some("text/vtt")),
                ],
                Some("https://b.example/1/transcript.srt"),
            ),
            (
                vec![
                    t("https://b.example/t.txt", Some("text/plain")),
                    t("https://b.example/t.json", Some("application/json")),
                ],
                Some("https://b.example/t.json"),
            ),
            // No type: the extension.
            (
                vec![
                    t("https://b.example/t.html", None),
                    t("https://b.example/t.VTT?v=2", None),
                ],
                Some("https://b.example/t.VTT?v=2"),
            ),
            (
                vec![t("https://b.example/t.html", Some("text/html"))],
                Some("https://b.example/t.html"),
            ),
            (vec![], None),
        ];
        for (transcripts, expected) in cases {
            let item = SourceItem {
                transcripts,
                ..Default::default()
            };
            assert_eq!(item.transcript().map(|t| t.file.url.as_str()), expected);
        }
    }
}
