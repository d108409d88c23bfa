//! Typed identifiers: each one validated once, when it is made.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The largest id a JavaScript client can hold exactly (2^53 - 1).
pub const MAX_SAFE_ID: u64 = (1 << 53) - 1;

/// An account: lowercase letters, digits, `-` and `_`, 1 to 63 characters, starting with a
/// letter or digit. It names the account's partition in the store.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AccountId(String);

impl AccountId {
    /// Validates an account name.
    pub fn new(name: &str) -> Result<Self> {
        let ok = !name.is_empty()
            && name.len() <= 63
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
            && name.as_bytes()[0].is_ascii_alphanumeric();
        if ok {
            Ok(AccountId(name.to_string()))
        } else {
            Err(Error::invalid(
                "account",
                "an account name has 1 to 63 lowercase letters, digits, '-' or '_' and starts with a letter or digit",
            ))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A feed (podcast): 1 to 100 characters, no `/` and no control characters; spaces and Unicode
/// are allowed. Unique across the deployment and never reused, because it appears in public URLs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FeedId(String);

impl FeedId {
    /// The rule of [`FeedId::new`] as an ECMA-262 regular expression (for JSON Schema): no `/`,
    /// no control character, no white space at either end; the length (1 to 100) is apart.
    pub const PATTERN: &'static str = r"^[^/\s\u0000-\u001f\u007f-\u009f]([^/\u0000-\u001f\u007f-\u009f]*[^/\s\u0000-\u001f\u007f-\u009f])?$";

    /// [`FeedId::PATTERN`] in words, as a refusal names what is accepted.
    pub const RULE: &'static str = "a podcast id: 1 to 100 characters, with no '/', no control characters and no space at either end";

    /// Validates a feed id.
    pub fn new(id: &str) -> Result<Self> {
        let chars = id.chars().count();
        if chars == 0 || chars > 100 {
            return Err(Error::invalid("id", "a feed id has 1 to 100 characters"));
        }
        if id.contains('/') || id.chars().any(char::is_control) {
            return Err(Error::invalid(
                "id",
                "a feed id has no '/' and no control characters",
            ));
        }
        if id.trim() != id {
            return Err(Error::invalid(
                "id",
                "a feed id does not start or end with white space",
            ));
        }
        Ok(FeedId(id.to_string()))
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The podcast's user name on the fediverse (the `name` of `@name@host`), which every
    /// fediverse server can follow: the id itself when it is a lowercase ASCII name (letters,
    /// digits, `_`, and `.` or `-` inside, no `--`), as most ids are; otherwise its letters and
    /// digits, `--`, and the whole id in base32 (`Bad Id!` is `bad-id--ijqwiicjmqqq`). Derived
    /// from the id alone, so it is stable and unique (ignoring case, as servers compare it), and
    /// [`FeedId::from_fediverse_name`] reads it back without a lookup.
    pub fn fediverse_name(&self) -> String {
        if is_plain_name(&self.0) {
            return self.0.clone();
        }
        let mut readable = String::new();
        for c in self.0.chars() {
            if c.is_ascii_alphanumeric() {
                readable.push(c.to_ascii_lowercase());
            } else if !readable.is_empty() && !readable.ends_with('-') {
                readable.push('-');
            }
            if readable.len() >= 30 {
                break;
            }
        }
        let readable = readable.trim_end_matches('-');
        let readable = if readable.is_empty() {
            "podcast"
        } else {
            readable
        };
        let encoded = data_encoding::BASE32_NOPAD
            .encode(self.0.as_bytes())
            .to_ascii_lowercase();
        format!("{readable}--{encoded}")
    }

    /// The podcast whose [`FeedId::fediverse_name`] is `name` (compared ignoring case).
    pub fn from_fediverse_name(name: &str) -> Option<FeedId> {
        let name = name.to_ascii_lowercase();
        if is_plain_name(&name) {
            return FeedId::new(&name).ok();
        }
        let (_, encoded) = name.rsplit_once("--")?;
        let bytes = data_encoding::BASE32_NOPAD
            .decode(encoded.to_ascii_uppercase().as_bytes())
            .ok()?;
        let feed = FeedId::new(&String::from_utf8(bytes).ok()?).ok()?;
        (feed.fediverse_name() == name).then_some(feed)
    }
}

/// Whether `name` is a fediverse user name as it is (Mastodon's rule, lowercase, no `--`).
fn is_plain_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let word = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_';
    !bytes.is_empty()
        && bytes.iter().all(|b| word(b) || *b == b'.' || *b == b'-')
        && bytes.first().is_some_and(word)
        && bytes.last().is_some_and(word)
        && !name.contains("--")
}

/// A media file: a positive integer no larger than [`MAX_SAFE_ID`], unique within its account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct MediaId(u64);

impl MediaId {
    /// The smallest media id.
    pub(crate) const MIN: MediaId = MediaId(1);

    /// Validates a media id.
    pub fn new(id: u64) -> Result<Self> {
        if (1..=MAX_SAFE_ID).contains(&id) {
            Ok(MediaId(id))
        } else {
            Err(Error::invalid(
                "media_id",
                format!("a media id is an integer from 1 to {MAX_SAFE_ID}"),
            ))
        }
    }

    /// The number.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// An episode (show): written `pod-<digits>`, unique within its account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EpisodeId(u64);

impl EpisodeId {
    /// The written form as a regular expression (for JSON Schema): `pod-` and a number from 1,
    /// at most 16 digits (the largest, 2^53-1, has 16).
    pub const PATTERN: &'static str = "^pod-0*[1-9][0-9]{0,15}$";

    /// [`EpisodeId::PATTERN`] in words, as a refusal names what is accepted.
    pub const RULE: &'static str = "an episode id: pod- and a number from 1, e.g. pod-12";

    /// The episode with this number.
    pub fn new(n: u64) -> Result<Self> {
        if (1..=MAX_SAFE_ID).contains(&n) {
            Ok(EpisodeId(n))
        } else {
            Err(Error::invalid(
                "show_id",
                "an episode number is from 1 to 2^53-1",
            ))
        }
    }

    /// The number after `pod-`.
    pub fn number(self) -> u64 {
        self.0
    }
}

/// A random identifier: `prefix` and `len` lowercase letters or digits (base32's alphabet).
pub(crate) fn random_id(prefix: &str, len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut rng = rand::rng();
    let tail: String = (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("{prefix}{tail}")
}

impl FromStr for EpisodeId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        s.strip_prefix("pod-")
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse::<u64>().ok())
            .ok_or_else(|| Error::invalid("show_id", "an episode id looks like pod-<digits>"))
            .and_then(EpisodeId::new)
    }
}

impl FromStr for MediaId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::invalid(
                "media_id",
                "a media id is a positive integer",
            ));
        }
        s.parse::<u64>()
            .map_err(|_| Error::invalid("media_id", "a media id is a positive integer"))
            .and_then(MediaId::new)
    }
}

