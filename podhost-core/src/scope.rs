//! Scopes: what a token allows.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// One permission a token can carry. A write scope includes its read-only scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// All media operations.
    Media,
    /// Reading media.
    MediaReadOnly,
    /// All feed operations.
    Feeds,
    /// Reading feeds.
    FeedsReadOnly,
    /// All episode operations.
    Shows,
    /// Reading episodes.
    ShowsReadOnly,
    /// Webhook subscriptions and processing.
    Webhooks,
    /// Download statistics.
    Stats,
    /// Personal tokens and OAuth clients: list, create, revoke (a token may only make tokens
    /// with scopes it has itself).
    Tokens,
    /// The server's metrics (`GET /metrics`): an operator's scraper.
    Metrics,
    /// Ad campaigns: create, change, pause and delete them.
    Ads,
    /// Reading ad campaigns and their statistics.
    AdsReadOnly,
    /// The account's members: invite, change roles, remove.
    Members,
    /// Reading the account's members and its activity (who did what).
    MembersReadOnly,
}

impl Scope {
    /// Every scope, in display order.
    pub const ALL: [Scope; 14] = [
        Scope::Media,
        Scope::MediaReadOnly,
        Scope::Feeds,
        Scope::FeedsReadOnly,
        Scope::Shows,
        Scope::ShowsReadOnly,
        Scope::Webhooks,
        Scope::Stats,
        Scope::Tokens,
        Scope::Metrics,
        Scope::Ads,
        Scope::AdsReadOnly,
        Scope::Members,
        Scope::MembersReadOnly,
    ];

    /// The wire name, e.g. `media-read-only`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Media => "media",
            Scope::MediaReadOnly => "media-read-only",
            Scope::Feeds => "feeds",
            Scope::FeedsReadOnly => "feeds-read-only",
            Scope::Shows => "shows",
            Scope::ShowsReadOnly => "shows-read-only",
            Scope::Webhooks => "webhooks",
            Scope::Stats => "stats",
            Scope::Tokens => "tokens",
            Scope::Metrics => "metrics",
            Scope::Ads => "ads",
            Scope::AdsReadOnly => "ads-read-only",
            Scope::Members => "members",
            Scope::MembersReadOnly => "members-read-only",
        }
    }

    /// What it allows, in a few words for people (the consent page lists these).
    pub fn description(self) -> &'static str {
        match self {
            Scope::Media => "upload, change and delete media files",
            Scope::MediaReadOnly => "see media files",
            Scope::Feeds => "create, change and delete podcasts",
            Scope::FeedsReadOnly => "see podcasts",
            Scope::Shows => "create, change, publish and delete episodes",
            Scope::ShowsReadOnly => "see episodes, drafts included",
            Scope::Webhooks => "manage webhook subscriptions and deliveries",
            Scope::Stats => "see download statistics",
            Scope::Tokens => "manage personal tokens and OAuth clients",
            Scope::Metrics => "read the server's metrics",
            Scope::Ads => "create, change, pause and delete ad campaigns",
            Scope::AdsReadOnly => "see ad campaigns and their statistics",
            Scope::Members => "invite members, change their roles and remove them",
            Scope::MembersReadOnly => "see the account's members and who did what",
        }
    }

    /// The write scope that includes this one (itself for write scopes).
    fn write_scope(self) -> Scope {
        match self {
            Scope::MediaReadOnly => Scope::Media,
            Scope::FeedsReadOnly => Scope::Feeds,
            Scope::ShowsReadOnly => Scope::Shows,
            Scope::AdsReadOnly => Scope::Ads,
            Scope::MembersReadOnly => Scope::Members,
            other => other,
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name that is not one of [`Scope::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope \"{0}\" (known: {known})", known = Scopes::all().to_string().replace(',', ", "))]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s.trim())
            .ok_or_else(|| UnknownScope(s.to_string()))
    }
}

/// A set of scopes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Scopes(std::collections::BTreeSet<Scope>);

impl Scopes {
    /// Every scope.
    pub fn all() -> Self {
        Scope::ALL.into_iter().collect()
    }

    /// Parses a comma-separated list such as `media,feeds,shows`.
    pub fn parse_list(list: &str) -> Result<Self, UnknownScope> {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect()
    }

    /// True when these scopes allow what `needed` allows (a write scope includes its read-only
    /// scope).
    pub fn allows(&self, needed: Scope) -> bool {
        self.0.contains(&needed) || self.0.contains(&needed.write_scope())
    }

    /// Whether every scope of `other` is allowed by these.
    pub fn covers(&self, other: &Scopes) -> bool {
        other.iter().all(|s| self.allows(s))
    }

    /// The scopes in order.
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }

    /// The scopes both sets allow (a write scope in one and its read-only scope in the other
    /// give the read-only scope).
    pub fn intersect(&self, other: &Scopes) -> Scopes {
        Scope::ALL
            .into_iter()
            .filter(|s| self.allows(*s) && other.allows(*s))
            .filter(|s| {
                // A read-only scope is kept only when its write scope is not.
                s.write_scope() == *s
                    || !(self.allows(s.write_scope()) && other.allows(s.write_scope()))
            })
            .collect()
    }

    /// True when there is no scope.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<Scope> for Scopes {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Scopes(iter.into_iter().collect())
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.iter().map(Scope::as_str).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_scope_includes_read_only_but_not_the_reverse() {
        let cases = [
            ("media", Scope::MediaReadOnly, true),
            ("media-read-only", Scope::Media, false),
            ("feeds", Scope::FeedsReadOnly, true),
            ("shows", Scope::ShowsReadOnly, true),
            ("shows-read-only", Scope::ShowsReadOnly, true),
            ("shows", Scope::Media, false),
            ("stats", Scope::Stats, true),
            ("ads", Scope::AdsReadOnly, true),
            ("ads-read-only", Scope::Ads, false),
            ("", Scope::Stats, false),
        ];
        for (list, needed, allowed) in cases {
            let scopes = Scopes::parse_list(list).unwrap();
            assert_eq!(scopes.allows(needed), allowed, "{list} allows {needed}");
        }
    }

    #[test]
    fn an_intersection_keeps_what_both_allow() {
        let cases = [
            (
                "media,feeds",
                "media-read-only,feeds",
                "media-read-only,feeds",
            ),
            ("media", "feeds", ""),
            ("ads-read-only", "ads", "ads-read-only"),
            ("members", "members,tokens", "members"),
            (
                "shows,stats",
                "shows-read-only,stats",
                "shows-read-only,stats",
            ),
        ];
        for (a, b, both) in cases {
            let (a, b) = (
                Scopes::parse_list(a).unwrap(),
                Scopes::parse_list(b).unwrap(),
            );
            assert_eq!(a.intersect(&b).to_string(), both, "{a} and {b}");
            assert_eq!(b.intersect(&a).to_string(), both, "{b} and {a}");
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_rejected() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>().unwrap(), scope);
        }
        assert!(Scopes::parse_list("media,admin").is_err());
        assert_eq!(
            Scopes::all().to_string(),
            "media,media-read-only,feeds,feeds-read-only,shows,shows-read-only,webhooks,stats,tokens,metrics,ads,ads-read-only,members,members-read-only"
        );
        assert_eq!(
            "admin".parse::<Scope>().unwrap_err().to_string(),
            "unknown scope \"admin\" (known: media, media-read-only, feeds, feeds-read-only, shows, shows-read-only, webhooks, stats, tokens, metrics, ads, ads-read-only, members, members-read-only)"
        );
    }
}
