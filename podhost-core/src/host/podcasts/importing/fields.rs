//! A source feed's values fitted to podhost: one-line text, show notes and web addresses as
//! Apple takes them, the channel and each item as podhost's patches, and what was changed on
//! the way reported as problems.

use crate::host::user_text;
use crate::{
    error::FieldErrors,
    import::source::{SourceChannel, SourceItem},
    model::{EpisodePatch, EpisodeType, FeedPatch, Funding, Reading, ShowType},
};

/// Text fit for a one-line field: control characters and line breaks made spaces, at most
/// [`user_text::MAX_LINE_CHARS`] characters (cut with an ellipsis, reported).
pub(crate) fn line(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let flat: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= user_text::MAX_LINE_CHARS {
        return flat;
    }
    problems.push(format!(
        "{field} is longer than Apple's {} characters; cut",
        user_text::MAX_LINE_CHARS
    ));
    let mut cut: String = flat.chars().take(user_text::MAX_LINE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// Notes fit for a multi-line field: no control characters but line breaks and tabs, at most
/// [`user_text::MAX_TEXT_BYTES`] (HTML cut and cleaned again so its tags close; reported).
pub(crate) fn notes(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let clean: String = value
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    if clean.len() <= user_text::MAX_TEXT_BYTES {
        return clean;
    }
    problems.push(format!(
        "{field} is longer than Apple's {} bytes; cut",
        user_text::MAX_TEXT_BYTES
    ));
    let html = crate::publish::notes::is_html(&clean);
    let mut budget = user_text::MAX_TEXT_BYTES - 8;
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
        if cut.len() <= user_text::MAX_TEXT_BYTES || budget < 100 {
            return cut;
        }
        budget -= 200;
    }
}

/// A web address if it is one podhost accepts, else nothing (reported).
pub(crate) fn web(value: &str, field: &str, problems: &mut Vec<String>) -> String {
    let mut errors = FieldErrors::default();
    user_text::check_url(&mut errors, field, value.trim());
    if errors.is_empty() {
        value.trim().to_string()
    } else {
        problems.push(format!(
            "{field} \"{value}\" is not a web address; left out"
        ));
        String::new()
    }
}

pub(crate) fn channel_patch(c: &SourceChannel, problems: &mut Vec<String>) -> FeedPatch {
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
    user_text::check_email(&mut errors, "email", c.itunes_owner_email.trim());
    if errors.is_empty() {
        patch.itunes_owner_email = Some(c.itunes_owner_email.trim().to_string());
    } else {
        problems.push(format!(
            "itunes:owner email \"{}\" is not an email address; left out",
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
            format!("\"{category}\"")
        } else {
            format!("\"{category}\" › \"{sub}\"")
        };
        let became = if r.subcategory.is_empty() {
            format!("\"{}\"", r.category)
        } else {
            format!("\"{}\" › \"{}\"", r.category, r.subcategory)
        };
        let note = match r.reading {
            Reading::Exact if r.subcategory.is_empty() && !sub.is_empty() => Some(format!(
                "itunes:category \"{category}\" has no subcategory \"{sub}\" in Apple's list; the subcategory is left out"
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
                "the language \"{language}\" is not a language tag; left out"
            ));
        }
    }
    if let Some(medium) = &c.podcast_medium {
        if crate::model::MEDIUMS.contains(&medium.as_str()) {
            patch.podcast_medium = Some(medium.clone());
        } else {
            problems.push(format!(
                "podcast:medium \"{medium}\" is not one podhost knows; left out"
            ));
        }
    }
    patch
}

pub(crate) fn item_patch(
    item: &SourceItem,
    now: jiff::Timestamp,
    problems: &mut Vec<String>,
) -> EpisodePatch {
    let name = format!("item \"{}\"", item.guid);
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
                    "{name}: itunes:episodeType \"{t}\" is not full, trailer or bonus; left out"
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{source, xml};

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
        assert!(cut.len() <= user_text::MAX_TEXT_BYTES, "{}", cut.len());
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