impl FromStr for AccountId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        AccountId::new(s)
    }
}

impl FromStr for FeedId {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        FeedId::new(s)
    }
}

macro_rules! string_conversions {
    ($($t:ty),*) => {$(
        impl TryFrom<String> for $t {
            type Error = Error;
            fn try_from(s: String) -> Result<Self> {
                s.parse()
            }
        }
    )*};
}
/// Ids made of a prefix and random lowercase letters or digits (not secrets: secrets carry
/// them and more).
macro_rules! random_ids {
    ($($(#[$doc:meta])* $name:ident = $prefix:literal + $len:literal, $field:literal, $noun:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            pub(crate) fn random() -> Self {
                $name(random_id($prefix, $len))
            }

            /// The id as written.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl FromStr for $name {
            type Err = Error;

            fn from_str(s: &str) -> Result<Self> {
                let ok = s.len() == $prefix.len() + $len
                    && s.starts_with($prefix)
                    && s[$prefix.len()..]
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
                if ok {
                    Ok($name(s.to_string()))
                } else {
                    Err(Error::invalid(
                        $field,
                        concat!($noun, " looks like ", $prefix, " followed by ", $len, " letters or digits"),
                    ))
                }
            }
        }
    )*};
}

random_ids! {
    /// An OAuth client's public id (`cli_` and 16 letters or digits), deployment-wide.
    ClientId = "cli_" + 16, "client_id", "an id that";
    /// A grant an account gave an OAuth client (`gr_` and 20 letters or digits).
    GrantId = "gr_" + 20, "grant_id", "an id that";
    /// A signed-in session's public id (`ses_` and 20 letters or digits); the cookie carries it
    /// with a secret.
    SessionId = "ses_" + 20, "session_id", "an id that";
    /// A subscriber of a private podcast (`sub_` and 16 letters or digits); their feed URL
    /// carries it with a secret.
    SubscriberId = "sub_" + 16, "subscriber_id", "an id that";
    /// An ad campaign (`cmp_` and 16 letters or digits).
    CampaignId = "cmp_" + 16, "campaign_id", "an id that";
    /// A member of an account (`mem_` and 16 letters or digits), deployment-wide: an invitation
    /// carries it.
    MemberId = "mem_" + 16, "member_id", "an id that";
    /// A token's public identifier (`tok_` and 16 letters or digits); it is not the secret.
    TokenId = "tok_" + 16, "token_id", "a token id";
    /// A background job (`job_` and 20 letters or digits), random, unique in the account.
    JobId = "job_" + 20, "id", "a job id";
}

