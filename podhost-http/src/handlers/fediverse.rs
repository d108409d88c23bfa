//! The fediverse as a podcaster sees it: `GET /api/feeds/{feed_id}/followers`, `GET
//! /api/feeds/{feed_id}/episodes/{episode_id}/comments`, `PUT …/comments/{comment_id}`
//! (hidden or shown), `GET`/`POST /api/fediverse/blocks`, `DELETE
//! /api/fediverse/blocks/{block_id}`.

use http::StatusCode;
use podhost_core::{EpisodeId, FeedId};

use super::answers::{Answer, created, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::fediverse::FediverseApiEndpoint,
    wire::fediverse as wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: FediverseApiEndpoint,
    call: Call<B>,
) -> Answer {
    use FediverseApiEndpoint as E;
    let fediverse = api.host.fediverse();
    match endpoint {
        E::ListFollowers { feed_id } => {
            let followers = fediverse.list_followers(&call.who, &feed_id).await?;
            let items: Vec<_> = followers
                .iter()
                .map(|f| wire::follower(&feed_id, f))
                .collect();
            data(StatusCode::OK, items)
        }
        E::ListComments {
            feed_id,
            episode_id,
        } => {
            let comments = fediverse.comments(&call.who, &feed_id, episode_id).await?;
            let items: Vec<_> = comments.iter().map(wire::comment).collect();
            data(StatusCode::OK, items)
        }
        E::UpdateComment {
            feed_id,
            episode_id,
            comment_id,
        } => update_comment(api, call, &feed_id, episode_id, &comment_id).await,
        E::ListBlocks {} => {
            let blocks = fediverse.blocks(&call.who).await?;
            let items: Vec<_> = blocks.iter().map(wire::block).collect();
            data(StatusCode::OK, items)
        }
        E::CreateBlock {} => {
            let (who, new) = call
                .read::<wire::BlockCreate>(api.config.max_json_bytes)
                .await?;
            let block = api.host.fediverse().block(&who, &new.target).await?;
            let location = format!(
                "{}/api/fediverse/blocks/{}",
                api.host.urls().base(),
                block.target.id()
            );
            created(&location, wire::block(&block))
        }
        E::DeleteBlock { block_id } => {
            fediverse.unblock(&call.who, &block_id).await?;
            Ok(response::no_content())
        }
    }
}

/// `PUT /api/feeds/{feed_id}/episodes/{episode_id}/comments/{comment_id}`: `{hidden}`.
async fn update_comment<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: &FeedId,
    episode: EpisodeId,
    comment: &str,
) -> Answer {
    let (who, patch) = call
        .read::<wire::CommentPatch>(api.config.max_json_bytes)
        .await?;
    let comment = api
        .host
        .fediverse()
        .set_comment_hidden(&who, feed, episode, comment, patch.hidden)
        .await?;
    data(StatusCode::OK, wire::comment(&comment))
}
