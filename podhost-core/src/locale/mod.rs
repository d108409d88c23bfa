//! The languages podhost speaks to people: the public pages, the player and the signed-in site
//! in each language of `podhost-core/locales/` (one Fluent file a language, named by its BCP 47
//! tag; English is the one every other falls back to). A [`Locale`] gives a page its words
//! ([`Locale::text`], Fluent messages with plurals), and CLDR's forms of dates, numbers,
//! durations and country names ([`Locale::date`], [`Locale::number`], [`Locale::country`],
//! through ICU4X's compiled data). Which one a person gets is negotiated from what they asked
//! for ([`Locale::negotiate`]); frontends bring the asking (a header, a cookie, a link).

mod forms;
mod messages;

use std::{fmt, sync::OnceLock};

pub use messages::Arg;

mod files {
    include!(concat!(env!("OUT_DIR"), "/locales.rs"));
}

/// A language of podhost's pages: one of the files of `podhost-core/locales/`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Locale(u8);

/// The index of `tag` in the files, at compile time.
const fn index_of(tag: &str) -> usize {
    let mut i = 0;
    while i < files::FILES.len() {
        let (t, _) = files::FILES[i];
        if t.len() == tag.len() {
            let (a, b) = (t.as_bytes(), tag.as_bytes());
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("podhost-core/locales/en.ftl is missing")
}

impl Locale {
    /// English: the language of a page when nothing else is asked for or spoken, and where
    /// another language's missing message is taken from.
    pub const ENGLISH: Locale = Locale(index_of("en") as u8);

    /// Every language, in the order of their tags.
    pub fn all() -> impl Iterator<Item = Locale> {
        (0..files::FILES.len()).map(|i| Locale(i as u8))
    }

    /// Its BCP 47 tag (`en`, `de`): `<html lang>`, the `?lang=` a link asks for.
    pub fn tag(self) -> &'static str {
        files::FILES[usize::from(self.0)].0
    }

    /// Its own name for itself ("English", "Deutsch"), for a switch between languages.
    pub fn name(self) -> String {
        self.text("language-name")
    }

    /// The language a tag names (`de`, `de-AT`, `DE`): the file of that tag, else of its
    /// primary language; `None` when podhost does not speak it.
    pub fn parse(tag: &str) -> Option<Locale> {
        let tag = tag.trim();
        let by = |wanted: &str| Locale::all().find(|l| l.tag().eq_ignore_ascii_case(wanted));
        by(tag).or_else(|| by(primary_language(tag)))
    }

    /// The language to answer in for an `Accept-Language` header (RFC 9110: tags with
    /// weights): the best of those asked for that podhost speaks, else English.
    pub fn negotiate(accept_language: &str) -> Locale {
        // Asked on every page request: the common cases cost nothing.
        if accept_language.trim().is_empty() {
            return Locale::ENGLISH;
        }
        static AVAILABLE: OnceLock<Vec<unic_langid::LanguageIdentifier>> = OnceLock::new();
        let available = AVAILABLE.get_or_init(|| {
            Locale::all()
                .map(|l| l.tag().parse().expect("a file's name is a language tag"))
                .collect()
        });
        let asked = fluent_langneg::accepted_languages::parse(accept_language);
        let english = &available[usize::from(Locale::ENGLISH.0)];
        let chosen = fluent_langneg::negotiate_languages(
            &asked,
            available,
            Some(english),
            fluent_langneg::NegotiationStrategy::Lookup,
        );
        chosen
            .first()
            .and_then(|id| Locale::parse(&id.to_string()))
            .unwrap_or(Locale::ENGLISH)
    }

    /// The `lang` attribute the page's own words need inside content of language
    /// `content_lang` (a podcast's): this language's tag when the two differ, else none.
    pub fn mark(self, content_lang: &str) -> Option<&'static str> {
        (!primary_language(content_lang).eq_ignore_ascii_case(primary_language(self.tag())))
            .then(|| self.tag())
    }
}

/// The primary language subtag of a tag (`de` of `de-AT`).
fn primary_language(tag: &str) -> &str {
    tag.split(['-', '_']).next().unwrap_or("")
}

impl fmt::Debug for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de() -> Locale {
        Locale::parse("de").unwrap()
    }

    #[test]
    fn a_language_is_what_its_file_names() {
        assert_eq!(Locale::ENGLISH.tag(), "en");
        assert_eq!(de().tag(), "de");
        assert_eq!(Locale::parse("de-AT"), Some(de()));
        assert_eq!(Locale::parse("DE"), Some(de()));
        assert_eq!(Locale::parse("tlh"), None);
        assert_eq!(Locale::ENGLISH.name(), "English");
        assert_eq!(de().name(), "Deutsch");
    }

    #[test]
    fn the_listener_gets_the_best_language_they_asked_for() {
        for (header, expected) in [
            ("de-CH,de;q=0.9,en;q=0.5", "de"),
            ("de-DE", "de"),
            ("fr-FR,fr;q=0.9,de;q=0.8,en;q=0.7", "de"),
            ("fr-FR,en-GB;q=0.8,de;q=0.7", "en"),
            ("fr", "en"),
            ("", "en"),
            ("*", "en"),
            ("en-US,en;q=0.9", "en"),
            ("garbage;;;q=x", "en"),
        ] {
            assert_eq!(Locale::negotiate(header).tag(), expected, "{header:?}");
        }
    }

    #[test]
    fn the_pages_words_are_marked_only_inside_content_of_another_language() {
        assert_eq!(Locale::ENGLISH.mark("en-us"), None);
        assert_eq!(Locale::ENGLISH.mark("de"), Some("en"));
        assert_eq!(de().mark("de-AT"), None);
        assert_eq!(de().mark("en"), Some("de"));
    }
}
