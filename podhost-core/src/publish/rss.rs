//! The RSS 2.0 document of a podcast, with the `itunes`, `podcast` (podcastindex.org), `atom`
//! and `content` namespaces, written with quick-xml; show notes cleaned by the
//! notes policy (`notes.rs`), one-line fields escaped as text.

use std::io::Cursor;

use jiff::Timestamp;
use quick_xml::{
    Writer,
    events::{BytesCData, BytesDecl, BytesEnd, BytesStart, BytesText, Event},
};

use super::{
    notes::{feed_notes, text_as_notes},
    xml_text::{clean, clean_value},
};
use crate::{
    ids::AccountId,
    model::{EpisodeView, Feed, Media, ShowType},
    urls::Urls,
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
    /// A subscriber's copy of a private podcast: blocked from every directory
    /// (`itunes:block` and `podcast:block` yes, whatever the podcast says).
    pub(crate) private: bool,
    /// The episodes' show notes as the feed carries them, cleaned before (the account's state
    /// keeps them, see `FeedEntry::feed_notes`); an episode missing here is cleaned now.
    pub(crate) cleaned: &'a std::collections::HashMap<crate::ids::EpisodeId, String>,
    /// The WebSub hubs the feed names (`<atom:link rel="hub">`), and whether it says it uses
    /// Podping (`<podcast:podping usesPodping="true"/>`).
    pub(crate) hubs: &'a [String],
    pub(crate) podping: bool,
}

/// RFC 2822 date, as RSS 2.0 wants it.
pub(crate) fn rfc2822(t: Timestamp) -> String {
    t.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string()
}

struct Xml {
    writer: Writer<Cursor<Vec<u8>>>,
}

impl Xml {
    fn event(&mut self, event: Event<'_>) {
        // Writing into a Vec cannot fail.
        let _ = self.writer.write_event(event);
    }

    fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        let mut start = BytesStart::new(name);
        for (k, v) in attrs {
            start.push_attribute((*k, clean(v).as_ref()));
        }
        self.event(Event::Start(start));
    }

    fn close(&mut self, name: &str) {
        self.event(Event::End(BytesEnd::new(name)));
    }

    fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        let mut start = BytesStart::new(name);
        for (k, v) in attrs {
            start.push_attribute((*k, clean(v).as_ref()));
        }
        self.event(Event::Empty(start));
    }

    /// `<name attrs>text</name>`, the text cleaned and escaped; nothing when no text is left.
    fn text_with(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        let text = clean_value(text);
        if text.is_empty() {
            return;
        }
        self.open(name, attrs);
        self.event(Event::Text(BytesText::new(&text)));
        self.close(name);
    }

    /// `<name>text</name>`, the text cleaned and escaped; nothing when no text is left.
    fn text(&mut self, name: &str, text: &str) {
        self.text_with(name, &[], text);
    }

    /// `<name><![CDATA[notes]]></name>`: show notes, HTML cleaned by the notes policy the pages
    /// share (`notes.rs`; links without `rel`, see `Medium::Feed`), plain text as written;
    /// nothing when no text is left.
    fn notes(&mut self, name: &str, notes: &str) {
        self.cdata(name, &feed_notes(notes));
    }

    /// `<name><![CDATA[html]]></name>`, the text cleaned, split where it holds `]]>`.
    fn cdata(&mut self, name: &str, html: &str) {
        let html = clean_value(html);
        if html.is_empty() {
            return;
        }
        self.open(name, &[]);
        for section in BytesCData::escaped(&html) {
            self.event(Event::CData(section));
        }
        self.close(name);
    }
}

