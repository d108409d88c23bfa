//! The short pages answered instead of a podcast or episode: not found, deleted, a page
//! number that is not one.

use bytes::Bytes;
use maud::html;

use super::document;

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

/// The HTML page that says so.
pub fn notice_page(notice: Notice) -> Bytes {
    let (title, text) = match notice {
        Notice::NotFound => (
            "Not found",
            "There is no podcast or episode at this address. It may not be published yet.",
        ),
        Notice::Gone => (
            "This podcast was deleted",
            "Its episodes and its feed are no longer available here.",
        ),
        Notice::BadPageNumber => (
            "No such page",
            "A page of episodes is asked for by its number: a whole number from 1.",
        ),
    };
    let head = document::Head::plain(title);
    let body = html! {
        main #main .wrap.plain {
            h1 { (title) }
            p { (text) }
        }
    };
    Bytes::from(document::document(&head, body).into_string())
}
