//! The short pages answered instead of a podcast or episode: not found, deleted, a page
//! number that is not one.

use bytes::Bytes;
use maud::html;

use super::document;
use crate::locale::Locale;

/// Why there is no page to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// No podcast or published episode at this address (HTTP 404).
    NotFound,
    /// The podcast was deleted (HTTP 410).
    Gone,
    /// The address asks for a page number that is not one (HTTP 400).
    BadPageNumber,
}

/// The HTML page that says so, in `locale`.
pub fn notice_page(notice: Notice, locale: Locale) -> Bytes {
    let id = match notice {
        Notice::NotFound => "notice-not-found",
        Notice::Gone => "notice-gone",
        Notice::BadPageNumber => "notice-bad-page-number",
    };
    let title = locale.text(id);
    let text = locale.text(&format!("{id}-text"));
    let head = document::Head::plain(locale, &title);
    let body = html! {
        main #main .wrap.plain {
            h1 { (title) }
            p { (text) }
        }
    };
    Bytes::from(document::document(&head, body).into_string())
}