/// The MIME type of an enclosure as podcast apps know it: Apple Podcasts (and badpod, and
/// most apps after them) take MPEG-4 audio as `audio/x-m4a`, not the registered `audio/mp4`.
fn enclosure_type(mime: &str) -> &str {
    match mime {
        "audio/mp4" => "audio/x-m4a",
        other => other,
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Renders the document.
pub(crate) fn render(src: &FeedSource<'_>, urls: &Urls) -> Vec<u8> {
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

    let rss_url = urls.rss(&feed.id);
    let page = urls.feed_page(&feed.id);
    let link = if feed.link.is_empty() {
        page.as_str()
    } else {
        feed.link.as_str()
    };
    let logo = src.logo.map(|m| urls.media(src.account, m));
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
    if it.block || src.private {
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
    if src.private {
        x.text("podcast:block", "yes");
    }
    if src.podping {
        x.empty("podcast:podping", &[("usesPodping", "true")]);
    }
    channel_tags(&mut x, &feed.podcast.tags);

    for view in src.episodes {
        item(&mut x, src, view, urls, it.explicit);
    }
    live_items(&mut x, &feed.podcast.tags);
    x.close("channel");
    x.close("rss");
    let mut bytes = x.writer.into_inner().into_inner();
    bytes.push(b'\n');
    bytes
}

fn item(x: &mut Xml, src: &FeedSource<'_>, view: &EpisodeView, urls: &Urls, feed_explicit: bool) {
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
    let page = urls.episode_page(&ep.feed, ep.id);
    x.text("link", if ep.link.is_empty() { &page } else { &ep.link });
    x.text("author", &ep.email);
    if let Some(media) = &view.media {
        let url = urls.media(src.account, media);
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
        x.empty("itunes:image", &[("href", &urls.media(src.account, logo))]);
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
                ("url", &urls.media(src.account, transcript)),
                ("type", &transcript.facts.mime),
            ],
        );
    }
    if let Some(media) = view.media.as_ref().filter(|m| !m.chapters.is_empty()) {
        x.empty(
            "podcast:chapters",
            &[
                ("url", &urls.chapters(src.account, media)),
                ("type", super::chapters::MIME),
            ],
        );
    }
    item_tags(x, &ep.podcast, view, urls, src.account);
    x.close("item");
}

/// Attributes of which some are absent: `(name, Some(value))` pairs kept.
fn attrs<'a>(pairs: &[(&'a str, Option<String>)]) -> Vec<(&'a str, String)> {
    pairs
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| (*k, v)))
        .collect()
}

fn borrowed<'a>(owned: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    owned.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn text_el(x: &mut Xml, name: &str, pairs: &[(&str, Option<String>)], text: &str) {
    let owned = attrs(pairs);
    x.text_with(name, &borrowed(&owned), text);
}

fn empty_el(x: &mut Xml, name: &str, pairs: &[(&str, Option<String>)]) {
    let owned = attrs(pairs);
    x.empty(name, &borrowed(&owned));
}

/// An element whose text is optional: with its text, or empty when there is none.
fn optional_text_el(
    x: &mut Xml,
    name: &str,
    pairs: &[(&str, Option<String>)],
    text: &Option<String>,
) {
    match text.as_deref().map(clean_value).filter(|t| !t.is_empty()) {
        Some(t) => text_el(x, name, pairs, &t),
        None => empty_el(x, name, pairs),
    }
}

