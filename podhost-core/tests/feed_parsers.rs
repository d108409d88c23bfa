//! Real parsers read our feeds back field by field: podcast-partytime (npm; the Podcast Index's
//! parser) and feedparser (PyPI; the parser of many Python podcast tools), on the rich, the
//! hostile and the markup feed of `feeds/mod.rs`; and neither gets any of the markup feed's
//! hostile HTML, while both get its formatting.
//!
//! Each parser presents some values its own way (partytime decodes HTML entities in all text
//! and folds white space in titles and descriptions; feedparser folds some tags into one key);
//! those ways are written out below as *views* of what we wrote, and fields a parser does not
//! read at all are listed as unread, so that everything else must come back exactly.
//!
//! The parsers are installed by `scripts/test` (`npm ci` in `tests/parsers`, feedparser into
//! `.venv`). Without them these tests say SKIPPED loudly and pass, so that `cargo test` alone
//! works on a bare machine; with `PODHOST_REQUIRE_EXTERNAL=1` (set by `scripts/test`) a missing
//! parser fails them.

mod feeds;

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::Command,
};

use feeds::{Expected, Fields, Fixture, fixtures};
use podhost_core::model::APPLE_CATEGORIES;
use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Reports a missing parser: loudly (past the test harness's capture), or as a failure when
/// `PODHOST_REQUIRE_EXTERNAL=1`.
fn missing(parser: &str, why: &str) {
    let what = format!("{parser} is not installed ({why}); run scripts/test, which installs it");
    if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what}. PODHOST_REQUIRE_EXTERNAL=1 requires it.");
    }
    // Straight to stderr: the test harness captures print macros of passing tests.
    let bar = "!".repeat(78);
    let _ = writeln!(std::io::stderr(), "\n{bar}\nSKIPPED: {what}\n{bar}");
}

/// A parser run as a program: `program args... FILE` prints the parsed feed as JSON.
struct Parser {
    name: &'static str,
    program: PathBuf,
    args: Vec<PathBuf>,
}

impl Parser {
    /// podcast-partytime under node, if `npm ci` ran in `tests/parsers`.
    fn partytime() -> Option<Parser> {
        let dir = workspace().join("tests/parsers");
        let pinned = pinned_npm_version(&dir);
        let installed =
            std::fs::read_to_string(dir.join("node_modules/podcast-partytime/package.json"))
                .ok()
                .and_then(|s| serde_json::from_str::<Value>(&s).ok())
                .and_then(|v| v["version"].as_str().map(String::from));
        if installed != Some(pinned.clone()) {
            missing(
                "podcast-partytime",
                &format!(
                    "tests/parsers/node_modules has {installed:?}, package.json pins {pinned}"
                ),
            );
            return None;
        }
        if Command::new("node").arg("--version").output().is_err() {
            missing("podcast-partytime", "node is not on PATH");
            return None;
        }
        Some(Parser {
            name: "podcast-partytime",
            program: "node".into(),
            args: vec![dir.join("partytime.js")],
        })
    }

