//! Which language a browser is answered in (the public pages, the player, the site): the one a
//! link asked for (`?lang=de`, which the language switch of every page carries, remembered in
//! a cookie so that the choice stays), else the one remembered, else the best of the browser's
//! `Accept-Language` that podhost speaks ([`Locale::negotiate`]), else English. Answers chosen
//! so say which they vary by, for caches.

use cookie::{Cookie, SameSite};
use http::{HeaderValue, Response, header, request::Parts};
use podhost_core::Locale;

use crate::response::Body;

/// The query parameter a language switch's links carry.
pub(crate) const LANG_PARAM: &str = "lang";
/// The cookie that remembers a language chosen by a switch (a year).
pub(crate) const LANG_COOKIE: &str = "podhost_lang";
const REMEMBERED_SECONDS: i64 = 365 * 24 * 3600;

/// The language of an answer, and whether it was just chosen (to remember).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chosen {
    /// The language.
    pub(crate) locale: Locale,
    /// Asked for by a link: remembered in the answer's cookie.
    pub(crate) asked: bool,
}

/// The language to answer `parts` in.
pub(crate) fn chosen(parts: &Parts) -> Chosen {
    // Asked on every page request: nothing is parsed or allocated that the request lacks.
    let asked = parts.uri.query().and_then(|query| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == LANG_PARAM)
            .and_then(|(_, tag)| Locale::parse(&tag))
    });
    if let Some(locale) = asked {
        return Chosen {
            locale,
            asked: true,
        };
    }
    let remembered = parts
        .headers
        .contains_key(header::COOKIE)
        .then(|| crate::headers::cookie(parts, LANG_COOKIE))
        .flatten()
        .and_then(|tag| Locale::parse(&tag));
    let locale = remembered.unwrap_or_else(|| {
        let mut accepted = parts.headers.get_all(header::ACCEPT_LANGUAGE).iter();
        match (accepted.next(), accepted.next()) {
            (None, _) => Locale::ENGLISH,
            (Some(one), None) => Locale::negotiate(one.to_str().unwrap_or("")),
            // Several headers are one list (RFC 9110).
            (Some(_), Some(_)) => Locale::negotiate(
                &parts
                    .headers
                    .get_all(header::ACCEPT_LANGUAGE)
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        }
    });
    Chosen {
        locale,
        asked: false,
    }
}

/// Marks `answer` as chosen by `chosen`: `Vary` on what chose it, and the cookie that
/// remembers a language a link asked for. (No `Content-Language`: a page's content is in its
/// podcast's language, which `<html lang>` says; only its own words are in this one.)
pub(crate) fn answered_in(answer: &mut Response<Body>, chosen: Chosen, https: bool) {
    let headers = answer.headers_mut();
    headers.append(
        header::VARY,
        HeaderValue::from_static("Accept-Language, Cookie"),
    );
    if chosen.asked {
        let cookie = Cookie::build((LANG_COOKIE, chosen.locale.tag()))
            .path("/")
            .same_site(SameSite::Lax)
            .secure(https)
            .max_age(cookie::time::Duration::seconds(REMEMBERED_SECONDS))
            .build();
        if let Ok(value) = HeaderValue::from_str(&cookie.to_string()) {
            headers.append(header::SET_COOKIE, value);
        }
    }
}
