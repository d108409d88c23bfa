//! The fediverse as a podcaster sees it: followers, comments, blocks.

use podhost_core::{Action, EpisodeId, FeedId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// The fediverse: a podcast's followers, its episodes' comments (replies to their posts), the actors and instances blocked.
    pub enum FediverseApiEndpoint: Api, tag "fediverse";

    /// who follows the podcast on the fediverse
    ListFollowers { feed_id: FeedId } = GET "/api/feeds/{feed_id}/followers",
        Spec::token(Action::ReadComments)
            .addition()
            .answers(200, "the followers", Shape::DataList(schema::<wire::fediverse::FollowerRecord>()));

    /// an episode's comments, in the order they arrived (hidden ones too): replies to its post and to one another
    ListComments { feed_id: FeedId, episode_id: EpisodeId } = GET "/api/feeds/{feed_id}/episodes/{episode_id}/comments",
        Spec::token(Action::ReadComments)
            .addition()
            .answers(200, "the comments", Shape::DataList(schema::<wire::fediverse::CommentRecord>()));

    /// hide a comment from the episode's page, or show it again
    UpdateComment { feed_id: FeedId, episode_id: EpisodeId, comment_id: String } = PUT "/api/feeds/{feed_id}/episodes/{episode_id}/comments/{comment_id}",
        Spec::token(Action::ModerateComments)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::fediverse::CommentPatch>(),
                required: true,
            })
            .answers(200, "the comment", Shape::Data(schema::<wire::fediverse::CommentRecord>()));

    /// the actors and instances the account blocks
    ListBlocks {} = GET "/api/fediverse/blocks",
        Spec::token(Action::ReadComments)
            .addition()
            .answers(200, "the blocks", Shape::DataList(schema::<wire::fediverse::BlockRecord>()));

    /// block an actor (its URL) or an instance (its host name) for every podcast: it stops following, its comments are hidden, nothing more of it is accepted
    CreateBlock {} = POST "/api/fediverse/blocks",
        Spec::token(Action::ModerateComments)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::fediverse::BlockCreate>(),
                required: true,
            })
            .makes(&["block_id"], "/data/id")
            .answers(201, "the block", Shape::Data(schema::<wire::fediverse::BlockRecord>()));

    /// lift a block (its comments stay hidden until shown)
    DeleteBlock { block_id: String } = DELETE "/api/fediverse/blocks/{block_id}",
        Spec::token(Action::ModerateComments)
            .addition()
            .answers(204, "lifted", Shape::Empty);
}
