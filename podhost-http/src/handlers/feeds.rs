//! Feed endpoints: 4.11 to 4.13, and the additions `POST /api/feeds`, `PUT /api/feeds/{id}`.

use http::StatusCode;
use podhost_core::{FeedId, model::NewFeed};
use serde_json::json;

use super::answers::{Answer, cached, created, data, page, with_location};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::feeds::FeedEndpoint,
    urls::ApiUrls,
    wire::{self, Ctx, input::Fields},
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: FeedEndpoint,
    call: Call<B>,
) -> Answer {
    use FeedEndpoint as E;
    match endpoint {
        E::ListFeeds {} => list(api, call).await,
        E::CreateFeed {} => create(api, call).await,
        E::ImportFeed {} => import(api, call).await,
        E::GetFeed { feed_id } => get(api, call, feed_id).await,
        E::UpdateFeed { feed_id } => update(api, call, feed_id).await,
        E::DeleteFeed { feed_id } => delete(api, call, feed_id).await,
    }
}

/// `GET /api/feeds`
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let page = page(&call.query, None)?;
    cached(api, &call.who, &call.request_line, || async {
        let listed = api.host.list_feeds(&call.who, page).await?;
        let ctx = Ctx::of(&api.host, &call.who);
        let items: Vec<_> = listed
            .items
            .iter()
            .map(|f| wire::feed_list_item(&ctx, f))
            .collect();
        Ok((response::json_body(&json!({ "data": items })), None))
    })
    .await
}

/// `POST /api/feeds`: `{"id", "title", ...}`.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
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
    let ctx = Ctx::of(&api.host, &who);
    created(
        &ApiUrls::new(&api.host).feed(&view.feed.id),
        wire::feed_single(&ctx, &view),
    )
}

/// `GET /api/feeds/{feed_id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    let view = api.host.get_feed(&call.who, &id).await?;
    let ctx = Ctx::of(&api.host, &call.who);
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `PUT /api/feeds/{feed_id}`: the channel fields to change.
pub(super) async fn update<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = Fields::from_json(body.unwrap_or_else(|| json!({})));
    let patch = wire::input::feed_patch(&mut fields);
    fields.reject_unknown();
    fields.errors.into_result()?;
    let view = api.host.update_feed(&who, &id, &patch).await?;
    let ctx = Ctx::of(&api.host, &who);
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `DELETE /api/feeds/{feed_id}`
pub(super) async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    api.host.delete_feed(&call.who, &id).await?;
    Ok(response::no_content())
}

/// `POST /api/feeds/import` with `{"url", "feed_id"?}`: 202 with the import's job.
pub(super) async fn import<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = wire::input::Fields::from_json(body.unwrap_or_else(|| serde_json::json!({})));
    let url = fields.string("url");
    let feed_id = fields.string("feed_id").filter(|id| !id.is_empty());
    fields.reject_unknown();
    if url.is_none() {
        fields
            .errors
            .add("url", "the URL of the podcast's RSS feed is required");
    }
    fields.errors.into_result()?;
    let job = api
        .host
        .submit_import(&who, &url.unwrap_or_default(), feed_id.as_deref())
        .await?;
    let location = ApiUrls::new(&api.host).job(&job.id);
    let answer = response::json(
        StatusCode::ACCEPTED,
        &serde_json::json!({ "data": wire::job(&api.host, &job) }),
    );
    Ok(with_location(answer, &location))
}
