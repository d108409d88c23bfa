//! Path parameters: each is a field of its endpoint's variant, named as in the template
//! (`{media_id}`) and typed ([`PathValue`]): the type says how the text is parsed and what the
//! OpenAPI schema is. That the fields are the template's parameters, in order, is checked at
//! compile time ([`same`]).

use podhost_core::{
    CampaignId, EpisodeId, FeedId, JobId, MediaId, MemberId, SubscriberId, TokenId,
};
use serde_json::{Value, json};

/// The kind of a path parameter: how it is parsed and what its OpenAPI schema is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A media id; malformed: 400.
    Media,
    /// A feed id; one that cannot exist: 404.
    Feed,
    /// An episode id (`pod-<digits>`); malformed: 400.
    Episode,
    /// A job id; malformed: 404.
    Job,
    /// A personal token's id; malformed: 404.
    Token,
    /// A subscriber's id; malformed: 404.
    Subscriber,
    /// An ad campaign's id; malformed: 404.
    Campaign,
    /// A member's id; malformed: 404.
    Member,
    /// Any non-empty text (a webhook id, an account, a blob, a file name).
    Text,
    /// An event number; malformed: 400.
    Seq,
}

impl ParamKind {
    /// The OpenAPI schema of a parameter of this kind.
    pub fn schema(self) -> Value {
        match self {
            ParamKind::Media => {
                json!({"type": "integer", "minimum": 1, "maximum": podhost_core::MAX_SAFE_ID})
            }
            ParamKind::Feed => {
                json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": FeedId::PATTERN})
            }
            ParamKind::Episode => json!({"type": "string", "pattern": EpisodeId::PATTERN}),
            ParamKind::Job => json!({"type": "string", "pattern": "^job_[a-z0-9]{20}$"}),
            ParamKind::Token => json!({"type": "string", "pattern": "^tok_[a-z0-9]{16}$"}),
            ParamKind::Subscriber => json!({"type": "string", "pattern": "^sub_[a-z0-9]{16}$"}),
            ParamKind::Campaign => json!({"type": "string", "pattern": "^cmp_[a-z0-9]{16}$"}),
            ParamKind::Member => json!({"type": "string", "pattern": "^mem_[a-z0-9]{16}$"}),
            ParamKind::Text => json!({"type": "string", "minLength": 1}),
            ParamKind::Seq => json!({"type": "integer", "minimum": 1}),
        }
    }

    /// A value of this kind, as a path segment (tests fill templates with these).
    pub fn sample(self) -> &'static str {
        match self {
            ParamKind::Media => "1",
            ParamKind::Feed => "f",
            ParamKind::Episode => "pod-1",
            ParamKind::Job => "job_abcdefghijklmnopqrst",
            ParamKind::Token => "tok_abcdefghijklmnop",
            ParamKind::Subscriber => "sub_abcdefghijklmnop",
            ParamKind::Campaign => "cmp_abcdefghijklmnop",
            ParamKind::Member => "mem_abcdefghijklmnop",
            ParamKind::Text => "t",
            ParamKind::Seq => "1",
        }
    }
}

/// A path parameter of a row: its name in the template and its kind.
#[derive(Debug, Clone, Copy)]
pub struct PathParam {
    /// The name between braces in the template.
    pub name: &'static str,
    /// How it is parsed.
    pub kind: ParamKind,
}

impl PathParam {
    /// Its description in the OpenAPI document.
    pub fn description(&self) -> &'static str {
        match self.name {
            "media_id" | "id" => "media id",
            "feed_id" => "feed id (URL-encoded)",
            "show_id" => "episode id",
            "job_id" => "job id",
            "webhook_id" => "subscription id (wh_…)",
            "seq" => "the event's number (`seq` of a delivery)",
            "token_id" => "token id (tok_…)",
            "subscriber_id" => "subscriber id (sub_…)",
            "key" => "a subscriber's key (sub_…_…)",
            "client_id" => "OAuth client id (cli_…)",
            "grant_id" => "grant id (gr_…)",
            "account" => "the account",
            "blob" => "the stored version of a file",
            "name" => "the file name",
            _ => "",
        }
    }
}

