//! Webhook endpoints: 4.1 `POST /api/webhooks-processing`, and the subscriptions
//! (`GET`/`POST /api/webhooks`, `GET`/`DELETE /api/webhooks/{id}`, deliveries, redelivery).

use http::StatusCode;
use podhost_core::webhooks::subscription::NewWebhook;
use serde_json::{Value, json};

use super::answers::{Answer, created, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::webhooks::WebhookEndpoint,
    urls::ApiUrls,
    wire::{self, input::Fields},
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
    let webhooks = api.host.list_webhooks(&call.who).await?;
    let items: Vec<Value> = webhooks.iter().map(|w| wire::webhook(w, false)).collect();
    data(StatusCode::OK, Value::Array(items))
}

/// `POST /api/webhooks`: `{url, events?, description?, secret?}`; the secret is shown only here.
pub(super) async fn create<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, _, body) = call.json(api.config.max_json_bytes).await?;
    let mut fields = Fields::from_json(body.unwrap_or_else(|| json!({})));
    let url = fields.string("url");
    let description = fields.string("description");
    let secret = fields.string("secret");
    let events = match fields.raw("events") {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>(),
        Some(_) => None,
    };
    fields.reject_unknown();
    if url.is_none() {
        fields
            .errors
            .add("url", "the URL to send events to is required");
    }
    let events = events.unwrap_or_else(|| {
        fields.errors.add(
            "events",
            "a list of event names, e.g. [\"episode.published\"]",
        );
        Vec::new()
    });
    fields.errors.into_result()?;
    let webhook = api
        .host
        .create_webhook(
            &who,
            NewWebhook {
                url: url.unwrap_or_default(),
                events,
                description,
                secret,
            },
        )
        .await?;
    created(
        &ApiUrls::new(&api.host).webhook(&webhook.id),
        wire::webhook(&webhook, true),
    )
}

/// `GET /api/webhooks/{id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    let webhook = api.host.get_webhook(&call.who, id).await?;
    data(StatusCode::OK, wire::webhook(&webhook, false))
}

/// `DELETE /api/webhooks/{id}`
pub(super) async fn delete<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    api.host.delete_webhook(&call.who, id).await?;
    Ok(response::no_content())
}

/// `GET /api/webhooks/{id}/deliveries`: the recent deliveries, newest first.
pub(super) async fn deliveries<B: RequestBody>(api: &Api, call: Call<B>, id: &str) -> Answer {
    let deliveries = api.host.webhook_deliveries(&call.who, id).await?;
    let items: Vec<Value> = deliveries.iter().map(wire::delivery).collect();
    data(StatusCode::OK, Value::Array(items))
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
