//! The wire shapes' JSON Schemas, derived from the structs themselves (schemars): the OpenAPI
//! document's components are these, and the request reader checks bodies against them. A shape
//! is declared once, as a struct; nothing here names a field.

use podhost_core::lock::Locked;
use std::{
    any::TypeId,
    borrow::Cow,
    collections::HashMap,
    sync::{Arc, LazyLock, Mutex},
};

use schemars::{
    JsonSchema, Schema, SchemaGenerator,
    generate::{Contract, SchemaSettings},
    json_schema,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A wire type's schema, for the route table: named in the document's components, generated
/// for answers (what is serialized) or for requests (what is read).
#[derive(Clone, Copy)]
pub struct SchemaRef {
    name: fn() -> Cow<'static, str>,
    subschema: fn(&mut SchemaGenerator) -> Schema,
    whole: fn() -> Arc<Value>,
    example: fn() -> Option<Value>,
}

impl std::fmt::Debug for SchemaRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.name)())
    }
}

fn subschema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// Whether a schema only allows `null` (how an optional value's other half is written).
pub(crate) fn is_null_only(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(Value::is_null))
}

/// A generated schema as OpenAPI 3.0 tools read it best: an enum whose values carry doc
/// comments (which schemars writes as a `oneOf` of one-value enums) as one `enum`, the values'
/// descriptions in its own; an optional value (`anyOf: [value, null]`) as the value with
/// `nullable`, a reference in an `allOf`.
pub fn tidy(value: &mut Value) {
    collapse_enums(value);
    tidy_nullable(value);
}

fn collapse_enums(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for inner in map.values_mut() {
                collapse_enums(inner);
            }
            let Some(Value::Array(parts)) = map.get("oneOf") else {
                return;
            };
            let mut kind = None;
            let mut values = Vec::new();
            let mut described = Vec::new();
            for part in parts {
                let (Some(t), Some([one])) = (
                    part.get("type").and_then(Value::as_str),
                    part.get("enum")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice),
                ) else {
                    return;
                };
                if kind.is_some_and(|k| k != t) {
                    return;
                }
                kind = Some(t);
                if let Some(d) = part.get("description").and_then(Value::as_str) {
                    let name = one.as_str().map_or_else(|| one.to_string(), str::to_string);
                    described.push(format!("`{name}`: {}", d.trim_end_matches('.')));
                }
                values.push(one.clone());
            }
            let kind = kind.unwrap_or("string").to_string();
            map.remove("oneOf");
            map.insert("type".into(), Value::String(kind));
            map.insert("enum".into(), Value::Array(values));
            if !described.is_empty() {
                let own = map
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!("{d} "))
                    .unwrap_or_default();
                map.insert(
                    "description".into(),
                    Value::String(format!("{own}({}).", described.join("; "))),
                );
            }
        }
        Value::Array(items) => items.iter_mut().for_each(collapse_enums),
        _ => {}
    }
}

fn tidy_nullable(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for inner in map.values_mut() {
                tidy_nullable(inner);
            }
            let Some(Value::Array(parts)) = map.get("anyOf") else {
                return;
            };
            let values: Vec<Value> = parts.iter().filter(|p| !is_null_only(p)).cloned().collect();
            let [only] = values.as_slice() else {
                return;
            };
            if values.len() == parts.len() {
                return;
            }
            map.remove("anyOf");
            match only {
                Value::Object(inner) if inner.contains_key("$ref") => {
                    map.insert("allOf".into(), Value::Array(vec![only.clone()]));
                }
                Value::Object(inner) => {
                    for (k, v) in inner {
                        map.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                _ => {}
            }
            map.insert("nullable".into(), Value::Bool(true));
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_nullable),
        _ => {}
    }
}

fn whole<T: JsonSchema + 'static>() -> Arc<Value> {
    static CACHE: LazyLock<Mutex<HashMap<TypeId, Arc<Value>>>> = LazyLock::new(Default::default);
    let mut cache = CACHE.locked();
    cache
        .entry(TypeId::of::<T>())
        .or_insert_with(|| {
            let settings = settings(Contract::Deserialize).with(|s| s.inline_subschemas = true);
            let mut schema = settings
                .into_generator()
                .into_root_schema_for::<T>()
                .to_value();
            tidy(&mut schema);
            Arc::new(schema)
        })
        .clone()
}