/// Why a path parameter names nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// Malformed (400 with this message).
    BadRequest(String),
    /// It cannot name anything (404).
    NotFound,
}

/// A type a path parameter is parsed into.
pub trait PathValue: Sized {
    /// Its kind.
    const KIND: ParamKind;
    /// The value of a (percent-decoded) path segment.
    fn parse(text: &str) -> Result<Self, ParamError>;
}

fn bad(text: &str, what: &str) -> ParamError {
    ParamError::BadRequest(format!("\"{text}\" is not {what}"))
}

impl PathValue for MediaId {
    const KIND: ParamKind = ParamKind::Media;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse()
            .map_err(|_| bad(text, "a media id (a positive integer)"))
    }
}

impl PathValue for FeedId {
    const KIND: ParamKind = ParamKind::Feed;
    fn parse(text: &str) -> Result<Self, ParamError> {
        FeedId::new(text).map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for EpisodeId {
    const KIND: ParamKind = ParamKind::Episode;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse()
            .map_err(|_| bad(text, "an episode id (pod-<digits>)"))
    }
}

impl PathValue for JobId {
    const KIND: ParamKind = ParamKind::Job;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for TokenId {
    const KIND: ParamKind = ParamKind::Token;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for SubscriberId {
    const KIND: ParamKind = ParamKind::Subscriber;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for CampaignId {
    const KIND: ParamKind = ParamKind::Campaign;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for MemberId {
    const KIND: ParamKind = ParamKind::Member;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| ParamError::NotFound)
    }
}

impl PathValue for String {
    const KIND: ParamKind = ParamKind::Text;
    fn parse(text: &str) -> Result<Self, ParamError> {
        match text {
            "" => Err(ParamError::NotFound),
            text => Ok(text.to_string()),
        }
    }
}

impl PathValue for u64 {
    const KIND: ParamKind = ParamKind::Seq;
    fn parse(text: &str) -> Result<Self, ParamError> {
        text.parse().map_err(|_| bad(text, "an event number"))
    }
}

/// The next raw parameter, for the builders `endpoints!` writes.
pub fn next<'a>(args: &mut std::slice::Iter<'a, String>) -> Result<&'a str, ParamError> {
    args.next().map(String::as_str).ok_or(ParamError::NotFound)
}

/// Whether the parameters of `template` (the names between braces) are `names`, in order:
/// checked at compile time for every row, so a variant's fields are its template's parameters.
pub const fn same(template: &str, names: &[&str]) -> bool {
    let t = template.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while i < t.len() {
        if t[i] == b'{' {
            if n == names.len() {
                return false;
            }
            let name = names[n].as_bytes();
            let mut j = 0;
            i += 1;
            while i < t.len() && t[i] != b'}' {
                if j >= name.len() || name[j] != t[i] {
                    return false;
                }
                i += 1;
                j += 1;
            }
            if j != name.len() {
                return false;
            }
            n += 1;
        }
        i += 1;
    }
    n == names.len()
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn templates_and_fields_agree_or_not() {
        assert!(same("/api/media", &[]));
        assert!(same("/api/media/{media_id}", &["media_id"]));
        assert!(same(
            "/api/feed/{feed_id}/show/{show_id}",
            &["feed_id", "show_id"]
        ));
        assert!(same(
            "/chapters/{account}/{blob}.json",
            &["account", "blob"]
        ));
        assert!(!same("/api/media/{media_id}", &["id"]));
        assert!(!same("/api/media/{media_id}", &["media"]));
        assert!(!same("/api/media/{media_id}", &[]));
        assert!(!same("/api/media", &["media_id"]));
        assert!(!same(
            "/api/feed/{feed_id}/show/{show_id}",
            &["show_id", "feed_id"]
        ));
    }
}
