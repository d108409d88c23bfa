//! The fediverse: what finds a podcast's ActivityPub actor (WebFinger, NodeInfo), the actor and
//! its collections, its episodes' posts, and the inboxes.

use podhost_core::{EpisodeId, FeedId};

use crate::routes::{
    Shape, Spec,
    declare::endpoints,
    query::{PAGE, WEBFINGER_RESOURCE},
};

/// The media type of ActivityPub's documents, as the table names it.
const AP: &str = "application/activity+json";

endpoints! {
    /// The fediverse: WebFinger, NodeInfo, each public podcast's ActivityPub actor and inbox.
    pub enum FediverseEndpoint: Public, tag "fediverse";

    /// WebFinger (RFC 7033): a podcast's actor by its handle `@{feed_id}@{host}`
    WebFinger {} = GET "/.well-known/webfinger",
        Spec::open()
            .query(&[WEBFINGER_RESOURCE])
            .answers(200, "the account's links", Shape::Document("application/jrd+json"))
            .errors(&[400, 404, 410]);

    /// NodeInfo discovery: where the deployment's NodeInfo is
    NodeInfoLinks {} = GET "/.well-known/nodeinfo",
        Spec::open()
            .answers(200, "the links", Shape::Document("application/json"));

    /// NodeInfo 2.1: podhost, ActivityPub, its podcasts
    NodeInfo {} = GET "/nodeinfo/2.1",
        Spec::open()
            .answers(200, "the deployment", Shape::Document("application/json"));

    /// a public podcast's ActivityPub actor (a `Service`): its profile from the podcast, its public key
    Actor { feed_id: FeedId } = GET "/ap/podcasts/{feed_id}",
        Spec::open()
            .answers(200, "the actor", Shape::Document(AP))
            .errors(&[404, 410]);

    /// the podcast's outbox: its episodes' posts, newest first, 20 a page
    Outbox { feed_id: FeedId } = GET "/ap/podcasts/{feed_id}/outbox",
        Spec::open()
            .query(&[PAGE])
            .answers(200, "the collection or one page of it", Shape::Document(AP))
            .errors(&[404, 410]);

    /// how many follow the podcast
    Followers { feed_id: FeedId } = GET "/ap/podcasts/{feed_id}/followers",
        Spec::open()
            .answers(200, "the collection", Shape::Document(AP))
            .errors(&[404, 410]);

    /// the podcast's featured post: its newest episode's
    Featured { feed_id: FeedId } = GET "/ap/podcasts/{feed_id}/featured",
        Spec::open()
            .answers(200, "the collection", Shape::Document(AP))
            .errors(&[404, 410]);

    /// the podcast's inbox: follows, replies (comments), likes and boosts, signed (HTTP Signatures: the draft, or RFC 9421)
    Inbox { feed_id: FeedId } = POST "/ap/podcasts/{feed_id}/inbox",
        Spec::open()
            .answers(202, "accepted", Shape::Empty)
            .errors(&[400, 401, 403, 404, 413, 429]);

    /// the deployment's shared inbox: activities for any of its podcasts
    SharedInbox {} = POST "/ap/inbox",
        Spec::open()
            .answers(202, "accepted", Shape::Empty)
            .errors(&[400, 401, 403, 404, 413, 429]);

    /// a published episode's post (a `Note` with its audio attached)
    Note { feed_id: FeedId, show_id: EpisodeId } = GET "/ap/podcasts/{feed_id}/episodes/{show_id}",
        Spec::open()
            .answers(200, "the post", Shape::Document(AP))
            .errors(&[404, 410]);

    /// the `Create` of a published episode's post
    NoteActivity { feed_id: FeedId, show_id: EpisodeId } = GET "/ap/podcasts/{feed_id}/episodes/{show_id}/activity",
        Spec::open()
            .answers(200, "the activity", Shape::Document(AP))
            .errors(&[404, 410]);
}
