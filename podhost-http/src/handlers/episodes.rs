//! Episode endpoints: list, create (a form, files included), read, update, copy and delete the
//! episodes of a podcast.

use http::StatusCode;
use podhost_core::{
    EpisodeFiles, EpisodeId, FeedId, FieldErrors, UploadTarget,
    model::{EpisodeListQuery, EpisodeRef, EpisodeSort, Page},
};
use serde_json::Value;

use super::{
    answers::{Answer, cached, created, data, page},
    multipart,
};
use crate::{
    context::{Api, Call, RequestBody},
    error::ApiError,
    response,
    routes::api::episodes::EpisodeEndpoint,
    urls::ApiUrls,
    wire::{self, Ctx},
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: EpisodeEndpoint,
    call: Call<B>,
) -> Answer {
    use EpisodeEndpoint as E;
    match endpoint {
        E::ListEpisodes { feed_id } => list(api, call, feed_id).await,
        E::CreateEpisode { feed_id } => create(api, call, feed_id).await,
        E::GetEpisode { feed_id, show_id } => get(api, call, feed_id, show_id).await,
        E::UpdateEpisode { feed_id, show_id } => update(api, call, feed_id, show_id).await,
        E::DeleteEpisode { feed_id, show_id } => delete(api, call, feed_id, show_id).await,
        E::CopyEpisode { feed_id, show_id } => copy(api, call, feed_id, show_id).await,
    }
}

/// `GET /api/feed/{feed_id}/shows`: query parameters, or the same in a JSON body.
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>, feed: FeedId) -> Answer {
    let request_line = call.request_line.clone();
    let (who, query, body) = call.json(api.config.max_json_bytes).await?;
    let param = |name: &str| -> Option<String> {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| {
                body.as_ref()
                    .and_then(|b| b.get(name))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
    };
    let mut errors = FieldErrors::default();
    let sort_by = match param("sortBy").as_deref() {
        None | Some("") => EpisodeSort::PublishDate,
        Some("lastUpdate") => EpisodeSort::LastUpdate,
        Some("is_public") => EpisodeSort::IsPublic,
        Some(_) => {
            errors.add("sortBy", "lastUpdate or is_public");
            EpisodeSort::PublishDate
        }
    };
    let descending = match param("sortDesc").as_deref() {
        None | Some("") => None,
        Some("desc" | "true" | "1") => Some(true),
        Some("asc" | "false" | "0") => Some(false),
        Some(_) => {
            errors.add(
                "sortDesc",
                "desc (or true) for descending, asc (or false) for ascending",
            );
            None
        }
    };
    let page = page(&query, body.as_ref());
    errors.into_result()?;
    let query = EpisodeListQuery {
        sort_by,
        descending,
        filter: param("filter"),
        page: page?,
    };
    let render = || async {
        let ctx = Ctx::of(&api.host, &who);
        let account = who.account().as_str();
        // Each item's JSON kept from an earlier page while the episode is unchanged.
        let page = |page: Page<EpisodeRef<'_>>| {
            let render = |e: &EpisodeRef<'_>| {
                response::json_body(&wire::episode_item(&ctx, &e.to_view())).to_vec()
            };
            // An item is about 800 bytes.
            let capacity = 64 + page.items.len() * 1024;
            let out = if api.config.cache_list_items {
                api.items.data_array(account, &page.items, capacity, render)
            } else {
                wire::data_array(page.items.len(), capacity, |i, out| {
                    out.extend_from_slice(&render(&page.items[i]))
                })
            };
            (bytes::Bytes::from(out), page.changes_at)
        };
        Ok(api
            .host
            .podcasts()
            .list_episodes_with(&who, &feed, &query, page)
            .await?)
    };
    if body.is_some() {
        // Parameters in a body are not part of the request line, the cache's key.
        let (bytes, _) = render().await?;
        return Ok(response::json_bytes(StatusCode::OK, bytes));
    }
    cached(api, &who, &request_line, render).await
}

