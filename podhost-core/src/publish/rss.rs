//! The RSS 2.0 document of a podcast, with the `itunes`, `podcast` (podcastindex.org), `atom`
//! and `content` namespaces, written with quick-xml; show notes cleaned by the
//! notes policy (`notes.rs`), one-line fields escaped as text.

use std::io::Cursor;

use jiff::Timestamp;
use quick_xml::{
    Writer,
    events::{BytesDecl, Event},
};

use super::{
    feed_values::{enclosure_type, rfc2822, yes_no},
    notes::{feed_notes, text_as_notes},
    podcast_tags::{channel_tags, item_tags, live_items},
    xml_text::clean_value,
    xml_writer::Xml,
};
use crate::{
    ids::AccountId,
    model::{EpisodeView, Feed, Media, ShowType},
    urls::{FeedLinks, FileLink},
};

/// The namespaces a feed declares. Google Play's (`googleplay:`) is not one of them: Google
/// Podcasts closed in 2024, no app reads it, and W3C's feed validator warns on it.
const NAMESPACES: [(&str, &str); 4] = [
    ("xmlns:itunes", "http://www.itunes.com/dtds/podcast-1.0.dtd"),
    ("xmlns:podcast", "https://podcastindex.org/namespace/1.0"),
    ("xmlns:atom", "http://www.w3.org/2005/Atom"),
    ("xmlns:content", "http://purl.org/rss/1.0/modules/content/"),
];

/// What a feed is rendered from, read at one moment.
pub(crate) struct FeedSource<'a> {
    pub(crate) account: &'a AccountId,
    pub(crate) feed: &'a Feed,
    pub(crate) logo: Option<&'a Media>,
    /// Published episodes, newest first.
    pub(crate) episodes: &'a [EpisodeView],
    pub(crate) last_modified: Timestamp,
    /// Marks episodes that are not public `itunes:block` (an export's document of drafts, so
    /// that an import makes them drafts again); the served feed has none.
    pub(crate) block_drafts: bool,
    /// The episodes' show notes as the feed carries them, cleaned before (the account's state
    /// keeps them, see `FeedEntry::feed_notes`); an episode missing here is cleaned now.
    pub(crate) cleaned: &'a std::collections::HashMap<crate::ids::EpisodeId, String>,
    /// The WebSub hubs the feed names (`<atom:link rel="hub">`), and whether it says it uses
    /// Podping (`<podcast:podping usesPodping="true"/>`).
    pub(crate) hubs: &'a [String],
    pub(crate) podping: bool,
    /// The measurement prefixes its enclosures go through (none for a subscriber's copy or an
    /// export).
    pub(crate) prefixes: &'a [String],
    /// Whether the podcast is on the fediverse: each item names its post
    /// (`<podcast:socialInteract protocol="activitypub">`), in the public feed only.
    pub(crate) fediverse: bool,
}

