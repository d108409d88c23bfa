//! Feeds for the feed suites (`feed_validation.rs`, `feed_parsers.rs`), built through the public
//! core API: a rich feed that sets every channel and item field podhost emits, a hostile one
//! whose text is made to break XML writers and parsers, and one whose show notes carry hostile
//! HTML. Each comes with the values every parser must read back: the input, as the core stored
//! it, with show notes as the feed carries them (cleaned by the notes policy,
//! `podhost_core::publish::notes`; what that policy keeps is asserted by [`HOSTILE_PARTS`] and
//! [`FORMATTING`] and by the policy's own unit tests).
//!
//! Values are compared as strings under one key per field: booleans as `true`/`false`, dates
//! as Unix seconds, lists one entry per line. A key is absent when the feed has no such value.

#![allow(dead_code, missing_docs)]

use std::{collections::BTreeMap, sync::Arc};

use jiff::{SignedDuration, Timestamp};
use podhost_core::{
    FeedId, HostConfig, ManualClock, PodcastHost, Principal,
    model::{EpisodePatch, EpisodeType, FeedPatch, Funding, Media, NewEpisode, NewFeed, ShowType},
    publish::{PublicFeed, notes::feed_notes},
};
use quick_xml::events::{BytesStart, Event};

/// Field name -> value.
pub type Fields = BTreeMap<&'static str, String>;

/// What a feed must read back as.
#[derive(Debug, Clone)]
pub struct Expected {
    pub channel: Fields,
    /// In feed order (newest first).
    pub items: Vec<Fields>,
}

/// A rendered feed and what it must read back as.
pub struct Fixture {
    pub name: &'static str,
    pub xml: String,
    pub expected: Expected,
}

/// A world: a host in memory with one account.
pub struct World {
    pub host: PodcastHost,
    pub who: Principal,
    pub clock: ManualClock,
}

pub const BASE_URL: &str = "https://pod.example";

pub async fn world() -> World {
    world_with(HostConfig::new(BASE_URL).unwrap()).await
}

/// A world on a configuration of its own.
pub async fn world_with(config: HostConfig) -> World {
    let clock = ManualClock::new("2026-03-01T12:00:00Z".parse().unwrap());
    let host = PodcastHost::with_clock(
        config,
        Arc::new(object_store::memory::InMemory::new()),
        Arc::new(clock.clone()),
    );
    let who = podhost_testkit::setup::account(&host, "alice").await;
    World { host, who, clock }
}

impl World {
    /// Uploads bytes under a file name.
    pub async fn upload(&self, name: &str, bytes: Vec<u8>) -> Media {
        podhost_testkit::setup::upload(&self.host, &self.who, name, bytes).await
    }

    /// Uploads a file of `tests/fixtures`.
    pub async fn upload_fixture(&self, name: &str) -> Media {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        self.upload(name, std::fs::read(path).unwrap()).await
    }

    pub fn url(&self, media: &Media) -> String {
        self.host.urls().media(self.who.account(), media)
    }

    pub fn ago(&self, hours: i64) -> Timestamp {
        use podhost_core::Clock;
        self.clock.now() - SignedDuration::from_hours(hours)
    }

    /// The live feed's XML.
    pub async fn rss(&self, feed: &FeedId) -> String {
        match self.host.delivery().public_feed(feed).await.unwrap() {
            PublicFeed::Live(rendered) => String::from_utf8(rendered.xml.to_vec()).unwrap(),
            other => panic!("expected a live feed, got {other:?}"),
        }
    }
}

/// The renderer's documented cleaning of element text (`publish/xml_text.rs`): characters XML
/// 1.0 cannot carry or discourages go (the core refuses them on input anyway), line breaks
/// become `\n`, leading and trailing white space goes.
pub fn cleaned(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| {
            let forbidden = c.is_control() && !matches!(c, '\t' | '\n' | '\r');
            !forbidden && !matches!(c, '\u{FFFE}' | '\u{FFFF}')
        })
        .collect();
    kept.replace("\r\n", "\n")
        .replace('\r', "\n")
        .trim()
        .to_string()
}

/// Cleans every value and drops the empty ones (the feed leaves empty elements out).
fn finish(mut fields: Fields) -> Fields {
    for value in fields.values_mut() {
        *value = cleaned(value);
    }
    fields.retain(|_, v| !v.is_empty());
    fields
}

fn yes(b: bool) -> String {
    b.to_string()
}

