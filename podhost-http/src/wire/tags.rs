//! Podcasting 2.0 tags on the wire: each by the namespace's name, a list of objects or one
//! object (`null` removes a tag), read whole and checked by the core. The names come from the
//! core's lists, so a tag the core learns is on the wire and in the document at once.

use std::borrow::Cow;

use podhost_core::model::podcast::{CHANNEL_TAGS, ITEM_TAGS};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Tags that hold one object rather than a list.
const ONE: [&str; 9] = [
    "location",
    "license",
    "updateFrequency",
    "value",
    "chat",
    "publisher",
    "season",
    "episode",
    "medium",
];

fn schema_of(names: &[&str]) -> Schema {
    let properties: Map<String, Value> = names
        .iter()
        .map(|name| {
            let description = format!("podcast:{name}");
            let schema = if ONE.contains(name) {
                serde_json::json!({"type": "object", "additionalProperties": true, "nullable": true, "description": description})
            } else {
                serde_json::json!({"type": "array", "nullable": true, "items": {"type": "object", "additionalProperties": true}, "description": description})
            };
            (name.to_string(), schema)
        })
        .collect();
    json_schema!({"type": "object", "properties": properties})
}

/// A podcast's Podcasting 2.0 tags, by name (flattened into its `podcast` object).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChannelTags(pub Map<String, Value>);

impl JsonSchema for ChannelTags {
    fn schema_name() -> Cow<'static, str> {
        "ChannelTags".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema_of(&CHANNEL_TAGS)
    }
}

/// An episode's Podcasting 2.0 tags, by name (flattened into its `podcast` object).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ItemTags(pub Map<String, Value>);

impl JsonSchema for ItemTags {
    fn schema_name() -> Cow<'static, str> {
        "ItemTags".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema_of(&ITEM_TAGS)
    }
}

/// The tags of a record as the API shows them: the core's own serialization, an object.
pub fn shown<T: Serialize>(tags: &T) -> Map<String, Value> {
    match serde_json::to_value(tags) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
