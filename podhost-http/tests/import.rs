//! Moving in: podcasts imported from feeds written the way the big hosts write them, compared
//! with their source item by item, and hostile feeds refused or skipped with a clear message
//! and nothing left half done.
//!
//! One local server ([`server`]) plays every other host: the fixture feeds under `import/feeds/`
//! name the hosts' real names (traffic.libsyn.com, anchor.fm, op3.dev, dts.podtrac.com...), which
//! the fetcher resolves to 127.0.0.1 like curl's `--resolve`, and the server answers by `Host`
//! header and path, the analytics prefixes with their redirects. Enclosures are real audio
//! (podhost-core's probe fixtures; MP3 frames repeated for longer ones), with the durations the
//! feeds declare.
//!
//! Both the source and the imported RSS are read by real parsers: feedparser
//! (`tests/parsers/feedparser_json.py`), and ElementTree (`import/tags.py`) for what feedparser
//! does not give back (see there). They are installed by `scripts/test`; without them the
//! comparisons say SKIPPED loudly, or fail under `PODHOST_REQUIRE_EXTERNAL=1`.

mod common;
#[path = "import/server.rs"]
mod server;

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    io::Write,
    path::{Path, PathBuf},
    process::Command,
    sync::{Arc, Mutex},
};

use bytes::Bytes;
use common::Fixture;
use futures::{StreamExt, TryStreamExt};
use http::{Method, StatusCode};
use podhost_core::{
    Principal,
    import::{
        FetchRequest, Fetched, Fetcher, ImportOptions, ImportProgress, ImportReport, ImportSource,
        Quietly,
    },
    model::{EpisodeListQuery, EpisodeView, MediaListQuery, PageRequest},
};
use serde_json::{Value, json};
use server::{Reply, Server};
use sha2::{Digest, Sha256};

// ----- files -----

