//! The OpenAPI 3.0.3 document served at `GET /api/openapi.json`, derived from the route tables
//! and the wire types: every documented row is an operation (its `operationId` and tag, its
//! parameters, body and example, its answers, its security, links from what it makes to the
//! operations that use it), and the component schemas are the wire types' own (schemars).

use std::collections::BTreeMap;

use podhost_core::{PodcastHost, Scope, Scopes};
use schemars::{SchemaGenerator, generate::Contract};
use serde_json::{Map, Value, json};

use crate::{
    routes::{BodyKind, Route, Shape, Surface, routes, tables},
    wire::{
        errors::{ErrorBody, ValidationBody},
        oauth::OAuthErrorBody,
        schema::{SchemaRef, schema, settings, tidy},
    },
};

/// The document's two sets of schemas: what answers carry (serialized) and what requests send
/// (read). A type that is both and differs between them is named with `Input` for requests.
struct Schemas {
    answers: SchemaGenerator,
    requests: SchemaGenerator,
}

impl Schemas {
    fn new() -> Self {
        Schemas {
            answers: settings(Contract::Serialize).into_generator(),
            requests: settings(Contract::Deserialize).into_generator(),
        }
    }

    fn answer(&mut self, schema: SchemaRef) -> Value {
        schema.reference(&mut self.answers)
    }

    fn request(&mut self, schema: SchemaRef) -> Value {
        schema.reference(&mut self.requests)
    }

    /// The components, and the request schemas renamed because an answer's of the same name
    /// differs.
    fn components(mut self) -> (Map<String, Value>, BTreeMap<String, String>) {
        let mut components = self.answers.take_definitions(true);
        let requests = self.requests.take_definitions(true);
        let renamed: BTreeMap<String, String> = requests
            .iter()
            .filter(|(name, schema)| components.get(*name).is_some_and(|a| a != *schema))
            .map(|(name, _)| (name.clone(), format!("{name}Input")))
            .collect();
        for (name, mut schema) in requests {
            rename_refs(&mut schema, &renamed);
            let name = renamed.get(&name).cloned().unwrap_or(name);
            components.entry(name).or_insert(schema);
        }
        (components, renamed)
    }
}

fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

/// What each error status means, wherever it is answered.
fn error_response(status: u16, error: &Value, validation: &Value) -> Value {
    let (description, schema) = match status {
        400 => (
            "malformed request: JSON, multipart or a path parameter",
            error,
        ),
        401 => ("missing, unknown or revoked token", error),
        403 => ("the token lacks the scope", error),
        404 => (
            "no such object (another account's objects never exist)",
            error,
        ),
        405 => ("wrong method", error),
        409 => (
            "conflict: an id that is taken, a file still in use, a changed version, a request of this Idempotency-Key still running (see retry-after)",
            error,
        ),
        413 => (
            "a body, a form field or an upload is larger than its limit; the message names which (docs/configuration.md lists them)",
            error,
        ),
        422 => (
            "validation failed (unknown query parameters included): messages per field",
            validation,
        ),
        429 => ("rate limit reached; see retry-after", error),
        503 => (
            "the store did not answer in time; send the request again after retry-after (a write with the same Idempotency-Key takes effect once)",
            error,
        ),
        507 => (
            "the store has no space left; nothing of the write was kept",
            error,
        ),
        _ => ("internal fault", error),
    };
    json!({ "description": description, "content": json_content(schema.clone()) })
}

/// An error answer of an OAuth endpoint, or of its authorization page.
fn oauth_error_response(row: &Route, status: u16, oauth_error: &Value) -> Value {
    match (&row.success.shape, status) {
        (Shape::Document(_), 303) => json!({
            "description": "back to the client's redirect URI with `error` (or to the sign-in form's next page)",
            "headers": {"Location": {"schema": {"type": "string"}}},
        }),
        (Shape::Document(media_type), _) => json!({
            "description": "a page saying what is wrong with the request (an unknown client or redirect URI is never redirected to)",
            "content": { *media_type: { "schema": {"type": "string"} } },
        }),
        (_, 401) => json!({
            "description": "the client failed to authenticate (invalid_client)",
            "content": json_content(oauth_error.clone()),
        }),
        _ => json!({
            "description": "invalid_request, invalid_grant, unsupported_grant_type, invalid_scope or unauthorized_client",
            "content": json_content(oauth_error.clone()),
        }),
    }
}

/// The statuses every operation of this kind may answer: a write also 507 when the store is
/// full.
fn common_errors(row: &Route) -> &'static [u16] {
    match row.surface {
        Surface::OAuth | Surface::Ops => &[],
        Surface::Api if row.method == http::Method::GET => {
            &[400, 401, 403, 404, 405, 422, 429, 500, 503]
        }
        Surface::Api => &[400, 401, 403, 404, 405, 422, 429, 500, 503, 507],
        _ => &[422],
    }
}

