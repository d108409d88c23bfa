//! Webhook subscriptions, their deliveries, and delivering now.

use podhost_core::Action;

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// Webhook subscriptions, their deliveries, and delivering now.
    pub enum WebhookEndpoint: Api, tag "webhooks";

    /// deliver the caller's due webhook deliveries now (delivery otherwise runs in the background)
    ProcessWebhooks {} = POST "/api/webhooks-processing",
        Spec::token(Action::ManageWebhooks)
            .answers(200, "what was done", Shape::Data(schema::<wire::webhooks::WebhookRunRecord>()));

    /// the caller's webhook subscriptions (without their secrets)
    ListWebhooks {} = GET "/api/webhooks",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .answers(200, "the subscriptions", Shape::DataList(schema::<wire::webhooks::WebhookRecord>()));

    /// subscribe a URL to events; the signing secret (Standard Webhooks, whsec_) is shown only in
    /// this answer
    CreateWebhook {} = POST "/api/webhooks",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::webhooks::WebhookCreate>(),
                required: true,
            })
            .makes(&["webhook_id"], "/data/id")
            .answers(201, "the subscription, with its secret; Location: the subscription", Shape::Data(schema::<wire::webhooks::WebhookRecord>()))
            .errors(&[413]);

    /// one subscription
    GetWebhook { webhook_id: String } = GET "/api/webhooks/{webhook_id}",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .answers(200, "the subscription", Shape::Data(schema::<wire::webhooks::WebhookRecord>()));

    /// remove a subscription
    DeleteWebhook { webhook_id: String } = DELETE "/api/webhooks/{webhook_id}",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .answers(204, "removed", Shape::Empty);

    /// the recent deliveries of a subscription, newest first, with their attempts
    ListDeliveries { webhook_id: String } = GET "/api/webhooks/{webhook_id}/deliveries",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .answers(200, "the deliveries", Shape::DataList(schema::<wire::webhooks::DeliveryRecord>()));

    /// send an event to a subscription again, now
    Redeliver { webhook_id: String, seq: u64 } = POST "/api/webhooks/{webhook_id}/deliveries/{seq}/redeliver",
        Spec::token(Action::ManageWebhooks)
            .addition()
            .answers(200, "the delivery with the new attempt", Shape::Data(schema::<wire::webhooks::DeliveryRecord>()));
}