/// A file of podhost-core's probe fixtures.
fn probe_fixture(name: &str) -> Bytes {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../podhost-core/tests/fixtures")
        .join(name);
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// A file of `import/files/`.
fn import_file(name: &str) -> Bytes {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/import/files")
        .join(name);
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// 3 s of CBR MP3 (48945 bytes).
fn cbr_mp3() -> Reply {
    Reply::File(probe_fixture("cbr_128k_stereo.mp3"), "audio/mpeg")
}

/// 3 s of VBR MP3 with an ID3 tag and a cover (27922 bytes).
fn vbr_mp3() -> Reply {
    Reply::File(probe_fixture("vbr_id3_cover.mp3"), "audio/mpeg")
}

/// An MP3 of bare frames (no tag, no VBR header), 3.03 s `times` over (16408 bytes each):
/// podhost counts its frames, so `times` copies last 3.03 × `times` seconds.
fn frames_mp3(times: usize) -> Reply {
    Reply::File(
        probe_fixture("vbr_noxing_mono.mp3").repeat(times).into(),
        "audio/mpeg",
    )
}

/// 3 s of AAC in M4A (37831 bytes).
fn m4a() -> Reply {
    Reply::File(probe_fixture("aac_96k_mono.m4a"), "audio/x-m4a")
}

fn png(side: u32) -> Reply {
    Reply::File(
        podhost_testkit::fixtures::png(side, side).into(),
        "image/png",
    )
}

fn text(name: &str, mime: &'static str) -> Reply {
    Reply::File(import_file(name), mime)
}

/// A redirect (`@PORT@` in the location is the server's port).
fn redirect(location: &str) -> Reply {
    Reply::Redirect(location.into())
}

// ----- the six hosts -----

/// A feed as a host writes it, and what that host serves besides.
struct HostFeed {
    /// `host/path` of the feed.
    feed: &'static str,
    /// The feed, `@PORT@` standing for the server's port.
    xml: &'static str,
    /// What the host serves besides (`host/path`, the answer).
    files: Vec<(&'static str, Reply)>,
    /// Items imported as drafts (blocked, or dated unreadably), by guid.
    drafts: &'static [&'static str],
    /// What the report says is wrong: one part of each problem.
    problems: &'static [&'static str],
}

impl HostFeed {
    fn serve(&self, server: &Server) {
        let xml = Bytes::from(server.fill(self.xml));
        server.serve(
            self.feed,
            Reply::File(xml, "application/rss+xml; charset=utf-8"),
        );
        for (at, reply) in &self.files {
            server.serve(at, reply.clone());
        }
    }

    fn items(&self) -> usize {
        self.xml.matches("<item>").count()
    }
}

/// Libsyn: CDATA everywhere, `itunes:` and `googleplay:`, RFC 2822 dates at +0000, HH:MM:SS
/// durations, the show art repeated in most items, and enclosures on traffic.libsyn.com (with
/// `?dest-id=`) that redirect to a signed CDN URL.
fn libsyn() -> HostFeed {
    HostFeed {
        feed: "feeds.libsyn.com/412345/rss",
        xml: include_str!("import/feeds/libsyn.xml"),
        files: vec![
            (
                "traffic.libsyn.com/secure/gardeninghour/GH_Ep12_Tomatoes.mp3",
                redirect(
                    "http://hwcdn.libsyn.com:@PORT@/p/0/f/6/0f6e1a9c3b524a7e/GH_Ep12_Tomatoes.mp3?c_id=164215&cs_id=164215&expiration=1709640000&hwt=5c1d9e",
                ),
            ),
            (
                "hwcdn.libsyn.com/p/0/f/6/0f6e1a9c3b524a7e/GH_Ep12_Tomatoes.mp3",
                cbr_mp3(),
            ),
            (
                "traffic.libsyn.com/secure/gardeninghour/GH_Ep11_Roses.mp3",
                redirect(
                    "http://hwcdn.libsyn.com:@PORT@/p/5/d/1/5d1e7c3392af4b0e/GH_Ep11_Roses.mp3?c_id=161002&cs_id=161002&expiration=1709640000&hwt=0a7b2c",
                ),
            ),
            (
                "hwcdn.libsyn.com/p/5/d/1/5d1e7c3392af4b0e/GH_Ep11_Roses.mp3",
                frames_mp3(2),
            ),
            (
                "traffic.libsyn.com/secure/gardeninghour/GH_Ep10_Catalogues.mp3",
                redirect(
                    "http://hwcdn.libsyn.com:@PORT@/p/a/8/b/a8b2f6401c7d4e95/GH_Ep10_Catalogues.mp3?c_id=158880&cs_id=158880&expiration=1709640000&hwt=9f3e1d",
                ),
            ),
            (
                "hwcdn.libsyn.com/p/a/8/b/a8b2f6401c7d4e95/GH_Ep10_Catalogues.mp3",
                vbr_mp3(),
            ),
            (
                "static.libsyn.com/p/assets/7/1/0/3/7103a1b2c3d4e5f6/GardeningHour_Cover.png",
                png(64),
            ),
            (
                "static.libsyn.com/p/assets/2/a/9/c/2a9c44e1d0b7f3a8/Ep12_Tomatoes.png",
                png(48),
            ),
        ],
        drafts: &[],
        problems: &[],
    }
}

/// Anchor / Spotify for Podcasters: CDATA titles (an emoji, a bare `&`), CDATA descriptions of
/// `<p>`s with the voice-message footer, `dc:creator`, `GMT` dates, `Yes` for explicit, the
/// show art in every item, M4A and MP3 behind anchor.fm play links that carry the CloudFront
/// URL percent-encoded.
fn anchor() -> HostFeed {
    HostFeed {
        feed: "anchor.fm/s/8f2c1a4/podcast/rss",
        xml: include_str!("import/feeds/anchor.xml"),
        files: vec![
            (
                "d3ctxlq1ktw2nl.cloudfront.net/staging/2024-2-4/371234567-44100-1-5b2d0f6a8e3c.m4a",
                m4a(),
            ),
            (
                "d3ctxlq1ktw2nl.cloudfront.net/staging/2024-1-19/368812345-44100-1-9e0d1c2b3a4f.mp3",
                frames_mp3(3),
            ),
            (
                "d3ctxlq1ktw2nl.cloudfront.net/staging/2024-1-5/365500001-44100-1-1a2b3c4d5e6f.m4a",
                Reply::File(probe_fixture("aac_isom_audio_only.mp4"), "audio/x-m4a"),
            ),
            (
                "d3t3ozftmdmh3i.cloudfront.net/production/podcast_uploaded_nologo/38215467/38215467-1700000000000-4e1f0b2c9a7d8.png",
                png(72),
            ),
        ],
        drafts: &[],
        problems: &[],
    }
}

/// Buzzsprout: `podcast:locked`, `podcast:guid`, `podcast:funding`, `Buzzsprout-<id>` guids,
/// dates at -0500, durations in seconds, enclosures behind `op3.dev/e/`, four transcripts per
/// episode with the HTML page first, JSON chapters typed `application/json`, a trailer.
fn buzzsprout() -> HostFeed {
    HostFeed {
        feed: "feeds.buzzsprout.com/1234567.rss",
        xml: include_str!("import/feeds/buzzsprout.xml"),
        files: vec![
            (
                "www.buzzsprout.com/1234567/14567890-how-we-priced-our-first-product.mp3",
                frames_mp3(4),
            ),
            ("www.buzzsprout.com/1234567/14000001-trailer.mp3", cbr_mp3()),
            (
                "www.buzzsprout.com/1234567/14567890/transcript",
                text("buzzsprout-transcript.html", "text/html; charset=utf-8"),
            ),
            (
                "www.buzzsprout.com/1234567/14567890/transcript.json",
                text("buzzsprout-transcript.json", "application/json"),
            ),
            (
                "www.buzzsprout.com/1234567/14567890/transcript.srt",
                text("buzzsprout-transcript.srt", "application/x-subrip"),
            ),
            (
                "www.buzzsprout.com/1234567/14567890/transcript.vtt",
                text("buzzsprout-transcript.vtt", "text/vtt"),
            ),
            (
                "www.buzzsprout.com/1234567/14567890/chapters.json",
                text("buzzsprout-chapters.json", "application/json"),
            ),
            (
                "storage.buzzsprout.com/variants/q2w3e4r5t6y7u8i9o0p/5eebc1e6f7a8.png",
                png(80),
            ),
        ],
        drafts: &[],
        problems: &[],
    }
}

/// Transistor: `podcast:guid`, `podcast:locked` with its owner, two `podcast:funding`, two
/// `itunes:category`, a serial show, `itunes:new-feed-url` pointing at itself, dates at -0800,
/// enclosures on media.transistor.fm behind `dts.podtrac.com/redirect.mp3/` (one also behind
/// `op3.dev/e/`: two redirects), a plain-text transcript before the WebVTT one, JSON chapters
/// with images and an end time, episode art.
fn transistor() -> HostFeed {
    HostFeed {
        feed: "feeds.transistor.fm/the-deploy-log",
        xml: include_str!("import/feeds/transistor.xml"),
        files: vec![
            ("media.transistor.fm/ab12cd34/f1e2d3c4.mp3", vbr_mp3()),
            ("media.transistor.fm/9f8e7d6c/0a1b2c3d.mp3", frames_mp3(2)),
            ("media.transistor.fm/1a2b3c4d/5e6f7a8b.mp3", cbr_mp3()),
            ("img.transistor.fm/3kQ8h2Lm9PqXr1sT4uVw.png", png(96)),
            ("img.transistor.fm/episode/ab12cd34/Zx9Yw8Vu7.png", png(40)),
            (
                "share.transistor.fm/s/ab12cd34/transcript.txt",
                text("transistor-transcript.txt", "text/plain"),
            ),
            (
                "share.transistor.fm/s/ab12cd34/transcript.vtt",
                text("transistor-transcript.vtt", "text/vtt"),
            ),
            (
                "share.transistor.fm/s/ab12cd34/chapters.json",
                text("transistor-chapters.json", "application/json+chapters"),
            ),
        ],
        drafts: &[],
        problems: &[],
    }
}

/// Podbean: its indentation, `spotify:` and a plain `<category>`, guids of the blog's host and
/// slug, `-0400` and `-0500` offsets, a `Tue, 5 Mar 2024 10:00:00 EST` date, `itunes:block` on
/// one item, a date no parser can read on another, enclosures on mcdn.podbean.com.
fn podbean() -> HostFeed {
    HostFeed {
        feed: "feed.podbean.com/faithfamilyhour/feed.xml",
        xml: include_str!("import/feeds/podbean.xml"),
        files: vec![
            (
                "mcdn.podbean.com/mf/web/x7k2p9/sunday-message-patience.mp3",
                frames_mp3(1),
            ),
            (
                "mcdn.podbean.com/mf/web/q4r8s2/midweek-prayer-for-the-sick.mp3",
                cbr_mp3(),
            ),
            (
                "mcdn.podbean.com/mf/web/m9n3b7/members-only-retreat-recording.mp3",
                vbr_mp3(),
            ),
            (
                "mcdn.podbean.com/mf/web/h6j1k5/sunday-message-the-prodigal-son.mp3",
                frames_mp3(3),
            ),
            (
                "pbcdn1.podbean.com/imglogo/image-logo/1234567/faithfamily_logo.png",
                png(56),
            ),
            (
                "pbcdn1.podbean.com/imglogo/ep-logo/pbblog1234567/patience_sermon.png",
                png(44),
            ),
        ],
        drafts: &[
            "faithfamilyhour.podbean.com/members-only-retreat-recording-7a3f5e9d1c2b",
            "faithfamilyhour.podbean.com/sunday-message-the-prodigal-son-5b8c2d4e6f1a",
        ],
        problems: &[
            "\"Sunday message: the prodigal son\": its date \"Sunday, February 25th 2024 at 9:30 AM\" cannot be read; imported as a draft dated now",
        ],
    }
}

/// Castopod: the `podcast:` namespace under its GitHub URI and everywhere (guid, medium
/// `audiobook`, locked, previousUrl, id, social, funding with a platform, person, location,
/// comments, soundbite, transcript with a language, chapters), `atom:link` declaring its own
/// namespace, one line, `itunes:category` doubled by plain ones, URL guids without
/// `isPermaLink`, RFC 1123 dates, MP3, Ogg and M4A behind OP3's `e,pg=<guid>/` prefix.
fn castopod() -> HostFeed {
    HostFeed {
        feed: "podcasts.example.social/@contes_du_lundi/feed.xml",
        xml: include_str!("import/feeds/castopod.xml"),
        files: vec![
            (
                "podcasts.example.social/audio/@contes_du_lundi/episode-3-le-loup-et-la-lune.mp3",
                frames_mp3(4),
            ),
            (
                "podcasts.example.social/audio/@contes_du_lundi/episode-2-la-renarde-et-le-corbeau.ogg",
                Reply::File(probe_fixture("vorbis_stereo.ogg"), "audio/ogg"),
            ),
            (
                "podcasts.example.social/audio/@contes_du_lundi/episode-1-il-etait-une-fois.m4a",
                m4a(),
            ),
            (
                "podcasts.example.social/media/podcasts/contes_du_lundi/cover.png",
                png(88),
            ),
            (
                "podcasts.example.social/media/podcasts/contes_du_lundi/episode-3-le-loup-et-la-lune.png",
                png(36),
            ),
            (
                "podcasts.example.social/media/podcasts/contes_du_lundi/episode-3-le-loup-et-la-lune-transcript.srt",
                text("castopod-episode-3.srt", "application/x-subrip"),
            ),
            (
                "podcasts.example.social/media/podcasts/contes_du_lundi/episode-3-le-loup-et-la-lune-chapters.json",
                text("castopod-chapters.json", "application/json"),
            ),
            (
                "podcasts.example.social/media/podcasts/contes_du_lundi/episode-2-la-renarde-et-le-corbeau-transcript.vtt",
                text("castopod-episode-2.vtt", "text/vtt"),
            ),
        ],
        drafts: &[],
        problems: &[],
    }
}

// ----- the real parsers -----

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// feedparser and ElementTree under the workspace's `.venv`; `None` (said loudly, or a failure
/// under `PODHOST_REQUIRE_EXTERNAL=1`) when feedparser is not installed.
fn parsers() -> Option<PathBuf> {
    let python = workspace().join(".venv/bin/python");
    let imports = Command::new(&python)
        .args(["-c", "import feedparser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if imports {
        return Some(python);
    }
    let what = "feedparser is not installed (no .venv/bin/python that imports feedparser); \
                run scripts/test, which installs it";
    if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what}. PODHOST_REQUIRE_EXTERNAL=1 requires it.");
    }
    let bar = "!".repeat(78);
    let _ = writeln!(
        std::io::stderr(),
        "\n{bar}\nSKIPPED (the comparisons with the source): {what}\n{bar}"
    );
    None
}

