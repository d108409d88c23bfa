//! The oEmbed 1.0 answer (<https://oembed.com>), its `rich` type: what a site that unfolds links
//! gets for a podcast's or an episode's page, the player's `<iframe>` to embed.

use podhost_core::publish::page::Embedding;
use schemars::JsonSchema;
use serde::Serialize;

/// How long a consumer may keep an answer, in seconds (the player shows a podcast's newest
/// episode, which changes).
pub const CACHE_AGE: u32 = 3600;

/// An oEmbed answer of the `rich` type.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OEmbed")]
pub struct OEmbed {
    /// `1.0`.
    pub version: &'static str,
    /// `rich`: HTML to embed.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The episode's title (a podcast's page: the podcast's).
    pub title: String,
    /// Who makes the podcast.
    pub author_name: String,
    /// The podcast's page.
    pub author_url: String,
    /// `podhost`.
    pub provider_name: String,
    /// The deployment's URL.
    pub provider_url: String,
    /// How long the answer may be kept, in seconds.
    pub cache_age: u32,
    /// The player's `<iframe>`.
    pub html: String,
    /// The player's width, in CSS pixels (at most the consumer's `maxwidth`).
    pub width: u32,
    /// The player's height, in CSS pixels (at most the consumer's `maxheight`).
    pub height: u32,
    /// The cover, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail_url: Option<String>,
    /// The cover's width, in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail_width: Option<u32>,
    /// The cover's height, in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail_height: Option<u32>,
}

impl From<Embedding> for OEmbed {
    fn from(e: Embedding) -> Self {
        OEmbed {
            version: "1.0",
            kind: "rich",
            title: e.title,
            author_name: e.author_name,
            author_url: e.author_url,
            provider_name: e.provider_name,
            provider_url: e.provider_url,
            cache_age: CACHE_AGE,
            html: e.html,
            width: e.width,
            height: e.height,
            thumbnail_url: e.thumbnail.as_ref().map(|t| t.url.clone()),
            thumbnail_width: e.thumbnail.as_ref().map(|t| t.width),
            thumbnail_height: e.thumbnail.as_ref().map(|t| t.height),
        }
    }
}
