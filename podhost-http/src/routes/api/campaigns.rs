//! Ad campaigns.

use podhost_core::{Action, CampaignId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// Ad campaigns: the ad, where it goes, which podcasts, when, and until how many impressions.
    pub enum CampaignEndpoint: Api, tag "campaigns";

    /// the caller's ad campaigns, oldest first
    ListCampaigns {} = GET "/api/campaigns",
        Spec::token(Action::ReadAds)
            .addition()
            .answers(200, "the campaigns", Shape::DataList(schema::<wire::campaigns::CampaignRecord>()));

    /// an ad campaign: the ad (an audio file), its positions, its podcasts (none: all), its dates
    /// and its impressions goal
    CreateCampaign {} = POST "/api/campaigns",
        Spec::token(Action::ManageAds)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::campaigns::CampaignCreate>(),
                required: true,
            })
            .makes(&["campaign_id"], "/data/id")
            .answers(201, "the campaign; Location: the campaign", Shape::Data(schema::<wire::campaigns::CampaignRecord>()));

    /// one campaign, with its impressions and status
    GetCampaign { campaign_id: CampaignId } = GET "/api/campaigns/{campaign_id}",
        Spec::token(Action::ReadAds)
            .addition()
            .answers(200, "the campaign", Shape::Data(schema::<wire::campaigns::CampaignRecord>()));

    /// change a campaign; `{"status": "paused"}` pauses it and `{"status": "active"}` resumes it
    UpdateCampaign { campaign_id: CampaignId } = PUT "/api/campaigns/{campaign_id}",
        Spec::token(Action::ManageAds)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::campaigns::CampaignUpdate>(),
                required: true,
            })
            .answers(200, "the campaign", Shape::Data(schema::<wire::campaigns::CampaignRecord>()));

    /// a campaign's impressions (IAB v2.3: every byte of the ad sent, once per listener, ad and
    /// day), in total, per day since it was made and per episode
    CampaignStats { campaign_id: CampaignId } = GET "/api/stats/campaigns/{campaign_id}",
        Spec::token(Action::ReadAds)
            .addition()
            .answers(200, "the statistics", Shape::Data(schema::<wire::campaigns::CampaignStatsRecord>()));

    /// delete a campaign (its ad file stays)
    DeleteCampaign { campaign_id: CampaignId } = DELETE "/api/campaigns/{campaign_id}",
        Spec::token(Action::ManageAds)
            .addition()
            .answers(204, "deleted", Shape::Empty);
}