/// Runs `script FILE` with `python` on `xml`; its JSON.
fn run(python: &Path, script: &Path, xml: &str) -> Value {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(xml.as_bytes()).unwrap();
    let out = Command::new(python)
        .arg(script)
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The channel fields an import carries over, as a parser reads them.
#[derive(Debug, PartialEq)]
struct Channel {
    title: String,
    author: String,
    owner: (String, String),
    category: (String, String),
    explicit: bool,
    guid: Option<String>,
    locked: bool,
    funding: Vec<(String, String)>,
    medium: Option<String>,
}

/// An item, as a parser reads it.
#[derive(Debug)]
struct Item {
    title: String,
    /// Unix seconds.
    published: Option<i64>,
    /// Seconds.
    duration: Option<u64>,
    enclosure: Option<(String, Option<u64>)>,
    image: Option<String>,
    chapters: Option<String>,
    /// All of them, in order (URL, type).
    transcripts: Vec<(String, Option<String>)>,
    /// `itunes:episode`, `itunes:season`, `itunes:episodeType` (`full` when not said).
    numbering: (Option<String>, Option<String>, String),
}

/// A feed as the parsers read it.
struct Reading {
    channel: Channel,
    image: Option<String>,
    items: BTreeMap<String, Item>,
}

fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// `yes`, `true` and `explicit` (Apple's old and new words; the namespace's `yes`).
fn affirmative(v: &Value) -> bool {
    matches!(
        v.as_str().map(str::to_ascii_lowercase).as_deref(),
        Some("yes" | "true" | "explicit")
    )
}

/// `HH:MM:SS`, `MM:SS` or seconds.
fn seconds(duration: &str) -> u64 {
    duration
        .trim()
        .split(':')
        .fold(0, |total, part| total * 60 + part.parse::<u64>().unwrap())
}

/// Unix seconds of feedparser's `time.struct_time` (UTC) as a JSON list.
fn unix(v: &Value) -> Option<i64> {
    let parts = v.as_array()?;
    let n = |i: usize| parts[i].as_i64().unwrap();
    let at = jiff::civil::DateTime::new(
        n(0) as i16,
        n(1) as i8,
        n(2) as i8,
        n(3) as i8,
        n(4) as i8,
        n(5) as i8,
        0,
    )
    .unwrap();
    Some(
        at.to_zoned(jiff::tz::TimeZone::UTC)
            .unwrap()
            .timestamp()
            .as_second(),
    )
}

fn read(python: &Path, xml: &str) -> Reading {
    let parsed = run(
        python,
        &workspace().join("tests/parsers/feedparser_json.py"),
        xml,
    );
    let tags = run(
        python,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import/tags.py"),
        xml,
    );
    assert_eq!(parsed["version"], "rss20");
    let f = &parsed["feed"];
    let channel = Channel {
        title: string(&f["title"]),
        author: string(&tags["author"]),
        owner: (
            string(&f["publisher_detail"]["name"]),
            string(&f["publisher_detail"]["email"]),
        ),
        category: (string(&tags["category"]), string(&tags["subcategory"])),
        explicit: affirmative(&tags["explicit"]),
        guid: f["podcast_guid"].as_str().map(str::to_string),
        locked: affirmative(&tags["locked"]),
        funding: tags["funding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (string(&f[0]), string(&f[1])))
            .collect(),
        medium: f["podcast_medium"].as_str().map(str::to_string),
    };
    let transcripts: HashMap<String, Vec<(String, Option<String>)>> = tags["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let list = i["transcripts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| (string(&t[0]), t[1].as_str().map(str::to_string)))
                .collect();
            (string(&i["guid"]), list)
        })
        .collect();
    let items = parsed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let guid = string(&e["id"]);
            let enclosure = e["links"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|l| l["rel"] == "enclosure")
                .map(|l| {
                    (
                        string(&l["href"]),
                        l["length"].as_str().and_then(|n| n.parse().ok()),
                    )
                });
            let item = Item {
                title: string(&e["title"]),
                published: unix(&e["published_parsed"]),
                duration: e["itunes_duration"].as_str().map(seconds),
                enclosure,
                image: e["image"]["href"].as_str().map(str::to_string),
                chapters: e["podcast_chapters"]["url"].as_str().map(str::to_string),
                transcripts: transcripts.get(&guid).cloned().unwrap_or_default(),
                numbering: (
                    e["itunes_episode"].as_str().map(str::to_string),
                    e["itunes_season"].as_str().map(str::to_string),
                    e["itunes_episodetype"]
                        .as_str()
                        .unwrap_or("full")
                        .to_string(),
                ),
            };
            (guid, item)
        })
        .collect();
    Reading {
        channel,
        image: f["image"]["href"].as_str().map(str::to_string),
        items,
    }
}

// ----- comparing -----

fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What podhost serves at one of its public URLs.
async fn served(fx: &Fixture, url: &str) -> Bytes {
    let path = url
        .strip_prefix(podhost_testkit::TEST_PUBLIC_URL)
        .unwrap_or_else(|| panic!("{url} is not podhost's"));
    let answer = fx.public(Method::GET, path, &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "GET {path}");
    answer.raw
}

