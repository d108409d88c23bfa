//! Who may use an account on the wire: personal tokens and a private podcast's subscribers.

use podhost_core::{
    PodcastHost,
    model::{Subscriber, Token},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Example, names::ScopeName};

/// A personal token, never its secret but when it is made.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Token")]
pub struct TokenRecord {
    /// Its id (`tok_…`).
    pub id: String,
    /// What it is for.
    pub label: String,
    /// What it may do.
    pub scopes: Vec<ScopeName>,
    /// When it was made.
    #[schemars(extend("format" = "date-time"))]
    pub created: String,
    /// When it was last used, to the minute.
    pub last_used: Option<String>,
    /// When it was revoked.
    pub revoked: Option<String>,
}

/// A personal token as its list shows it.
pub fn token(t: &Token, last_used: Option<jiff::Timestamp>) -> TokenRecord {
    TokenRecord {
        id: t.id.as_str().to_string(),
        label: t.label.clone(),
        scopes: t.scopes.iter().map(ScopeName).collect(),
        created: t.created.to_string(),
        last_used: last_used.map(|t| t.to_string()),
        revoked: t.revoked.map(|t| t.to_string()),
    }
}

/// A token just made, with its secret (shown only here).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CreatedToken {
    /// The token.
    #[serde(flatten)]
    pub record: TokenRecord,
    /// The bearer secret: shown only here.
    pub token: String,
}

/// A new personal token.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewToken {
    /// What it is for.
    #[schemars(length(max = 255))]
    pub label: Option<String>,
    /// What it may do (at least one scope): at most what the caller's token may.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub scopes: Vec<ScopeName>,
}

impl Example for NewToken {
    fn example() -> Value {
        json!({"label": "helper", "scopes": ["tokens"]})
    }
}

/// A private podcast's subscriber.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Subscriber")]
pub struct SubscriberRecord {
    /// Its id (`sub_…`).
    pub id: String,
    /// Who it is.
    pub label: String,
    /// The subscriber's own feed URL.
    pub feed_url: String,
    /// When it was made.
    #[schemars(extend("format" = "date-time"))]
    pub created: String,
    /// When it was revoked.
    pub revoked: Option<String>,
}

/// A private podcast's subscriber.
pub fn subscriber(host: &PodcastHost, s: &Subscriber) -> SubscriberRecord {
    SubscriberRecord {
        id: s.id.as_str().to_string(),
        label: s.label.clone(),
        feed_url: host.delivery().subscriber_feed_url(s),
        created: s.created.to_string(),
        revoked: s.revoked.map(|t| t.to_string()),
    }
}

/// A new subscriber of a private podcast.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NewSubscriber {
    /// Who it is.
    #[schemars(length(max = 255))]
    pub label: Option<String>,
}

impl Example for NewSubscriber {
    fn example() -> Value {
        json!({"label": "Jane (patron)"})
    }
}
