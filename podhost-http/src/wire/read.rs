//! Reading a request body as a wire type: the body's fields are checked against the type's own
//! schema (the one the OpenAPI document shows), leniently as forms need (`"1"` for 1, `"true"`,
//! `"on"` or `1` for true, a number for text), every problem reported under its field's name
//! (`itunes.episodeType`), unknown fields refused; then the type is deserialized from the
//! checked values. A form's fields are nested by their brackets (`itunes[title]`); a form field
//! that holds a list or an object holds it as JSON text. The specification's neutral names
//! (`dirA`, `dirB`, `indexns`) are read as `itunes`, `googleplay` and `podcast`.

use jiff::civil;
use podhost_core::FieldErrors;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::schema::{is_null_only, schema};

fn canonical_group(name: &str) -> &str {
    match name {
        "dirA" => "itunes",
        "dirB" => "googleplay",
        "indexns" => "podcast",
        other => other,
    }
}

/// A request body's fields, before they are read.
#[derive(Debug, Default)]
pub struct Body {
    fields: Map<String, Value>,
    /// Whether the values are a form's text.
    form: bool,
    errors: FieldErrors,
}

impl Body {
    /// A JSON body (`None`: an empty body, read as `{}`).
    pub fn json(body: Option<Value>) -> Body {
        let mut read = Body::default();
        match body {
            None => {}
            Some(Value::Object(map)) => {
                for (key, value) in map {
                    read.fields.insert(canonical_group(&key).to_string(), value);
                }
            }
            Some(_) => read.errors.add("body", "the body is a JSON object"),
        }
        read
    }

    /// A form's fields, added one by one with [`Body::add`].
    pub fn form() -> Body {
        Body {
            form: true,
            ..Body::default()
        }
    }

    /// Adds a form's text field: `itunes[title]` goes to `itunes.title`.
    pub fn add(&mut self, name: &str, value: String) {
        let mut path: Vec<&str> = Vec::new();
        match name.split_once('[') {
            Some((group, rest)) => {
                path.push(canonical_group(group));
                path.extend(rest.trim_end_matches(']').split("]["));
            }
            None => path.push(name),
        }
        let mut at = &mut self.fields;
        let (last, parents) = path.split_last().expect("a name has a segment");
        for parent in parents {
            let entry = at
                .entry(parent.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                self.errors
                    .add(name, "given both as a value and as a group");
                return;
            }
            at = entry.as_object_mut().expect("checked above");
        }
        at.insert(last.to_string(), Value::String(value));
    }

    /// Records a problem found while the body was taken apart (a file sent twice).
    pub fn refuse(&mut self, field: &str, message: &str) {
        self.errors.add(field, message);
    }

    /// Whether a top-level field was sent.
    pub fn has(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    /// The body read as `T`: every field checked against `T`'s schema; all problems found, or
    /// the value.
    pub fn read<T: DeserializeOwned + schemars::JsonSchema + 'static>(
        self,
    ) -> podhost_core::Result<T> {
        let Body {
            fields,
            form,
            mut errors,
        } = self;
        let schema = schema::<T>().whole();
        let checked = check(&schema, Value::Object(fields), "", form, &mut errors);
        errors.into_result()?;
        serde_json::from_value(checked.unwrap_or(Value::Null))
            .map_err(|e| podhost_core::Error::invalid("body", plain(&e.to_string())))
    }
}

/// The problems of `value` against `schema` (a whole schema, as [`SchemaRef::whole`] gives
/// it), as a request's body would have them; `form` for a form's text values.
///
/// [`SchemaRef::whole`]: super::schema::SchemaRef::whole
pub fn problems(schema: &Value, value: Value, form: bool) -> FieldErrors {
    let mut errors = FieldErrors::default();
    check(schema, value, "", form, &mut errors);
    errors
}

/// serde's message without its position, which means nothing to a client.
fn plain(message: &str) -> String {
    message
        .find(" at line ")
        .map_or(message, |at| &message[..at])
        .to_string()
}