/// The channel fields of `patch` and of the feed the core made of it.
fn channel_expected(
    w: &World,
    id: &FeedId,
    patch: &FeedPatch,
    guid: String,
    logo: &Media,
) -> Fields {
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut c = Fields::new();
    c.insert("title", s(&patch.title));
    c.insert("description", feed_notes(&s(&patch.description)));
    c.insert("link", s(&patch.link));
    c.insert("language", s(&patch.language));
    c.insert("copyright", s(&patch.copyright));
    c.insert("image", w.url(logo));
    c.insert("self", w.host.urls().rss(id));
    c.insert("author", s(&patch.itunes_author));
    c.insert("subtitle", s(&patch.itunes_subtitle));
    c.insert("summary", feed_notes(&s(&patch.itunes_summary)));
    c.insert("category", s(&patch.itunes_category));
    c.insert("subcategory", s(&patch.itunes_subcategory));
    c.insert("explicit", yes(patch.itunes_explicit.unwrap()));
    let show_type = match patch.itunes_type.unwrap() {
        ShowType::Episodic => "episodic",
        ShowType::Serial => "serial",
    };
    c.insert("type", show_type.into());
    c.insert("owner.name", s(&patch.itunes_owner_name));
    c.insert("owner.email", s(&patch.itunes_owner_email));
    c.insert("block", yes(patch.itunes_block.unwrap()));
    c.insert("complete", yes(patch.itunes_complete.unwrap()));
    c.insert("guid", guid);
    c.insert("locked", yes(patch.podcast_locked.unwrap()));
    c.insert("locked.owner", s(&patch.itunes_owner_email));
    let funding: Vec<String> = patch
        .podcast_funding
        .iter()
        .flatten()
        .map(|f| format!("{} {}", f.url, f.text))
        .collect();
    c.insert("funding", funding.join("\n"));
    c.insert("medium", s(&patch.podcast_medium));
    finish(c)
}

/// One episode's input, and what it must read back as.
struct EpisodeInput {
    guid: Option<String>,
    patch: EpisodePatch,
    audio: Media,
    /// The enclosure type apps must read (Apple's names).
    enclosure_type: &'static str,
    image: Option<Media>,
    transcript: Option<Media>,
}

/// Creates the feed and its episodes, renders it, and lists what it must read back as.
async fn publish(
    w: &World,
    name: &'static str,
    id: &str,
    patch: FeedPatch,
    logo: &Media,
    episodes: Vec<EpisodeInput>,
) -> Fixture {
    let feed = w
        .host
        .podcasts()
        .create_feed(
            &w.who,
            NewFeed {
                id: id.into(),
                fields: patch.clone(),
            },
        )
        .await
        .unwrap()
        .feed;
    let channel = channel_expected(w, &feed.id, &patch, feed.podcast.guid.to_string(), logo);
    let feed_explicit = patch.itunes_explicit.unwrap();
    let mut items = Vec::new();
    for input in episodes {
        let view = w
            .host
            .podcasts()
            .create_episode(
                &w.who,
                &feed.id,
                NewEpisode {
                    guid: input.guid.clone(),
                    fields: input.patch.clone(),
                },
            )
            .await
            .unwrap();
        let ep = &view.episode;
        let p = &input.patch;
        let s = |v: &Option<String>| v.clone().unwrap_or_default();
        let mut i = Fields::new();
        i.insert("title", s(&p.title));
        i.insert("description", feed_notes(&s(&p.description)));
        i.insert("content", feed_notes(&s(&p.description)));
        i.insert("guid", ep.guid.clone());
        let permalink = ep.guid.starts_with("https://") || ep.guid.starts_with("http://");
        i.insert("guid.permalink", yes(permalink));
        i.insert("pubDate", p.publish_at.unwrap().as_second().to_string());
        let link = match &p.link {
            Some(link) => link.clone(),
            None => w.host.urls().episode_page(&feed.id, ep.id),
        };
        i.insert("link", link);
        i.insert("author", s(&p.email));
        let prefixes = patch.prefixes.clone().unwrap_or_default();
        i.insert(
            "enclosure.url",
            podhost_core::measured(&prefixes, w.url(&input.audio)),
        );
        i.insert("enclosure.length", input.audio.size.to_string());
        i.insert("enclosure.type", input.enclosure_type.into());
        let duration = input.audio.facts.audio.as_ref().unwrap().duration_ms / 1000;
        i.insert("duration", duration.to_string());
        if let Some(image) = &input.image {
            i.insert("image", w.url(image));
        }
        i.insert("itunes.title", s(&p.itunes_title));
        i.insert("subtitle", s(&p.itunes_subtitle));
        i.insert("summary", feed_notes(&s(&p.itunes_summary)));
        i.insert("itunes.author", s(&p.itunes_author));
        if let Some(Some(n)) = p.itunes_episode {
            i.insert("episode", n.to_string());
            i.insert("podcast.episode", n.to_string());
        }
        if let Some(Some(n)) = p.itunes_season {
            i.insert("season", n.to_string());
            i.insert("podcast.season", n.to_string());
        }
        let episode_type = p.itunes_episode_type.unwrap_or_default();
        i.insert("episodeType", episode_type.as_str().into());
        let explicit = p.itunes_explicit.flatten().unwrap_or(feed_explicit);
        i.insert("explicit", yes(explicit));
        if let Some(t) = &input.transcript {
            i.insert("transcript.url", w.url(t));
            i.insert("transcript.type", t.facts.mime.clone());
        }
        items.push((ep.publish_at, finish(i)));
    }
    items.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    Fixture {
        name,
        xml: w.rss(&feed.id).await,
        expected: Expected {
            channel,
            items: items.into_iter().map(|(_, i)| i).collect(),
        },
    }
}