fn num(n: f64) -> String {
    // Whole numbers without a fraction, others as they are.
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn people(x: &mut Xml, people: &[crate::model::podcast::Person]) {
    for p in people {
        text_el(
            x,
            "podcast:person",
            &[
                ("role", p.role.clone()),
                ("group", p.group.clone()),
                ("img", p.img.clone()),
                ("href", p.href.clone()),
            ],
            &p.name,
        );
    }
}

fn location(x: &mut Xml, l: &Option<crate::model::podcast::Location>) {
    if let Some(l) = l {
        text_el(
            x,
            "podcast:location",
            &[("geo", l.geo.clone()), ("osm", l.osm.clone())],
            &l.name,
        );
    }
}

fn license(x: &mut Xml, l: &Option<crate::model::podcast::License>) {
    if let Some(l) = l {
        text_el(x, "podcast:license", &[("url", l.url.clone())], &l.name);
    }
}

fn txts(x: &mut Xml, txt: &[crate::model::podcast::Txt]) {
    for t in txt {
        text_el(x, "podcast:txt", &[("purpose", t.purpose.clone())], &t.text);
    }
}

fn images(x: &mut Xml, images: &[crate::model::podcast::Image]) {
    for i in images {
        empty_el(
            x,
            "podcast:image",
            &[
                ("href", Some(i.href.clone())),
                ("alt", i.alt.clone()),
                ("aspect-ratio", i.aspect_ratio.clone()),
                ("width", i.width.map(|w| w.to_string())),
                ("height", i.height.map(|h| h.to_string())),
                ("type", i.mime.clone()),
                ("purpose", i.purpose.clone()),
            ],
        );
    }
}

fn chat(x: &mut Xml, c: &Option<crate::model::podcast::Chat>) {
    if let Some(c) = c {
        empty_el(
            x,
            "podcast:chat",
            &[
                ("server", Some(c.server.clone())),
                ("protocol", Some(c.protocol.clone())),
                ("accountId", c.account_id.clone()),
                ("space", c.space.clone()),
            ],
        );
    }
}

fn remote_item(x: &mut Xml, r: &crate::model::podcast::RemoteItem) {
    empty_el(
        x,
        "podcast:remoteItem",
        &[
            ("feedGuid", Some(r.feed_guid.clone())),
            ("itemGuid", r.item_guid.clone()),
            ("feedUrl", r.feed_url.clone()),
            ("medium", r.medium.clone()),
        ],
    );
}

fn recipients(x: &mut Xml, list: &[crate::model::podcast::ValueRecipient]) {
    for r in list {
        empty_el(
            x,
            "podcast:valueRecipient",
            &[
                ("name", r.name.clone()),
                ("type", Some(r.kind.clone())),
                ("address", Some(r.address.clone())),
                ("split", Some(r.split.to_string())),
                ("customKey", r.custom_key.clone()),
                ("customValue", r.custom_value.clone()),
                ("fee", r.fee.map(|f| f.to_string())),
            ],
        );
    }
}

fn value(x: &mut Xml, v: &Option<crate::model::podcast::ValueBlock>) {
    let Some(v) = v else { return };
    let owned = attrs(&[
        ("type", Some(v.kind.clone())),
        ("method", Some(v.method.clone())),
        ("suggested", v.suggested.clone()),
    ]);
    x.open("podcast:value", &borrowed(&owned));
    recipients(x, &v.recipients);
    for split in &v.time_splits {
        let owned = attrs(&[
            ("startTime", Some(num(split.start_time))),
            ("duration", Some(num(split.duration))),
            ("remoteStartTime", split.remote_start_time.map(num)),
            ("remotePercentage", split.remote_percentage.map(num)),
        ]);
        x.open("podcast:valueTimeSplit", &borrowed(&owned));
        if let Some(r) = &split.remote_item {
            remote_item(x, r);
        }
        recipients(x, &split.recipients);
        x.close("podcast:valueTimeSplit");
    }
    x.close("podcast:value");
}

/// The channel's Podcasting 2.0 tags (besides guid, locked, funding, medium).
fn channel_tags(x: &mut Xml, t: &crate::model::podcast::ChannelTags) {
    people(x, &t.person);
    location(x, &t.location);
    for trailer in &t.trailer {
        text_el(
            x,
            "podcast:trailer",
            &[
                ("pubdate", Some(trailer.pubdate.clone())),
                ("url", Some(trailer.url.clone())),
                ("length", trailer.length.map(|l| l.to_string())),
                ("type", trailer.mime.clone()),
                ("season", trailer.season.map(|s| s.to_string())),
            ],
            &trailer.title,
        );
    }
    license(x, &t.license);
    for b in &t.block {
        text_el(
            x,
            "podcast:block",
            &[("id", b.id.clone())],
            yes_no(b.blocked),
        );
    }
    txts(x, &t.txt);
    if !t.podroll.is_empty() {
        x.open("podcast:podroll", &[]);
        for r in &t.podroll {
            remote_item(x, r);
        }
        x.close("podcast:podroll");
    }
    if let Some(u) = &t.update_frequency {
        text_el(
            x,
            "podcast:updateFrequency",
            &[
                ("complete", u.complete.map(|c| c.to_string())),
                ("dtstart", u.dtstart.clone()),
                ("rrule", u.rrule.clone()),
            ],
            &u.text,
        );
    }
    value(x, &t.value);
    chat(x, &t.chat);
    if let Some(p) = &t.publisher {
        x.open("podcast:publisher", &[]);
        remote_item(x, p);
        x.close("podcast:publisher");
    }
    images(x, &t.image);
    for i in &t.id {
        empty_el(
            x,
            "podcast:id",
            &[
                ("platform", Some(i.platform.clone())),
                ("id", i.id.clone()),
                ("url", Some(i.url.clone())),
            ],
        );
    }
    for s in &t.social {
        let owned = attrs(&[
            ("platform", Some(s.platform.clone())),
            ("url", Some(s.url.clone())),
            ("podcastAccountId", s.podcast_account_id.clone()),
            ("priority", s.priority.map(|p| p.to_string())),
        ]);
        x.open("podcast:social", &borrowed(&owned));
        for up in &s.social_sign_up {
            empty_el(
                x,
                "podcast:socialSignUp",
                &[
                    ("homeUrl", Some(up.home_url.clone())),
                    ("signUpUrl", Some(up.sign_up_url.clone())),
                    ("priority", up.priority.map(|p| p.to_string())),
                ],
            );
        }
        x.close("podcast:social");
    }
    recommendations(x, &t.recommendations);
}

fn recommendations(x: &mut Xml, list: &[crate::model::podcast::Recommendations]) {
    for r in list {
        optional_text_el(
            x,
            "podcast:recommendations",
            &[
                ("url", Some(r.url.clone())),
                ("type", Some(r.mime.clone())),
                ("language", r.language.clone()),
            ],
            &r.text,
        );
    }
}

/// A channel's live items (`podcast:liveItem`), after its other items' tags.
fn live_items(x: &mut Xml, t: &crate::model::podcast::ChannelTags) {
    for l in &t.live_item {
        let owned = attrs(&[
            ("status", Some(l.status.clone())),
            ("start", Some(l.start.clone())),
            ("end", l.end.clone()),
        ]);
        x.open("podcast:liveItem", &borrowed(&owned));
        x.text("title", &l.title);
        x.text_with("guid", &[("isPermaLink", "false")], &l.guid);
        x.empty(
            "enclosure",
            &[("url", &l.url), ("type", &l.mime), ("length", "0")],
        );
        for link in &l.content_link {
            x.text_with("podcast:contentLink", &[("href", &link.href)], &link.text);
        }
        chat(x, &l.chat);
        if let Some(v) = &l.live_value {
            x.empty(
                "podcast:liveValue",
                &[("uri", &v.uri), ("protocol", &v.protocol)],
            );
        }
        x.close("podcast:liveItem");
    }
}

/// An item's Podcasting 2.0 tags (besides the uploaded transcript and the file's chapters).
fn item_tags(
    x: &mut Xml,
    t: &crate::model::podcast::ItemTags,
    view: &EpisodeView,
    urls: &Urls,
    account: &crate::ids::AccountId,
) {
    for tr in &t.transcripts {
        empty_el(
            x,
            "podcast:transcript",
            &[
                ("url", Some(tr.url.clone())),
                ("type", Some(tr.mime.clone())),
                ("language", tr.language.clone()),
                ("rel", tr.rel.clone()),
            ],
        );
    }
    for s in &t.soundbite {
        optional_text_el(
            x,
            "podcast:soundbite",
            &[
                ("startTime", Some(num(s.start_time))),
                ("duration", Some(num(s.duration))),
            ],
            &s.text,
        );
    }
    people(x, &t.person);
    location(x, &t.location);
    if let Some(season) = &t.season {
        text_el(
            x,
            "podcast:season",
            &[("name", season.name.clone())],
            &season.number.to_string(),
        );
    }
    if let Some(episode) = &t.episode {
        text_el(
            x,
            "podcast:episode",
            &[("display", episode.display.clone())],
            &num(episode.number),
        );
    }
    license(x, &t.license);
    for a in &t.alternate_enclosure {
        // A file podhost holds: its URL first, its type, size and SHA-384 unless given.
        let held = a
            .media
            .and_then(|id| view.alternates.iter().find(|m| m.id == id));
        let mime = match (a.mime.trim().is_empty(), held) {
            (true, Some(m)) => enclosure_type(&m.facts.mime).to_string(),
            _ => a.mime.clone(),
        };
        let owned = attrs(&[
            ("type", Some(mime)),
            (
                "length",
                a.length.or(held.map(|m| m.size)).map(|l| l.to_string()),
            ),
            ("bitrate", a.bitrate.map(num)),
            ("height", a.height.map(|h| h.to_string())),
            ("lang", a.lang.clone()),
            ("title", a.title.clone()),
            ("rel", a.rel.clone()),
            ("codecs", a.codecs.clone()),
            ("default", a.default.map(|d| d.to_string())),
        ]);
        x.open("podcast:alternateEnclosure", &borrowed(&owned));
        if let Some(m) = held {
            empty_el(
                x,
                "podcast:source",
                &[("uri", Some(urls.media(account, m)))],
            );
        }
        for s in &a.source {
            empty_el(
                x,
                "podcast:source",
                &[
                    ("uri", Some(s.uri.clone())),
                    ("contentType", s.content_type.clone()),
                ],
            );
        }
        let computed = held.and_then(|m| m.facts.sha384.clone()).map(|value| {
            crate::model::podcast::Integrity {
                kind: "sri".into(),
                value,
            }
        });
        if let Some(i) = a.integrity.as_ref().or(computed.as_ref()) {
            empty_el(
                x,
                "podcast:integrity",
                &[
                    ("type", Some(i.kind.clone())),
                    ("value", Some(i.value.clone())),
                ],
            );
        }
        x.close("podcast:alternateEnclosure");
    }
    value(x, &t.value);
    for s in &t.social_interact {
        empty_el(
            x,
            "podcast:socialInteract",
            &[
                ("uri", Some(s.uri.clone())),
                ("protocol", Some(s.protocol.clone())),
                ("accountId", s.account_id.clone()),
                ("accountUrl", s.account_url.clone()),
                ("priority", s.priority.map(|p| p.to_string())),
            ],
        );
    }
    txts(x, &t.txt);
    chat(x, &t.chat);
    images(x, &t.image);
    recommendations(x, &t.recommendations);
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
            BlobKey, Episode, EpisodeType, Funding, GooglePlayChannel, ItunesChannel,
            ItunesEpisode, PodcastChannel,
        },
        probe::{AudioFacts, MediaFacts, MediaKind},
    };

    const DIRTY: &str = " \u{0}a\u{1b}b\u{7f}c\u{85}d\u{FFFE}e\u{FFFF}\r\nf\rg ]]> & < \" 🎙 עברית ";
    const CLEAN: &str = "abcde\nf\ng ]]> & < \" 🎙 עברית";

    fn media(id: u64, name: &str, mime: &str) -> Media {
        let at = Timestamp::UNIX_EPOCH;
        Media {
            id: MediaId::new(id).unwrap(),
            name: name.into(),
            url_name: None,
            category: None,
            size: 1000,
            created: at,
            updated: at,
            blob: BlobKey(format!("blob-{id}")),
            facts: MediaFacts {
                mime: mime.into(),
                kind: MediaKind::Audio,
                extension: "m4a".into(),
                info: String::new(),
                audio: Some(AudioFacts {
                    codec: "aac".into(),
                    duration_ms: 61_500,
                    bitrate: 96_000,
                    sample_rate: 44_100,
                    channels: 1,
                }),
                image: None,
                tag_bytes: 0,
                sha384: None,
            },
            adbreak: None,
            results: Default::default(),
            chapters: Vec::new(),
        }
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
            private: false,
            cleaned: &Default::default(),
            hubs: &[],
            podping: false,
        };
        String::from_utf8(render(&source, &Urls::new("https://pod.example"))).unwrap()
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
