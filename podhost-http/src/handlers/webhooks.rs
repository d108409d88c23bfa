//! Webhook endpoints: `POST /api/webhooks-processing` (deliver what is due now), and the subscriptions
//! (`GET`/`POST /api/webhooks`, `GET`/`DELETE /api/webhooks/{id}`, deliveries, redelivery).

use http::StatusCode;

use super::answers::{Answer, created, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::webhooks::WebhookEndpoint,
    urls::ApiUrls,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: WebhookEndpoint,
    call: Call<B>,
) -> Answer {
    use WebhookEndpoint as E;
    match endpoint {
        E::ProcessWebhooks {} => process(api, call).await,
        E::ListWebhooks {} => list(api, call).await,
        E::CreateWebhook {} => create(api, call).await,
        E::GetWebhook { webhook_id } => get(api, call, &webhook_id).await,
        E::DeleteWebhook { webhook_id } => delete(api, call, &webhook_id).await,
        E::ListDeliveries { webhook_id } => deliveries(api, call, &webhook_id).await,
        E::Redeliver { webhook_id, seq } => redeliver(api, call, &webhook_id, seq).await,
    }
}

/// `POST /api/webhooks-processing`: delivers the caller's due deliveries now.
pub(super) async fn process<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let run = api
        .host
        .work()
        .process_webhooks(
            &call.who,
            api.webhooks.as_ref(),
            &wire::WireEvents::new(api.host.clone()),
        )
        .await?;
    data(StatusCode::OK, wire::webhook_run(&run))
}

/// `GET /api/webhooks`
pub(super) async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let webhooks = api.host.work().list_webhooks(&call.who).await?;
    let items: Vec<_> = webhooks.iter().map(|w| wire::webhook(w, false)).collect();
    data(StatusCode::OK, items)
}

/// `POST /api/webhooks`: `{url, events?, description?, secret?}`; the secret is shown only here.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, new) = call
        .read::<wire::webhooks::WebhookCreate>(api.config.max_json_bytes)
        .await?;
    let webhook = api
        .host
        .work()
        .create_webhook(&who, new.new_webhook())
        .await?;
    created(
        &ApiUrls::new(&api.host).webhook(&webhook.id),
        wire::webhook(&webhook, true),
    )
}

/// `GET /api/webhooks/{id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    let webhook = api.host.work().get_webhook(&call.who, id).await?;
    data(StatusCode::OK, wire::webhook(&webhook, false))
}

/// `DELETE /api/webhooks/{id}`
pub(super) async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    api.host.work().delete_webhook(&call.who, id).await?;
    Ok(response::no_content())
}

/// `GET /api/webhooks/{id}/deliveries`: the recent deliveries, newest first.
pub(super) async fn deliveries<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    let deliveries = api.host.work().webhook_deliveries(&call.who, id).await?;
    let items: Vec<_> = deliveries.iter().map(wire::delivery).collect();
    data(StatusCode::OK, items)
}

/// `POST /api/webhooks/{id}/deliveries/{seq}/redeliver`: sends the event again now.
pub(super) async fn redeliver<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    id: &str,
    seq: u64,
) -> Answer {
    let delivery = api
        .host
        .work()
        .redeliver(
            &call.who,
            id,
            seq,
            api.webhooks.as_ref(),
            &wire::WireEvents::new(api.host.clone()),
        )
        .await?;
    data(StatusCode::OK, wire::delivery(&delivery))
}