const VTT: &str = "WEBVTT\n\n00:00:00.000 --> 00:00:03.000\n<v Alice>Hello and welcome.\n";
const SRT: &str = "1\n00:00:00,000 --> 00:00:03,000\nHello and welcome.\n";

/// Every channel and item field podhost emits, with ordinary text.
pub async fn rich(w: &World) -> Fixture {
    let cover = w.upload_fixture("cover_3000.jpg").await;
    let episode_cover = w.upload_fixture("cover_1400.png").await;
    let mp3 = w.upload_fixture("cbr_128k_stereo.mp3").await;
    let m4a = w.upload_fixture("aac_96k_mono.m4a").await;
    let vtt = w.upload("talk.vtt", VTT.into()).await;
    let srt = w.upload("talk.srt", SRT.into()).await;
    let patch = FeedPatch {
        // Its downloads are measured by OP3 too: every parser reads the prefixed enclosure.
        prefixes: Some(vec!["https://op3.dev/e/".into()]),
        public_stats: Some(true),
        // On the fediverse (the default): every item names its post (podcast:socialInteract).
        fediverse: None,
        title: Some("The Rich Show".into()),
        description: Some(
            "<p>Every field podhost writes, with <a href=\"https://rich.example/about\">a link</a>.</p>"
                .into(),
        ),
        language: Some("en-us".into()),
        copyright: Some("© 2026 Rich Media".into()),
        link: Some("https://rich.example/".into()),
        logo: Some(Some(cover.id)),
        itunes_subtitle: Some("A show about everything".into()),
        itunes_summary: Some("<p>The summary, in HTML.</p>".into()),
        itunes_author: Some("Rich Media".into()),
        itunes_category: Some("Society & Culture".into()),
        itunes_subcategory: Some("Documentary".into()),
        itunes_explicit: Some(false),
        itunes_type: Some(ShowType::Serial),
        itunes_owner_name: Some("Ricarda Rich".into()),
        itunes_owner_email: Some("owner@rich.example".into()),
        itunes_block: Some(true),
        itunes_complete: Some(true),
        itunes_new_feed_url: None,
        googleplay_author: Some("Rich Media (Google)".into()),
        googleplay_description: Some("The Google Play description.".into()),
        podcast_locked: Some(true),
        podcast_funding: Some(vec![
            Funding {
                url: "https://give.rich.example/".into(),
                text: "Support the show".into(),
            },
            Funding {
                url: "https://patrons.example/rich".into(),
                text: "Become a patron".into(),
            },
        ]),
        podcast_medium: Some("podcast".into()),
        podcast_guid: None,
        private: None,
        audio: None,
        podcast_tags: Default::default(),
    };
    let full = EpisodeInput {
        guid: Some("https://rich.example/episodes/2".into()),
        patch: EpisodePatch {
            title: Some("Episode two: the full one".into()),
            description: Some("<p>Show notes with <a href=\"https://rich.example/2\">links</a>.</p><ul><li>one</li><li>two</li></ul>".into()),
            email: Some("host@rich.example".into()),
            link: Some("https://rich.example/episodes/2".into()),
            is_public: Some(true),
            publish_at: Some(w.ago(24)),
            media: Some(Some(mp3.id)),
            transcript: Some(Some(vtt.id)),
            itunes_title: Some("The full one".into()),
            itunes_subtitle: Some("Everything set".into()),
            itunes_summary: Some("<p>A summary of episode two.</p>".into()),
            itunes_author: Some("Ricarda Rich".into()),
            itunes_episode: Some(Some(2)),
            itunes_season: Some(Some(1)),
            itunes_episode_type: Some(EpisodeType::Full),
            itunes_logo: Some(Some(episode_cover.id)),
            itunes_explicit: Some(Some(true)),
            ..Default::default()
        },
        audio: mp3.clone(),
        enclosure_type: "audio/mpeg",
        image: Some(episode_cover.clone()),
        transcript: Some(vtt.clone()),
    };
    let trailer = EpisodeInput {
        guid: None,
        patch: EpisodePatch {
            title: Some("Season one trailer".into()),
            description: Some("A taste of season one.".into()),
            is_public: Some(true),
            publish_at: Some(w.ago(48)),
            media: Some(Some(m4a.id)),
            transcript: Some(Some(srt.id)),
            itunes_season: Some(Some(1)),
            itunes_episode_type: Some(EpisodeType::Trailer),
            itunes_explicit: Some(Some(false)),
            ..Default::default()
        },
        audio: m4a.clone(),
        enclosure_type: "audio/x-m4a",
        image: None,
        transcript: Some(srt.clone()),
    };
    let bonus = EpisodeInput {
        guid: Some("rich-bonus-1".into()),
        patch: EpisodePatch {
            title: Some("A bonus".into()),
            description: Some("Explicitness inherited from the show.".into()),
            is_public: Some(true),
            publish_at: Some(w.ago(72)),
            media: Some(Some(mp3.id)),
            itunes_episode: Some(Some(1)),
            itunes_episode_type: Some(EpisodeType::Bonus),
            ..Default::default()
        },
        audio: mp3,
        enclosure_type: "audio/mpeg",
        image: None,
        transcript: None,
    };
    publish(w, "rich", "rich", patch, &cover, vec![full, trailer, bonus]).await
}