/// Renders the document.
pub(crate) fn render(src: &FeedSource<'_>, links: &FeedLinks<'_>) -> Vec<u8> {
    let feed = src.feed;
    // About what it will take (an item's elements around its notes, carried twice), so that a
    // feed of 10,000 episodes is not copied each time the buffer would have doubled.
    let estimate = 4096
        + src
            .episodes
            .iter()
            .map(|v| 1024 + 2 * v.episode.description.len())
            .sum::<usize>();
    let mut x = Xml {
        writer: Writer::new_with_indent(Cursor::new(Vec::with_capacity(estimate)), b' ', 2),
    };
    x.event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let mut rss: Vec<(&str, &str)> = vec![("version", "2.0")];
    rss.extend(NAMESPACES);
    x.open("rss", &rss);
    x.open("channel", &[]);

    let rss_url = links.rss(&feed.id);
    // RSS 2.0 requires a channel link: the podcast's own, else its page (a subscriber's feed
    // has none: its own URL).
    let link = match (feed.link.is_empty(), links.page(&feed.id, None)) {
        (false, _) => feed.link.clone(),
        (true, Some(page)) => page,
        (true, None) => rss_url.clone(),
    };
    let link = link.as_str();
    let logo = src
        .logo
        .map(|m| links.file(src.account, m, FileLink::Download));
    let it = &feed.itunes;
    let author = feed.author();

    x.text("title", &feed.title);
    // RSS 2.0 requires a channel description: the first with text left after cleaning, else
    // the title (text, not HTML).
    let description = [&feed.description, &it.summary]
        .into_iter()
        .map(|d| feed_notes(d))
        .find(|d| !d.is_empty())
        .unwrap_or_else(|| text_as_notes(&feed.title));
    x.cdata("description", &description);
    x.text("link", link);
    x.text("language", &feed.language);
    x.text("copyright", &feed.copyright);
    x.text("generator", "podhost");
    x.text("lastBuildDate", &rfc2822(src.last_modified));
    x.empty(
        "atom:link",
        &[
            ("href", &rss_url),
            ("rel", "self"),
            ("type", "application/rss+xml"),
        ],
    );
    for hub in src.hubs {
        x.empty("atom:link", &[("href", hub), ("rel", "hub")]);
    }
    if let Some(logo) = &logo {
        x.open("image", &[]);
        x.text("url", logo);
        x.text("title", &feed.title);
        x.text("link", link);
        x.close("image");
        x.empty("itunes:image", &[("href", logo)]);
    }
    if !it.category.is_empty() {
        if it.subcategory.is_empty() {
            x.empty("itunes:category", &[("text", &it.category)]);
        } else {
            x.open("itunes:category", &[("text", &it.category)]);
            x.empty("itunes:category", &[("text", &it.subcategory)]);
            x.close("itunes:category");
        }
    }
    x.text(
        "itunes:explicit",
        if it.explicit { "true" } else { "false" },
    );
    x.text("itunes:author", author);
    x.text("itunes:subtitle", &it.subtitle);
    x.notes("itunes:summary", &it.summary);
    x.text(
        "itunes:type",
        match it.show_type {
            ShowType::Episodic => "episodic",
            ShowType::Serial => "serial",
        },
    );
    if !it.owner_name.is_empty() || !it.owner_email.is_empty() {
        x.open("itunes:owner", &[]);
        x.text("itunes:name", &it.owner_name);
        x.text("itunes:email", &it.owner_email);
        x.close("itunes:owner");
    }
    // A subscriber's copy is blocked from every directory, whatever the podcast says.
    if it.block || links.is_private() {
        x.text("itunes:block", "Yes");
    }
    if it.complete {
        x.text("itunes:complete", "Yes");
    }
    if let Some(url) = &it.new_feed_url {
        x.text("itunes:new-feed-url", url);
    }
    x.text("podcast:guid", &feed.podcast.guid.to_string());
    let locked = yes_no(feed.podcast.locked);
    if it.owner_email.is_empty() {
        x.text("podcast:locked", locked);
    } else {
        x.text_with("podcast:locked", &[("owner", &it.owner_email)], locked);
    }
    for funding in &feed.podcast.funding {
        x.text_with("podcast:funding", &[("url", &funding.url)], &funding.text);
    }
    x.text("podcast:medium", &feed.podcast.medium);
    if links.is_private() {
        x.text("podcast:block", "yes");
    }
    if src.podping {
        x.empty("podcast:podping", &[("usesPodping", "true")]);
    }
    channel_tags(&mut x, &feed.podcast.tags);

    for view in src.episodes {
        item(&mut x, src, view, links, it.explicit);
    }
    live_items(&mut x, &feed.podcast.tags);
    x.close("channel");
    x.close("rss");
    let mut bytes = x.writer.into_inner().into_inner();
    bytes.push(b'\n');
    bytes
}

