//! Webhooks on the wire: a subscription, its deliveries, a round of deliveries, and what
//! `POST /api/webhooks` reads.

use podhost_core::{
    WebhookRun,
    webhooks::{
        attempts::{Delivery, DeliveryStatus},
        subscription::{NewWebhook, Webhook},
    },
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Example, names::EventName};

/// A webhook subscription.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Webhook")]
pub struct WebhookRecord {
    /// Its id (`wh_…`).
    pub id: String,
    /// Where events are sent.
    pub url: String,
    /// The events sent; empty: every event.
    pub events: Vec<EventName>,
    /// What it is for.
    pub description: String,
    /// When it was made.
    pub created: String,
    /// The signing secret: only in the answer to the creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// A webhook subscription; the secret only when it was just created.
pub fn webhook(w: &Webhook, with_secret: bool) -> WebhookRecord {
    WebhookRecord {
        id: w.id.clone(),
        url: w.url.clone(),
        events: w.events.iter().map(|k| EventName(*k)).collect(),
        description: w.description.clone(),
        created: w.created.to_string(),
        secret: with_secret.then(|| w.secret.clone()),
    }
}

/// Where a delivery is.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatusName {
    /// To be sent (again).
    Pending,
    /// Answered 2xx.
    Delivered,
    /// Given up.
    Failed,
}

/// One attempt of a delivery.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AttemptRecord {
    /// When.
    pub at: String,
    /// The answer's status; null without an answer.
    pub status: Option<u16>,
    /// The answer's beginning, or what went wrong.
    pub excerpt: String,
    /// Asked for by hand (redelivered).
    pub manual: bool,
}

/// One event's delivery to a subscription, with its attempts.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Delivery")]
pub struct DeliveryRecord {
    /// The event's number.
    pub seq: u64,
    /// The event's id (`webhook-id`).
    pub event_id: String,
    /// The event's name.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where it is.
    pub status: DeliveryStatusName,
    /// When it is tried next, while pending.
    pub next_at: Option<String>,
    /// Its attempts.
    pub attempts: Vec<AttemptRecord>,
}

/// One event's delivery to a subscription, with its attempts.
pub fn delivery(d: &Delivery) -> DeliveryRecord {
    DeliveryRecord {
        seq: d.seq,
        event_id: d.event_id.clone(),
        kind: d.kind.clone(),
        status: match d.status {
            DeliveryStatus::Pending => DeliveryStatusName::Pending,
            DeliveryStatus::Delivered => DeliveryStatusName::Delivered,
            DeliveryStatus::Failed => DeliveryStatusName::Failed,
        },
        next_at: (d.status == DeliveryStatus::Pending).then(|| d.next_at.to_string()),
        attempts: d
            .attempts
            .iter()
            .map(|a| AttemptRecord {
                at: a.at.to_string(),
                status: a.status,
                excerpt: a.excerpt.clone(),
                manual: a.manual,
            })
            .collect(),
    }
}

/// What a round of webhook deliveries did.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "WebhookRun")]
pub struct WebhookRunRecord {
    /// Attempts made.
    pub attempted: usize,
    /// Deliveries that succeeded.
    pub delivered: usize,
    /// Deliveries given up.
    pub failed: usize,
    /// Deliveries still to be tried.
    pub pending: usize,
}

/// What a round of webhook deliveries did.
pub fn webhook_run(r: &WebhookRun) -> WebhookRunRecord {
    WebhookRunRecord {
        attempted: r.attempted,
        delivered: r.delivered,
        failed: r.failed,
        pending: r.pending,
    }
}

/// A new webhook subscription.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebhookCreate {
    /// http or https; private and loopback targets are refused unless the deployment allows
    /// them.
    pub url: String,
    /// The events to send; none or empty: every event.
    #[serde(default)]
    pub events: Vec<EventName>,
    /// What it is for.
    #[schemars(length(max = 255))]
    pub description: Option<String>,
    /// `whsec_` and base64 of 24 to 64 bytes; generated when absent.
    pub secret: Option<String>,
}

impl Example for WebhookCreate {
    fn example() -> Value {
        json!({"url": "https://hooks.example.com/podhost", "events": ["episode.published"], "description": "my app"})
    }
}

impl WebhookCreate {
    /// The core's new subscription.
    pub fn new_webhook(self) -> NewWebhook {
        NewWebhook {
            url: self.url,
            events: self
                .events
                .into_iter()
                .map(|e| e.0.as_str().to_string())
                .collect(),
            description: self.description,
            secret: self.secret,
        }
    }
}