/// A hostile single-line value: CDATA ends, markup, entities, quotes, emoji (with a ZWJ
/// sequence and a flag), Hebrew and Arabic with bidi controls.
pub const HOSTILE_LINE: &str = "]]> <script>alert(\"x\")</script> &amp; & <![CDATA[ 'q' \"qq\" 🎙️👩🏽‍💻🇮🇱 שלום עולם \u{202E}مرحبا\u{202C} ]]]]>";

/// Pads `start` to exactly `bytes` bytes of UTF-8 with a mix of one- to four-byte characters.
pub fn padded(start: &str, bytes: usize) -> String {
    let mut s = start.to_string();
    for c in "ש🎙x é ع ".chars().cycle() {
        if s.len() + c.len_utf8() > bytes {
            break;
        }
        s.push(c);
    }
    while s.len() < bytes {
        s.push('x');
    }
    s
}

/// Show notes of exactly 4,000 bytes (Apple's limit), hostile all through.
pub fn hostile_notes(tag: &str) -> String {
    let start = format!(
        "<p>{tag}: ]]> ]]]]> ]]>]]> <script>alert('notes')</script> <img src=x onerror=\"alert(1)\"> \
         &amp; &lt;b&gt; & &#0; &#x1b; \"double\" 'single' `back`\n\tTab and line breaks\r\n \
         emoji 🎙️👩🏽‍💻🇩🇪 RTL: עברית العربية \u{200F}mark\u{200E} \u{202E}override\u{202C}</p>\n"
    );
    padded(&start, 4000)
}

