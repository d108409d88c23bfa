//! Moving in: a podcast imported from its RSS feed on another host.
//!
//! [`Podcasts::import_feed`](crate::Podcasts::import_feed) reads the feed (fetched, or
//! given as a document), creates or updates the podcast with every channel field podhost
//! models, and makes an episode of each item, matched by its guid (kept verbatim), with its
//! enclosure, artwork, transcripts and chapters downloaded into the store. Running it again
//! changes nothing and fetches nothing already stored, so an interrupted import is resumed by
//! running it again.
//!
//! - [`fetch`]: the outbound requests (the [`Fetcher`] the frontend implements; the target
//!   rules, redirects and caps the core applies);
//! - `xml`, `source`, `dates`: reading a feed as hosts write it.

mod dates;
pub mod fetch;
pub(crate) mod source;
pub(crate) mod xml;

pub use fetch::{FetchRequest, Fetched, Fetcher};

/// The most a feed document may weigh.
pub const MAX_FEED_BYTES: u64 = 50 << 20;

/// Files fetched at once, at most and at least.
pub const CONCURRENCY: std::ops::RangeInclusive<usize> = 2..=4;

/// Where a feed comes from.
#[derive(Clone, Debug)]
pub enum ImportSource {
    /// An http(s) URL, fetched (relative URLs in the feed are read against it).
    Url(String),
    /// A feed document at hand (a file the frontend read); `url` is where it lives, if known,
    /// for relative URLs.
    Document {
        /// The XML.
        xml: bytes::Bytes,
        /// Its URL, when known.
        url: Option<String>,
    },
}

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The podcast's id; by default one made from the title (`My Show!` → `my-show`).
    pub feed_id: Option<String>,
    /// Only the newest `n` items.
    pub limit: Option<usize>,
    /// Download enclosures, artwork, transcripts and chapters (default); without, episodes
    /// are made without files.
    pub media: bool,
    /// Files fetched at once (clamped to [`CONCURRENCY`]; default 3).
    pub concurrency: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            feed_id: None,
            limit: None,
            media: true,
            concurrency: 3,
        }
    }
}

/// What an import watches go by (a progress display); every method does nothing by default.
pub trait ImportProgress: Send + Sync {
    /// The feed was read: its title and how many items will be imported.
    fn feed(&self, _title: &str, _items: usize) {}
    /// A file starts downloading; its declared length, when known.
    fn file_started(&self, _expected: Option<u64>) {}
    /// Bytes of a file arrived.
    fn bytes(&self, _n: u64) {}
    /// A file is stored (or given up).
    fn file_done(&self) {}
    /// An item is imported (or skipped).
    fn item_done(&self) {}
    /// Something was wrong; the import goes on.
    fn problem(&self, _message: &str) {}
}

/// An [`ImportProgress`] that watches nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quietly;

impl ImportProgress for Quietly {}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImportReport {
    /// The podcast's id.
    pub feed_id: String,
    /// Its RSS URL on this host (`links.rss`): where the old host should point.
    pub rss_url: String,
    /// Items in the source (after `limit`).
    pub items: usize,
    /// Episodes made.
    pub created: usize,
    /// Episodes that existed and got what they lacked (a file a former run could not fetch).
    pub completed: usize,
    /// Episodes that existed whole: nothing to do.
    pub unchanged: usize,
    /// Files downloaded and stored.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// What went wrong, one sentence each; the import went on.
    pub problems: Vec<String>,
}
