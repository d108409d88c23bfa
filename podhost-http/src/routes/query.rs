//! Query parameters several routes share.

use podhost_core::{model::PageRequest, stats as core_stats};
use serde_json::json;

use super::QueryParam;

/// `page[number]`.
pub const PAGE_NUMBER: QueryParam = QueryParam {
    name: "page[number]",
    schema: || json!({"type": "integer", "minimum": 1, "default": 1}),
    description: "page number, from 1",
};

/// `page[size]`.
pub const PAGE_SIZE: QueryParam = QueryParam {
    name: "page[size]",
    schema: || json!({"type": "integer", "minimum": 1, "maximum": PageRequest::MAX_SIZE, "default": PageRequest::DEFAULT_SIZE}),
    description: "page size",
};

/// `page`: which page of a web page's list (the podcast page's episodes).
pub const PAGE: QueryParam = QueryParam {
    name: "page",
    schema: || json!({"type": "integer", "minimum": 1, "default": 1}),
    description: "page of the list of episodes, from 1 (the newest; a serial show's first)",
};

/// `url` of oEmbed: the page to embed.
pub const OEMBED_URL: QueryParam = QueryParam {
    name: "url",
    schema: || json!({"type": "string", "format": "uri"}),
    description: "the URL of a podcast's or an episode's page (or player); required",
};

/// `format` of oEmbed.
pub const OEMBED_FORMAT: QueryParam = QueryParam {
    name: "format",
    schema: || json!({"type": "string", "enum": ["json", "xml"], "default": "json"}),
    description: "`json`; `xml` is answered 501, as oEmbed allows",
};

/// `maxwidth` of oEmbed.
pub const OEMBED_MAX_WIDTH: QueryParam = QueryParam {
    name: "maxwidth",
    schema: || json!({"type": "integer", "minimum": 1}),
    description: "the widest player the consumer can show, in CSS pixels",
};

/// `maxheight` of oEmbed.
pub const OEMBED_MAX_HEIGHT: QueryParam = QueryParam {
    name: "maxheight",
    schema: || json!({"type": "integer", "minimum": 1}),
    description: "the tallest player the consumer can show, in CSS pixels",
};

/// `from`: the first day of a statistics report.
pub const FROM: QueryParam = QueryParam {
    name: "from",
    schema: || json!({"type": "string", "format": "date", "description": format!("default: {} days before `to`", core_stats::DEFAULT_DAYS - 1)}),
    description: "first UTC day (YYYY-MM-DD)",
};

/// `to`: the last day of a statistics report.
pub const TO: QueryParam = QueryParam {
    name: "to",
    schema: || json!({"type": "string", "format": "date", "description": format!("default: today; at most {} days in all", core_stats::MAX_DAYS)}),
    description: "last UTC day, included",
};

/// A parameter of the OAuth authorization request (text).
pub const fn oauth(name: &'static str, description: &'static str) -> QueryParam {
    QueryParam {
        name,
        schema: || json!({"type": "string"}),
        description,
    }
}

/// `feed_id`: only what concerns this podcast.
pub const FEED_ID: QueryParam = QueryParam {
    name: "feed_id",
    schema: || json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": podhost_core::FeedId::PATTERN}),
    description: "only changes to this podcast and its episodes",
};

/// `member_id`: only what this member did.
pub const MEMBER_ID: QueryParam = QueryParam {
    name: "member_id",
    schema: || json!({"type": "string", "pattern": "^mem_[a-z0-9]{16}$"}),
    description: "only changes this member made",
};

/// `from` of the activity: a moment.
pub const SINCE: QueryParam = QueryParam {
    name: "from",
    schema: || json!({"type": "string", "format": "date-time"}),
    description: "only changes at or after this moment (RFC 3339)",
};

/// `to` of the activity: a moment.
pub const UNTIL: QueryParam = QueryParam {
    name: "to",
    schema: || json!({"type": "string", "format": "date-time"}),
    description: "only changes before this moment (RFC 3339)",
};

/// `resource` of WebFinger: the account looked up.
pub const WEBFINGER_RESOURCE: QueryParam = QueryParam {
    name: "resource",
    schema: || json!({"type": "string"}),
    description: "the account: `acct:{name}@{host}` (the podcast's `fediverse_handle`), or the actor's or the podcast page's URL",
};
