//! Feed endpoints: 4.11 to 4.13, and the additions `POST /api/feeds`, `PUT /api/feeds/{id}`.

use bytes::Bytes;
use http::StatusCode;
use hyper::body::Body as HttpBody;
use podhost_core::{FeedId, Scope, model::NewFeed};
use serde_json::json;

use super::{Answer, cached, created, data, known_params, page};
use crate::{
    api::{Api, Call},
    response,
    wire::{self, Ctx, input::Fields},
};

/// `GET /api/feeds`
pub(super) async fn list<B>(api: &Api, call: Call<B>) -> Answer
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    call.require(Scope::FeedsReadOnly)?;
    known_params(&call.query, &["page[number]", "page[size]"])?;
    let page = page(&call.query, None)?;
    cached(api, &call.who, &call.request_line, || async {
        let listed = api.host.list_feeds(&call.who, page).await?;
        let ctx = Ctx {
            host: &api.host,
            account: call.who.account(),
        };
        let items: Vec<_> = listed
            .items
            .iter()
            .map(|f| wire::feed_list_item(&ctx, f))
            .collect();
        Ok((json!({ "data": items }), None))
    })
    .await
}

/// `POST /api/feeds`: `{"id", "title", ...}`.
pub(super) async fn create<B>(api: &Api, call: Call<B>) -> Answer
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    call.require(Scope::Feeds)?;
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = Fields::from_json(body.unwrap_or_else(|| json!({})));
    let id = fields.string("id");
    let patch = wire::input::feed_patch(&mut fields);
    fields.reject_unknown();
    if id.is_none() {
        fields.errors.add("id", "the feed id is required");
    }
    fields.errors.into_result()?;
    let view = api
        .host
        .create_feed(
            &who,
            NewFeed {
                id: id.unwrap_or_default(),
                fields: patch,
            },
        )
        .await?;
    let ctx = Ctx {
        host: &api.host,
        account: who.account(),
    };
    created(
        &api.host.urls().api_feed(&view.feed.id),
        wire::feed_single(&ctx, &view),
    )
}

/// `GET /api/feeds/{feed_id}`
pub(super) async fn get<B>(api: &Api, call: Call<B>, id: FeedId) -> Answer
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let view = api.host.get_feed(&call.who, &id).await?;
    let ctx = Ctx {
        host: &api.host,
        account: call.who.account(),
    };
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `PUT /api/feeds/{feed_id}`: the channel fields to change.
pub(super) async fn update<B>(api: &Api, call: Call<B>, id: FeedId) -> Answer
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    call.require(Scope::Feeds)?;
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = Fields::from_json(body.unwrap_or_else(|| json!({})));
    let patch = wire::input::feed_patch(&mut fields);
    fields.reject_unknown();
    fields.errors.into_result()?;
    let view = api.host.update_feed(&who, &id, &patch).await?;
    let ctx = Ctx {
        host: &api.host,
        account: who.account(),
    };
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `DELETE /api/feeds/{feed_id}`
pub(super) async fn delete<B>(api: &Api, call: Call<B>, id: FeedId) -> Answer
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    api.host.delete_feed(&call.who, &id).await?;
    Ok(response::no_content())
}