/// Chapters of a JSON chapters document, as (title, start in ms): those in the table of
/// contents (`toc: false` ones are not), by start.
fn chapters(json: &[u8]) -> Vec<(String, u64)> {
    let doc: Value = serde_json::from_slice(json).unwrap();
    let mut list: Vec<(String, u64)> = doc["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["toc"] != false)
        .map(|c| {
            let start = c["startTime"].as_f64().unwrap();
            (string(&c["title"]), (start * 1000.0).round() as u64)
        })
        .collect();
    list.sort_by_key(|(_, start)| *start);
    list
}

/// The transcript an import takes of several: the first in a captions format (WebVTT, SRT),
/// else the first JSON one, else the first.
fn chosen_transcript(transcripts: &[(String, Option<String>)]) -> Option<&str> {
    let rank = |mime: &Option<String>| match mime.as_deref() {
        Some("text/vtt" | "application/x-subrip" | "application/srt") => 0,
        Some("application/json") => 1,
        _ => 2,
    };
    transcripts
        .iter()
        .min_by_key(|(_, mime)| rank(mime))
        .map(|(url, _)| url.as_str())
}

/// The guid the Podcasting 2.0 namespace gives a feed without one: UUIDv5 of its URL without
/// the scheme.
fn guid_of_url(url: &str) -> String {
    let namespace = uuid::Uuid::parse_str("ead4c236-bf58-58c6-a2c6-a6b28d128cb6").unwrap();
    let bare = url.split_once("://").unwrap().1.trim_end_matches('/');
    uuid::Uuid::new_v5(&namespace, bare.as_bytes()).to_string()
}

async fn alice(fx: &Fixture) -> Principal {
    fx.host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap()
}

/// Every episode of the podcast, drafts included.
async fn episodes(fx: &Fixture, feed_id: &str) -> Vec<EpisodeView> {
    let query = EpisodeListQuery {
        page: PageRequest::new(None, Some(500)).unwrap(),
        ..Default::default()
    };
    fx.host
        .podcasts()
        .list_episodes(&alice(fx).await, &feed_id.parse().unwrap(), &query)
        .await
        .unwrap()
        .items
}

fn by_guid<'a>(episodes: &'a [EpisodeView], guid: &str) -> &'a EpisodeView {
    episodes
        .iter()
        .find(|e| e.episode.guid == guid)
        .unwrap_or_else(|| panic!("no episode has the guid {guid:?}"))
}

/// The imported podcast's RSS, read by the parsers, against the source's, item by item: the
/// channel's fields; the same guids (but the drafts'), titles, dates, numbering and durations;
/// the same bytes at the enclosure, artwork and transcript URLs; the same chapters. The drafts are in
/// the podcast as drafts, with their audio.
async fn assert_same_podcast(fx: &Fixture, server: &Server, feed: &HostFeed, feed_id: &str) {
    let all = episodes(fx, feed_id).await;
    assert_eq!(all.len(), feed.items(), "every item is an episode");
    for guid in feed.drafts {
        let draft = by_guid(&all, guid);
        assert!(!draft.episode.is_public, "{guid} is a draft");
        assert!(draft.media.is_some(), "{guid} has its audio");
    }
    let rss = fx
        .public(Method::GET, &format!("/feeds/{feed_id}/rss"), &[])
        .await;
    assert_eq!(rss.status, StatusCode::OK);
    let Some(python) = parsers() else { return };
    let source = read(&python, &server.fill(feed.xml));
    let ours = read(&python, std::str::from_utf8(&rss.raw).unwrap());

    let feed_url = server.url(feed.feed);
    let expected = Channel {
        // Computed from its URL, as the Podcast Index does, when the source has none.
        guid: Some(
            source
                .channel
                .guid
                .clone()
                .unwrap_or_else(|| guid_of_url(&feed_url)),
        ),
        medium: Some(
            source
                .channel
                .medium
                .clone()
                .unwrap_or_else(|| "podcast".into()),
        ),
        ..source.channel
    };
    assert_eq!(ours.channel, expected, "the channel");
    assert_eq!(
        sha256(&served(fx, ours.image.as_deref().expect("a cover")).await),
        sha256(&server.body_at(source.image.as_deref().unwrap())),
        "the cover"
    );

    let published: BTreeSet<&String> = source
        .items
        .keys()
        .filter(|guid| !feed.drafts.contains(&guid.as_str()))
        .collect();
    assert_eq!(
        ours.items.keys().collect::<BTreeSet<_>>(),
        published,
        "the published items, by guid"
    );
    let mut with_chapters = 0;
    for guid in published {
        let (theirs, ours_item) = (&source.items[guid], &ours.items[guid]);
        assert_eq!(ours_item.title, theirs.title, "{guid}: the title");
        assert!(
            theirs.published.is_some(),
            "{guid}: a date feedparser reads"
        );
        assert_eq!(ours_item.published, theirs.published, "{guid}: the date");
        assert_eq!(
            ours_item.numbering, theirs.numbering,
            "{guid}: episode, season, type"
        );
        assert!(theirs.duration.is_some(), "{guid}: a duration");
        assert_eq!(ours_item.duration, theirs.duration, "{guid}: the duration");

        let (url, length) = ours_item.enclosure.clone().expect("an enclosure");
        let audio = served(fx, &url).await;
        let original = server.body_at(&theirs.enclosure.as_ref().unwrap().0);
        assert_eq!(sha256(&audio), sha256(&original), "{guid}: the audio");
        assert_eq!(length, Some(audio.len() as u64), "{guid}: the length");

        // An item without art of its own shows the podcast's.
        let art = ours_item.image.as_ref().or(ours.image.as_ref()).unwrap();
        let their_art = theirs.image.as_ref().or(source.image.as_ref()).unwrap();
        assert_eq!(
            sha256(&served(fx, art).await),
            sha256(&server.body_at(their_art)),
            "{guid}: the artwork"
        );

        let ours_transcript = chosen_transcript(&ours_item.transcripts);
        match chosen_transcript(&theirs.transcripts) {
            Some(url) => assert_eq!(
                sha256(&served(fx, ours_transcript.expect("a transcript")).await),
                sha256(&server.body_at(url)),
                "{guid}: the transcript"
            ),
            None => assert_eq!(ours_transcript, None, "{guid}: no transcript"),
        }

        match (&ours_item.chapters, &theirs.chapters) {
            (Some(ours_url), Some(their_url)) => {
                assert_eq!(
                    chapters(&served(fx, ours_url).await),
                    chapters(&server.body_at(their_url)),
                    "{guid}: the chapters"
                );
                with_chapters += 1;
            }
            (ours_url, their_url) => assert_eq!(
                ours_url.is_some(),
                their_url.is_some(),
                "{guid}: chapters or none"
            ),
        }
    }
    assert_eq!(
        with_chapters,
        feed.xml.matches("<podcast:chapters").count(),
        "every item's chapters are compared"
    );

    // Drafts keep their dates; one that had none readable is dated at the import.
    for guid in feed.drafts {
        let expected = source.items[*guid]
            .published
            .unwrap_or_else(|| podhost_core::Clock::now(&fx.clock).as_second());
        assert_eq!(
            by_guid(&all, guid).episode.publish_at.as_second(),
            expected,
            "{guid}: the draft's date"
        );
    }
}

/// The report's problems are the expected ones: as many, and each expected part in exactly
/// one (files are fetched several at a time, so their problems come in any order).
fn assert_problems(problems: &[String], expected: &[&str]) {
    assert_eq!(
        problems.len(),
        expected.len(),
        "the problems: {problems:#?}"
    );
    for part in expected {
        let saying: Vec<&String> = problems.iter().filter(|p| p.contains(part)).collect();
        assert_eq!(saying.len(), 1, "{part:?} in one of {problems:#?}");
    }
}

