//! The RSS 2.0 document of a podcast, with the `itunes`, `podcast` (podcastindex.org), `atom`,
//! `content` and `googleplay` namespaces, written with quick-xml.

use std::io::Cursor;

use jiff::Timestamp;
use quick_xml::{
    Writer,
    events::{BytesCData, BytesDecl, BytesEnd, BytesStart, BytesText, Event},
};

use super::xml_text::clean;
use crate::{
    ids::AccountId,
    model::{EpisodeView, Feed, Media, ShowType},
    urls::Urls,
};

const NAMESPACES: [(&str, &str); 5] = [
    ("xmlns:itunes", "http://www.itunes.com/dtds/podcast-1.0.dtd"),
    ("xmlns:podcast", "https://podcastindex.org/namespace/1.0"),
    ("xmlns:atom", "http://www.w3.org/2005/Atom"),
    ("xmlns:content", "http://purl.org/rss/1.0/modules/content/"),
    (
        "xmlns:googleplay",
        "http://www.google.com/schemas/play-podcasts/1.0",
    ),
];

/// What a feed is rendered from, read at one moment.
pub(crate) struct FeedSource<'a> {
    pub(crate) account: &'a AccountId,
    pub(crate) feed: &'a Feed,
    pub(crate) logo: Option<&'a Media>,
    /// Published episodes, newest first.
    pub(crate) episodes: &'a [EpisodeView],
    pub(crate) last_modified: Timestamp,
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

    /// `<name>text</name>`, escaped; nothing when the text is empty.
    fn text(&mut self, name: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        self.open(name, &[]);
        self.event(Event::Text(BytesText::new(&clean(text))));
        self.close(name);
    }

    /// `<name><![CDATA[html]]></name>`, split where the text holds `]]>`.
    fn cdata(&mut self, name: &str, html: &str) {
        if html.is_empty() {
            return;
        }
        self.open(name, &[]);
        for section in BytesCData::escaped(&clean(html)) {
            self.event(Event::CData(section));
        }
        self.close(name);
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Renders the document.
pub(crate) fn render(src: &FeedSource<'_>, urls: &Urls) -> Vec<u8> {
    let feed = src.feed;
    let mut x = Xml {
        writer: Writer::new_with_indent(Cursor::new(Vec::new()), b' ', 2),
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
    let author = if it.author.is_empty() {
        feed.googleplay.author.as_str()
    } else {
        it.author.as_str()
    };

    x.text("title", &feed.title);
    x.cdata("description", &feed.description);
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
    if let Some(logo) = &logo {
        x.open("image", &[]);
        x.text("url", logo);
        x.text("title", &feed.title);
        x.text("link", link);
        x.close("image");
        x.empty("itunes:image", &[("href", logo)]);
        x.empty("googleplay:image", &[("href", logo)]);
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
    x.cdata("itunes:summary", &it.summary);
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
    if it.block {
        x.text("itunes:block", "Yes");
    }
    if it.complete {
        x.text("itunes:complete", "Yes");
    }
    if let Some(url) = &it.new_feed_url {
        x.text("itunes:new-feed-url", url);
    }
    x.text("googleplay:author", &feed.googleplay.author);
    x.cdata("googleplay:description", &feed.googleplay.description);
    x.text("googleplay:explicit", yes_no(it.explicit));
    x.text("podcast:guid", &feed.podcast.guid.to_string());
    if it.owner_email.is_empty() {
        x.text("podcast:locked", yes_no(feed.podcast.locked));
    } else {
        x.open("podcast:locked", &[("owner", &it.owner_email)]);
        x.event(Event::Text(BytesText::new(yes_no(feed.podcast.locked))));
        x.close("podcast:locked");
    }
    for funding in &feed.podcast.funding {
        x.open("podcast:funding", &[("url", &funding.url)]);
        x.event(Event::Text(BytesText::new(&clean(&funding.text))));
        x.close("podcast:funding");
    }
    x.text("podcast:medium", &feed.podcast.medium);

    for view in src.episodes {
        item(&mut x, src, view, urls, it.explicit);
    }
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
    x.cdata("description", &ep.description);
    x.cdata("content:encoded", &ep.description);
    let permalink = ep.guid.starts_with("http://") || ep.guid.starts_with("https://");
    x.open(
        "guid",
        &[("isPermaLink", if permalink { "true" } else { "false" })],
    );
    x.event(Event::Text(BytesText::new(&clean(&ep.guid))));
    x.close("guid");
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
                ("type", &media.facts.mime),
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
    x.cdata("itunes:summary", &it.summary);
    x.text("itunes:author", &it.author);
    if let Some(n) = it.episode {
        x.text("itunes:episode", &n.to_string());
        x.text("podcast:episode", &n.to_string());
    }
    if let Some(n) = it.season {
        x.text("itunes:season", &n.to_string());
        x.text("podcast:season", &n.to_string());
    }
    x.text("itunes:episodeType", it.episode_type.as_str());
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
    x.close("item");
}
