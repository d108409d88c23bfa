//! The messages of each language: its Fluent file parsed once into a bundle, numbers in them
//! written in the language's forms (CLDR, through [`super::forms`]), a message missing in a
//! language taken from English.

use std::{borrow::Cow, sync::OnceLock};

use fluent_bundle::{FluentArgs, FluentResource, FluentValue, concurrent::FluentBundle};

use super::{Locale, files::FILES, forms};

/// A value a message is given (`{ $name }`): text, or a number (plurals choose by it, and it
/// is written in the language's forms).
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    /// Text, as it is.
    Text(Cow<'a, str>),
    /// A number.
    Number(f64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(text: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(text))
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(text: &'a String) -> Self {
        Arg::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Arg<'_> {
    fn from(text: String) -> Self {
        Arg::Text(Cow::Owned(text))
    }
}

macro_rules! number_args {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(n: $t) -> Self {
                Arg::Number(n as f64)
            }
        }
    )*};
}
number_args!(u8, u16, u32, u64, usize, i32, i64, f64);

type Bundle = FluentBundle<FluentResource>;

/// Every language's bundle, in the order of [`FILES`].
fn bundles() -> &'static [Bundle] {
    static BUNDLES: OnceLock<Vec<Bundle>> = OnceLock::new();
    BUNDLES.get_or_init(|| FILES.iter().map(|(tag, text)| bundle(tag, text)).collect())
}

/// A language's bundle. Its file is part of the build: a file Fluent cannot parse is a
/// defect, which the tests find at once.
fn bundle(tag: &str, text: &str) -> Bundle {
    let resource = FluentResource::try_new(text.to_string())
        .unwrap_or_else(|(_, errors)| panic!("locales/{tag}.ftl does not parse: {errors:?}"));
    let id: unic_langid::LanguageIdentifier = tag
        .parse()
        .unwrap_or_else(|e| panic!("locales/{tag}.ftl: {tag} is no language tag: {e}"));
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // The pages mark languages with `lang` and set no bidirectional text yet: no isolation
    // marks around the values.
    bundle.set_use_isolating(false);
    bundle.set_formatter(Some(forms::format_value));
    bundle
        .add_resource(resource)
        .unwrap_or_else(|errors| panic!("locales/{tag}.ftl: {errors:?}"));
    bundle
}

/// The ids of the messages of a language's file (for the test that every language has every
/// message).
#[cfg(test)]
pub(super) fn ids(locale: Locale) -> Vec<String> {
    let text = FILES[usize::from(locale.0)].1;
    let resource = FluentResource::try_new(text.to_string()).unwrap_or_else(|(r, _)| r);
    resource
        .entries()
        .filter_map(|entry| match entry {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_string()),
            _ => None,
        })
        .collect()
}

impl Locale {
    /// The message `id` in this language (English when this language lacks it).
    pub fn text(self, id: &str) -> String {
        self.text_with(id, &[])
    }

    /// The message `id` with its values (`("count", 3.into())` for `{ $count }`).
    pub fn text_with(self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        let mut fluent_args = FluentArgs::with_capacity(args.len());
        for (name, value) in args {
            let value = match value {
                Arg::Text(text) => FluentValue::from(text.as_ref()),
                Arg::Number(n) => FluentValue::from(*n),
            };
            fluent_args.set(*name, value);
        }
        let all = bundles();
        let found = [self, Locale::ENGLISH].into_iter().find_map(|locale| {
            let bundle = &all[usize::from(locale.0)];
            let pattern = bundle.get_message(id)?.value()?;
            let mut errors = Vec::new();
            let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
            debug_assert!(errors.is_empty(), "message {id} ({locale}): {errors:?}");
            Some(text.into_owned())
        });
        found.unwrap_or_else(|| {
            debug_assert!(false, "no message {id} in locales/en.ftl");
            id.to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_every_message_english_has_and_no_other() {
        // Each file parses whole (a bundle panics on a file it cannot read).
        assert_eq!(bundles().len(), Locale::all().count());
        let english = ids(Locale::ENGLISH);
        assert!(english.len() > 10, "{english:?}");
        for locale in Locale::all() {
            let own = ids(locale);
            let missing: Vec<_> = english.iter().filter(|id| !own.contains(id)).collect();
            let extra: Vec<_> = own.iter().filter(|id| !english.contains(id)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "locales/{locale}.ftl lacks {missing:?} and has {extra:?}, which English has not"
            );
        }
    }

    #[test]
    fn plurals_and_numbers_follow_the_language() {
        let de = Locale::parse("de").unwrap();
        let count =
            |locale: Locale, n: u64| locale.text_with("episode-count", &[("count", n.into())]);
        assert_eq!(count(Locale::ENGLISH, 1), "1 episode");
        assert_eq!(count(Locale::ENGLISH, 1234), "1,234 episodes");
        assert_eq!(count(de, 1), "1 Folge");
        assert_eq!(count(de, 1234), "1.234 Folgen");
    }
}
