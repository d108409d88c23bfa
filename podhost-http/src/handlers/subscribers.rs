//! Subscribers of a private podcast (`GET`/`POST /api/feeds/{feed_id}/subscribers`,
//! `DELETE /api/feeds/{feed_id}/subscribers/{subscriber_id}`).

use http::StatusCode;
use podhost_core::{FeedId, SubscriberId};

use super::answers::{Answer, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::subscribers::SubscriberEndpoint,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: SubscriberEndpoint,
    call: Call<B>,
) -> Answer {
    use SubscriberEndpoint as E;
    match endpoint {
        E::ListSubscribers { feed_id } => list(api, call, &feed_id).await,
        E::AddSubscriber { feed_id } => add(api, call, &feed_id).await,
        E::RemoveSubscriber {
            feed_id,
            subscriber_id,
        } => remove(api, call, &feed_id, &subscriber_id).await,
    }
}

/// `GET /api/feeds/{feed_id}/subscribers`
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>, feed: &FeedId) -> Answer {
    let subscribers = api
        .host
        .delivery()
        .list_subscribers(&call.who, feed)
        .await?;
    let items: Vec<_> = subscribers
        .iter()
        .map(|s| wire::subscriber(&api.host, s))
        .collect();
    data(StatusCode::OK, items)
}

/// `POST /api/feeds/{feed_id}/subscribers`: `{label?}`.
pub(super) async fn add<B: RequestBody>(api: &Api, call: Call<B>, feed: &FeedId) -> Answer {
    let (who, new) = call
        .read::<wire::access::NewSubscriber>(api.config.max_json_bytes)
        .await?;
    let label = new.label.unwrap_or_default();
    let subscriber = api
        .host
        .delivery()
        .add_subscriber(&who, feed, &label)
        .await?;
    data(
        StatusCode::CREATED,
        wire::subscriber(&api.host, &subscriber),
    )
}

/// `DELETE /api/feeds/{feed_id}/subscribers/{subscriber_id}`
pub(super) async fn remove<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: &FeedId,
    id: &SubscriberId,
) -> Answer {
    api.host
        .delivery()
        .remove_subscriber(&call.who, feed, id)
        .await?;
    Ok(response::no_content())
}
