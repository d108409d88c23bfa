//! The RSS feed: well-formed XML, the channel and item tags apps read, only published episodes
//! newest first, hostile text carried safely (HTML cleaned, plain text as written), scheduled
//! episodes appearing by themselves.

use std::sync::Arc;

use jiff::SignedDuration;
use podhost_core::{
    FeedId, HostConfig, ManualClock, PodcastHost, Principal,
    model::{EpisodePatch, FeedPatch, Funding, NewEpisode, NewFeed},
    publish::{PublicFeed, RenderedFeed},
};

mod feeds;

use feeds::Element;

/// Parses the whole document (so it must be well-formed, and free of the control characters
/// XML 1.0 forbids) into its elements, in document order of their ends.
fn parse(xml: &[u8]) -> Vec<Element> {
    let text = std::str::from_utf8(xml).expect("UTF-8");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')),
        "no control characters XML 1.0 forbids"
    );
    feeds::parse(text)
}

fn one<'a>(doc: &'a [Element], path: &str) -> &'a Element {
    let found: Vec<_> = doc.iter().filter(|e| e.path == path).collect();
    assert_eq!(found.len(), 1, "exactly one {path}");
    found[0]
}

fn all<'a>(doc: &'a [Element], path: &str) -> Vec<&'a Element> {
    doc.iter().filter(|e| e.path == path).collect()
}

struct World {
    host: PodcastHost,
    clock: ManualClock,
    who: Principal,
    feed: FeedId,
}

async fn world() -> World {
    let clock = ManualClock::new("2026-03-01T12:00:00Z".parse().unwrap());
    let host = PodcastHost::with_clock(
        HostConfig::new("https://pod.example").unwrap(),
        Arc::new(object_store::memory::InMemory::new()),
        Arc::new(clock.clone()),
    );
    let who = podhost_testkit::setup::account(&host, "alice").await;
    let upload = |name: &'static str| {
        let bytes = std::fs::read(format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let host = host.clone();
        let who = who.clone();
        async move { podhost_testkit::setup::upload(&host, &who, name, bytes).await }
    };
    let cover = upload("cover_1400.png").await;
    let audio = upload("cbr_128k_stereo.mp3").await;
    let fields = FeedPatch {
        title: Some("Tech & <Talk>".into()),
        description: Some("<p>All about ]]> and <b>more</b></p>".into()),
        language: Some("en-US".into()),
        copyright: Some("© 2026 Alice".into()),
        link: Some("https://alice.example".into()),
        logo: Some(Some(cover.id)),
        itunes_author: Some("Alice".into()),
        itunes_category: Some("News".into()),
        itunes_subcategory: Some("Tech News".into()),
        itunes_explicit: Some(true),
        itunes_owner_name: Some("Alice A.".into()),
        itunes_owner_email: Some("alice@example.com".into()),
        podcast_locked: Some(true),
        podcast_funding: Some(vec![Funding {
            url: "https://give.example/alice".into(),
            text: "Support us".into(),
        }]),
        ..Default::default()
    };
    let feed = host
        .podcasts()
        .create_feed(
            &who,
            NewFeed {
                id: "tech talk".into(),
                fields,
            },
        )
        .await
        .unwrap()
        .feed
        .id;
    let episode = |title: &str, description: String, days_ago: i64, public: bool| EpisodePatch {
        title: Some(title.into()),
        description: Some(description),
        is_public: Some(public),
        publish_at: Some(clock.now() - SignedDuration::from_hours(24 * days_ago)),
        media: Some(Some(audio.id)),
        ..Default::default()
    };
    use podhost_core::Clock;
    // The core refuses control characters on input (the feed drops them too, for imported text).
    // 4,000 bytes: Apple's limit on a description, the most the core accepts.
    let hostile_start = "<script>alert(1)</script> ]]> &amp; emoji 🎙️ RTL עברית العربية ";
    let hostile = format!("{hostile_start}{}", "x".repeat(4000 - hostile_start.len()));
    let eps = [
        ("Oldest", "first: a < b & ]]> plain".to_string(), 10, true),
        ("Hostile ]]> <script>", hostile, 5, true),
        ("Draft", "not yet".to_string(), 4, false),
        ("Newest", "latest".to_string(), 1, true),
        ("Tomorrow", "scheduled".to_string(), -1, true),
    ];
    for (title, description, days_ago, public) in eps {
        let mut patch = episode(title, description, days_ago, public);
        if title == "Newest" {
            patch.itunes_episode = Some(Some(7));
            patch.itunes_season = Some(Some(2));
            patch.itunes_logo = Some(Some(cover.id));
        }
        let guid = (title == "Oldest").then(|| "https://old.example/ep/1".to_string());
        host.podcasts()
            .create_episode(
                &who,
                &feed,
                NewEpisode {
                    guid,
                    fields: patch,
                },
            )
            .await
            .unwrap();
    }
    World {
        host,
        clock,
        who,
        feed,
    }
}

