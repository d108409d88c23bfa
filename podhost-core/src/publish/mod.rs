//! Publishing: what podcast apps and listeners read. The RSS feed of a podcast, rendered from
//! the account's state with a real XML writer, and its public web pages ([`page`]); show notes
//! in both cleaned by one HTML policy ([`notes`]).

pub mod chapters;
pub(crate) mod feed_values;
pub mod notes;
pub mod page;
mod podcast_tags;
pub mod readiness;
pub(crate) mod rss;
mod xml_text;
mod xml_writer;

use bytes::Bytes;
use jiff::Timestamp;

/// A podcast's public feed, as its public URL answers it.
#[derive(Debug, Clone)]
pub enum PublicFeed {
    /// The feed: RSS bytes and their validators.
    Live(RenderedFeed),
    /// The podcast moved (`itunes:new-feed-url` is set): its feed answers a redirect there.
    Moved(String),
    /// The podcast was deleted: its feed is gone for good.
    Gone,
}

/// Rendered RSS and what HTTP caching needs.
#[derive(Debug, Clone)]
pub struct RenderedFeed {
    /// The RSS 2.0 document, UTF-8.
    pub xml: Bytes,
    /// A strong validator: the SHA-256 of the bytes (hex, first 32 characters).
    pub etag: String,
    /// When the feed last changed: the channel's last change or the newest published episode's.
    pub last_modified: Timestamp,
    /// When the feed changes by itself (a scheduled episode publishes); until then these bytes
    /// stay right unless something is written.
    pub changes_at: Option<Timestamp>,
}

/// A podcast's public web page (`links.web`), or one of its episodes', as its URL answers it.
#[derive(Debug, Clone)]
pub enum PublicPage {
    /// The page: HTML and its validators.
    Live(RenderedPage),
    /// The podcast was deleted: its pages are gone for good.
    Gone,
}

/// A rendered page and what HTTP caching needs; like [`RenderedFeed`].
#[derive(Debug, Clone)]
pub struct RenderedPage {
    /// The HTML document, UTF-8.
    pub html: Bytes,
    /// A strong validator: the SHA-256 of the bytes (hex, first 32 characters).
    pub etag: String,
    /// When the page last changed.
    pub last_modified: Timestamp,
    /// When the page changes by itself (a scheduled episode publishes).
    pub changes_at: Option<Timestamp>,
}

/// How long a presigned download URL stays valid: long enough for a slow download to start
/// and resume, short enough that a shared link dies.
pub const PRESIGNED_FOR: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// The type of an HLS stream in a feed (`podcast:alternateEnclosure`) and a page (`<source>`).
pub const HLS_TYPE: &str = "application/x-mpegURL";

/// A media file as its public URL serves it.
#[derive(Debug, Clone)]
pub struct PublicMedia {
    /// Size in bytes.
    pub size: u64,
    /// MIME type, from the content.
    pub mime: String,
    /// A strong validator: the blob key (blobs never change; a changed file is a new blob).
    pub etag: String,
    /// When the bytes were stored.
    pub last_modified: Timestamp,
    pub(crate) location: object_store::path::Path,
}