/// The success response of a row.
fn success(row: &Route, schemas: &mut Schemas) -> Value {
    let mut answer = json!({ "description": row.success.description });
    let data = |inner: Value| json!({"type": "object", "required": ["data"], "properties": {"data": inner}});
    let content = match row.success.shape {
        Shape::Empty => None,
        Shape::Bare(s) => Some(json_content(schemas.answer(s))),
        Shape::Data(s) => Some(json_content(data(schemas.answer(s)))),
        Shape::DataList(s) => Some(json_content(data(
            json!({"type": "array", "items": schemas.answer(s)}),
        ))),
        Shape::JsonOrBinary(s) => {
            let mut content = json_content(schemas.answer(s));
            content["application/octet-stream"] =
                json!({"schema": {"type": "string", "format": "binary"}});
            Some(content)
        }
        Shape::AnyObject => Some(json_content(json!({"type": "object"}))),
        Shape::Document(media_type) => {
            Some(json!({ media_type: { "schema": {"type": "string", "format": "binary"} } }))
        }
    };
    if let Some(content) = content {
        answer["content"] = content;
    }
    if let Some(links) = links(row) {
        answer["links"] = links;
    }
    answer
}

/// A form's fields flattened for `multipart/form-data`: a nested object's fields become fields
/// named with brackets (`itunes[title]`), as the specification's forms name them.
fn form_fields(schema: &Value, prefix: &str, out: &mut Map<String, Value>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, field) in properties {
        let key = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}[{name}]")
        };
        let nested = field.get("type").and_then(Value::as_str) == Some("object")
            && field.get("properties").is_some();
        if nested {
            form_fields(field, &key, out);
        } else {
            out.insert(key, field.clone());
        }
    }
}

