//! Names whose list is the core's (scopes, event kinds): the wire carries the core's enums,
//! read and written by their names, and their schemas enumerate the core's list, so the
//! document follows the core.

use std::borrow::Cow;

use podhost_core::{Scope, webhooks::event::EventKind};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// A scope by its name (`media`, `shows-read-only`, ...).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ScopeName(pub Scope);

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

/// An event kind by its name (`episode.published`, ...).
#[derive(Debug, Clone, Copy)]
pub struct EventName(pub EventKind);

impl Serialize for EventName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for EventName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <Cow<'de, str>>::deserialize(deserializer)?;
        EventKind::parse(&name)
            .map(EventName)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event \"{name}\"")))
    }
}

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