fn item(
    x: &mut Xml,
    src: &FeedSource<'_>,
    view: &EpisodeView,
    links: &FeedLinks<'_>,
    feed_explicit: bool,
) {
    let ep = &view.episode;
    let it = &ep.itunes;
    x.open("item", &[]);
    x.text("title", &ep.title);
    // Cleaned once (usually when the notes were written), carried twice.
    let notes: std::borrow::Cow<'_, str> = match src.cleaned.get(&ep.id) {
        Some(notes) => notes.as_str().into(),
        None => feed_notes(&ep.description).into(),
    };
    x.cdata("description", &notes);
    x.cdata("content:encoded", &notes);
    let guid = clean_value(&ep.guid);
    // A permalink is a URL (the core accepts any text as an imported guid).
    let permalink = (guid.starts_with("http://") || guid.starts_with("https://"))
        && !guid
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '"'));
    x.text_with(
        "guid",
        &[("isPermaLink", if permalink { "true" } else { "false" })],
        &guid,
    );
    x.text("pubDate", &rfc2822(ep.publish_at));
    // The episode's own link, else its page (none in a subscriber's feed: `link` is optional).
    match (ep.link.is_empty(), links.page(&ep.feed, Some(ep.id))) {
        (false, _) => x.text("link", &ep.link),
        (true, Some(page)) => x.text("link", &page),
        (true, None) => {}
    }
    x.text("author", &ep.email);
    if let Some(media) = &view.media {
        let url = links.enclosure(src.account, media, src.prefixes);
        x.empty(
            "enclosure",
            &[
                ("url", &url),
                ("length", &media.size.to_string()),
                ("type", enclosure_type(&media.facts.mime)),
            ],
        );
        if let Some(audio) = &media.facts.audio {
            x.text("itunes:duration", &(audio.duration_ms / 1000).to_string());
        }
    }
    if let Some(logo) = &view.logo {
        let href = links.file(src.account, logo, FileLink::Download);
        x.empty("itunes:image", &[("href", &href)]);
    }
    x.text("itunes:title", &it.title);
    x.text("itunes:subtitle", &it.subtitle);
    x.notes("itunes:summary", &it.summary);
    x.text("itunes:author", &it.author);
    // podcast:episode and podcast:season come from the numbers unless the episode's
    // Podcasting 2.0 tags say more (a display, a name): then from those, once.
    if let Some(n) = it.episode {
        x.text("itunes:episode", &n.to_string());
        if ep.podcast.episode.is_none() {
            x.text("podcast:episode", &n.to_string());
        }
    }
    if let Some(n) = it.season {
        x.text("itunes:season", &n.to_string());
        if ep.podcast.season.is_none() {
            x.text("podcast:season", &n.to_string());
        }
    }
    x.text("itunes:episodeType", it.episode_type.as_str());
    if src.block_drafts && !ep.is_public {
        x.text("itunes:block", "Yes");
    }
    x.text(
        "itunes:explicit",
        if it.explicit.unwrap_or(feed_explicit) {
            "true"
        } else {
            "false"
        },
    );
    if let Some(transcript) = &view.transcript {
        x.empty(
            "podcast:transcript",
            &[
                (
                    "url",
                    &links.file(src.account, transcript, FileLink::Download),
                ),
                ("type", &transcript.facts.mime),
            ],
        );
    }
    // The podcaster's own `podcast:socialInteract` (a thread elsewhere) wins over the post.
    let own_thread = !ep.podcast.social_interact.is_empty();
    if let Some(social) = links
        .social(&ep.feed, ep.id)
        .filter(|_| src.fediverse && !own_thread)
    {
        x.empty(
            "podcast:socialInteract",
            &[
                ("protocol", "activitypub"),
                ("uri", &social.post),
                ("accountId", &social.handle),
                ("accountUrl", &social.actor),
            ],
        );
    }
    if let Some(media) = view.media.as_ref().filter(|m| !m.chapters.is_empty()) {
        x.empty(
            "podcast:chapters",
            &[
                ("url", &links.file(src.account, media, FileLink::Chapters)),
                ("type", super::chapters::MIME),
            ],
        );
    }
    item_tags(x, &ep.podcast, view, links, src.account, src.prefixes);
    x.close("item");
}

#[cfg(test)]
mod tests {
    //! The renderer on text the core would refuse (control characters, non-characters, carriage
    //! returns, outer white space), as older or imported records may hold: the document stays
    //! well-formed XML 1.0 that badpod reads without objection, and the text loses only what
    //! `xml_text` documents.

    use super::*;
    use crate::{
        ids::{EpisodeId, FeedId, MediaId},
        model::{
            Episode, EpisodeType, Funding, GooglePlayChannel, ItunesChannel, ItunesEpisode,
            PodcastChannel,
        },
        probe::AudioFacts,
    };

    const DIRTY: &str = " \u{0}a\u{1b}b\u{7f}c\u{85}d\u{FFFE}e\u{FFFF}\r\nf\rg ]]> & < \" 🎙 עברית ";
    const CLEAN: &str = "abcde\nf\ng ]]> & < \" 🎙 עברית";

    fn media(id: u64, name: &str, mime: &str) -> Media {
        let audio = AudioFacts {
            codec: "aac".into(),
            duration_ms: 61_500,
            bitrate: 96_000,
            sample_rate: 44_100,
            channels: 1,
            profile: Some("LC".into()),
        };
        Media::audio_for_test(id, name, mime, audio)
    }

