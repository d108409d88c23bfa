//! The fediverse: each public podcast is an ActivityPub actor (`@{feed}@{host}`) that people
//! on Mastodon and its kin follow; its episodes are posted to its followers (by the work
//! service's delivery rounds, as signed activities over the webhooks' machinery), and the
//! replies, likes and boosts its posts get come back to its inbox as comments and reactions.
//! The protocol's pure parts (documents, signatures, keys, what an inbox reads) are in
//! [`crate::activitypub`]; this service holds the reads of the actors' documents, the inbox, and
//! the podcaster's moderation (comments hidden, actors and instances blocked).
//!
//! Its boundary is [`Fediverse`], reached through [`PodcastHost::fediverse`]. Its state is this
//! process's cache of remote actors' keys, its count of each instance's verified requests and
//! of each address's requests that could not be verified (`known_actors.rs`); everything kept
//! lives in the accounts' logs.
//!
//! **Invariants:** a podcast is an actor only while it is public and its `fediverse` setting
//! is on (else every document of it answers 404, and nothing is posted); nothing from a blocked
//! actor or instance is accepted (an instance is blocked by host name, at every port); an
//! activity is acted on only when it is signed for this deployment's host by a key its actor
//! owns, and only once (a repeated delivery changes nothing); nothing is counted against an
//! instance before its signature verified; replies, likes and boosts are kept only of public
//! posts, and objects only under ids on their author's origin; the documents' reads only read.

mod actors;
mod inbox;
pub(super) mod known_actors;
mod moderation;

use super::PodcastHost;

pub use actors::FediverseDocument;
pub use inbox::{Inbound, InboxError, Received, Refusal};

/// The fediverse of a host (see the module's docs). A borrowed handle, cheap to make:
/// `host.fediverse().actor(&feed)`.
#[derive(Clone, Copy)]
pub struct Fediverse<'h> {
    host: &'h PodcastHost,
}

impl PodcastHost {
    /// The fediverse service: actors, inbox, comments and blocks.
    pub fn fediverse(&self) -> Fediverse<'_> {
        Fediverse { host: self }
    }
}

impl Fediverse<'_> {
    fn state(&self) -> &known_actors::KnownActors {
        &self.host.inner.fediverse
    }
}