/// Text made to break XML writers and parsers, in every field that takes text.
pub async fn hostile(w: &World) -> Fixture {
    let cover = w.upload_fixture("cover_1400.png").await;
    let mp3 = w.upload_fixture("cbr_128k_stereo.mp3").await;
    let line = |what: &str| format!("{what} {HOSTILE_LINE}");
    let patch = FeedPatch {
        prefixes: None,
        public_stats: None,
        fediverse: None,
        title: Some(line("Title")),
        description: Some(hostile_notes("Channel")),
        language: Some("he".into()),
        copyright: Some(line("©")),
        link: Some("https://hostile.example/?a=1&b='2'&c=%3C3%3E#]]>".into()),
        logo: Some(Some(cover.id)),
        itunes_subtitle: Some(line("Subtitle")),
        itunes_summary: Some(hostile_notes("Summary")),
        itunes_author: Some(line("Author")),
        itunes_category: Some("Kids & Family".into()),
        itunes_subcategory: Some("Pets & Animals".into()),
        itunes_explicit: Some(true),
        itunes_type: Some(ShowType::Episodic),
        itunes_owner_name: Some(line("Owner")),
        itunes_owner_email: Some("o'brien+]]>@hostile.example".into()),
        itunes_block: Some(false),
        itunes_complete: Some(false),
        itunes_new_feed_url: None,
        googleplay_author: Some(line("Google author")),
        googleplay_description: Some(hostile_notes("Google")),
        podcast_locked: Some(false),
        podcast_funding: Some(vec![Funding {
            url: "https://give.example/?who=a&amp=b&q=\"x\"".into(),
            text: line("Give"),
        }]),
        podcast_medium: Some("podcast".into()),
        podcast_guid: None,
        private: None,
        audio: None,
        podcast_tags: Default::default(),
    };
    let episode = |n: u32, guid: Option<String>, hours: i64| EpisodeInput {
        guid,
        patch: EpisodePatch {
            title: Some(line(&format!("Episode {n}"))),
            description: Some(hostile_notes(&format!("Notes {n}"))),
            email: Some("host&co@hostile.example".into()),
            link: Some(format!("https://hostile.example/ep?n={n}&x=<y>")),
            is_public: Some(true),
            publish_at: Some(w.ago(hours)),
            media: Some(Some(mp3.id)),
            itunes_title: Some(line("iTunes title")),
            itunes_subtitle: Some(line("iTunes subtitle")),
            itunes_summary: Some(hostile_notes(&format!("Summary {n}"))),
            itunes_author: Some(line("iTunes author")),
            itunes_episode: Some(Some(n)),
            itunes_logo: Some(Some(cover.id)),
            ..Default::default()
        },
        audio: mp3.clone(),
        enclosure_type: "audio/mpeg",
        image: Some(cover.clone()),
        transcript: None,
    };
    let episodes = vec![
        episode(1, Some(format!("guid {HOSTILE_LINE}")), 30),
        episode(2, None, 20),
    ];
    let id = "hostile ]]> & \"quotes\" עברית 🎙";
    publish(w, "hostile", id, patch, &cover, episodes).await
}

/// Show notes made to smuggle what podcast apps must not get: scripts, frames, images with
/// event handlers, `javascript:` links, style attributes and elements, SVG, headings; around the
/// formatting they must get: paragraphs, emphasis, `https` and `mailto` links, nested lists.
pub const HOSTILE_HTML: &str = "<h1 style=\"color:red\">Heading text</h1>\
     <p style=\"font-size:40px\" onclick=\"steal()\">Welcome to <strong>the show</strong>, with \
     <b>bold</b>, <em>emphasis</em> and <i>italics</i>.<script>alert('script')</script></p>\
     <iframe src=\"https://evil.example/frame\">framed text</iframe>\
     <img src=\"https://tracker.example/pixel.gif\" onerror=\"alert('img')\">\
     <p>Links: <a href=\"https://good.example/notes\" onclick=\"alert('click')\" \
     target=\"_blank\" style=\"color:red\">the notes</a>, \
     <a href=\"javascript:alert('js')\">a trap</a>, <a href=\"JaVaScRiPt:alert('js2')\">another</a>, \
     <a href=\"mailto:host@good.example\">mail us</a>.</p>\
     <ul><li>first</li><li>second<ol><li>nested</li></ol></li></ul>\
     <style>body{display:none}</style>\
     <svg onload=\"alert('svg')\"><circle r=\"1\"/></svg>\
     <object data=\"https://evil.example/x.swf\">object text</object>";

/// What of [`HOSTILE_HTML`] must reach no app (compared in lower case).
pub const HOSTILE_PARTS: &[&str] = &[
    "<script",
    "alert(",
    "steal(",
    "<iframe",
    "framed text",
    "evil.example",
    "<img",
    "tracker.example",
    "onerror",
    "onclick",
    "onload",
    "javascript:",
    "style=",
    "<style",
    "display:none",
    "target=",
    "<h1",
    "<svg",
    "<object",
    "object text",
];

