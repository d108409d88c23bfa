//! A private podcast's subscribers, each with a feed URL of their own.

use podhost_core::{Action, FeedId, SubscriberId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// A private podcast's subscribers, each with a feed URL of their own.
    pub enum SubscriberEndpoint: Api, tag "subscribers";

    /// a podcast's subscribers (for a private podcast), oldest first, revoked ones included
    ListSubscribers { feed_id: FeedId } = GET "/api/feeds/{feed_id}/subscribers",
        Spec::token(Action::ReadPodcasts)
            .addition()
            .answers(200, "the subscribers, each with their feed URL", Shape::DataList(schema::<wire::access::SubscriberRecord>()));

    /// a subscriber of a private podcast: a feed URL of their own
    AddSubscriber { feed_id: FeedId } = POST "/api/feeds/{feed_id}/subscribers",
        Spec::token(Action::EditPodcasts)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::access::NewSubscriber>(),
                required: false,
            })
            .makes(&["subscriber_id"], "/data/id")
            .answers(201, "the subscriber", Shape::Data(schema::<wire::access::SubscriberRecord>()));

    /// revoke a subscriber: their feed and files answer 410 on every server within a second
    RemoveSubscriber { feed_id: FeedId, subscriber_id: SubscriberId } = DELETE "/api/feeds/{feed_id}/subscribers/{subscriber_id}",
        Spec::token(Action::EditPodcasts)
            .addition()
            .answers(204, "revoked (also when it already was)", Shape::Empty);
}