/// Requests made since `before`, by `host/path`.
fn fetched_since(server: &Server, before: &HashMap<String, usize>) -> BTreeMap<String, usize> {
    server
        .all_hits()
        .into_iter()
        .filter_map(|(at, n)| {
            let new = n - before.get(&at).copied().unwrap_or(0);
            (new > 0).then_some((at, new))
        })
        .collect()
}

async fn import(
    fx: &Fixture,
    server: &Server,
    source: ImportSource,
    options: &ImportOptions,
) -> podhost_core::Result<ImportReport> {
    fx.host
        .podcasts()
        .import_feed(
            &alice(fx).await,
            source,
            options,
            &server.fetcher(),
            &Quietly,
        )
        .await
}

/// Imports `feed` from its URL, compares the podcast with the source, and imports it again:
/// nothing changes and nothing is fetched but the feed.
async fn imports_like_the_source(feed: HostFeed) {
    let server = Server::start().await;
    feed.serve(&server);
    let fx = Fixture::new().await;
    let url = ImportSource::Url(server.url(feed.feed));
    let report = import(&fx, &server, url.clone(), &ImportOptions::default())
        .await
        .unwrap();
    let n = feed.items();
    assert_eq!(
        (
            report.items,
            report.created,
            report.completed,
            report.unchanged
        ),
        (n, n, 0, 0),
        "{report:#?}"
    );
    assert_problems(&report.problems, feed.problems);
    assert_eq!(
        report.rss_url,
        format!(
            "{}/feeds/{}/rss",
            podhost_testkit::TEST_PUBLIC_URL,
            report.feed_id
        )
    );
    assert_same_podcast(&fx, &server, &feed, &report.feed_id).await;

    let alice = alice(&fx).await;
    let version = fx.host.account_version(&alice).await.unwrap();
    let before = server.all_hits();
    let again = import(&fx, &server, url, &ImportOptions::default())
        .await
        .unwrap();
    assert_eq!(fx.host.account_version(&alice).await.unwrap(), version);
    assert_eq!(
        (again.created, again.completed, again.unchanged, again.files),
        (0, 0, n, 0)
    );
    assert_eq!(
        fetched_since(&server, &before),
        BTreeMap::from([(feed.feed.to_string(), 1)]),
        "only the feed is fetched again"
    );
}

#[tokio::test]
async fn a_libsyn_feed() {
    imports_like_the_source(libsyn()).await;
}

#[tokio::test]
async fn an_anchor_feed() {
    imports_like_the_source(anchor()).await;
}

#[tokio::test]
async fn a_buzzsprout_feed() {
    imports_like_the_source(buzzsprout()).await;
}

#[tokio::test]
async fn a_transistor_feed() {
    imports_like_the_source(transistor()).await;
}

#[tokio::test]
async fn a_podbean_feed() {
    imports_like_the_source(podbean()).await;
}

#[tokio::test]
async fn a_castopod_feed() {
    imports_like_the_source(castopod()).await;
}

