//! The language a visit is answered in ([`language::chosen`] once per request) and the site's
//! words in it: every page's text is a message of `podhost-core/locales/` (ids `site-...`),
//! sentences with links or emphasis in them included ([`Words::rich`]), so that each language
//! orders its own sentence.

use http::{Method, request::Parts};
use maud::{Markup, PreEscaped, html};
use podhost_core::{Locale, locale::Arg};

use super::paths;
use crate::{
    context::Api,
    language::{self, Chosen, LANG_PARAM},
};

/// What marks where a piece of markup goes in a formatted message (private-use characters,
/// which no message and no value has).
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// The language of a visit's answers, and what its pages need to offer the others.
#[derive(Clone, Debug)]
pub(super) struct Words {
    chosen: Chosen,
    /// The deployment is on https: the cookie that remembers a choice is `Secure`.
    https: bool,
    /// The page the language switch links to (a path and query, without `lang`).
    here: String,
}

impl Words {
    /// The words of a request: its language, and its page to switch on (a form's answer
    /// switches on the account page, which a GET reaches).
    pub(super) fn of(api: &Api, parts: &Parts) -> Words {
        let here = if parts.method == Method::GET || parts.method == Method::HEAD {
            without_lang(parts.uri.path(), parts.uri.query())
        } else {
            paths::ACCOUNT.to_string()
        };
        Words {
            chosen: language::chosen(parts),
            https: api.host.urls().is_https(),
            here,
        }
    }

    /// The same words, switching languages on the page at `here` instead.
    pub(super) fn on(&self, here: String) -> Words {
        Words {
            here,
            ..self.clone()
        }
    }

    pub(super) fn locale(&self) -> Locale {
        self.chosen.locale
    }

    pub(super) fn chosen(&self) -> Chosen {
        self.chosen
    }

    pub(super) fn https(&self) -> bool {
        self.https
    }

    /// The page the language switch links to.
    pub(super) fn here(&self) -> &str {
        &self.here
    }

    /// The message `id`.
    pub(super) fn text(&self, id: &str) -> String {
        self.chosen.locale.text(id)
    }

    /// The message `id` with its values.
    pub(super) fn text_with(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        self.chosen.locale.text_with(id, args)
    }

    /// The message `id` as markup, its values `args` as text and `marked` as markup (a link,
    /// a `strong`) where the message puts them; the message's own text escaped.
    pub(super) fn rich(
        &self,
        id: &str,
        args: &[(&str, Arg<'_>)],
        marked: &[(&str, Markup)],
    ) -> Markup {
        let mut all: Vec<(&str, Arg<'_>)> = args.to_vec();
        for (i, (name, _)) in marked.iter().enumerate() {
            all.push((name, Arg::from(format!("{OPEN}{i}{CLOSE}"))));
        }
        let text = self.chosen.locale.text_with(id, &all);
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(start) = rest.find(OPEN) {
            out.push_str(&html! { (rest[..start]) }.into_string());
            let after = &rest[start + OPEN.len_utf8()..];
            let Some(end) = after.find(CLOSE) else {
                rest = after;
                break;
            };
            if let Some((_, markup)) = after[..end]
                .parse::<usize>()
                .ok()
                .and_then(|i| marked.get(i))
            {
                out.push_str(&markup.0);
            }
            rest = &after[end + CLOSE.len_utf8()..];
        }
        out.push_str(&html! { (rest) }.into_string());
        PreEscaped(out)
    }
}

/// `path` and `query` without the `lang` parameter (each other parameter as it was written).
fn without_lang(path: &str, query: Option<&str>) -> String {
    let kept: Vec<&str> = query
        .unwrap_or("")
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| pair.split('=').next() != Some(LANG_PARAM))
        .collect();
    if kept.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(tag: &str) -> Words {
        Words {
            chosen: Chosen {
                locale: Locale::parse(tag).unwrap(),
                asked: false,
            },
            https: true,
            here: "/account".into(),
        }
    }

    #[test]
    fn markup_goes_where_each_language_puts_it_and_text_is_escaped() {
        let name = html! { strong { "<alice>" } };
        let login = html! { strong { "a&b" } };
        assert_eq!(
            words("en")
                .rich("site-signed-in-as", &[], &[("name", name.clone())])
                .into_string(),
            "Signed in as <strong>&lt;alice&gt;</strong>"
        );
        assert_eq!(
            words("de")
                .rich(
                    "site-account-signed-in",
                    &[("role", "<owner>".into())],
                    &[("login", login)],
                )
                .into_string(),
            "Angemeldet als <strong>a&amp;b</strong>, Rolle in diesem Konto: &lt;owner&gt;."
        );
        assert_eq!(
            words("de").text_with("site-too-many-text", &[("seconds", 1u64.into())]),
            "Die Anmeldung ist zu oft fehlgeschlagen. Versuchen Sie es in einer Sekunde noch einmal."
        );
    }

    #[test]
    fn the_switch_links_to_the_page_without_its_lang() {
        assert_eq!(without_lang("/account", None), "/account");
        assert_eq!(without_lang("/account", Some("lang=de")), "/account");
        assert_eq!(
            without_lang(
                "/account/stats",
                Some("from=2026-01-01&lang=de&to=2026-01-31")
            ),
            "/account/stats?from=2026-01-01&to=2026-01-31"
        );
        assert_eq!(
            without_lang(
                "/oauth/authorize",
                Some("redirect_uri=https%3A%2F%2Fa&language=x")
            ),
            "/oauth/authorize?redirect_uri=https%3A%2F%2Fa&language=x"
        );
    }
}