    fn render_dirty() -> String {
        let at: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let id = FeedId::new("dirty").unwrap();
        let feed = Feed {
            id: id.clone(),
            title: DIRTY.into(),
            description: DIRTY.into(),
            language: "en".into(),
            copyright: DIRTY.into(),
            link: String::new(),
            logo: None,
            itunes: ItunesChannel {
                subtitle: DIRTY.into(),
                summary: DIRTY.into(),
                author: DIRTY.into(),
                owner_name: DIRTY.into(),
                owner_email: "owner@example.com".into(),
                ..Default::default()
            },
            googleplay: GooglePlayChannel {
                author: DIRTY.into(),
                description: DIRTY.into(),
            },
            podcast: PodcastChannel {
                guid: uuid::Uuid::nil(),
                locked: true,
                funding: vec![Funding {
                    url: "https://give.example/".into(),
                    text: DIRTY.into(),
                }],
                medium: "podcast".into(),
                tags: Default::default(),
            },
            private: false,
            audio: Default::default(),
            prefixes: Vec::new(),
            public_stats: false,
            fediverse: true,
            created: at,
            updated: at,
        };
        let episode = Episode {
            id: EpisodeId::new(1).unwrap(),
            feed: id,
            guid: DIRTY.into(),
            title: DIRTY.into(),
            subtitle: DIRTY.into(),
            description: DIRTY.into(),
            author: DIRTY.into(),
            email: String::new(),
            copyright: DIRTY.into(),
            link: String::new(),
            is_public: true,
            publish_at: at,
            media: Some(MediaId::new(1).unwrap()),
            video: None,
            itunes: ItunesEpisode {
                title: DIRTY.into(),
                subtitle: DIRTY.into(),
                summary: DIRTY.into(),
                author: DIRTY.into(),
                episode_type: EpisodeType::Bonus,
                ..Default::default()
            },
            transcript: None,
            podcast: Default::default(),
            mastering: None,
            created: at,
            updated: at,
            version: 1,
        };
        let view = EpisodeView {
            alternates: Vec::new(),
            episode,
            media: Some(media(1, "talk.m4a", "audio/mp4")),
            logo: None,
            transcript: None,
            video: None,
            is_published: true,
        };
        let account = AccountId::new("alice").unwrap();
        let source = FeedSource {
            account: &account,
            feed: &feed,
            logo: None,
            episodes: &[view],
            last_modified: at,
            block_drafts: false,
            cleaned: &Default::default(),
            hubs: &[],
            podping: false,
            prefixes: &[],
            fediverse: false,
        };
        String::from_utf8(render(
            &source,
            &FeedLinks::Public(&crate::urls::Urls::new("https://pod.example")),
        ))
        .unwrap()
    }

    #[test]
    fn text_the_core_refuses_is_cleaned_not_written() {
        let xml = render_dirty();
        let forbidden = |c: char| {
            (c.is_control() && !matches!(c, '\t' | '\n')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
        };
        assert!(!xml.chars().any(forbidden), "{xml}");
        // Every text value, read back with quick-xml, is the cleaned text.
        let mut reader = quick_xml::Reader::from_str(&xml);
        let (mut open, mut text, mut values) = (String::new(), String::new(), Vec::new());
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(e) => {
                    open = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                    text.clear();
                }
                Event::Text(t) => text.push_str(&t.decode().unwrap()),
                Event::GeneralRef(r) => text.push_str(match r.decode().unwrap().as_ref() {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    other => panic!("unexpected entity {other}"),
                }),
                Event::CData(c) => text.push_str(std::str::from_utf8(&c.into_inner()).unwrap()),
                Event::End(e) if e.name().as_ref() == open.as_bytes() && text.contains("abc") => {
                    values.push((open.clone(), std::mem::take(&mut text)));
                }
                Event::Eof => break,
                _ => {}
            }
        }
        let tags: Vec<&str> = values.iter().map(|(tag, _)| tag.as_str()).collect();
        for tag in [
            "title",
            "description",
            "copyright",
            "itunes:summary",
            "podcast:funding",
            "guid",
        ] {
            assert!(tags.contains(&tag), "{tag} in {tags:?}");
        }
        for (tag, value) in &values {
            assert_eq!(value, CLEAN, "{tag}");
        }
    }

    #[test]
    fn badpod_reads_it_without_objection() {
        let rss = badpod::from_str(&render_dirty()).expect("badpod reads it");
        let debug = format!("{rss:?}");
        assert!(!debug.contains("Other(("), "{debug}");
        assert_eq!(rss.channel[0].item.len(), 1);
    }

    #[test]
    fn mpeg4_audio_is_announced_as_apple_names_it() {
        let xml = render_dirty();
        assert!(xml.contains("type=\"audio/x-m4a\""), "{xml}");
        assert!(
            xml.contains("<itunes:duration>61</itunes:duration>"),
            "{xml}"
        );
    }
}