/// What of [`HOSTILE_HTML`] every app must get, as written.
pub const FORMATTING: &[&str] = &[
    "Heading text",
    "<p>Welcome to <strong>the show</strong>, with <b>bold</b>, <em>emphasis</em> and <i>italics</i>.</p>",
    "<a href=\"https://good.example/notes\">the notes</a>",
    "<a>a trap</a>",
    "<a>another</a>",
    "<a href=\"mailto:host@good.example\">mail us</a>",
    "<ul><li>first</li><li>second<ol><li>nested</li></ol></li></ul>",
];

/// What is wrong with a parsed show-notes value of the [`markup`] feed: hostile parts that
/// reached it, formatting that did not.
pub fn markup_problems(place: &str, value: Option<&String>) -> Vec<String> {
    let Some(value) = value else {
        return vec![format!("{place}: no value")];
    };
    let lower = value.to_lowercase();
    let mut out: Vec<String> = HOSTILE_PARTS
        .iter()
        .filter(|part| lower.contains(*part))
        .map(|part| format!("{place}: {part:?} reached it: {value:?}"))
        .collect();
    out.extend(
        FORMATTING
            .iter()
            .filter(|part| !value.contains(*part))
            .map(|part| format!("{place}: {part:?} did not reach it: {value:?}")),
    );
    out
}

/// What must not appear anywhere in the XML of any fixture (compared in lower case): markup
/// that runs, whether as a tag in CDATA or as an attribute.
pub const NOT_IN_ANY_FEED: &[&str] = &["<script", "<iframe", "onerror", "javascript:"];

/// A feed whose channel description, itunes:summary and Google Play description, and whose
/// items' descriptions and itunes:summary, are [`HOSTILE_HTML`]. The first item has no
/// itunes:summary, so that feedparser (which folds the two) reads its description.
pub async fn markup(w: &World) -> Fixture {
    let cover = w.upload_fixture("cover_1400.png").await;
    let mp3 = w.upload_fixture("cbr_128k_stereo.mp3").await;
    let patch = FeedPatch {
        title: Some("Markup".into()),
        description: Some(HOSTILE_HTML.into()),
        language: Some("en".into()),
        copyright: Some("© 2026 Markup".into()),
        link: Some("https://good.example/".into()),
        logo: Some(Some(cover.id)),
        // No itunes:subtitle: feedparser then reads the channel description as its subtitle.
        itunes_summary: Some(HOSTILE_HTML.into()),
        itunes_author: Some("Markup".into()),
        itunes_category: Some("Technology".into()),
        itunes_explicit: Some(false),
        itunes_type: Some(ShowType::Episodic),
        itunes_owner_name: Some("Mark Up".into()),
        itunes_owner_email: Some("owner@good.example".into()),
        itunes_block: Some(false),
        itunes_complete: Some(false),
        googleplay_description: Some(HOSTILE_HTML.into()),
        podcast_locked: Some(false),
        podcast_medium: Some("podcast".into()),
        podcast_guid: None,
        ..Default::default()
    };
    let episode = |n: u32, summary: bool, hours: i64| EpisodeInput {
        guid: None,
        patch: EpisodePatch {
            title: Some(format!("Episode {n}")),
            description: Some(HOSTILE_HTML.into()),
            is_public: Some(true),
            publish_at: Some(w.ago(hours)),
            media: Some(Some(mp3.id)),
            itunes_summary: summary.then(|| HOSTILE_HTML.into()),
            itunes_episode: Some(Some(n)),
            ..Default::default()
        },
        audio: mp3.clone(),
        enclosure_type: "audio/mpeg",
        image: None,
        transcript: None,
    };
    let episodes = vec![episode(1, true, 30), episode(2, false, 20)];
    publish(w, "markup", "markup", patch, &cover, episodes).await
}

/// The rich, the hostile and the markup feed, each from its own host.
pub async fn fixtures() -> Vec<Fixture> {
    vec![
        rich(&world().await).await,
        hostile(&world().await).await,
        markup(&world().await).await,
    ]
}

/// One element of a parsed document: its path from the root, attributes and text (CDATA
/// included, entities resolved).
#[derive(Debug, Default, Clone)]
pub struct Element {
    pub path: String,
    pub attrs: BTreeMap<String, String>,
    pub text: String,
}