async fn live(w: &World) -> RenderedFeed {
    match w.host.delivery().public_feed(&w.feed).await.unwrap() {
        PublicFeed::Live(rendered) => rendered,
        other => panic!("expected a live feed, got {other:?}"),
    }
}

#[tokio::test]
async fn the_channel_carries_what_apps_read() {
    let w = world().await;
    let rendered = live(&w).await;
    let doc = parse(&rendered.xml);
    let rss = one(&doc, "rss");
    assert_eq!(rss.attrs["version"], "2.0");
    for (ns, url) in [
        ("xmlns:itunes", "http://www.itunes.com/dtds/podcast-1.0.dtd"),
        ("xmlns:podcast", "https://podcastindex.org/namespace/1.0"),
        ("xmlns:atom", "http://www.w3.org/2005/Atom"),
        ("xmlns:content", "http://purl.org/rss/1.0/modules/content/"),
    ] {
        assert_eq!(rss.attrs[ns], url);
    }
    let c = |tag: &str| one(&doc, &format!("rss/channel/{tag}")).clone();
    assert_eq!(c("title").text, "Tech & <Talk>");
    assert_eq!(
        c("description").text,
        "<p>All about ]]&gt; and <b>more</b></p>",
        "HTML is cleaned and written anew: `>` in its text escaped"
    );
    assert_eq!(c("link").text, "https://alice.example");
    assert_eq!(c("language").text, "en-US");
    assert_eq!(c("copyright").text, "© 2026 Alice");
    assert_eq!(c("atom:link").attrs["rel"], "self");
    assert_eq!(
        c("atom:link").attrs["href"],
        "https://pod.example/feeds/tech%20talk/rss"
    );
    assert!(c("itunes:image").attrs["href"].ends_with("/cover_1400.png"));
    assert_eq!(c("itunes:category").attrs["text"], "News");
    assert_eq!(
        one(&doc, "rss/channel/itunes:category/itunes:category").attrs["text"],
        "Tech News"
    );
    assert_eq!(c("itunes:explicit").text, "true");
    assert_eq!(c("itunes:author").text, "Alice");
    assert_eq!(c("itunes:type").text, "episodic");
    assert_eq!(
        one(&doc, "rss/channel/itunes:owner/itunes:email").text,
        "alice@example.com"
    );
    let feed = w
        .host
        .podcasts()
        .get_feed(&w.who, &w.feed)
        .await
        .unwrap()
        .feed;
    assert_eq!(c("podcast:guid").text, feed.podcast.guid.to_string());
    assert_eq!(c("podcast:locked").text, "yes");
    assert_eq!(c("podcast:locked").attrs["owner"], "alice@example.com");
    assert_eq!(
        c("podcast:funding").attrs["url"],
        "https://give.example/alice"
    );
    assert_eq!(c("podcast:medium").text, "podcast");
    assert!(
        all(&doc, "rss/channel/itunes:block").is_empty(),
        "only when set"
    );
}