    /// feedparser in the workspace's `.venv`, if it imports there.
    fn feedparser() -> Option<Parser> {
        let python = workspace().join(".venv/bin/python");
        let imports = Command::new(&python)
            .args(["-c", "import feedparser"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !imports {
            missing("feedparser", "no .venv/bin/python that imports feedparser");
            return None;
        }
        Some(Parser {
            name: "feedparser",
            program: python,
            args: vec![workspace().join("tests/parsers/feedparser_json.py")],
        })
    }

    /// Runs the parser with `arg` and reads its JSON.
    fn run(&self, arg: &Path) -> Value {
        let out = Command::new(&self.program)
            .args(&self.args)
            .arg(arg)
            .output()
            .unwrap_or_else(|e| panic!("{}: cannot run {:?}: {e}", self.name, self.program));
        assert!(
            out.status.success(),
            "{} failed: {}\n{}",
            self.name,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: not JSON ({e}): {}",
                self.name,
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// Parses a feed.
    fn parse(&self, xml: &str) -> Value {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(xml.as_bytes()).unwrap();
        self.run(file.path())
    }
}

/// The version of podcast-partytime that `tests/parsers/package.json` pins.
fn pinned_npm_version(dir: &Path) -> String {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    let version = manifest["dependencies"]["podcast-partytime"]
        .as_str()
        .unwrap();
    assert!(
        version.chars().all(|c| c.is_ascii_digit() || c == '.'),
        "package.json pins an exact version, not {version}"
    );
    version.to_string()
}

/// A JSON value as the string the expectations hold (numbers and booleans as written).
fn string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn put(fields: &mut Fields, key: &'static str, value: &Value) {
    if let Some(v) = string(value).filter(|v| !v.is_empty()) {
        fields.insert(key, v);
    }
}

/// Unix seconds of an ISO 8601 date (partytime's JSON dates).
fn iso_seconds(v: &Value) -> Value {
    match v.as_str().map(str::parse::<jiff::Timestamp>) {
        Some(Ok(t)) => Value::from(t.as_second().to_string()),
        Some(Err(e)) => Value::from(format!("not ISO 8601: {v}: {e}")),
        None => Value::Null,
    }
}

/// Unix seconds of a `time.struct_time` in UTC (feedparser's `*_parsed`, as a JSON list).
fn struct_time_seconds(v: &Value) -> Value {
    let Some(parts) = v.as_array() else {
        return Value::Null;
    };
    let n = |i: usize| parts.get(i).and_then(Value::as_i64).unwrap_or(-1);
    let date = jiff::civil::DateTime::new(
        n(0) as i16,
        n(1) as i8,
        n(2) as i8,
        n(3) as i8,
        n(4) as i8,
        n(5) as i8,
        0,
    );
    match date.and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC)) {
        Ok(z) => Value::from(z.timestamp().as_second().to_string()),
        Err(e) => Value::from(format!("not a date: {v}: {e}")),
    }
}

// ----- podcast-partytime -----

/// What partytime read, under our keys.
fn read_partytime(v: &Value) -> Expected {
    let mut c = Fields::new();
    for (key, json) in [
        ("title", "title"),
        ("description", "description"),
        ("link", "link"),
        ("language", "language"),
        ("copyright", "copyright"),
        ("image", "itunesImage"),
        ("author", "author"),
        ("subtitle", "subtitle"),
        ("summary", "summary"),
        ("explicit", "explicit"),
        ("type", "itunesType"),
        ("block", "itunesBlock"),
        ("complete", "itunesComplete"),
        ("guid", "guid"),
        ("locked", "locked"),
        ("locked.owner", "podcastOwner"),
        ("medium", "medium"),
    ] {
        put(&mut c, key, &v[json]);
    }
    put(&mut c, "self", &v["pubsub"]["self"]);
    put(&mut c, "owner.name", &v["owner"]["name"]);
    put(&mut c, "owner.email", &v["owner"]["email"]);
    if let Some(category) = v["itunesCategory"][0].as_str() {
        let (category, subcategory) = category.split_once(" > ").unwrap_or((category, ""));
        put(&mut c, "category", &Value::from(category));
        put(&mut c, "subcategory", &Value::from(subcategory));
    }
    let funding: Vec<String> = v["podcastFunding"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{} {}",
                f["url"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    put(&mut c, "funding", &Value::from(funding.join("\n")));
    let items = v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let mut i = Fields::new();
            for (key, json) in [
                ("title", "title"),
                ("description", "description"),
                ("content", "content"),
                ("guid", "guid"),
                ("link", "link"),
                ("author", "author"),
                ("duration", "duration"),
                ("image", "itunesImage"),
                ("subtitle", "subtitle"),
                ("summary", "summary"),
                ("episode", "itunesEpisode"),
                ("season", "itunesSeason"),
                ("episodeType", "itunesEpisodeType"),
                ("explicit", "explicit"),
            ] {
                put(&mut i, key, &item[json]);
            }
            put(&mut i, "pubDate", &iso_seconds(&item["pubDate"]));
            put(&mut i, "enclosure.url", &item["enclosure"]["url"]);
            put(&mut i, "enclosure.length", &item["enclosure"]["length"]);
            put(&mut i, "enclosure.type", &item["enclosure"]["type"]);
            put(&mut i, "podcast.episode", &item["podcastEpisode"]["number"]);
            put(&mut i, "podcast.season", &item["podcastSeason"]["number"]);
            put(
                &mut i,
                "transcript.url",
                &item["podcastTranscripts"][0]["url"],
            );
            put(
                &mut i,
                "transcript.type",
                &item["podcastTranscripts"][0]["type"],
            );
            i
        })
        .collect();
    Expected { channel: c, items }
}

/// What partytime does not read: the guid's isPermaLink, an item's itunes:title and
/// itunes:author.
const PARTYTIME_UNREAD: &[&str] = &["guid.permalink", "itunes.title", "itunes.author"];

/// HTML entities as `he.decode` (partytime's `tagValueProcessor`) decodes those our fixtures
/// hold: the five XML ones and numeric references (`&#0;` becomes U+FFFD, as in HTML).
fn he_decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let number = match name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => name.strip_prefix('#').and_then(|d| d.parse().ok()),
                    };
                    number.map(|n| match n {
                        0 => '\u{FFFD}',
                        n => char::from_u32(n).unwrap_or('\u{FFFD}'),
                    })
                }
            };
            c.map(|c| (c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// partytime's `sanitizeNewLines` then `sanitizeMultipleSpaces`: line breaks become spaces,
/// runs of white space one space.
fn fold_white_space(text: &str) -> String {
    let text = text.replace("\r\n", " ").replace(['\n', '\r'], " ");
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        match run.chars().count() {
            0 => {}
            1 => out.push_str(&run),
            _ => out.push(' '),
        }
        run.clear();
        out.push(c);
    }
    out
}

/// Our values as partytime presents them.
fn partytime_view(expected: &Expected) -> Expected {
    // Element text (not attributes) goes through `he.decode`; these fields are also folded.
    const TEXT: &[&str] = &[
        "title",
        "description",
        "content",
        "link",
        "language",
        "copyright",
        "author",
        "subtitle",
        "summary",
        "type",
        "owner.name",
        "owner.email",
        "guid",
        "medium",
        "funding",
    ];
    const FOLDED_CHANNEL: &[&str] = &[
        "title",
        "description",
        "link",
        "copyright",
        "summary",
        "subtitle",
    ];
    const FOLDED_ITEM: &[&str] = &["title", "description", "subtitle"];
    let view = |fields: &Fields, folded: &[&str]| -> Fields {
        let mut out = Fields::new();
        for (key, value) in fields {
            let mut value = value.clone();
            if TEXT.contains(key) {
                value = match *key {
                    // Only the text of podcast:funding, not its url attribute.
                    "funding" => value
                        .lines()
                        .map(|l| match l.split_once(' ') {
                            Some((url, text)) => format!("{url} {}", he_decode(text)),
                            None => l.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => he_decode(&value),
                };
            }
            if folded.contains(key) {
                value = fold_white_space(&value);
            }
            // partytime names SubRip transcripts by the podcast namespace's preferred type.
            if *key == "transcript.type" && value == "application/x-subrip" {
                value = "application/srt".into();
            }
            out.insert(*key, value);
        }
        out
    };
    Expected {
        channel: view(&expected.channel, FOLDED_CHANNEL),
        items: expected
            .items
            .iter()
            .map(|i| view(i, FOLDED_ITEM))
            .collect(),
    }
}

#[tokio::test]
async fn partytime_reads_every_field_back() {
    let Some(parser) = Parser::partytime() else {
        return;
    };
    for Fixture {
        name,
        xml,
        expected,
    } in fixtures().await
    {
        let got = read_partytime(&parser.parse(&xml));
        let want = partytime_view(&expected);
        let problems = feeds::differences(parser.name, &want, &got, PARTYTIME_UNREAD);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
    }
}

/// What is wrong with the notes of the markup feed as a parser read them: in the channel under
/// `channel_keys`, in each item under `item_keys` and, where the item has itunes:summary (the
/// second, the older), `summary`.
fn markup_problems(
    parser: &str,
    got: &Expected,
    channel_keys: &[&str],
    item_keys: &[&str],
) -> Vec<String> {
    let mut problems = Vec::new();
    for key in channel_keys {
        let place = format!("{parser}: channel.{key}");
        problems.extend(feeds::markup_problems(&place, got.channel.get(key)));
    }
    if got.items.len() != 2 {
        problems.push(format!("{parser}: {} items, want 2", got.items.len()));
    }
    for (n, item) in got.items.iter().enumerate() {
        for key in item_keys.iter().chain((n == 1).then_some(&"summary")) {
            let place = format!("{parser}: item[{n}].{key}");
            problems.extend(feeds::markup_problems(&place, item.get(key)));
        }
    }
    problems
}

#[tokio::test]
async fn partytime_gets_the_formatting_and_none_of_the_hostile_html() {
    let Some(parser) = Parser::partytime() else {
        return;
    };
    let markup = feeds::markup(&feeds::world().await).await;
    let got = read_partytime(&parser.parse(&markup.xml));
    let problems = markup_problems(
        parser.name,
        &got,
        &["description", "summary"],
        &["description", "content"],
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn partytimes_copy_of_apples_categories_is_ours() {
    let Some(parser) = Parser::partytime() else {
        return;
    };
    let theirs = parser.run(Path::new("--categories"));
    let mut theirs: Vec<(String, Vec<String>)> = theirs
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let subs = c["subCategories"].as_array().unwrap();
            let subs = subs
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect();
            (c["name"].as_str().unwrap().to_string(), subs)
        })
        .collect();
    theirs.sort();
    let mut ours: Vec<(String, Vec<String>)> = APPLE_CATEGORIES
        .iter()
        .map(|c| {
            let subs = c.subcategories.iter().map(|s| s.to_string()).collect();
            (c.name.to_string(), subs)
        })
        .collect();
    ours.sort();
    assert_eq!(ours, theirs);
}

// ----- feedparser -----

/// What feedparser read, under our keys.
fn read_feedparser(v: &Value) -> Expected {
    assert_eq!(v["version"], "rss20", "feedparser takes it for RSS 2.0");
    let f = &v["feed"];
    let mut c = Fields::new();
    for (key, json) in [
        ("title", "title"),
        ("link", "link"),
        ("language", "language"),
        ("copyright", "rights"),
        ("subtitle", "subtitle"),
        ("summary", "summary"),
        ("type", "itunes_type"),
        ("guid", "podcast_guid"),
        ("medium", "podcast_medium"),
    ] {
        put(&mut c, key, &f[json]);
    }
    put(&mut c, "image", &f["image"]["href"]);
    put(&mut c, "owner.name", &f["publisher_detail"]["name"]);
    put(&mut c, "owner.email", &f["publisher_detail"]["email"]);
    put(&mut c, "locked.owner", &f["podcast_locked"]["owner"]);
    let links = f["links"].as_array().cloned().unwrap_or_default();
    if let Some(link) = links.iter().find(|l| l["rel"] == "self") {
        put(&mut c, "self", &link["href"]);
    }
    let tags = f["tags"].as_array().cloned().unwrap_or_default();
    let itunes: Vec<&Value> = tags
        .iter()
        .filter(|t| t["scheme"] == "http://www.itunes.com/")
        .collect();
    if let Some(t) = itunes.first() {
        put(&mut c, "category", &t["term"]);
    }
    if let Some(t) = itunes.get(1) {
        put(&mut c, "subcategory", &t["term"]);
    }
    // itunes:block "Yes" reads as 1, itunes:complete as its text.
    put(&mut c, "block", &Value::from(f["itunes_block"] == 1));
    put(
        &mut c,
        "complete",
        &Value::from(f["itunes_complete"] == "Yes"),
    );
    let items = v["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let mut i = Fields::new();
            for (key, json) in [
                ("title", "title"),
                ("summary", "summary"),
                ("guid", "id"),
                ("guid.permalink", "guidislink"),
                ("link", "link"),
                ("duration", "itunes_duration"),
                ("itunes.title", "itunes_title"),
                ("subtitle", "subtitle"),
                ("itunes.author", "author"),
                ("episode", "itunes_episode"),
                ("podcast.episode", "podcast_episode"),
                ("season", "itunes_season"),
                ("podcast.season", "podcast_season"),
                ("episodeType", "itunes_episodetype"),
            ] {
                put(&mut i, key, &e[json]);
            }
            put(&mut i, "content", &e["content"][0]["value"]);
            put(
                &mut i,
                "pubDate",
                &struct_time_seconds(&e["published_parsed"]),
            );
            put(&mut i, "image", &e["image"]["href"]);
            let links = e["links"].as_array().cloned().unwrap_or_default();
            if let Some(enclosure) = links.iter().find(|l| l["rel"] == "enclosure") {
                put(&mut i, "enclosure.url", &enclosure["href"]);
                put(&mut i, "enclosure.length", &enclosure["length"]);
                put(&mut i, "enclosure.type", &enclosure["type"]);
            }
            put(&mut i, "transcript.url", &e["podcast_transcript"]["url"]);
            put(&mut i, "transcript.type", &e["podcast_transcript"]["type"]);
            i
        })
        .collect();
    Expected { channel: c, items }
}

/// What feedparser does not read:
/// - `description` and `author` (channel): it folds the description and itunes:subtitle into
///   one `subtitle`, and itunes:author and the owner's name into one `author`; the later tag
///   wins (itunes:subtitle, the owner);
/// - `explicit`: it knows only the old yes/no/clean values, not Apple's true/false;
/// - `locked` and `funding`: it keeps a podcast:locked's or podcast:funding's attributes, not
///   its text, and only the last podcast:funding;
/// - `description` (item): folded with itunes:summary into `summary` (see the view);
/// - `author` (item): its e-mail pattern cuts top-level domains longer than four letters
///   (`host@rich.example` becomes `host@rich.exam`).
const FEEDPARSER_UNREAD: &[&str] = &["description", "author", "explicit", "locked", "funding"];

/// Our values as feedparser presents them: one `subtitle` for the channel's description and
/// itunes:subtitle, one `summary` for an item's description and itunes:summary (the later tag
/// wins; we write the description first).
fn feedparser_view(expected: &Expected) -> Expected {
    let mut view = expected.clone();
    if !view.channel.contains_key("subtitle")
        && let Some(d) = view.channel.get("description").cloned()
    {
        view.channel.insert("subtitle", d);
    }
    for item in &mut view.items {
        if !item.contains_key("summary")
            && let Some(d) = item.get("description").cloned()
        {
            item.insert("summary", d);
        }
    }
    view
}

#[tokio::test]
async fn feedparser_reads_every_field_back() {
    let Some(parser) = Parser::feedparser() else {
        return;
    };
    for Fixture {
        name,
        xml,
        expected,
    } in fixtures().await
    {
        let got = read_feedparser(&parser.parse(&xml));
        let want = feedparser_view(&expected);
        let problems = feeds::differences(parser.name, &want, &got, FEEDPARSER_UNREAD);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
    }
}

#[tokio::test]
async fn feedparser_gets_the_formatting_and_none_of_the_hostile_html() {
    let Some(parser) = Parser::feedparser() else {
        return;
    };
    let markup = feeds::markup(&feeds::world().await).await;
    let got = read_feedparser(&parser.parse(&markup.xml));
    // Without itunes:subtitle, its `subtitle` is the channel's description; an item's `summary`
    // is its description, or its itunes:summary where it has one.
    let problems = markup_problems(
        parser.name,
        &got,
        &["subtitle", "summary"],
        &["summary", "content"],
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_views_do_what_they_say() {
    assert_eq!(
        he_decode("a &amp;amp; &lt;b&gt; &#0;&#x1b;&#65; & &nbsp; &"),
        "a &amp; <b> \u{FFFD}\u{1b}A & &nbsp; &"
    );
    assert_eq!(fold_white_space("a\n\tb  c\td\r\ne"), "a b c\td e");
}

/// The demo podcast (`podhost demo`): every field podhost models, through the core; its feed,
/// on a host that announces changes through Podping (`podcast:podping`).
async fn tagged_feed() -> String {
    let mut config = podhost_core::HostConfig::new(feeds::BASE_URL).unwrap();
    config.notify.podping_url = Some("https://podping.example/".into());
    let w = feeds::world_with(config).await;
    let demo = w.host.create_demo(&w.who, "demo", 2).await.unwrap();
    w.rss(&demo.feed).await
}

/// The distinct `podcast:` elements of a feed.
fn podcast_elements(xml: &str) -> std::collections::BTreeSet<String> {
    xml.match_indices("<podcast:")
        .map(|(at, _)| {
            xml[at + 9..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect()
}

/// The demo podcast's feed has every Podcasting 2.0 tag podhost models, read back by
/// podcast-partytime (the Podcast Index parser, field by field), feedparser (well-formed, the
/// items there) and badpod (no objection).
#[tokio::test]
async fn every_podcasting_2_0_tag_reaches_the_parsers() {
    let xml = tagged_feed().await;
    let elements = podcast_elements(&xml);
    eprintln!("{} podcast: elements: {elements:?}", elements.len());
    for element in [
        "alternateEnclosure",
        "block",
        "chat",
        "contentLink",
        "episode",
        "guid",
        "image",
        "integrity",
        "license",
        "liveItem",
        "location",
        "locked",
        "medium",
        "person",
        "podroll",
        "publisher",
        "remoteItem",
        "season",
        "socialInteract",
        "soundbite",
        "source",
        "trailer",
        "transcript",
        "txt",
        "updateFrequency",
        "value",
        "valueRecipient",
        "valueTimeSplit",
        "funding",
        "chapters",
        "podping",
        "id",
        "social",
        "socialSignUp",
        "recommendations",
        "liveValue",
    ] {
        assert!(
            elements.contains(element),
            "podcast:{element} missing:\n{xml}"
        );
    }
    assert!(elements.len() >= 36, "{} elements", elements.len());
    let rss = badpod::from_str(&xml).expect("badpod parses the feed");
    let debug = format!("{rss:?}");
    // The demo's audio is mastered MP3: badpod objects to nothing (it used to flag the WAV the
    // demo published, a type Apple refuses too).
    assert!(xml.contains("type=\"audio/mpeg\""), "{xml}");
    let objections: Vec<&str> = debug
        .match_indices("Other((")
        .map(|(at, _)| &debug[at..at + debug[at..].find("))").unwrap_or(0)])
        .collect();
    assert!(objections.is_empty(), "badpod objects: {objections:?}");
    for name in ["podcast_season: [Season", "podcast_episode: [Episode"] {
        assert_eq!(debug.matches(name).count(), 2, "one {name} per item");
    }
    if let Some(parser) = Parser::feedparser() {
        let parsed = parser.parse(&xml);
        assert_eq!(parsed["entries"].as_array().map(Vec::len), Some(2));
    }
    let Some(parser) = Parser::partytime() else {
        return;
    };
    let feed = parser.parse(&xml);
    // partytime reports which tags of each phase of the namespace the feed uses: all seven, and
    // the pending phase.
    let phases = serde_json::json!({
        "1": ["locked", "funding", "transcript", "chapters", "soundbite"],
        "2": ["person", "location", "season", "episode"],
        "3": ["trailer", "license", "guid", "alternateEnclosure"],
        "4": ["value", "medium", "liveItem"],
        "5": ["block", "socialInteract"],
        "6": ["txt", "podroll"],
        "7": ["chat", "publisher"],
        // The proposed tags partytime already reads.
        "Infinity": ["id", "social", "recommendations"],
    });
    assert_eq!(feed["pc20support"], phases);
    let item = &feed["items"][0];
    // (what, partytime's value, the value expected)
    let cases = [
        (
            "channel persons",
            feed["podcastPeople"].as_array().map(Vec::len),
            Some(2),
        ),
        (
            "item persons",
            item["podcastPeople"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "trailers",
            feed["trailers"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "live items",
            feed["podcastLiveItems"].as_array().map(Vec::len),
            Some(1),
        ),
        ("podroll", feed["podroll"].as_array().map(Vec::len), Some(1)),
        (
            "value recipients",
            feed["value"]["recipients"].as_array().map(Vec::len),
            Some(2),
        ),
        (
            "transcripts",
            item["podcastTranscripts"].as_array().map(Vec::len),
            Some(2),
        ),
        (
            "soundbites",
            item["podcastSoundbites"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "alternate enclosure sources",
            item["alternativeEnclosures"][0]["source"]
                .as_array()
                .map(Vec::len),
            Some(2),
        ),
        (
            "value time splits",
            item["value"]["valueTimeSplits"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "social interactions",
            item["podcastSocialInteraction"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "platform ids",
            feed["podcastId"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "social sign-ups",
            feed["podcastSocial"][0]["signUp"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "channel recommendations",
            feed["podcastRecommendations"].as_array().map(Vec::len),
            Some(1),
        ),
        (
            "item recommendations",
            item["podcastRecommendations"].as_array().map(Vec::len),
            Some(1),
        ),
    ];
    for (what, got, want) in cases {
        assert_eq!(got, want, "{what}");
    }
    let texts = [
        ("location", &feed["podcastLocation"]["name"], "Austin, TX"),
        ("license", &feed["license"]["identifier"], "cc-by-4.0"),
        ("txt purpose", &feed["podcastTxt"][0]["purpose"], "verify"),
        ("chat server", &feed["chat"]["server"], "irc.zeronode.net"),
        (
            "publisher",
            &feed["podcastPublisher"]["feedGuid"],
            "003af0a0-6a45-55cf-b765-68e3d349551a",
        ),
        ("season name", &item["podcastSeason"]["name"], "Beginnings"),
        (
            "episode display",
            &item["podcastEpisode"]["display"],
            "Ch. 2",
        ),
        (
            "soundbite",
            &item["podcastSoundbites"][0]["title"],
            "The best part of episode 2",
        ),
        (
            "transcript rel",
            &item["podcastTranscripts"][0]["rel"],
            "captions",
        ),
        (
            "integrity",
            &item["alternativeEnclosures"][0]["integrity"]["type"],
            "sri",
        ),
        (
            "social account",
            &feed["podcastSocial"][0]["id"],
            "@podhost@podcastindex.social",
        ),
        (
            "live value",
            &feed["podcastLiveItems"][0]["liveUpdates"]["protocol"],
            "socket.io",
        ),
        (
            "item license",
            &item["license"]["url"],
            "https://creativecommons.org/licenses/by-sa/4.0/",
        ),
    ];
    for (what, got, want) in texts {
        assert_eq!(got.as_str(), Some(want), "{what}: {got}");
    }
    assert_eq!(
        feed["podcastBlockedPlatforms"]["spotify"], false,
        "{}",
        feed["podcastBlockedPlatforms"]
    );
}

/// An episode with a video packaged for HLS: its item keeps the soundtrack as its enclosure and
/// carries the stream as `podcast:alternateEnclosure type="application/x-mpegURL"`, which
/// partytime reads (type, height, bitrate, title and the playlist as its source), feedparser
/// parses with the item, and badpod reads without objection.
#[tokio::test]
async fn the_video_stream_reaches_the_parsers_as_an_alternate_enclosure() {
    let w = feeds::world().await;
    let clip = std::fs::read(workspace().join("podhost-core/tests/fixtures/h264_aac.mp4")).unwrap();
    let body = futures::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from(clip))]);
    let video = w
        .host
        .podcasts()
        .upload_media(
            &w.who,
            podhost_core::model::NewMedia {
                name: "clip.mp4".into(),
                category: None,
            },
            body,
        )
        .await
        .unwrap();
    let jobs = w.host.work().jobs_of_media(&w.who, video.id).await.unwrap();
    let job = w.host.work().run_job(&w.who, &jobs[0].id).await.unwrap();
    assert_eq!(
        job.status.as_str(),
        "succeeded",
        "{:?} (ffmpeg is needed)",
        job.error
    );
    let feed = w
        .host
        .podcasts()
        .create_feed(
            &w.who,
            podhost_core::model::NewFeed::titled("video", "On camera"),
        )
        .await
        .unwrap()
        .feed
        .id;
    let mut episode = podhost_core::model::NewEpisode::titled("Pilot");
    episode.fields.is_public = Some(true);
    episode.fields.video = Some(Some(video.id));
    w.host
        .podcasts()
        .create_episode(&w.who, &feed, episode)
        .await
        .unwrap();
    let xml = w.rss(&feed).await;
    assert!(
        xml.contains("<enclosure url=\"https://pod.example/media/"),
        "{xml}"
    );
    assert!(
        xml.contains("/clip.m4a\" length=") && xml.contains("type=\"audio/x-m4a\""),
        "the soundtrack is the enclosure: {xml}"
    );
    let rss = badpod::from_str(&xml).expect("badpod parses the feed");
    let debug = format!("{rss:?}");
    assert!(!debug.contains("Other(("), "badpod objects: {debug}");
    if let Some(parser) = Parser::feedparser() {
        let parsed = parser.parse(&xml);
        assert_eq!(
            parsed["entries"].as_array().map(Vec::len),
            Some(1),
            "{parsed}"
        );
        let entry = &parsed["entries"][0];
        assert_eq!(
            entry["podcast_alternateenclosure"]["type"], "application/x-mpegurl",
            "{entry}"
        );
        assert!(
            entry["podcast_source"]["uri"]
                .as_str()
                .is_some_and(|uri| uri.ends_with("/hls/master.m3u8")),
            "{entry}"
        );
    }
    let Some(parser) = Parser::partytime() else {
        return;
    };
    let parsed = parser.parse(&xml);
    let alternate = &parsed["items"][0]["alternativeEnclosures"][0];
    assert_eq!(alternate["type"], "application/x-mpegURL", "{parsed}");
    assert_eq!(alternate["height"], 180, "{alternate}");
    assert_eq!(alternate["title"], "Video", "{alternate}");
    assert!(
        alternate["bitrate"].as_f64().is_some_and(|b| b > 0.0),
        "{alternate}"
    );
    let source = alternate["source"][0]["uri"].as_str().unwrap();
    assert!(
        source.starts_with("https://pod.example/media/") && source.ends_with("/hls/master.m3u8"),
        "{source}"
    );
}