impl MemberId {
    /// The member an account was created with (its founding owner): the same id on every
    /// process, derived from the account's name.
    pub fn founder(account: &AccountId) -> Self {
        use sha2::{Digest, Sha256};
        let digest = hex::encode(Sha256::digest(account.as_str().as_bytes()));
        MemberId(format!("mem_{}", &digest[..16]))
    }
}

/// How a person signs in: a lowercase name (an account name's rules) or an e-mail address,
/// at most 254 characters. Case and surrounding spaces are not part of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Login(String);

impl Login {
    /// The rule of [`Login::new`] as an ECMA-262 regular expression (for JSON Schema), for a
    /// login written as stored (lowercase, no surrounding space).
    pub const PATTERN: &'static str = r"^([a-z0-9][a-z0-9_-]{0,62}|[^@\s\u0000-\u001f\u007f-\u009fA-Z]+@[^@\s.\u0000-\u001f\u007f-\u009fA-Z][^@\s\u0000-\u001f\u007f-\u009fA-Z]*\.[^@\s\u0000-\u001f\u007f-\u009fA-Z]*[^@\s.\u0000-\u001f\u007f-\u009fA-Z])$";

    /// [`Login::PATTERN`] in words, as a refusal names what is accepted.
    pub const RULE: &'static str =
        "a login: a lowercase name of letters, digits, - and _ (at most 63), or an e-mail address";

    /// Validates a login (trimmed and lowercased first).
    pub fn new(login: &str) -> Result<Self> {
        let login = login.trim().to_lowercase();
        let name = AccountId::new(&login).is_ok();
        let email = login.len() <= 254
            && login.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains('@')
            })
            && !login.chars().any(|c| c.is_whitespace() || c.is_control());
        if name || email {
            Ok(Login(login))
        } else {
            Err(Error::invalid(
                "login",
                "a login is a lowercase name (letters, digits, '-' or '_') or an e-mail address",
            ))
        }
    }

    /// The login as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Login {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Login::new(s)
    }
}

string_conversions!(
    AccountId,
    FeedId,
    EpisodeId,
    TokenId,
    JobId,
    ClientId,
    GrantId,
    SessionId,
    SubscriberId,
    CampaignId,
    MemberId,
    Login
);