#[tokio::test]
async fn items_are_the_published_episodes_newest_first() {
    let w = world().await;
    let doc = parse(&live(&w).await.xml);
    let titles: Vec<_> = all(&doc, "rss/channel/item/title")
        .iter()
        .map(|e| e.text.clone())
        .collect();
    assert_eq!(
        titles,
        ["Newest", "Hostile ]]> <script>", "Oldest"],
        "no draft, nothing scheduled"
    );
    let i = |tag: &str| all(&doc, &format!("rss/channel/item/{tag}"));
    let newest_guid = &i("guid")[0];
    assert_eq!(newest_guid.attrs["isPermaLink"], "false");
    assert!(newest_guid.text.starts_with("pod-"));
    assert_eq!(
        i("guid")[2].attrs["isPermaLink"],
        "true",
        "a URL guid is a permalink"
    );
    assert_eq!(i("pubDate")[0].text, "Sat, 28 Feb 2026 12:00:00 +0000");
    let enclosure = &i("enclosure")[0];
    assert!(enclosure.attrs["url"].starts_with("https://pod.example/media/alice/"));
    assert_eq!(enclosure.attrs["type"], "audio/mpeg");
    assert!(enclosure.attrs["length"].parse::<u64>().unwrap() > 10_000);
    assert_eq!(i("itunes:duration")[0].text, "3");
    assert_eq!(
        (
            i("itunes:episode")[0].text.as_str(),
            i("itunes:season")[0].text.as_str()
        ),
        ("7", "2")
    );
    assert_eq!(
        (
            i("podcast:episode")[0].text.as_str(),
            i("podcast:season")[0].text.as_str()
        ),
        ("7", "2")
    );
    assert_eq!(i("itunes:episodeType")[0].text, "full");
    assert_eq!(
        i("itunes:explicit")[0].text,
        "true",
        "inherits the channel's"
    );
    assert_eq!(i("itunes:image").len(), 1);
    let hostile = &i("description")[1].text;
    assert!(
        hostile.starts_with("]]&gt; &amp; emoji 🎙️ RTL עברית العربية xxx"),
        "the script goes, the text stays: {hostile}"
    );
    let xs = 4000 - "<script>alert(1)</script> ]]> &amp; emoji 🎙️ RTL עברית العربية ".len();
    assert!(
        hostile.ends_with(&format!(" {}", "x".repeat(xs))),
        "all of it"
    );
    assert_eq!(*hostile, i("content:encoded")[1].text);
    assert_eq!(
        i("description")[2].text,
        "first: a < b & ]]> plain",
        "plain text as written; CDATA survives ]]>"
    );
    // The API keeps what was written; only the feed is cleaned.
    let stored = w
        .host
        .podcasts()
        .list_episodes(&w.who, &w.feed, &Default::default())
        .await
        .unwrap();
    assert!(stored.items.iter().any(|v| {
        v.episode
            .description
            .starts_with("<script>alert(1)</script>")
    }));
}

#[tokio::test]
async fn a_scheduled_episode_appears_when_its_time_comes() {
    let w = world().await;
    let before = live(&w).await;
    assert_eq!(
        live(&w).await.etag,
        before.etag,
        "the same version renders the same bytes"
    );
    w.clock.advance(SignedDuration::from_hours(25));
    let after = live(&w).await;
    assert_ne!(after.etag, before.etag);
    let titles: Vec<_> = all(&parse(&after.xml), "rss/channel/item/title")
        .iter()
        .map(|e| e.text.clone())
        .collect();
    assert_eq!(
        titles[0], "Tomorrow",
        "published by the clock alone, no write"
    );
    assert!(after.last_modified > before.last_modified);
}

#[tokio::test]
async fn moved_deleted_and_unknown_feeds() {
    let w = world().await;
    let moved = FeedPatch {
        itunes_new_feed_url: Some(Some("https://new.example/feed.xml".into())),
        ..Default::default()
    };
    w.host
        .podcasts()
        .update_feed(&w.who, &w.feed, &moved)
        .await
        .unwrap();
    assert!(
        matches!(w.host.delivery().public_feed(&w.feed).await.unwrap(), PublicFeed::Moved(url) if url == "https://new.example/feed.xml")
    );
    w.host
        .podcasts()
        .delete_feed(&w.who, &w.feed)
        .await
        .unwrap();
    assert!(matches!(
        w.host.delivery().public_feed(&w.feed).await.unwrap(),
        PublicFeed::Gone
    ));
    let unknown = FeedId::new("never").unwrap();
    assert!(matches!(
        w.host.delivery().public_feed(&unknown).await,
        Err(podhost_core::Error::NotFound { .. })
    ));
}

/// A feed of many episodes: each item carries its own episode's show notes, in feed order.
#[tokio::test]
async fn a_large_feed_carries_each_episodes_own_notes() {
    let w = world().await;
    let episodes = 300;
    for n in 0..episodes {
        let mut new = NewEpisode::titled(format!("Large {n}"));
        new.fields.description = Some(format!("<p>Notes of <b>{n}</b></p>"));
        new.fields.is_public = Some(true);
        new.fields.publish_at = Some(
            "2026-01-01T00:00:00Z".parse::<jiff::Timestamp>().unwrap()
                + jiff::SignedDuration::from_mins(n),
        );
        w.host
            .podcasts()
            .create_episode(&w.who, &w.feed, new)
            .await
            .unwrap();
    }
    let doc = parse(&live(&w).await.xml);
    let titles = all(&doc, "rss/channel/item/title");
    let notes = all(&doc, "rss/channel/item/description");
    assert_eq!(titles.len(), notes.len());
    let mut seen = 0;
    for (title, notes) in titles.iter().zip(&notes) {
        if let Some(n) = title.text.strip_prefix("Large ") {
            assert_eq!(
                notes.text,
                format!("<p>Notes of <b>{n}</b></p>"),
                "{}",
                title.text
            );
            seen += 1;
        }
    }
    assert_eq!(seen, episodes);
}
