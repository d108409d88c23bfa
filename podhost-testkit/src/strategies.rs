//! proptest strategies for podhost's public input types. Every value they make is one the core
//! accepts (the testkit's own property tests check that on a fresh host), so a property test
//! of an integrator's code spends its cases on behaviour, not on refusals. [`hostile_text`] is
//! the other side: text meant to break renderers and parsers, which the core must refuse with
//! a clear error or store and publish as well-formed feeds and pages, never panic on.
//!
//! In a test, `proptest! { #[test] fn my_property(feed in strategies::new_feed()) { ... } }`;
//! or by hand:
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use podhost_testkit::strategies;
//!
//! let mut runner = proptest::test_runner::TestRunner::default();
//! for _ in 0..8 {
//!     let feed = strategies::new_feed().new_tree(&mut runner).unwrap().current();
//!     assert!(!feed.fields.title.unwrap().trim().is_empty());
//! }
//! ```

use jiff::Timestamp;
use podhost_core::model::{
    APPLE_CATEGORIES, EpisodeListQuery, EpisodePatch, EpisodeSort, EpisodeType, FeedPatch,
    MediaListQuery, MediaSort, NewEpisode, NewFeed, PageRequest, ShowType, SortDir,
};
use proptest::{option, prelude::*, sample::select};

/// A title-like line: 1 to 80 characters, letters of several scripts, punctuation that needs
/// escaping in XML and HTML, and an emoji; never blank, no control characters.
pub fn line() -> impl Strategy<Value = String> {
    "[A-Za-z0-9äöüßéñçøåЖжשלום你好🎙][A-Za-z0-9 äöüßéñ,.!?:;'&<>\"()#%+/éשל你🎙-]{0,79}"
        .prop_map(|s| s.trim_end().to_string())
}

/// Show-note text: a few lines of [`line()`]s, some HTML-looking.
pub fn notes() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            line(),
            line().prop_map(|l| format!("<p>{l}</p>")),
            line().prop_map(|l| format!("<a href=\"https://example.com/\">{l}</a>")),
        ],
        0..6,
    )
    .prop_map(|lines| lines.join("\n"))
}

/// An `https://` address on a test domain.
pub fn url() -> impl Strategy<Value = String> {
    "https://[a-z]{3,10}\\.example/[a-z0-9/-]{0,24}"
}

/// An email address on a test domain.
pub fn email() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9.+]{0,15}@[a-z]{2,10}\\.example"
}

/// A language tag (`en`, `pt-BR`, ...).
pub fn language() -> impl Strategy<Value = String> {
    select(vec![
        "en", "en-US", "de", "pt-BR", "fr", "es-419", "zh-Hant", "he",
    ])
    .prop_map(str::to_string)
}

/// A feed id: 1 to 40 characters, no `/`, no outer white space.
pub fn feed_id() -> impl Strategy<Value = String> {
    "[a-z0-9][a-z0-9_.~-]{0,39}"
}

/// An Apple Podcasts category and one of its subcategories (or none).
pub fn category() -> impl Strategy<Value = (String, Option<String>)> {
    select(APPLE_CATEGORIES.to_vec()).prop_flat_map(|c| {
        let subs: Vec<Option<String>> = std::iter::once(None)
            .chain(c.subcategories.iter().map(|s| Some(s.to_string())))
            .collect();
        (Just(c.name.to_string()), select(subs))
    })
}

/// A moment in 2020 to 2030, whole seconds.
pub fn timestamp() -> impl Strategy<Value = Timestamp> {
    (1_577_836_800i64..1_893_456_000).prop_map(|s| Timestamp::from_second(s).expect("in range"))
}

/// A new podcast with every channel field podhost takes set to a valid value (artwork aside:
/// it names a media file of the account).
pub fn new_feed() -> impl Strategy<Value = NewFeed> {
    (feed_id(), feed_patch_without_id()).prop_map(|(id, mut fields)| {
        if fields.title.is_none() {
            fields.title = Some(format!("Podcast {id}"));
        }
        NewFeed { id, fields }
    })
}

/// A change of a podcast's channel fields: each field changed or left alone.
pub fn feed_patch() -> impl Strategy<Value = FeedPatch> {
    feed_patch_without_id()
}

fn feed_patch_without_id() -> impl Strategy<Value = FeedPatch> {
    let texts = (
        option::of(line()),
        option::of(notes()),
        option::of(language()),
        option::of(line()),
        option::of(url()),
        option::of(line()),
        option::of(notes()),
        option::of(line()),
    );
    let itunes = (
        option::of(category()),
        option::of(any::<bool>()),
        option::of(select(vec![ShowType::Episodic, ShowType::Serial])),
        option::of(line()),
        option::of(email()),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
    );
    let others = (
        option::of(line()),
        option::of(notes()),
        option::of(any::<bool>()),
        option::of(select(vec!["podcast", "music", "audiobook", "video"])),
    );
    (texts, itunes, others).prop_map(|(texts, itunes, others)| {
        let (title, description, language, copyright, link, subtitle, summary, author) = texts;
        let (category, explicit, show_type, owner_name, owner_email, block, complete) = itunes;
        let (gp_author, gp_description, locked, medium) = others;
        let (itunes_category, itunes_subcategory) = match category {
            Some((c, s)) => (Some(c), Some(s.unwrap_or_default())),
            None => (None, None),
        };
        FeedPatch {
            title,
            description,
            language,
            copyright,
            link,
            itunes_subtitle: subtitle,
            itunes_summary: summary,
            itunes_author: author,
            itunes_category,
            itunes_subcategory,
            itunes_explicit: explicit,
            itunes_type: show_type,
            itunes_owner_name: owner_name,
            itunes_owner_email: owner_email,
            itunes_block: block,
            itunes_complete: complete,
            googleplay_author: gp_author,
            googleplay_description: gp_description,
            podcast_locked: locked,
            podcast_medium: medium.map(str::to_string),
            ..Default::default()
        }
    })
}