/// A schema's own keys with those of its `allOf` parts (how references with a description
/// are written), and an optional value's `anyOf: [the value, null]` as the value, nullable.
fn merged(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            out.extend(merged(part));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(parts) = schema.get(key).and_then(Value::as_array) {
            let values: Vec<&Value> = parts.iter().filter(|p| !is_null_only(p)).collect();
            if let [value] = values.as_slice() {
                out.extend(merged(value));
                if values.len() < parts.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
        }
    }
    if let Some(own) = schema.as_object() {
        for (k, v) in own {
            if k != "allOf" {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `value` checked against `schema` at `path`: the value as the type reads it (text made a
/// number, `"on"` made true), or `None` when it counts as absent. Problems go to `errors`.
fn check(
    schema: &Value,
    value: Value,
    path: &str,
    form: bool,
    errors: &mut FieldErrors,
) -> Option<Value> {
    let s = merged(schema);
    let nullable = s.get("nullable").and_then(Value::as_bool) == Some(true);
    let kind = s.get("type").and_then(Value::as_str);
    let field = if path.is_empty() { "body" } else { path };
    if value.is_null() {
        return nullable.then_some(Value::Null);
    }
    // A form's text where a list, an object or any value goes is JSON.
    let value = match (&value, kind) {
        (Value::String(text), Some("array" | "object") | None) if form => {
            match serde_json::from_str::<Value>(text) {
                Ok(parsed) => parsed,
                Err(e) if kind.is_none() => {
                    errors.add(field, format!("not JSON: {}", plain(&e.to_string())));
                    return None;
                }
                Err(_) => value,
            }
        }
        _ => value,
    };
    match kind {
        Some("object") => object(&s, value, path, form, errors),
        Some("array") => {
            let Value::Array(items) = value else {
                errors.add(field, "must be a list");
                return None;
            };
            let item_schema = s.get("items").cloned().unwrap_or(Value::Bool(true));
            // An item that is an object is named by its place (`chapters.0.start`); a value in
            // a list of values by the list (`scopes`).
            let objects =
                merged(&item_schema).get("type").and_then(Value::as_str) == Some("object");
            let checked: Vec<Value> = items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    let at = if objects {
                        join(path, &i.to_string())
                    } else {
                        path.to_string()
                    };
                    check(&item_schema, item, &at, form, errors)
                })
                .collect();
            Some(Value::Array(checked))
        }
        Some("string") => {
            let text = match value {
                Value::String(text) => text,
                Value::Number(n) => n.to_string(),
                _ => {
                    errors.add(field, "must be a string");
                    return None;
                }
            };
            if s.get("format").and_then(Value::as_str) == Some("binary") {
                return None;
            }
            string(&s, &text, field, errors);
            Some(Value::String(text))
        }
        Some("integer") => {
            let n = match &value {
                Value::Number(n) => n.as_i64().map(i128::from).or(n.as_u64().map(i128::from)),
                Value::String(text) if text.trim().is_empty() => {
                    return nullable.then_some(Value::Null);
                }
                Value::String(text) => text.trim().parse::<i128>().ok(),
                _ => None,
            };
            let Some(n) = n else {
                errors.add(field, "must be a whole number");
                return None;
            };
            bounds(&s, n as f64, field, errors);
            let range = match s.get("format").and_then(Value::as_str) {
                Some("uint8") => Some((0, i128::from(u8::MAX))),
                Some("uint16") => Some((0, i128::from(u16::MAX))),
                Some("uint32") => Some((0, i128::from(u32::MAX))),
                Some("int32") => Some((i128::from(i32::MIN), i128::from(i32::MAX))),
                Some("uint64" | "uint") => Some((0, i128::from(u64::MAX))),
                _ => None,
            };
            if range.is_some_and(|(lo, hi)| n < lo || n > hi) {
                errors.add(field, "out of range");
                return None;
            }
            enumerated(&s, &Value::from(n as i64), field, errors);
            Some(if n < 0 {
                Value::from(n as i64)
            } else {
                Value::from(n as u64)
            })
        }
        Some("number") => {
            let n = match &value {
                Value::Number(n) => n.as_f64(),
                Value::String(text) => text.trim().parse::<f64>().ok(),
                _ => None,
            };
            let Some(n) = n.filter(|n| n.is_finite()) else {
                errors.add(field, "must be a number");
                return None;
            };
            bounds(&s, n, field, errors);
            serde_json::Number::from_f64(n).map(Value::Number)
        }
        Some("boolean") => {
            let b = match &value {
                Value::Bool(b) => Some(*b),
                Value::Number(n) => match n.as_u64() {
                    Some(0) => Some(false),
                    Some(1) => Some(true),
                    _ => None,
                },
                // Any case: clients write `True` (Python) or `TRUE`.
                Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
                    "1" | "true" | "on" => Some(true),
                    "0" | "false" | "off" | "" => Some(false),
                    _ => None,
                },
                _ => None,
            };
            if b.is_none() {
                errors.add(field, "must be true or false (or 1 or 0)");
            }
            b.map(Value::Bool)
        }
        // Any value (a Podcasting 2.0 tag: the core checks it).
        _ => Some(value),
    }
}

fn object(
    s: &Map<String, Value>,
    value: Value,
    path: &str,
    form: bool,
    errors: &mut FieldErrors,
) -> Option<Value> {
    let field = if path.is_empty() { "body" } else { path };
    let Value::Object(map) = value else {
        errors.add(field, "must be an object");
        return None;
    };
    let empty = Map::new();
    let properties = s
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let extra = s.get("additionalProperties");
    let mut out = Map::new();
    for (key, value) in map {
        let at = join(path, &key);
        let checked = match (properties.get(&key), extra) {
            (Some(schema), _) => check(schema, value, &at, form, errors),
            (None, Some(schema)) if schema.is_object() => check(schema, value, &at, form, errors),
            (None, Some(Value::Bool(true))) => Some(value),
            (None, _) => {
                errors.add(at, "unknown field");
                None
            }
        };
        if let Some(checked) = checked {
            out.insert(key, checked);
        }
    }
    for required in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !out.contains_key(required) {
            errors.add(join(path, required), "is required");
        }
    }
    Some(Value::Object(out))
}

fn string(s: &Map<String, Value>, text: &str, field: &str, errors: &mut FieldErrors) {
    enumerated(s, &Value::String(text.to_string()), field, errors);
    let chars = text.chars().count() as u64;
    if let Some(min) = s.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        match min {
            1 => errors.add(field, "must not be empty"),
            _ => errors.add(field, format!("at least {min} characters")),
        }
    }
    if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        match max {
            1 => errors.add(field, "at most 1 character"),
            _ => errors.add(field, format!("at most {max} characters")),
        }
    }
    if s.get("format").and_then(Value::as_str) == Some("date")
        && !text.is_empty()
        && text.parse::<civil::Date>().is_err()
    {
        errors.add(field, "a date YYYY-MM-DD");
    }
    if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
        && !text.is_empty()
        && !regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text))
    {
        errors.add(field, format!("must be {}", pattern_rule(pattern)));
    }
}

