//! Media endpoints: upload (streamed), list, read, rename, copy and delete an account's files.

use http::StatusCode;
use podhost_core::{
    FieldErrors, MediaId, UploadTarget,
    model::{MediaCopy, MediaListQuery, MediaPatch, MediaSort, SortDir},
};

use super::{
    answers::{Answer, cached, created_record, page},
    multipart,
};
use crate::{
    context::{Api, Call, RequestBody},
    error::ApiError,
    response,
    routes::api::media::MediaEndpoint,
    urls::ApiUrls,
    wire::{self, Ctx},
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: MediaEndpoint,
    call: Call<B>,
) -> Answer {
    use MediaEndpoint as E;
    match endpoint {
        E::ListMedia {} => list(api, call).await,
        E::UploadMedia {} => upload(api, call).await,
        E::GetMedia { media_id } => get(api, call, media_id).await,
        E::UpdateMedia { media_id } => update(api, call, media_id).await,
        E::DeleteMedia { media_id } => delete(api, call, media_id).await,
        E::CopyMedia { media_id } => copy(api, call, media_id).await,
    }
}

/// `GET /api/media`
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let mut errors = FieldErrors::default();
    let sort_by = match call.param("sort_by") {
        None | Some("name") => MediaSort::Name,
        Some("size") => MediaSort::Size,
        Some("created") => MediaSort::Created,
        Some(_) => {
            errors.add("sort_by", "one of name, size, created");
            MediaSort::Name
        }
    };
    let sort_dir = match call.param("sort_dir") {
        None | Some("desc") => SortDir::Desc,
        Some("asc") => SortDir::Asc,
        Some(_) => {
            errors.add("sort_dir", "asc or desc");
            SortDir::Desc
        }
    };
    let strict = match call.param("strict") {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(_) => {
            errors.add("strict", "0 or 1");
            false
        }
    };
    let page = page(&call.query, None);
    errors.into_result()?;
    let query = MediaListQuery {
        sort_by,
        sort_dir,
        filter: call.param("filter").map(str::to_string),
        strict,
        page: page?,
    };
    cached(api, &call.who, &call.request_line, || async {
        let listed = api.host.podcasts().list_media(&call.who, &query).await?;
        let ctx = Ctx::of(&api.host, &call.who);
        let items: Vec<_> = listed
            .items
            .iter()
            .map(|m| wire::media_item(&ctx, m))
            .collect();
        Ok((
            response::json_body(&wire::media::MediaList {
                count: listed.total,
                items,
            }),
            None,
        ))
    })
    .await
}

/// `POST /api/media`: multipart with the file in `media`. The file is staged by the core and
/// committed once the whole request was read; bad input stores nothing (a staged file that is
/// not committed is the core's to remove).
pub(super) async fn upload<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let mut form = multipart::reader(&call.headers, call.body)?;
    let mut staged = None;
    let mut errors = FieldErrors::default();
    while let Some(field) = form.next_field().await.map_err(multipart::bad)? {
        let name = field.name().unwrap_or("").to_string();
        if name == "media" && staged.is_none() {
            let file_name = field.file_name().unwrap_or("upload").to_string();
            let upload = api
                .host
                .podcasts()
                .stage_upload(&call.who, UploadTarget::Media, &file_name, field)
                .await?;
            staged = Some(upload);
        } else {
            errors.add(name, "unknown field (the file goes in `media`)");
        }
    }
    let Some(staged) = staged else {
        errors.add("media", "a file is required");
        return Err(ApiError::Invalid(errors));
    };
    errors.into_result()?;
    let media = api
        .host
        .podcasts()
        .create_media(&call.who, staged, None)
        .await?;
    let ctx = Ctx::of(&api.host, &call.who);
    created_record(
        &ApiUrls::new(&api.host).media(media.id),
        wire::media_single(&ctx, &media),
    )
}

/// `GET /api/media/{media_id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    let media = api.host.podcasts().get_media(&call.who, id).await?;
    let ctx = Ctx::of(&api.host, &call.who);
    Ok(response::json(
        StatusCode::OK,
        &wire::media_single(&ctx, &media),
    ))
}

/// `DELETE /api/media/{media_id}`
pub(super) async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    api.host.podcasts().delete_media(&call.who, id).await?;
    Ok(response::no_content())
}

/// `PUT /api/media/{media_id}` with `{"name"?, "category"?, "private"?}` (an addition): rename,
/// category, who its public URL serves.
pub(super) async fn update<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    let (who, update) = call
        .read::<wire::media::MediaUpdate>(api.config.max_json_bytes)
        .await?;
    let patch = MediaPatch {
        name: update.name,
        // Null or "": the default category.
        category: update.category.patch().map(|c| c.filter(|c| !c.is_empty())),
        private: update.private,
    };
    let media = api.host.podcasts().update_media(&who, id, patch).await?;
    let ctx = Ctx::of(&api.host, &who);
    Ok(response::json(
        StatusCode::OK,
        &wire::media_single(&ctx, &media),
    ))
}

/// `POST /api/media/{media_id}/copy` with `{"label", "category"}`.
pub(super) async fn copy<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    let (who, copy) = call
        .read::<wire::media::MediaCopy>(api.config.max_json_bytes)
        .await?;
    let copy = MediaCopy {
        label: copy.label,
        category: copy.category,
    };
    let media = api.host.podcasts().copy_media(&who, id, copy).await?;
    let ctx = Ctx::of(&api.host, &who);
    created_record(
        &ApiUrls::new(&api.host).media(media.id),
        wire::media_single(&ctx, &media),
    )
}