/// A new episode with every field podhost takes set to a valid value (its files aside: they
/// name media files of the account).
pub fn new_episode() -> impl Strategy<Value = NewEpisode> {
    (
        option::of(
            "[a-z0-9:/.-]{8,40}".prop_filter("a guid has a letter or digit", |g| {
                g.chars().any(|c| c.is_ascii_alphanumeric())
            }),
        ),
        episode_patch(),
        line(),
    )
        .prop_map(|(guid, mut fields, title)| {
            fields.title.get_or_insert(title);
            NewEpisode { guid, fields }
        })
}

/// A change of an episode's fields: each field changed or left alone.
pub fn episode_patch() -> impl Strategy<Value = EpisodePatch> {
    let texts = (
        option::of(line()),
        option::of(line()),
        option::of(notes()),
        option::of(line()),
        option::of(email()),
        option::of(line()),
        option::of(url()),
    );
    let itunes = (
        option::of(line()),
        option::of(line()),
        option::of(notes()),
        option::of(line()),
        option::of(option::of(1u32..10_000)),
        option::of(option::of(1u32..100)),
        option::of(select(vec![
            EpisodeType::Full,
            EpisodeType::Trailer,
            EpisodeType::Bonus,
        ])),
        option::of(option::of(any::<bool>())),
    );
    (
        texts,
        itunes,
        option::of(any::<bool>()),
        option::of(timestamp()),
    )
        .prop_map(|(texts, itunes, is_public, publish_at)| {
            let (title, subtitle, description, author, email, copyright, link) = texts;
            let (it_title, it_subtitle, it_summary, it_author, episode, season, kind, explicit) =
                itunes;
            EpisodePatch {
                title,
                subtitle,
                description,
                author,
                email,
                copyright,
                link,
                is_public,
                publish_at,
                itunes_title: it_title,
                itunes_subtitle: it_subtitle,
                itunes_summary: it_summary,
                itunes_author: it_author,
                itunes_episode: episode,
                itunes_season: season,
                itunes_episode_type: kind,
                itunes_explicit: explicit,
                ..Default::default()
            }
        })
}

/// A page of a list: number 1 to 50, size 1 to 100.
pub fn page() -> impl Strategy<Value = PageRequest> {
    (1i64..=50, 1i64..=100).prop_map(|(number, size)| {
        PageRequest::new(Some(number), Some(size)).expect("a valid page")
    })
}

/// A query of a podcast's episodes: any sort, direction, filter text and page.
pub fn episode_list_query() -> impl Strategy<Value = EpisodeListQuery> {
    (
        select(vec![
            EpisodeSort::PublishDate,
            EpisodeSort::LastUpdate,
            EpisodeSort::IsPublic,
        ]),
        option::of(any::<bool>()),
        option::of("[a-zA-Z0-9 ]{1,12}"),
        page(),
    )
        .prop_map(|(sort_by, descending, filter, page)| EpisodeListQuery {
            sort_by,
            descending,
            filter,
            page,
        })
}

/// A query of the media files: any sort, direction, filter (exact or not) and page.
pub fn media_list_query() -> impl Strategy<Value = MediaListQuery> {
    (
        select(vec![MediaSort::Name, MediaSort::Size, MediaSort::Created]),
        select(vec![SortDir::Asc, SortDir::Desc]),
        option::of("[a-zA-Z0-9 ._-]{1,12}"),
        any::<bool>(),
        page(),
    )
        .prop_map(|(sort_by, sort_dir, filter, strict, page)| MediaListQuery {
            sort_by,
            sort_dir,
            filter,
            strict,
            page,
        })
}

/// An upload's file name (with an extension podhost knows) and size in bytes (1 byte to
/// 4 MiB, as much as a test wants to move).
pub fn upload() -> impl Strategy<Value = (String, usize)> {
    (
        "[A-Za-z0-9äöü _-]{0,30}[A-Za-z0-9]",
        select(vec![
            "wav", "mp3", "m4a", "png", "jpg", "txt", "vtt", "srt", "pdf",
        ]),
        1usize..=4 << 20,
    )
        .prop_map(|(stem, ext, size)| (format!("{stem}.{ext}"), size))
}

/// Text made to break things: control characters, U+FFFE and U+FFFF, lone surrogates' UTF-8
/// stand-ins, bidirectional overrides, markup and script, CDATA ends, entity bombs, very long
/// lines, SQL and shell metacharacters. Inputs of the core must refuse it with
/// [`Error::Invalid`](podhost_core::Error::Invalid) or keep it as data.
pub fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = select(vec![
        "\u{0}",
        "\u{1b}[31m",
        "\u{7f}",
        "\u{85}",
        "\u{FFFE}",
        "\u{FFFF}",
        "\u{FFFD}",
        "\u{202E}",
        "\u{200B}",
        "\r\n",
        "\r",
        "\t",
        "]]>",
        "<![CDATA[",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "javascript:alert(1)",
        "&amp;",
        "&#0;",
        "&#x1b;",
        "&lol9;",
        "<!DOCTYPE x [<!ENTITY a \"b\">]>",
        "'; DROP TABLE episodes; --",
        "$(rm -rf /)",
        "{{7*7}}",
        "%s%n",
        "🎙️",
        "עברית",
        "\u{301}",
        " ",
    ]);
    prop_oneof![
        prop::collection::vec(pieces, 1..12).prop_map(|p| p.concat()),
        (".{0,40}", 200usize..5_000).prop_map(|(s, n)| s.repeat(n / s.len().max(1) + 1)),
        ".{1,200}",
    ]
}