/// A form's example values as text (what a form sends).
fn form_example(example: &Value) -> Value {
    match example {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    (k.clone(), Value::String(text))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The request body of a row.
fn request_body(row: &Route, schemas: &mut Schemas) -> Option<Value> {
    let with_example = |mut media: Value, example: Option<Value>| {
        if let Some(example) = example {
            media["example"] = example;
        }
        media
    };
    match row.body {
        BodyKind::None | BodyKind::Form { schema: None } => None,
        BodyKind::Json { schema, required } => Some(json!({
            "required": required,
            "content": { "application/json": with_example(json!({ "schema": schemas.request(schema) }), schema.example()) },
        })),
        BodyKind::Form {
            schema: Some(schema),
        } => Some(json!({
            "required": true,
            "content": { "application/x-www-form-urlencoded": with_example(json!({ "schema": schemas.request(schema) }), schema.example().map(|e| form_example(&e))) },
        })),
        BodyKind::Multipart { schema, .. } => {
            // Forms are documented flat, so the whole schema is written here.
            let whole = schema.whole();
            let mut fields = Map::new();
            form_fields(&whole, "", &mut fields);
            let mut form =
                json!({"type": "object", "properties": fields, "additionalProperties": false});
            if let Some(required) = whole.get("required") {
                form["required"] = required.clone();
            }
            Some(json!({
                "required": true,
                "content": { "multipart/form-data": with_example(json!({ "schema": form }), schema.example().map(|e| form_example(&e))) },
            }))
        }
    }
}

/// The links of what a row makes to the operations that use it: each documented route whose
/// path takes a parameter naming what was made, its other parameters filled from the request
/// that made it.
fn links(row: &Route) -> Option<Value> {
    let made = row.makes?;
    let own: Vec<&str> = row.path_params().collect();
    let mut links = Map::new();
    for target in routes().filter(|r| r.surface.documented() && r.scope.is_some()) {
        let names: Vec<&str> = target.path_params().collect();
        if !names.iter().any(|n| made.params.contains(n)) {
            continue;
        }
        let mut parameters = Map::new();
        let fillable = names.iter().all(|name| {
            let value = if made.params.contains(name) {
                format!("$response.body#{}", made.at)
            } else if own.contains(name) {
                format!("$request.path.{name}")
            } else {
                return false;
            };
            parameters.insert(name.to_string(), Value::String(value));
            true
        });
        if fillable {
            links.insert(
                target.operation_id(),
                json!({"operationId": target.operation_id(), "parameters": parameters}),
            );
        }
    }
    (!links.is_empty()).then_some(Value::Object(links))
}

/// The scopes that allow what `needed` allows, e.g. `media, media-read-only`.
fn scopes_allowing(needed: Scope) -> String {
    let names: Vec<&str> = Scope::ALL
        .into_iter()
        .filter(|s| Scopes::from_iter([*s]).allows(needed))
        .map(Scope::as_str)
        .collect();
    names.join(", ")
}

/// The operation object of one row.
fn operation(row: &Route, schemas: &mut Schemas, errors: &ErrorSchemas) -> Value {
    let mut parameters: Vec<Value> = row
        .params
        .iter()
        .map(|p| {
            let schema = p.kind.schema();
            // The sample as its schema's type: a number for an integer parameter.
            let example = match schema["type"].as_str() {
                Some("integer") => json!(p.kind.sample().parse::<u64>().ok()),
                _ => json!(p.kind.sample()),
            };
            json!({"name": p.name, "in": "path", "required": true, "schema": schema, "description": p.description(), "example": example})
        })
        .collect();
    parameters.extend(row.query.iter().map(|q| {
        json!({"name": q.name, "in": "query", "required": false, "schema": (q.schema)(), "description": q.description})
    }));
    if crate::idempotency::takes_key(row) {
        parameters.push(json!({
            "name": podhost_core::idempotency::HEADER,
            "in": "header",
            "required": false,
            "schema": {"type": "string", "minLength": 1, "maxLength": podhost_core::idempotency::MAX_KEY, "pattern": crate::wire::read::IDEMPOTENCY_KEY_PATTERN},
            "description": "a new random value per request (a UUID): a repeat gets the first answer, with `Idempotent-Replayed: true`, and changes nothing (see Safe retries)",
        }));
    }
    let mut responses = Map::new();
    responses.insert(row.success.status.to_string(), success(row, schemas));
    let keyed: &[u16] = match crate::idempotency::takes_key(row) {
        true => &[409],
        false => &[],
    };
    for status in common_errors(row).iter().chain(keyed).chain(row.errors) {
        let response = match row.surface {
            Surface::OAuth => oauth_error_response(row, *status, &errors.oauth),
            // A probe's refusal is its own shape, with the reason.
            Surface::Ops if *status == 503 => json!({
                "description": "not ready: `reason` says why",
                "content": success(row, schemas)["content"].clone(),
            }),
            _ => error_response(*status, &errors.error, &errors.validation),
        };
        responses.insert(status.to_string(), response);
    }
    let mut description = match (row.scope, row.surface) {
        (Some(scope), _) => format!("Scopes: {}.", scopes_allowing(scope)),
        (None, Surface::OAuth) if matches!(row.body, BodyKind::Form { .. }) => {
            "No bearer token: a confidential client authenticates with HTTP Basic or client_secret in the form, a public one sends its client_id.".to_string()
        }
        (None, _) => "No authentication.".to_string(),
    };
    if row.addition {
        description.push_str(" An addition of podhost to the specification.");
    }
    let security = match row.scope {
        Some(_) => json!([{"bearer": []}]),
        None => json!([]),
    };
    let mut op = json!({
        "operationId": row.operation_id(),
        "tags": [row.tag],
        "summary": row.summary(),
        "description": description,
        "parameters": parameters,
        "responses": responses,
        "security": security,
    });
    if let Some(body) = request_body(row, schemas) {
        op["requestBody"] = body;
    }
    if row.addition {
        op["x-podhost-addition"] = json!(true);
    }
    op
}

/// The error answers' schemas, as references.
struct ErrorSchemas {
    error: Value,
    validation: Value,
    oauth: Value,
}

/// Renames the `$ref`s of request schemas that were renamed.
fn rename_refs(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = target.strip_prefix("#/components/schemas/")
                            && let Some(new) = renamed.get(name)
                        {
                            *target = format!("#/components/schemas/{new}");
                        }
                    }
                    (_, inner) => rename_refs(inner, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, renamed)),
        _ => {}
    }
}