fn no_example() -> Option<Value> {
    None
}

/// The schema of `T`.
pub const fn schema<T: JsonSchema + 'static>() -> SchemaRef {
    SchemaRef {
        name: T::schema_name,
        subschema: subschema::<T>,
        whole: whole::<T>,
        example: no_example,
    }
}

/// The schema of `T`, with an example value of it (what the document shows, and what the
/// tests send).
pub const fn example<T: JsonSchema + Example + 'static>() -> SchemaRef {
    SchemaRef {
        name: T::schema_name,
        subschema: subschema::<T>,
        whole: whole::<T>,
        example: example_of::<T>,
    }
}

fn example_of<T: Example>() -> Option<Value> {
    Some(T::example())
}

/// A request shape with an example: a body that passes its checks.
pub trait Example {
    /// The example, as JSON.
    fn example() -> Value;
}

impl SchemaRef {
    /// The component's name.
    pub fn name(&self) -> String {
        (self.name)().into_owned()
    }

    /// The schema as the document writes it where it is used: a `$ref` to the component
    /// (which `generator` collects), or the schema itself for the simplest types.
    pub fn reference(&self, generator: &mut SchemaGenerator) -> Value {
        (self.subschema)(generator).to_value()
    }

    /// The whole schema for reading a request, subschemas inlined.
    pub fn whole(&self) -> Arc<Value> {
        (self.whole)()
    }

    /// Its example, when it has one.
    pub fn example(&self) -> Option<Value> {
        (self.example)()
    }
}

/// The settings of the document's schemas: OpenAPI 3.0 (`nullable`, components), for what is
/// serialized (answers) or read (requests).
pub fn settings(contract: Contract) -> SchemaSettings {
    let reading = matches!(contract, Contract::Deserialize);
    let settings = SchemaSettings::openapi3().with(|s| {
        s.contract = contract;
        s.meta_schema = None;
    });
    if reading {
        settings.with_transform(Closed)
    } else {
        settings
    }
}

/// Requests are closed: an object of named fields takes no other (what [`read`](super::read)
/// refuses as "unknown field"), and the document says so with `additionalProperties: false`.
/// An object that takes more says which (`additionalProperties: true` or a schema).
#[derive(Debug, Clone, Copy)]
struct Closed;

impl schemars::transform::Transform for Closed {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut()
            && object.contains_key("properties")
            && !object.contains_key("additionalProperties")
        {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        schemars::transform::transform_subschemas(self, schema);
    }
}

/// A field a request may set, clear (`null`, or an empty form value) or leave out.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Clearable<T> {
    /// Left out: unchanged.
    #[default]
    Keep,
    /// `null`: removed.
    Clear,
    /// A new value.
    Set(T),
}

impl<T> Clearable<T> {
    /// As a patch field: `None` keeps, `Some(None)` clears, `Some(Some(v))` sets.
    pub fn patch(self) -> Option<Option<T>> {
        match self {
            Clearable::Keep => None,
            Clearable::Clear => Some(None),
            Clearable::Set(v) => Some(Some(v)),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Clearable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            None => Clearable::Clear,
            Some(v) => Clearable::Set(v),
        })
    }
}

impl<T: JsonSchema> JsonSchema for Clearable<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Option::<T>::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Option::<T>::json_schema(generator)
    }
}

/// A file part of a multipart request: streamed to the store by the handler, never read as
/// text. Its schema is a binary string.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FilePart;

impl<'de> Deserialize<'de> for FilePart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| FilePart)
    }
}

impl Serialize for FilePart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl JsonSchema for FilePart {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "FilePart".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "binary"})
    }
}

/// A media id given in a request: a positive integer no larger than 2^53 - 1 (the reader
/// checks the bounds from this schema).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct MediaRef(pub u64);

impl MediaRef {
    /// The media id; `None` only for a value the reader did not check.
    pub fn id(self) -> Option<podhost_core::MediaId> {
        podhost_core::MediaId::new(self.0).ok()
    }
}

impl JsonSchema for MediaRef {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "MediaRef".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "integer",
            "minimum": 1,
            "maximum": podhost_core::MAX_SAFE_ID,
            "description": "a media id of the account",
        })
    }
}