fn element(stack: &[Element], e: &BytesStart<'_>) -> Element {
    let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
    let mut el = Element {
        path: match stack.last() {
            Some(parent) => format!("{}/{name}", parent.path),
            None => name,
        },
        ..Default::default()
    };
    for a in e.attributes() {
        let a = a.expect("well-formed attributes");
        let value = a
            .normalized_value(quick_xml::XmlVersion::default())
            .expect("escaped attribute")
            .into_owned();
        el.attrs
            .insert(String::from_utf8(a.key.as_ref().to_vec()).unwrap(), value);
    }
    el
}

/// Parses the whole document with quick-xml's reader (so it must be well-formed): its
/// elements in the document order of their ends.
pub fn parse(xml: &str) -> Vec<Element> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<Element> = Vec::new();
    let mut out = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                let el = element(&stack, &e);
                stack.push(el);
            }
            Event::Empty(e) => out.push(element(&stack, &e)),
            Event::End(_) => out.push(stack.pop().expect("balanced")),
            Event::Text(t) => {
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&t.decode().expect("text"));
                }
            }
            Event::GeneralRef(r) => {
                let name = r.decode().expect("reference").into_owned();
                let c = match name.as_str() {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    other => panic!("unexpected entity &{other};"),
                };
                if let Some(el) = stack.last_mut() {
                    el.text.push(c);
                }
            }
            Event::CData(c) => {
                if let Some(el) = stack.last_mut() {
                    el.text
                        .push_str(std::str::from_utf8(&c.into_inner()).expect("UTF-8"));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(stack.is_empty(), "every element closed");
    out
}

/// The fields of a feed as quick-xml reads them, with the same keys as [`Expected`].
pub fn read_with_quick_xml(xml: &str) -> Expected {
    let doc = parse(xml);
    let under = |prefix: &str| -> Vec<Element> {
        doc.iter()
            .filter(|e| e.path.starts_with(prefix))
            .map(|e| Element {
                path: e.path[prefix.len()..].to_string(),
                ..e.clone()
            })
            .collect()
    };
    let channel_doc: Vec<Element> = under("rss/channel/")
        .into_iter()
        .filter(|e| !e.path.starts_with("item"))
        .collect();
    let text = |els: &[Element], path: &str| -> Option<String> {
        let found: Vec<&Element> = els.iter().filter(|e| e.path == path).collect();
        assert!(found.len() <= 1, "at most one {path}");
        found.first().map(|e| e.text.clone())
    };
    let attr = |els: &[Element], path: &str, name: &str| -> Option<String> {
        let found: Vec<&Element> = els.iter().filter(|e| e.path == path).collect();
        assert!(found.len() <= 1, "at most one {path}");
        found.first().and_then(|e| e.attrs.get(name).cloned())
    };
    let mut c = Fields::new();
    let put = |f: &mut Fields, key: &'static str, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            f.insert(key, v);
        }
    };
    let ch = &channel_doc;
    put(&mut c, "title", text(ch, "title"));
    put(&mut c, "description", text(ch, "description"));
    put(&mut c, "link", text(ch, "link"));
    put(&mut c, "language", text(ch, "language"));
    put(&mut c, "copyright", text(ch, "copyright"));
    put(&mut c, "image", attr(ch, "itunes:image", "href"));
    put(&mut c, "self", attr(ch, "atom:link", "href"));
    put(&mut c, "author", text(ch, "itunes:author"));
    put(&mut c, "subtitle", text(ch, "itunes:subtitle"));
    put(&mut c, "summary", text(ch, "itunes:summary"));
    put(&mut c, "category", attr(ch, "itunes:category", "text"));
    put(
        &mut c,
        "subcategory",
        attr(ch, "itunes:category/itunes:category", "text"),
    );
    put(&mut c, "explicit", text(ch, "itunes:explicit"));
    put(&mut c, "type", text(ch, "itunes:type"));
    put(&mut c, "owner.name", text(ch, "itunes:owner/itunes:name"));
    put(&mut c, "owner.email", text(ch, "itunes:owner/itunes:email"));
    let flag = |v: Option<String>| Some((v.as_deref() == Some("Yes")).to_string());
    put(&mut c, "block", flag(text(ch, "itunes:block")));
    put(&mut c, "complete", flag(text(ch, "itunes:complete")));
    put(&mut c, "guid", text(ch, "podcast:guid"));
    let yes_no = |v: Option<String>| {
        v.map(|v| match v.as_str() {
            "yes" => "true".to_string(),
            "no" => "false".to_string(),
            other => format!("not yes/no: {other}"),
        })
    };
    put(&mut c, "locked", yes_no(text(ch, "podcast:locked")));
    put(&mut c, "locked.owner", attr(ch, "podcast:locked", "owner"));
    let funding: Vec<String> = ch
        .iter()
        .filter(|e| e.path == "podcast:funding")
        .map(|e| format!("{} {}", e.attrs["url"], e.text))
        .collect();
    put(&mut c, "funding", Some(funding.join("\n")));
    put(&mut c, "medium", text(ch, "podcast:medium"));

    // Items: split the item elements by item (an item's own element closes after its children).
    let mut items = Vec::new();
    let mut current: Vec<Element> = Vec::new();
    for e in under("rss/channel/item") {
        if e.path.is_empty() {
            items.push(item_fields(&std::mem::take(&mut current)));
        } else {
            current.push(Element {
                path: e.path[1..].to_string(),
                ..e
            });
        }
    }
    Expected { channel: c, items }
}