impl TryFrom<u64> for MediaId {
    type Error = Error;
    fn try_from(n: u64) -> Result<Self> {
        MediaId::new(n)
    }
}

impl From<MediaId> for u64 {
    fn from(id: MediaId) -> u64 {
        id.0
    }
}

impl From<EpisodeId> for String {
    fn from(id: EpisodeId) -> String {
        id.to_string()
    }
}

macro_rules! display_inner_string {
    ($($t:ty),*) => {$(
        impl From<$t> for String {
            fn from(id: $t) -> String {
                id.0
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    )*};
}
display_inner_string!(
    AccountId,
    FeedId,
    TokenId,
    JobId,
    ClientId,
    GrantId,
    SessionId,
    SubscriberId,
    CampaignId,
    MemberId,
    Login
);

impl fmt::Display for MediaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for EpisodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pod-{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_podcast_id_has_a_fediverse_name_that_servers_follow_and_that_leads_back() {
        let mastodon = regex::Regex::new(r"^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$").unwrap();
        let ids = [
            "my-show",
            "show_2024",
            "a",
            "Bad Id!",
            "Show",
            "show",
            "über kunst",
            "a--b",
            "日本",
            "-lead",
            "x.y",
            "x.",
            "🎙️ Talk",
        ];
        let mut names = std::collections::HashSet::new();
        for id in ids {
            let feed = FeedId::new(id).unwrap();
            let name = feed.fediverse_name();
            assert!(mastodon.is_match(&name), "{id:?} is named {name:?}");
            assert!(names.insert(name.clone()), "{name:?} names two podcasts");
            assert_eq!(
                FeedId::from_fediverse_name(&name),
                Some(feed.clone()),
                "{name}"
            );
            assert_eq!(
                FeedId::from_fediverse_name(&name.to_uppercase()),
                Some(feed),
                "{name} in capitals"
            );
        }
        assert_eq!(FeedId::new("my-show").unwrap().fediverse_name(), "my-show");
        assert_eq!(
            FeedId::new("Bad Id!").unwrap().fediverse_name(),
            "bad-id--ijqwiicjmqqq"
        );
        // A name that only looks derived names nothing.
        assert_eq!(FeedId::from_fediverse_name("bad-id--zzzz"), None);
        assert_eq!(FeedId::from_fediverse_name("other--ijqwiicjmqqq"), None);
    }

    #[test]
    fn ids_accept_and_reject_as_documented() {
        let accounts = [
            ("admin", true),
            ("a-1_b", true),
            ("", false),
            ("Admin", false),
            ("-x", false),
            ("a/b", false),
        ];
        for (s, ok) in accounts {
            assert_eq!(AccountId::new(s).is_ok(), ok, "account {s:?}");
        }
        let long = "x".repeat(101);
        let feeds = [
            ("my show", true),
            ("Café ☕", true),
            ("", false),
            ("a/b", false),
            ("tab\there", false),
            (" lead", false),
            (long.as_str(), false),
        ];
        for (s, ok) in feeds {
            assert_eq!(FeedId::new(s).is_ok(), ok, "feed {s:?}");
        }
        let episodes = [
            ("pod-1", true),
            ("pod-0", false),
            ("pod-", false),
            ("pod-12a", false),
            ("12", false),
            ("pod-+1", false),
        ];
        for (s, ok) in episodes {
            assert_eq!(s.parse::<EpisodeId>().is_ok(), ok, "episode {s:?}");
        }
        let media = [
            ("1", true),
            ("9007199254740991", true),
            ("9007199254740992", false),
            ("0", false),
            ("-1", false),
            ("1.5", false),
            ("", false),
        ];
        for (s, ok) in media {
            assert_eq!(s.parse::<MediaId>().is_ok(), ok, "media {s:?}");
        }
        let token = TokenId::random();
        assert_eq!(token.as_str().parse::<TokenId>().unwrap(), token);
    }
}
