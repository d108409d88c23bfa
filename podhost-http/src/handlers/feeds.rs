//! Feed endpoints: list, read and delete podcasts, import one from its RSS, and the additions
//! `POST /api/feeds`, `PUT /api/feeds/{id}`.

use http::StatusCode;
use podhost_core::FeedId;

use super::answers::{Answer, cached, created, data, job_accepted, page};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::feeds::FeedEndpoint,
    urls::ApiUrls,
    wire::{self, Ctx},
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
        let listed = api.host.podcasts().list_feeds(&call.who, page).await?;
        let ctx = Ctx::of(&api.host, &call.who);
        let items: Vec<_> = listed
            .items
            .iter()
            .map(|f| wire::feed_list_item(&ctx, f))
            .collect();
        Ok((response::json_body(&wire::Data { data: items }), None))
    })
    .await
}

/// `POST /api/feeds`: `{"id", "title", ...}`.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, new) = call
        .read::<wire::feeds::FeedCreate>(api.config.max_json_bytes)
        .await?;
    let new = new.new_feed()?;
    let view = api.host.podcasts().create_feed(&who, new).await?;
    let ctx = Ctx::of(&api.host, &who);
    created(
        &ApiUrls::new(&api.host).feed(&view.feed.id),
        wire::feed_single(&ctx, &view),
    )
}

/// `GET /api/feeds/{feed_id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    let view = api.host.podcasts().get_feed(&call.who, &id).await?;
    let ctx = Ctx::of(&api.host, &call.who);
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `PUT /api/feeds/{feed_id}`: the channel fields to change.
pub(super) async fn update<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    let (who, fields) = call
        .read::<wire::feeds::FeedFields>(api.config.max_json_bytes)
        .await?;
    let patch = fields.patch()?;
    let view = api.host.podcasts().update_feed(&who, &id, &patch).await?;
    let ctx = Ctx::of(&api.host, &who);
    data(StatusCode::OK, wire::feed_single(&ctx, &view))
}

/// `DELETE /api/feeds/{feed_id}`
pub(super) async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: FeedId) -> Answer {
    api.host.podcasts().delete_feed(&call.who, &id).await?;
    Ok(response::no_content())
}

/// `POST /api/feeds/import` with `{"url", "feed_id"?}`: 202 with the import's job.
pub(super) async fn import<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, import) = call
        .read::<wire::feeds::FeedImport>(api.config.max_json_bytes)
        .await?;
    let feed_id = import.feed_id.filter(|id| !id.is_empty());
    let job = api
        .host
        .work()
        .submit_import(&who, &import.url, feed_id.as_deref())
        .await?;
    job_accepted(api, &job)
}