/// A time of day as the API takes it (an episode's `publishing_time`).
pub const TIME_PATTERN: &str = r"^[0-9]{2}:[0-9]{2}:[0-9]{2}$";

/// An `Idempotency-Key` as the document declares it.
pub const IDEMPOTENCY_KEY_PATTERN: &str = "^[!-~]+$";

/// [`IDEMPOTENCY_KEY_PATTERN`] in words.
const IDEMPOTENCY_KEY_RULE: &str = "visible ASCII characters, no spaces";

/// What a pattern of the document accepts, in words: each pattern the API declares is an id
/// type's, whose rule is declared beside it.
fn pattern_rule(pattern: &str) -> &'static str {
    use podhost_core::{EpisodeId, FeedId, Login};
    [
        (FeedId::PATTERN, FeedId::RULE),
        (EpisodeId::PATTERN, EpisodeId::RULE),
        (Login::PATTERN, Login::RULE),
        (TIME_PATTERN, "a time of day HH:MM:SS, e.g. 09:30:00"),
        (IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE),
    ]
    .into_iter()
    .find_map(|(p, rule)| (p == pattern).then_some(rule))
    .unwrap_or("in the form the API reference gives for this field")
}

fn bounds(s: &Map<String, Value>, n: f64, field: &str, errors: &mut FieldErrors) {
    if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
        let exclusive = s.get("exclusiveMinimum").and_then(Value::as_bool) == Some(true);
        if n < min || (exclusive && n == min) {
            match exclusive {
                true => errors.add(field, format!("must be more than {min}")),
                false => errors.add(field, format!("must be at least {min}")),
            }
        }
    }
    if let Some(max) = s.get("maximum").and_then(Value::as_f64)
        && n > max
    {
        errors.add(field, format!("must be at most {max}"));
    }
}

fn enumerated(s: &Map<String, Value>, value: &Value, field: &str, errors: &mut FieldErrors) {
    let Some(allowed) = s.get("enum").and_then(Value::as_array) else {
        return;
    };
    if !allowed.contains(value) {
        let names: Vec<String> = allowed
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        errors.add(field, format!("one of {}", names.join(", ")));
    }
}
