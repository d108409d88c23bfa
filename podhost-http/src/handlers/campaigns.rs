//! Ad campaigns (`GET`/`POST /api/campaigns`, `GET`/`PUT`/`DELETE
//! /api/campaigns/{campaign_id}`) and their statistics (`GET /api/stats/campaigns/{campaign_id}`).

use http::StatusCode;
use podhost_core::CampaignId;

use super::answers::{Answer, created, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::campaigns::CampaignEndpoint,
    urls::ApiUrls,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: CampaignEndpoint,
    call: Call<B>,
) -> Answer {
    use CampaignEndpoint as E;
    match endpoint {
        E::ListCampaigns {} => list(api, call).await,
        E::CreateCampaign {} => create(api, call).await,
        E::GetCampaign { campaign_id } => get(api, call, &campaign_id).await,
        E::UpdateCampaign { campaign_id } => update(api, call, &campaign_id).await,
        E::DeleteCampaign { campaign_id } => delete(api, call, &campaign_id).await,
        E::CampaignStats { campaign_id } => stats(api, call, &campaign_id).await,
    }
}

/// `GET /api/stats/campaigns/{campaign_id}`
async fn stats<B: RequestBody>(api: &Api, call: Call<B>, id: &CampaignId) -> Answer {
    let stats = api.host.ads().campaign_stats(&call.who, id).await?;
    data(StatusCode::OK, wire::campaigns::campaign_stats(&stats))
}

/// `GET /api/campaigns`
async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let campaigns = api.host.ads().list_campaigns(&call.who).await?;
    let items: Vec<_> = campaigns.iter().map(wire::campaigns::campaign).collect();
    data(StatusCode::OK, items)
}

/// `POST /api/campaigns`
async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, new) = call
        .read::<wire::campaigns::CampaignCreate>(api.config.max_json_bytes)
        .await?;
    let view = api
        .host
        .ads()
        .create_campaign(&who, new.new_campaign()?)
        .await?;
    created(
        &ApiUrls::new(&api.host).campaign(&view.campaign.id),
        wire::campaigns::campaign(&view),
    )
}

/// `GET /api/campaigns/{campaign_id}`
async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: &CampaignId) -> Answer {
    let view = api.host.ads().get_campaign(&call.who, id).await?;
    data(StatusCode::OK, wire::campaigns::campaign(&view))
}

/// `PUT /api/campaigns/{campaign_id}`
async fn update<B: RequestBody>(api: &Api, call: Call<B>, id: &CampaignId) -> Answer {
    let (who, change) = call
        .read::<wire::campaigns::CampaignUpdate>(api.config.max_json_bytes)
        .await?;
    let view = api
        .host
        .ads()
        .update_campaign(&who, id, &change.patch()?)
        .await?;
    data(StatusCode::OK, wire::campaigns::campaign(&view))
}

/// `DELETE /api/campaigns/{campaign_id}`
async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: &CampaignId) -> Answer {
    api.host.ads().delete_campaign(&call.who, id).await?;
    Ok(response::no_content())
}