/// `POST /api/feed/{feed_id}/show`: the episode's fields as a form; the `media` and `cover` files are
/// staged by the core as they stream in, and one commit creates their records and the episode
/// once the whole request was read. Bad input stores nothing (staged files that are not
/// committed are the core's to remove).
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>, feed: FeedId) -> Answer {
    let who = call.who.clone();
    let mut form = multipart::reader(&call.headers, call.body)?;
    let mut fields = wire::Body::form();
    let mut files = EpisodeFiles::default();
    let (mut text_bytes, mut count) = (0usize, 0usize);
    while let Some(field) = form.next_field().await.map_err(multipart::bad)? {
        count += 1;
        if count > multipart::MAX_FIELDS {
            return Err(ApiError::BodyTooLarge {
                what: "the form".into(),
                limit: crate::error::Limit::FormFields(multipart::MAX_FIELDS as u64),
            });
        }
        let name = field.name().unwrap_or("").to_string();
        match (name.as_str(), field.file_name().map(str::to_string)) {
            ("media" | "cover", Some(file_name)) => {
                let slot = match name.as_str() {
                    "media" => &mut files.media,
                    _ => &mut files.cover,
                };
                if slot.is_some() {
                    fields.refuse(&name, "only one file");
                    continue;
                }
                let target = UploadTarget::Episode(feed.clone());
                *slot = Some(
                    api.host
                        .podcasts()
                        .stage_upload(&who, target, &file_name, field)
                        .await?,
                );
            }
            (_, _) => {
                let text = multipart::text(field, &mut text_bytes).await?;
                fields.add(&name, text);
            }
        }
    }
    let new = fields
        .read::<wire::episodes::EpisodeCreate>()
        .and_then(|new| new.new_episode(&api.host.config().display_time_zone))?;
    let view = api
        .host
        .podcasts()
        .create_episode_with_files(&who, &feed, new, files)
        .await?;
    let ctx = Ctx::of(&api.host, &who);
    created(
        &ApiUrls::new(&api.host).episode(&feed, view.episode.id),
        wire::episode_single(&ctx, &view),
    )
}

/// `GET /api/feed/{feed_id}/show/{show_id}`
pub(super) async fn get<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: FeedId,
    id: EpisodeId,
) -> Answer {
    let view = api
        .host
        .podcasts()
        .get_episode(&call.who, &feed, id)
        .await?;
    let ctx = Ctx::of(&api.host, &call.who);
    data(StatusCode::OK, wire::episode_single(&ctx, &view))
}

/// `PUT /api/feed/{feed_id}/show/{show_id}`: the episode's fields as JSON (those left out stay).
pub(super) async fn update<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: FeedId,
    id: EpisodeId,
) -> Answer {
    let (who, fields) = call
        .read::<wire::episodes::EpisodeFields>(api.config.max_json_bytes)
        .await?;
    let patch = fields.patch(&api.host.config().display_time_zone)?;
    let view = api
        .host
        .podcasts()
        .update_episode(&who, &feed, id, &patch)
        .await?;
    let ctx = Ctx::of(&api.host, &who);
    data(StatusCode::OK, wire::episode_single(&ctx, &view))
}

/// `DELETE /api/feed/{feed_id}/show/{show_id}`
pub(super) async fn delete<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: FeedId,
    id: EpisodeId,
) -> Answer {
    api.host
        .podcasts()
        .delete_episode(&call.who, &feed, id)
        .await?;
    Ok(response::no_content())
}

/// `POST /api/feed/{feed_id}/show/{show_id}/copy?feed_id_to=...`
pub(super) async fn copy<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: FeedId,
    id: EpisodeId,
) -> Answer {
    let to = match call.param("feed_id_to").filter(|s| !s.is_empty()) {
        None => None,
        Some(to) => Some(FeedId::new(to).map_err(|_| {
            let mut errors = FieldErrors::default();
            errors.add("feed_id_to", "not a feed id");
            ApiError::Invalid(errors)
        })?),
    };
    let view = api
        .host
        .podcasts()
        .copy_episode(&call.who, &feed, id, to.as_ref())
        .await?;
    let ctx = Ctx::of(&api.host, &call.who);
    created(
        &ApiUrls::new(&api.host).episode(&view.episode.feed, view.episode.id),
        wire::episode_single(&ctx, &view),
    )
}