/// The document.
pub fn document(host: &PodcastHost) -> Value {
    let mut schemas = Schemas::new();
    let errors = ErrorSchemas {
        error: schemas.answer(schema::<ErrorBody<'static>>()),
        validation: schemas.answer(schema::<ValidationBody<'static>>()),
        oauth: schemas.answer(schema::<OAuthErrorBody<'static>>()),
    };
    let mut paths = Map::new();
    for row in routes().filter(|r| r.surface.documented()) {
        let entry = paths
            .entry(row.path.to_string())
            .or_insert_with(|| json!({}));
        entry[row.method.as_str().to_lowercase()] = operation(row, &mut schemas, &errors);
    }
    let tags: Vec<Value> = tables()
        .filter(|t| t.surface.documented())
        .map(|t| json!({"name": t.tag, "description": t.description.trim()}))
        .collect();
    let (components, renamed) = schemas.components();
    let mut paths = Value::Object(paths);
    for item in paths
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut())
    {
        for op in item
            .as_object_mut()
            .into_iter()
            .flat_map(|o| o.values_mut())
        {
            if let Some(body) = op.get_mut("requestBody") {
                rename_refs(body, &renamed);
            }
        }
    }
    let mut components = Value::Object(components);
    tidy(&mut components);
    tidy(&mut paths);
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "podhost",
            "version": "1.0.0",
            "description": "The podcast hosting API. Operations and fields marked x-podhost-addition are podhost's additions to the specification.",
        },
        "servers": [{ "url": host.urls().base() }],
        "tags": tags,
        "paths": paths,
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "schemas": components,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `$ref` in `value`.
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    match (key.as_str(), inner) {
                        ("$ref", Value::String(target)) => out.push(target),
                        _ => refs(inner, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    fn doc() -> Value {
        let (host, _) =
            podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
        document(&host)
    }

    #[test]
    fn every_referenced_schema_exists() {
        let doc = doc();
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(!found.is_empty());
        let schemas = &doc["components"]["schemas"];
        for target in &found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} points into the schemas"));
            assert!(schemas.get(name).is_some(), "{target} is not defined");
        }
    }

    #[test]
    fn operations_follow_their_rows() {
        let doc = doc();
        let op = &doc["paths"]["/api/media/{media_id}"]["get"];
        assert_eq!(op["security"], json!([{"bearer": []}]));
        assert_eq!(op["description"], "Scopes: media, media-read-only.");
        assert_eq!(op["operationId"], "get_media");
        assert_eq!(op["tags"], json!(["media"]));
        assert_eq!(op["parameters"][0]["name"], "media_id");
        assert_eq!(op["parameters"][0]["schema"]["type"], "integer");
        let document_op = &doc["paths"]["/api/openapi.json"]["get"];
        assert_eq!(document_op["security"], json!([]));
        assert_eq!(document_op["x-podhost-addition"], true);
        let copy = &doc["paths"]["/api/feed/{feed_id}/show/{show_id}/copy"]["post"];
        let names: Vec<&str> = copy["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["feed_id", "show_id", "feed_id_to", "Idempotency-Key"]
        );
        // Writes under /api take a key (and may answer 409 for it); reads do not.
        assert_eq!(copy["parameters"][3]["in"], "header");
        assert!(copy["responses"].get("409").is_some());
        assert!(
            op["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["in"] != "header")
        );
        assert!(doc["paths"].get("/feeds/{feed_id}/rss").is_none());
        assert!(
            doc["paths"].get("/account").is_none(),
            "the site is not the API"
        );
        let token = &doc["paths"]["/oauth/token"]["post"];
        assert_eq!(token["security"], json!([]));
        assert!(token["requestBody"]["content"]["application/x-www-form-urlencoded"].is_object());
        assert_eq!(
            token["responses"]["400"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/OAuthError"
        );
    }

    #[test]
    fn forms_are_flat_and_creates_link_to_what_uses_them() {
        let doc = doc();
        let form = &doc["paths"]["/api/feed/{feed_id}/show"]["post"]["requestBody"]["content"]["multipart/form-data"];
        let fields = form["schema"]["properties"].as_object().unwrap();
        for name in [
            "title",
            "itunes[title]",
            "itunes[episodeType]",
            "podcast[transcript]",
            "media",
        ] {
            assert!(fields.contains_key(name), "{name} in {fields:?}");
        }
        assert!(!fields.contains_key("itunes"));
        // A podcast is created with its title (the core refuses one without): a client that
        // generates requests from the document sends one.
        let create = &doc["paths"]["/api/feeds"]["post"]["requestBody"]["content"]["application/json"]
            ["schema"]["$ref"];
        let create = create
            .as_str()
            .unwrap()
            .trim_start_matches("#/components/schemas/");
        let required = &doc["components"]["schemas"][create]["required"];
        assert_eq!(required, &json!(["id", "title"]), "{create}");
        let links = &doc["paths"]["/api/feeds"]["post"]["responses"]["201"]["links"];
        assert_eq!(
            links["get_feed"]["parameters"]["feed_id"],
            "$response.body#/data/id"
        );
        let episode =
            &doc["paths"]["/api/feed/{feed_id}/show"]["post"]["responses"]["201"]["links"];
        assert_eq!(
            episode["update_episode"]["parameters"],
            json!({"feed_id": "$request.path.feed_id", "show_id": "$response.body#/data/id"})
        );
    }

    #[test]
    fn no_schema_is_written_by_hand() {
        // Every component is a wire type's: it has a description from its doc comment.
        let doc = doc();
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            assert!(
                schema.get("description").is_some() || schema.get("enum").is_some(),
                "{name} has no doc comment"
            );
        }
    }
}