/// `POST /api/feeds/import` answers 202 with a job that the workers run through the host's
/// fetcher; its result is the report, and the podcast is the source's.
#[tokio::test]
async fn the_api_imports_through_a_job() {
    let server = Server::start().await;
    let feed = castopod();
    feed.serve(&server);
    let fetcher = Arc::new(server.fetcher());
    let fx = Fixture::with_host_config(|config| config.fetcher = Some(fetcher)).await;
    let _workers = fx.start_workers();
    let answer = fx
        .call(
            Method::POST,
            "/api/feeds/import",
            &fx.alice.clone(),
            Some(json!({"url": server.url(feed.feed), "feed_id": "contes"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    assert_eq!(answer.body["data"]["kind"], "import");
    let job = answer.body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        answer.headers["location"],
        format!("{}/api/jobs/{job}", podhost_testkit::TEST_PUBLIC_URL).as_str()
    );
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let result = &done["result"];
    assert_eq!(result["feed_id"], "contes");
    assert_eq!(result["created"], 3);
    assert_eq!(result["problems"], json!([]));
    assert_eq!(
        result["rss_url"],
        format!("{}/feeds/contes/rss", podhost_testkit::TEST_PUBLIC_URL)
    );
    assert_same_podcast(&fx, &server, &feed, "contes").await;
}

/// A file that cannot be fetched leaves its episode a draft, said in the report; the next run
/// fetches it (and nothing else), and publishes the episode.
#[tokio::test]
async fn an_interrupted_import_is_resumed() {
    let server = Server::start().await;
    let feed = libsyn();
    feed.serve(&server);
    let cdn = "hwcdn.libsyn.com/p/5/d/1/5d1e7c3392af4b0e/GH_Ep11_Roses.mp3";
    let guid = "5d1e7c33-92af-4b0e-8c6d-a41f0e2b9d17";
    // Every attempt of the first run.
    server.fail_next(cdn, 3);
    let fx = Fixture::new().await;
    let url = ImportSource::Url(server.url(feed.feed));
    let first = import(&fx, &server, url.clone(), &ImportOptions::default())
        .await
        .unwrap();
    assert_eq!((first.created, first.completed), (3, 0));
    assert_problems(
        &first.problems,
        &[&format!(
            "the enclosure {} could not be fetched after 3 attempts: the server answered 500; \
             the episode stays a draft until a later run fetches it",
            server.url("traffic.libsyn.com/secure/gardeninghour/GH_Ep11_Roses.mp3?dest-id=412345")
        )],
    );
    assert_eq!(server.hits(cdn), 3);
    let all = episodes(&fx, &first.feed_id).await;
    let waiting = by_guid(&all, guid);
    assert!(!waiting.episode.is_public);
    assert!(waiting.media.is_none());

    let before = server.all_hits();
    let second = import(&fx, &server, url, &ImportOptions::default())
        .await
        .unwrap();
    assert_eq!(
        (
            second.created,
            second.completed,
            second.unchanged,
            second.files
        ),
        (0, 1, 2, 1)
    );
    assert_eq!(second.problems, Vec::<String>::new());
    assert_eq!(
        fetched_since(&server, &before),
        BTreeMap::from([
            (feed.feed.to_string(), 1),
            (
                "traffic.libsyn.com/secure/gardeninghour/GH_Ep11_Roses.mp3".to_string(),
                1
            ),
            (cdn.to_string(), 1),
        ])
    );
    let all = episodes(&fx, &first.feed_id).await;
    assert!(by_guid(&all, guid).episode.is_public);
    assert_same_podcast(&fx, &server, &feed, &first.feed_id).await;
}

/// `limit` takes the newest items by date, whatever their order in the document.
#[tokio::test]
async fn limit_takes_the_newest() {
    let server = Server::start().await;
    let item = |guid: &str, date: &str| {
        format!(
            "<item><title>{guid}</title><guid>{guid}</guid><pubDate>{date}</pubDate>\
             <enclosure url=\"http://hostile.example:@PORT@/{guid}.mp3\" type=\"audio/mpeg\"/></item>"
        )
    };
    let xml = format!(
        "<rss version=\"2.0\"><channel><title>Limits</title>{}{}{}{}</channel></rss>",
        item("second", "Tue, 05 Mar 2024 10:00:00 +0000"),
        item("oldest", "Tue, 02 Jan 2024 10:00:00 +0000"),
        item("newest", "Tue, 12 Mar 2024 10:00:00 +0000"),
        item("third", "Tue, 06 Feb 2024 10:00:00 +0000"),
    );
    for guid in ["second", "oldest", "newest", "third"] {
        server.serve(&format!("hostile.example/{guid}.mp3"), cbr_mp3());
    }
    let fx = Fixture::new().await;
    let options = ImportOptions {
        limit: Some(2),
        ..Default::default()
    };
    let source = ImportSource::Document {
        xml: server.fill(&xml).into(),
        url: None,
    };
    let report = import(&fx, &server, source, &options).await.unwrap();
    assert_eq!((report.items, report.created), (2, 2));
    let guids: BTreeSet<String> = episodes(&fx, &report.feed_id)
        .await
        .into_iter()
        .map(|e| e.episode.guid)
        .collect();
    assert_eq!(guids, BTreeSet::from(["newest".into(), "second".into()]));
    assert_eq!(
        (
            server.hits("hostile.example/third.mp3"),
            server.hits("hostile.example/oldest.mp3")
        ),
        (0, 0),
        "the older items' files are not fetched"
    );
}

// ----- hostile feeds -----

/// The store's blobs of alice, once the deletions of dropped uploads (spawned) have run.
async fn blobs(fx: &Fixture, expected: usize) -> usize {
    let prefix = object_store::path::Path::from("accounts/alice/blobs");
    let mut count = 0;
    for _ in 0..200 {
        count = fx
            .store
            .list(Some(&prefix))
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .len();
        if count == expected {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    count
}

/// Nothing half done: every media record is the audio, cover or transcript of an episode or
/// the podcast's cover, and every stored blob is a media record's.
async fn assert_no_stray_files(fx: &Fixture) {
    let alice = alice(fx).await;
    let media = fx
        .host
        .podcasts()
        .list_media(&alice, &MediaListQuery::default())
        .await
        .unwrap()
        .items;
    let mut used = BTreeSet::new();
    let feeds = fx
        .host
        .podcasts()
        .list_feeds(&alice, PageRequest::default())
        .await
        .unwrap()
        .items;
    for feed in feeds {
        used.extend(feed.logo.map(|m| m.id));
        for e in episodes(fx, feed.feed.id.as_str()).await {
            used.extend(
                [e.media, e.logo, e.transcript]
                    .into_iter()
                    .flatten()
                    .map(|m| m.id),
            );
        }
    }
    assert_eq!(
        media.iter().map(|m| m.id).collect::<BTreeSet<_>>(),
        used,
        "every media record is used"
    );
    assert_eq!(blobs(fx, media.len()).await, media.len(), "no stray bytes");
}

/// A feed of 60 MiB: a channel, then items up to the size.
fn sixty_mib() -> Bytes {
    let mut xml =
        b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Big</title>".to_vec();
    let item = b"<item><title>padding</title><guid>padding</guid></item>";
    while xml.len() < 60 << 20 {
        xml.extend_from_slice(item);
    }
    xml.extend_from_slice(b"</channel></rss>");
    xml.into()
}

/// A feed refused whole.
struct Refusal {
    what: &'static str,
    source: ImportSource,
    /// Part of the refusal.
    says: String,
    /// The requests it makes, by `host/path`.
    requests: BTreeMap<String, usize>,
}

/// Feeds refused whole: the import fails saying why, and creates nothing.
#[tokio::test]
async fn hostile_feeds_are_refused_before_anything_is_made() {
    let server = Server::start().await;
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0"><channel><title>&lol9;</title>
<item><title>&lol9;</title><guid>laugh</guid><enclosure url="http://hostile.example:@PORT@/laugh.mp3" type="audio/mpeg"/></item>
</channel></rss>"#;
    let external = r#"<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "http://hostile.example:@PORT@/secret.txt">]>
<rss version="2.0"><channel><title>&xxe;</title>
<item><title>x</title><guid>x</guid><enclosure url="http://hostile.example:@PORT@/laugh.mp3" type="audio/mpeg"/></item>
</channel></rss>"#;
    let big = sixty_mib();
    server.serve("hostile.example/laugh.mp3", cbr_mp3());
    server.serve(
        "hostile.example/secret.txt",
        Reply::File("root:x:0:0".into(), "text/plain"),
    );
    server.serve(
        "hostile.example/laughs.xml",
        Reply::File(server.fill(laughs).into(), "application/rss+xml"),
    );
    server.serve(
        "hostile.example/external.xml",
        Reply::File(server.fill(external).into(), "application/rss+xml"),
    );
    server.serve(
        "hostile.example/big.xml",
        Reply::File(big.clone(), "application/rss+xml"),
    );
    server.serve(
        "hostile.example/big-chunked.xml",
        Reply::Chunked(big.clone(), "application/rss+xml"),
    );
    server.serve("hostile.example/loop.xml", redirect("/loop.xml"));
    for n in 1..=6 {
        server.serve(
            &format!("hostile.example/hop{n}.xml"),
            redirect(&format!("/hop{}.xml", n - 1)),
        );
    }
    server.serve(
        "hostile.example/hop0.xml",
        Reply::File(server.fill(laughs).into(), "application/rss+xml"),
    );
    server.serve(
        "hostile.example/page.html",
        Reply::File(
            "<!DOCTYPE html><html><body><h1>Our podcast</h1></body></html>".into(),
            "text/html",
        ),
    );
    let url = |at: &str| ImportSource::Url(server.url(at));
    let once = |at: &str| BTreeMap::from([(at.to_string(), 1)]);
    let cases = [
        Refusal {
            what: "a billion-laughs DTD",
            source: url("hostile.example/laughs.xml"),
            says: "the feed declares XML entities in a DTD; podhost refuses them".into(),
            requests: once("hostile.example/laughs.xml"),
        },
        Refusal {
            what: "an external entity (never fetched)",
            source: url("hostile.example/external.xml"),
            says: "the feed declares XML entities in a DTD; podhost refuses them".into(),
            requests: once("hostile.example/external.xml"),
        },
        Refusal {
            what: "a 60 MiB feed that says so",
            source: url("hostile.example/big.xml"),
            says: format!(
                "{} is larger than 50 MiB",
                server.url("hostile.example/big.xml")
            ),
            requests: once("hostile.example/big.xml"),
        },
        Refusal {
            what: "a 60 MiB feed that does not say",
            source: url("hostile.example/big-chunked.xml"),
            says: format!(
                "{} is larger than 50 MiB",
                server.url("hostile.example/big-chunked.xml")
            ),
            requests: once("hostile.example/big-chunked.xml"),
        },
        Refusal {
            what: "a 60 MiB document",
            source: ImportSource::Document {
                xml: big.clone(),
                url: None,
            },
            says: "the feed is larger than 50 MiB".into(),
            requests: BTreeMap::new(),
        },
        Refusal {
            what: "a redirect loop",
            source: url("hostile.example/loop.xml"),
            says: format!(
                "more than 5 redirects from {}",
                server.url("hostile.example/loop.xml")
            ),
            requests: BTreeMap::from([("hostile.example/loop.xml".into(), 6)]),
        },
        Refusal {
            what: "six redirects",
            source: url("hostile.example/hop6.xml"),
            says: "more than 5 redirects".into(),
            requests: (1..=6)
                .map(|n| (format!("hostile.example/hop{n}.xml"), 1))
                .collect(),
        },
        Refusal {
            what: "a web page",
            source: url("hostile.example/page.html"),
            says: "this is not an RSS feed (its root element is <html>)".into(),
            requests: once("hostile.example/page.html"),
        },
        Refusal {
            what: "a feed that is not there",
            source: url("hostile.example/gone.xml"),
            says: "the server answered 404".into(),
            requests: once("hostile.example/gone.xml"),
        },
    ];
    let fx = Fixture::new().await;
    let alice = alice(&fx).await;
    for Refusal {
        what,
        source,
        says,
        requests,
    } in cases
    {
        let version = fx.host.account_version(&alice).await.unwrap();
        let before = server.all_hits();
        let error = import(&fx, &server, source, &ImportOptions::default())
            .await
            .expect_err(what);
        assert!(
            matches!(error, podhost_core::Error::Invalid(_)),
            "{what}: {error:?}"
        );
        assert!(
            error.to_string().contains(&says),
            "{what}: {error} does not say {says:?}"
        );
        assert_eq!(
            fetched_since(&server, &before),
            requests,
            "{what}: the requests"
        );
        assert_eq!(
            fx.host.account_version(&alice).await.unwrap(),
            version,
            "{what}: nothing is made"
        );
    }
    assert_eq!(
        fx.host
            .podcasts()
            .list_feeds(&alice, PageRequest::default())
            .await
            .unwrap()
            .total,
        0
    );
    assert_no_stray_files(&fx).await;
}

/// Up to five redirects are followed (the sixth is refused above).
#[tokio::test]
async fn five_redirects_are_followed() {
    let server = Server::start().await;
    let feed = libsyn();
    feed.serve(&server);
    // hop5 → hop4 → hop3 → hop2 → hop1 → the feed.
    for n in 2..=5 {
        server.serve(
            &format!("hostile.example/hop{n}"),
            redirect(&format!("/hop{}", n - 1)),
        );
    }
    server.serve("hostile.example/hop1", redirect(&server.url(feed.feed)));
    let fx = Fixture::new().await;
    let report = import(
        &fx,
        &server,
        ImportSource::Url(server.url("hostile.example/hop5")),
        &ImportOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(report.created, 3);
    assert_eq!(server.hits(feed.feed), 1);
}

/// Items refused or files that cannot be had: each reported, the rest imported, every episode
/// in the state its files allow, no file stored for nothing; and running it again tries again
/// what failed and changes nothing.
#[tokio::test]
async fn hostile_items_are_skipped_or_left_drafts() {
    let server = Server::start().await;
    let long_guid = "g".repeat(300);
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
<channel><title>Hostile</title>
<item><title>No guid</title><pubDate>Mon, 11 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/no-guid.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Neither guid nor enclosure</title><pubDate>Sun, 10 Mar 2024 10:00:00 +0000</pubDate></item>
<item><title>Twin A</title><guid>twin</guid><pubDate>Sat, 09 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/twin-a.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Twin B</title><guid>twin</guid><pubDate>Fri, 08 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/twin-b.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Relative</title><guid>relative</guid><pubDate>Thu, 07 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="media/relative.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Gone</title><guid>gone</guid><pubDate>Wed, 06 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/gone.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Lying length</title><guid>lying</guid><pubDate>Tue, 05 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/lying.mp3" length="999999" type="audio/mpeg"/></item>
<item><title>A web page</title><guid>html</guid><pubDate>Mon, 04 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/page.mp3" length="120" type="audio/mpeg"/></item>
<item><title>Long guid</title><guid>{long_guid}</guid><pubDate>Sun, 03 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/long-guid.mp3" length="16408" type="audio/mpeg"/></item>
<item><title>Last</title><guid>last</guid><pubDate>Sat, 02 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/media/last.mp3" length="16408" type="audio/mpeg"/></item>
</channel></rss>"#
    );
    server.serve(
        "hostile.example/feeds/feed.xml",
        Reply::File(server.fill(&xml).into(), "application/rss+xml"),
    );
    for name in ["no-guid", "twin-a", "twin-b", "lying", "long-guid", "last"] {
        server.serve(&format!("hostile.example/media/{name}.mp3"), frames_mp3(1));
    }
    server.serve("hostile.example/feeds/media/relative.mp3", frames_mp3(1));
    server.serve(
        "hostile.example/media/page.mp3",
        Reply::File(
            "<!DOCTYPE html><html><head><title>Not found</title></head><body>Sorry.</body></html>"
                .into(),
            "text/html",
        ),
    );
    let feed_url = server.url("hostile.example/feeds/feed.xml");
    let media = |name: &str| server.url(&format!("hostile.example/media/{name}.mp3"));
    let fx = Fixture::new().await;
    let source = ImportSource::Url(feed_url.clone());
    let report = import(&fx, &server, source.clone(), &ImportOptions::default())
        .await
        .unwrap();
    assert_problems(
        &report.problems,
        &[
            &format!(
                "media/relative.mp3: a relative URL, read as {}",
                server.url("hostile.example/feeds/media/relative.mp3")
            ),
            "\"No guid\" has no guid; its enclosure URL is its guid",
            "\"Neither guid nor enclosure\" has neither a guid nor an enclosure; skipped",
            "\"Twin B\" repeats the guid \"twin\" of an earlier item; skipped",
            &format!(
                "item \"gone\": the enclosure {} could not be fetched after 1 attempt: the server \
                 answered 404; the episode stays a draft",
                media("gone")
            ),
            &format!(
                "item \"lying\": the enclosure {}: the feed says 999999 bytes, the file has 16408",
                media("lying")
            ),
            &format!(
                "item \"html\": the enclosure {} is not audio or video but text/html; the \
                 episode stays a draft",
                media("page")
            ),
            "\"Long guid\": its guid cannot be kept (at most 255 characters (Apple Podcasts' \
             limit); this has 300); skipped",
        ],
    );
    // guid: (published, with its audio)
    let expected: BTreeMap<String, (bool, bool)> = BTreeMap::from([
        (media("no-guid"), (true, true)),
        ("twin".into(), (true, true)),
        ("relative".into(), (true, true)),
        ("gone".into(), (false, false)),
        ("lying".into(), (true, true)),
        ("html".into(), (false, false)),
        ("last".into(), (true, true)),
    ]);
    let state = |episodes: Vec<EpisodeView>| -> BTreeMap<String, (bool, bool)> {
        episodes
            .into_iter()
            .map(|e| (e.episode.guid, (e.episode.is_public, e.media.is_some())))
            .collect()
    };
    assert_eq!(state(episodes(&fx, &report.feed_id).await), expected);
    let all = episodes(&fx, &report.feed_id).await;
    assert_eq!(
        by_guid(&all, "lying").media.as_ref().unwrap().size,
        16408,
        "the real bytes are kept"
    );
    assert_eq!(
        (
            server.hits("hostile.example/media/gone.mp3"),
            server.hits("hostile.example/media/twin-b.mp3"),
            server.hits("hostile.example/media/long-guid.mp3"),
        ),
        (1, 0, 0),
        "a 404 is not retried in the same run; skipped items fetch nothing"
    );
    assert_no_stray_files(&fx).await;

    // Again: what failed is tried again, and nothing changes.
    let alice = alice(&fx).await;
    let version = fx.host.account_version(&alice).await.unwrap();
    let before = server.all_hits();
    let again = import(&fx, &server, source, &ImportOptions::default())
        .await
        .unwrap();
    assert_eq!((again.created, again.completed), (0, 0));
    assert_eq!(fx.host.account_version(&alice).await.unwrap(), version);
    assert_eq!(
        fetched_since(&server, &before),
        BTreeMap::from([
            ("hostile.example/feeds/feed.xml".to_string(), 1),
            ("hostile.example/media/gone.mp3".to_string(), 1),
            ("hostile.example/media/page.mp3".to_string(), 1),
        ])
    );
    assert_eq!(state(episodes(&fx, &report.feed_id).await), expected);
    assert_no_stray_files(&fx).await;
}

/// A fetcher that plays a public CDN, `cdn.public.example`, which redirects every request to
/// `to`; it asks `inner` for anything else.
#[derive(Debug)]
struct RedirectingCdn {
    to: String,
    inner: podhost_http::HttpFetcher,
}

#[async_trait::async_trait]
impl Fetcher for RedirectingCdn {
    async fn get(
        &self,
        request: FetchRequest,
    ) -> Result<Fetched, podhost_core::import::fetch::FetchError> {
        if !request.url.starts_with("https://cdn.public.example/") {
            return self.inner.get(request).await;
        }
        Ok(Fetched {
            status: 302,
            location: Some(self.to.clone()),
            content_type: None,
            content_length: Some(0),
            body: futures::stream::empty().boxed(),
        })
    }
}

/// Where private targets are not allowed, an enclosure on this machine is refused by the
/// outbound rules, whether its URL names 127.0.0.1, a host name that resolves to it, or a
/// public server redirects to it: never fetched, reported, the episode a draft.
#[tokio::test]
async fn enclosures_on_private_addresses_are_refused() {
    let server = Server::start().await;
    let xml = server.fill(
        r#"<rss version="2.0"><channel><title>Private</title>
<item><title>Loopback</title><guid>loopback</guid><pubDate>Mon, 04 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://127.0.0.1:@PORT@/private.mp3" type="audio/mpeg"/></item>
<item><title>A name for loopback</title><guid>named</guid><pubDate>Sun, 03 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="http://hostile.example:@PORT@/private.mp3" type="audio/mpeg"/></item>
<item><title>Redirected to loopback</title><guid>redirected</guid><pubDate>Sat, 02 Mar 2024 10:00:00 +0000</pubDate>
  <enclosure url="https://cdn.public.example/episode.mp3" type="audio/mpeg"/></item>
</channel></rss>"#,
    );
    let private = server.url("127.0.0.1/private.mp3");
    server.serve("127.0.0.1/private.mp3", cbr_mp3());
    server.serve("hostile.example/private.mp3", cbr_mp3());
    let fx = Fixture::with_host_config(|config| config.allow_private_webhooks = false).await;
    let fetcher = RedirectingCdn {
        to: private.clone(),
        inner: server.fetcher(),
    };
    let source = ImportSource::Document {
        xml: xml.into(),
        url: None,
    };
    let report = fx
        .host
        .podcasts()
        .import_feed(
            &alice(&fx).await,
            source,
            &ImportOptions::default(),
            &fetcher,
            &Quietly,
        )
        .await
        .unwrap();
    assert_eq!(report.created, 3);
    let refused = "the URL points at 127.0.0.1, a loopback, private, link-local or reserved \
                   address, which this deployment does not fetch from; the episode stays a draft";
    assert_problems(
        &report.problems,
        &[
            &format!(
                "item \"loopback\": the enclosure {private} could not be fetched after 1 \
                 attempt: {refused}"
            ),
            // Refused once, not retried: another attempt would be refused too.
            &format!(
                "item \"named\": the enclosure {} could not be fetched after 1 attempt: \
                 hostile.example resolves to 127.0.0.1, a loopback, private, link-local or \
                 reserved address, which this deployment does not connect to; the episode stays \
                 a draft",
                server.url("hostile.example/private.mp3")
            ),
            &format!(
                "item \"redirected\": the enclosure https://cdn.public.example/episode.mp3 could \
                 not be fetched after 1 attempt: {refused}"
            ),
        ],
    );
    assert_eq!(server.all_hits(), HashMap::new(), "nothing is fetched");
    for episode in episodes(&fx, &report.feed_id).await {
        assert!(!episode.episode.is_public && episode.media.is_none());
    }
    assert_no_stray_files(&fx).await;
}

// ----- progress -----

#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Feed(String, usize),
    Started(Option<u64>),
    Bytes(u64),
    FileDone,
    ItemDone,
    Problem(String),
}

#[derive(Default)]
struct Recorder(Mutex<Vec<Seen>>);

impl ImportProgress for Recorder {
    fn feed(&self, title: &str, items: usize) {
        self.0.lock().unwrap().push(Seen::Feed(title.into(), items));
    }
    fn file_started(&self, expected: Option<u64>) {
        self.0.lock().unwrap().push(Seen::Started(expected));
    }
    fn bytes(&self, n: u64) {
        self.0.lock().unwrap().push(Seen::Bytes(n));
    }
    fn file_done(&self) {
        self.0.lock().unwrap().push(Seen::FileDone);
    }
    fn item_done(&self) {
        self.0.lock().unwrap().push(Seen::ItemDone);
    }
    fn problem(&self, message: &str) {
        self.0.lock().unwrap().push(Seen::Problem(message.into()));
    }
}

/// The progress display sees the feed first, each file start with its size, its bytes and its
/// end, each item, and each problem of the report.
#[tokio::test]
async fn progress_is_reported() {
    let server = Server::start().await;
    let feed = podbean();
    feed.serve(&server);
    let fx = Fixture::new().await;
    let recorder = Recorder::default();
    let report = fx
        .host
        .podcasts()
        .import_feed(
            &alice(&fx).await,
            ImportSource::Url(server.url(feed.feed)),
            &ImportOptions::default(),
            &server.fetcher(),
            &recorder,
        )
        .await
        .unwrap();
    let seen = recorder.0.into_inner().unwrap();
    let count = |f: fn(&Seen) -> bool| seen.iter().filter(|s| f(s)).count();
    assert_eq!(
        seen.first(),
        Some(&Seen::Feed("Faith and Family Hour".into(), 4)),
        "the feed comes first"
    );
    assert_eq!(count(|s| matches!(s, Seen::Feed(..))), 1);
    // The cover, four enclosures, one episode's artwork.
    assert_eq!(report.files, 6);
    let mut sizes: Vec<Option<u64>> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Started(size) => Some(*size),
            _ => None,
        })
        .collect();
    sizes.sort();
    let png_size = |side| podhost_testkit::fixtures::png(side, side).len() as u64;
    let mut expected = vec![
        Some(16408),
        Some(48945),
        Some(27922),
        Some(3 * 16408),
        Some(png_size(56)),
        Some(png_size(44)),
    ];
    expected.sort();
    assert_eq!(sizes, expected, "each file starts with its size");
    assert_eq!(count(|s| matches!(s, Seen::FileDone)), 6);
    let bytes: u64 = seen
        .iter()
        .map(|s| match s {
            Seen::Bytes(n) => *n,
            _ => 0,
        })
        .sum();
    assert_eq!(bytes, report.bytes);
    assert_eq!(
        report.bytes,
        expected.iter().map(|s| s.unwrap()).sum::<u64>()
    );
    assert_eq!(count(|s| matches!(s, Seen::ItemDone)), 4);
    let problems: Vec<String> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Problem(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(problems, report.problems);
    assert_eq!(problems.len(), 1);
}
