//! Names whose list is the core's (scopes, event kinds): their schemas enumerate the core's
//! list, so the document follows the core.

use std::borrow::Cow;

use podhost_core::{Scope, webhooks::event::EventKind};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// A scope's name (`media`, `shows-read-only`, ...).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ScopeName(pub String);

impl JsonSchema for ScopeName {
    fn schema_name() -> Cow<'static, str> {
        "ScopeName".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        json_schema!({"type": "string", "enum": names})
    }
}

/// An event's name (`episode.published`, ...).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EventName(pub String);

impl JsonSchema for EventName {
    fn schema_name() -> Cow<'static, str> {
        "EventName".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
        json_schema!({"type": "string", "enum": names})
    }
}