fn item_fields(els: &[Element]) -> Fields {
    let one = |path: &str| -> Option<&Element> {
        let found: Vec<&Element> = els.iter().filter(|e| e.path == path).collect();
        assert!(found.len() <= 1, "at most one {path} per item");
        found.first().copied()
    };
    let text = |path: &str| one(path).map(|e| e.text.clone());
    let attr = |path: &str, name: &str| one(path).and_then(|e| e.attrs.get(name).cloned());
    let mut i = Fields::new();
    let mut put = |key: &'static str, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            i.insert(key, v);
        }
    };
    put("title", text("title"));
    put("description", text("description"));
    put("content", text("content:encoded"));
    put("guid", text("guid"));
    put("guid.permalink", attr("guid", "isPermaLink"));
    let date = text("pubDate").map(|d| match jiff::fmt::rfc2822::parse(&d) {
        Ok(zoned) => zoned.timestamp().as_second().to_string(),
        Err(e) => format!("not RFC 2822: {d:?}: {e}"),
    });
    put("pubDate", date);
    put("link", text("link"));
    put("author", text("author"));
    put("enclosure.url", attr("enclosure", "url"));
    put("enclosure.length", attr("enclosure", "length"));
    put("enclosure.type", attr("enclosure", "type"));
    put("duration", text("itunes:duration"));
    put("image", attr("itunes:image", "href"));
    put("itunes.title", text("itunes:title"));
    put("subtitle", text("itunes:subtitle"));
    put("summary", text("itunes:summary"));
    put("itunes.author", text("itunes:author"));
    put("episode", text("itunes:episode"));
    put("podcast.episode", text("podcast:episode"));
    put("season", text("itunes:season"));
    put("podcast.season", text("podcast:season"));
    put("episodeType", text("itunes:episodeType"));
    put("explicit", text("itunes:explicit"));
    put("transcript.url", attr("podcast:transcript", "url"));
    put("transcript.type", attr("podcast:transcript", "type"));
    i
}

/// Compares what a parser read with what it must read: every difference, in one list.
/// `unread` lists the fields the parser does not read at all (they must then be absent from
/// its result, so the list stays honest).
pub fn differences(
    parser: &str,
    expected: &Expected,
    got: &Expected,
    unread: &[&str],
) -> Vec<String> {
    let mut out = compare(parser, "channel", &expected.channel, &got.channel, unread);
    if expected.items.len() != got.items.len() {
        out.push(format!(
            "{parser}: {} items, want {}",
            got.items.len(),
            expected.items.len()
        ));
    }
    for (n, (want, have)) in expected.items.iter().zip(&got.items).enumerate() {
        out.extend(compare(parser, &format!("item[{n}]"), want, have, unread));
    }
    out
}

fn compare(
    parser: &str,
    place: &str,
    want: &Fields,
    have: &Fields,
    unread: &[&str],
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&&str> = want.keys().chain(have.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        let (w, h) = (want.get(key), have.get(key));
        if unread.contains(key) {
            if h.is_some() {
                out.push(format!(
                    "{parser}: {place}.{key} is listed as unread but was read"
                ));
            }
        } else if w != h {
            out.push(format!(
                "{parser}: {place}.{key} differs:\n    want {}\n    got  {}",
                show(w),
                show(h)
            ));
        }
    }
    out
}

fn show(v: Option<&String>) -> String {
    let Some(v) = v else {
        return "(absent)".into();
    };
    if v.chars().count() <= 200 {
        return format!("{v:?}");
    }
    let head: String = v.chars().take(200).collect();
    format!("{head:?}… ({} bytes)", v.len())
}
