//! Metadata endpoints: `GET` and `PUT /api/media/{id}/metadata` (a file's facts and tags, its
//! ad breaks and chapters).

use http::StatusCode;
use podhost_core::MediaId;

use super::answers::{Answer, data};
use crate::{
    context::{Api, Call, RequestBody},
    routes::api::metadata::MetadataEndpoint,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: MetadataEndpoint,
    call: Call<B>,
) -> Answer {
    use MetadataEndpoint as E;
    match endpoint {
        E::GetMetadata { id } => get(api, call, id).await,
        E::PutMetadata { id } => put(api, call, id).await,
    }
}

/// `GET /api/media/{id}/metadata`: facts, tags read from the file, ad breaks.
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    let metadata = api.host.podcasts().media_metadata(&call.who, id).await?;
    data(StatusCode::OK, wire::metadata(&metadata, None))
}

/// `PUT /api/media/{id}/metadata`: ad breaks change at once; tags, chapters and the cover are
/// written into a new file by a job, shown as `job`.
pub(super) async fn put<B: RequestBody>(api: &Api, call: Call<B>, id: MediaId) -> Answer {
    let (who, update) = call
        .read::<wire::metadata::MetadataUpdate>(api.config.max_json_bytes)
        .await?;
    let patch = update.patch()?;
    let (metadata, job) = api.host.podcasts().update_metadata(&who, id, patch).await?;
    let job = job.map(|job| wire::job(&api.host, &job));
    data(StatusCode::OK, wire::metadata(&metadata, job))
}
