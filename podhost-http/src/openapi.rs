//! The OpenAPI 3.0.3 document served at `GET /api/openapi.json`, built from the route table
//! ([`ROUTES`]): every [`Surface::Api`] row is an operation (parameters from its template and
//! its query list, its body, its answers, its security). The component schemas (the wire
//! shapes) are here, referenced by name from the rows.

use podhost_core::{PodcastHost, Scope, Scopes};
use serde_json::{Value, json};

use crate::routes::{BodyKind, Route, Shape, Surface, routes};

fn r(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// What each error status means, wherever it is answered.
fn error_response(status: u16) -> Value {
    let (description, schema) = match status {
        400 => (
            "malformed request: JSON, multipart or a path parameter",
            "Error",
        ),
        401 => ("missing, unknown or revoked token", "Error"),
        403 => ("the token lacks the scope", "Error"),
        404 => (
            "no such object (another account's objects never exist)",
            "Error",
        ),
        405 => ("wrong method", "Error"),
        409 => (
            "conflict: an id that is taken, a file still in use, a changed version",
            "Error",
        ),
        413 => ("the body is larger than the limit", "Error"),
        422 => (
            "validation failed (unknown query parameters included): messages per field",
            "ValidationError",
        ),
        429 => ("rate limit reached; see retry-after", "Error"),
        _ => ("internal fault", "Error"),
    };
    json!({ "description": description, "content": { "application/json": { "schema": r(schema) } } })
}

/// An error answer of an OAuth endpoint (RFC 6749 §5.2), or its authorization page's.
fn oauth_error_response(row: &Route, status: u16) -> Value {
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
            "content": json_content(r("OAuthError")),
        }),
        _ => json!({
            "description": "invalid_request, invalid_grant, unsupported_grant_type, invalid_scope or unauthorized_client",
            "content": json_content(r("OAuthError")),
        }),
    }
}

/// The statuses every operation of this kind may answer.
fn common_errors(row: &Route) -> &'static [u16] {
    if row.surface == Surface::OAuth {
        &[]
    } else if row.authenticated() {
        &[400, 401, 403, 404, 405, 422, 429, 500]
    } else {
        &[422]
    }
}

fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

/// The success response of a row.
fn success(row: &Route) -> Value {
    let mut answer = json!({ "description": row.success.description });
    let data = |inner: Value| json!({"type": "object", "required": ["data"], "properties": {"data": inner}});
    let content = match row.success.shape {
        Shape::Empty => None,
        Shape::Bare(name) => Some(json_content(r(name))),
        Shape::Data(name) => Some(json_content(data(r(name)))),
        Shape::DataList(name) => Some(json_content(data(
            json!({"type": "array", "items": r(name)}),
        ))),
        Shape::JsonOrBinary(name) => {
            let mut content = json_content(r(name));
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
    answer
}

/// The request body of a row.
fn request_body(row: &Route) -> Option<Value> {
    match row.body {
        BodyKind::None => None,
        BodyKind::Json {
            schema,
            required,
            example,
        } => {
            let example: Value = serde_json::from_str(example).unwrap_or(Value::Null);
            Some(json!({
                "required": required,
                "content": { "application/json": { "schema": r(schema), "example": example } },
            }))
        }
        BodyKind::Form { schema, example } => {
            let fields: serde_json::Map<String, Value> = example
                .iter()
                .map(|(k, v)| (k.to_string(), json!(v)))
                .collect();
            Some(json!({
                "required": true,
                "content": { "application/x-www-form-urlencoded": { "schema": r(schema), "example": fields } },
            }))
        }
        BodyKind::Multipart {
            schema, example, ..
        } => {
            let mut media = json!({ "schema": r(schema) });
            if !example.is_empty() {
                let fields: serde_json::Map<String, Value> = example
                    .iter()
                    .map(|(k, v)| (k.to_string(), json!(v)))
                    .collect();
                media["example"] = Value::Object(fields);
            }
            Some(json!({ "required": true, "content": { "multipart/form-data": media } }))
        }
    }
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
fn operation(row: &Route) -> Value {
    let mut parameters: Vec<Value> = row
        .params
        .iter()
        .map(|p| {
            json!({"name": p.name, "in": "path", "required": true, "schema": p.kind.schema(), "description": p.description()})
        })
        .collect();
    parameters.extend(row.query.iter().map(|q| {
        json!({"name": q.name, "in": "query", "required": false, "schema": (q.schema)(), "description": q.description})
    }));
    let mut responses = serde_json::Map::new();
    for status in common_errors(row).iter().chain(row.errors) {
        let response = match row.surface {
            Surface::OAuth => oauth_error_response(row, *status),
            _ => error_response(*status),
        };
        responses.insert(status.to_string(), response);
    }
    responses.insert(row.success.status.to_string(), success(row));
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
    if let Some(body) = request_body(row) {
        op["requestBody"] = body;
    }
    if row.addition {
        op["x-podhost-addition"] = json!(true);
    }
    op
}

/// The Podcasting 2.0 tags of `names` as schema properties: each a list of objects, or one
/// object, by the namespace's names (`null` removes a tag; each is checked by the core).
fn tag_properties(names: &[&str]) -> Value {
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
    let props: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| {
            let schema = if ONE.contains(name) {
                json!({"type": "object", "nullable": true, "description": format!("podcast:{name}")})
            } else {
                json!({"type": "array", "nullable": true, "items": {"type": "object"}, "description": format!("podcast:{name}")})
            };
            (name.to_string(), schema)
        })
        .collect();
    Value::Object(props)
}

fn string() -> Value {
    json!({"type": "string"})
}

fn object(required: &[&str], properties: Value) -> Value {
    json!({ "type": "object", "required": required, "properties": properties })
}

fn schemas() -> Value {
    let itunes_out = object(
        &[
            "title",
            "subtitle",
            "logo",
            "summary",
            "episodeType",
            "author",
            "duration",
            "season",
            "episode",
        ],
        json!({
            "title": string(), "subtitle": string(), "logo": string(), "summary": string(),
            "episodeType": {"type": "string", "enum": ["full", "trailer", "bonus"]}, "author": string(),
            "duration": {"type": "string", "description": "HH:MM:SS or empty"},
            "season": string(), "episode": string(), "explicit": {"type": "boolean", "nullable": true},
        }),
    );
    let episode_fields = json!({
        "title": string(), "subtitle": string(), "author": string(), "email": string(), "copyright": string(),
        "description": string(), "link": string(),
        "is_public": {"oneOf": [{"type": "integer", "enum": [0, 1]}, {"type": "boolean"}, {"type": "string", "enum": ["0", "1", "true", "false"]}]},
        "publishing_date": {"type": "string", "format": "date"}, "publishing_time": {"type": "string", "pattern": "^[0-9]{2}:[0-9]{2}:[0-9]{2}$"},
        "show_media": {"type": "integer", "minimum": 1, "nullable": true},
        "write_metadata": {"type": "boolean", "description": "true is refused (422) until the media processing issue lands"},
    });
    let mut update = episode_fields.clone();
    update["itunes"] = json!({"type": "object", "properties": {
        "title": string(), "subtitle": string(), "summary": string(), "author": string(),
        "episode": {"type": "integer", "minimum": 0, "nullable": true}, "season": {"type": "string"},
        "episodeType": {"type": "string", "enum": ["full", "trailer", "bonus"]},
        "logo": {"type": "integer", "minimum": 1, "nullable": true}, "explicit": {"type": "boolean", "nullable": true},
    }, "additionalProperties": false});
    let mut item_podcast = tag_properties(&podhost_core::model::podcast::ITEM_TAGS);
    item_podcast["transcript"] = json!({"type": "integer", "minimum": 1, "nullable": true});
    update["podcast"] =
        json!({"type": "object", "properties": item_podcast, "additionalProperties": false});
    update["version"] = json!({"type": "integer", "description": "addition: apply only if the episode still has this version (else 409)"});
    let mut create = episode_fields;
    create["guid"] = string();
    for key in [
        "itunes[title]",
        "itunes[subtitle]",
        "itunes[summary]",
        "itunes[author]",
        "itunes[episode]",
        "itunes[episodeType]",
        "itunes[season]",
        "itunes[logo]",
        "itunes[explicit]",
        "podcast[transcript]",
    ] {
        create[key] = string();
    }
    create["media"] = json!({"type": "string", "format": "binary"});
    create["cover"] = json!({"type": "string", "format": "binary"});
    let feed_fields = json!({
        "title": string(), "description": string(), "language": string(), "copyright": string(), "link": string(),
        "logo": {"type": "integer", "minimum": 1, "nullable": true},
        "itunes": {"type": "object", "properties": {
            "subtitle": string(), "summary": string(), "author": string(), "category": string(), "subcategory": string(),
            "explicit": {"type": "boolean"}, "type": {"type": "string", "enum": ["episodic", "serial"]},
            "owner": {"type": "object", "properties": {"name": string(), "email": string()}},
            "block": {"type": "boolean"}, "complete": {"type": "boolean"}, "new-feed-url": {"type": "string", "nullable": true},
        }},
        "googleplay": {"type": "object", "properties": {"author": string(), "description": string()}},
        "podcast": {"type": "object", "properties": {
            "locked": {"type": "boolean"}, "medium": string(),
            "funding": {"type": "array", "items": {"type": "object", "required": ["url"], "properties": {"url": string(), "text": string()}}},
        }},
    });
    let mut feed_fields = feed_fields;
    if let (Some(podcast), Value::Object(tags)) = (
        feed_fields["podcast"]["properties"].as_object_mut(),
        tag_properties(&podhost_core::model::podcast::CHANNEL_TAGS),
    ) {
        podcast.extend(tags);
    }
    feed_fields["private"] = json!({"type": "boolean", "description": "addition: no public feed or pages; subscribers get feed URLs of their own"});
    let mut feed_create = feed_fields.clone();
    feed_create["id"] = json!({"type": "string", "minLength": 1, "maxLength": 100});
    let scope_list = json!({"type": "array", "items": {"type": "string", "enum": Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>()}});
    let links = |keys: &[&str]| {
        let props: serde_json::Map<String, Value> =
            keys.iter().map(|k| (k.to_string(), string())).collect();
        object(keys, Value::Object(props))
    };
    json!({
        "Error": object(&["message"], json!({"message": string()})),
        "ValidationError": object(&["message", "errors"], json!({"message": string(), "errors": {"type": "object", "additionalProperties": {"type": "array", "items": string()}}})),
        "MediaItem": object(
            &["id", "name", "byte", "created", "size", "last", "cat", "url", "extension", "mimetype", "type", "created_date", "created_time"],
            json!({"id": string(), "name": string(), "byte": {"type": "integer"}, "created": string(), "size": string(), "last": string(),
                   "cat": string(), "url": string(), "extension": string(), "mimetype": string(), "type": string(),
                   "created_date": string(), "created_time": string()}),
        ),
        "MediaList": object(&["count", "items"], json!({"count": {"type": "integer"}, "items": {"type": "array", "items": r("MediaItem")}})),
        "MediaRecord": object(
            &["id", "name", "byte", "size", "time", "last", "cat", "mimetype", "type", "info", "mime"],
            json!({"id": {"type": "integer"}, "name": string(), "byte": {"type": "integer"}, "size": string(), "time": string(), "last": string(),
                   "cat": {"type": "string", "nullable": true}, "mimetype": string(), "type": string(), "info": string(), "mime": string(),
                   "url": string(), "extension": string(), "duration": {"type": "string", "nullable": true}}),
        ),
        "MediaUpload": object(&["media"], json!({"media": {"type": "string", "format": "binary"}})),
        "MediaCopy": object(&["label", "category"], json!({"label": string(), "category": string()})),
        "MediaUpdate": {"type": "object", "additionalProperties": false, "properties": {
            "name": {"type": "string", "minLength": 1, "description": "cleaned and made unique in the account; the download URL keeps the name it had"},
            "category": {"type": "string", "nullable": true, "description": "null or empty: the default category"},
        }},
        "FeedListItem": object(&["type", "id", "links", "attributes", "shows_count", "relationships"], json!({
            "type": {"type": "string", "enum": ["feed"]}, "id": string(), "links": links(&["self", "rss", "web", "logo"]),
            "attributes": object(&["rss", "logo"], json!({"rss": links(&["title", "description", "copyright"]), "logo": string()})),
            "shows_count": {"type": "integer"}, "relationships": {"type": "array", "items": string()},
        })),
        "Feed": object(&["type", "id", "attributes", "links", "shows_count", "relationships"], json!({
            "type": {"type": "string", "enum": ["feed"]}, "id": string(),
            "attributes": object(&["rss", "itunes", "googleplay", "logo"], json!({
                "rss": links(&["title", "description", "copyright"]),
                "itunes": object(&["subtitle"], json!({"subtitle": string()})),
                "googleplay": links(&["author", "description"]),
                "podcast": {"type": "object"},
                "logo": string(),
            })),
            "links": links(&["self", "rss", "web", "logo"]),
            "shows_count": {"type": "integer"}, "relationships": {"type": "array", "items": string()},
        })),
        "FeedCreate": {"type": "object", "required": ["id", "title"], "properties": feed_create, "additionalProperties": false},
        "FeedUpdate": {"type": "object", "properties": feed_fields, "additionalProperties": false},
        "FeedImport": {"type": "object", "required": ["url"], "additionalProperties": false, "properties": {
            "url": {"type": "string", "description": "the http(s) URL of the podcast's RSS feed"},
            "feed_id": {"type": "string", "minLength": 1, "maxLength": 100, "description": "the podcast's id here; by default one made from its title"},
        }},
        "EpisodeListItem": object(&["type", "id", "feed_id", "links", "attributes", "relationships"], json!({
            "type": {"type": "string", "enum": ["show"]}, "id": string(), "feed_id": string(),
            "links": links(&["self", "web", "logo", "media"]),
            "attributes": object(
                &["title", "description", "author", "link", "copyright", "logo", "guid", "publish_date", "publish_date_formatted", "is_published", "file", "enclosure_url", "itunes", "type", "duration_formatted"],
                json!({"title": string(), "description": string(), "author": string(), "link": string(), "copyright": string(), "logo": string(),
                       "guid": string(), "publish_date": {"type": "string", "pattern": "^-?[0-9]+$"}, "publish_date_formatted": string(),
                       "is_published": {"type": "integer", "enum": [0, 1]}, "file": string(), "enclosure_url": string(),
                       "itunes": itunes_out.clone(), "type": string(), "duration_formatted": string(), "is_public": {"type": "integer", "enum": [0, 1]}}),
            ),
            "relationships": {"type": "array", "items": string()},
        })),
        "Episode": object(&["type", "id", "feed_id", "attributes"], json!({
            "type": {"type": "string", "enum": ["show"]}, "id": string(), "feed_id": string(),
            "attributes": object(&["title", "subtitle", "link", "description", "author", "email", "copyright", "itunes"], json!({
                "title": string(), "subtitle": string(), "link": string(), "description": string(), "author": string(),
                "email": string(), "copyright": string(), "itunes": itunes_out,
                "guid": string(), "is_public": {"type": "integer", "enum": [0, 1]}, "is_published": {"type": "integer", "enum": [0, 1]},
                "publish_date": string(), "publish_date_formatted": string(), "show_media": {"type": "integer", "nullable": true},
                "enclosure_url": string(), "duration_formatted": string(),
                "podcast": {"type": "object", "properties": {"transcript": {"type": "integer", "nullable": true}}},
                "version": {"type": "integer"},
            })),
        })),
        "EpisodeCreate": {"type": "object", "required": ["title"], "properties": create},
        "Metadata": object(&["id", "type", "mime", "tags", "adbreak"], json!({
            "id": {"type": "integer"}, "type": string(), "mime": string(), "info": string(),
            "duration": {"type": "number", "nullable": true}, "bitrate": {"type": "integer", "nullable": true},
            "sample_rate": {"type": "integer", "nullable": true}, "channels": {"type": "integer", "nullable": true},
            "codec": {"type": "string", "nullable": true}, "width": {"type": "integer", "nullable": true},
            "height": {"type": "integer", "nullable": true},
            "tags": {"type": "object", "nullable": true, "properties": {
                "title": {"type": "string", "nullable": true}, "artist": {"type": "string", "nullable": true},
                "album": {"type": "string", "nullable": true}, "year": {"type": "integer", "nullable": true},
                "comment": {"type": "string", "nullable": true},
                "chapters": {"type": "array", "items": r("Chapter")},
                "cover": {"type": "object", "nullable": true},
            }},
            "tags_error": {"type": "string", "nullable": true},
            "adbreak": {"allOf": [r("AdBreak")], "nullable": true},
            "artwork": {"type": "object", "nullable": true},
            "job": {"allOf": [r("Job")], "nullable": true},
        })),
        "MetadataUpdate": {"type": "object", "additionalProperties": false, "properties": {
            "title": {"type": "string", "nullable": true}, "artist": {"type": "string", "nullable": true},
            "album": {"type": "string", "nullable": true}, "year": {"type": "integer", "minimum": 0, "maximum": 9999, "nullable": true},
            "comment": {"type": "string", "nullable": true},
            "chapters": {"type": "array", "items": r("Chapter")},
            "image": {"type": "integer", "nullable": true, "description": "media id of an image to embed as the cover"},
            "adbreak": {"allOf": [r("AdBreak")], "nullable": true},
        }},
        "Chapter": object(&["start", "title"], json!({
            "start": {"type": "number", "minimum": 0}, "end": {"type": "number", "nullable": true},
            "title": string(), "url": {"type": "string", "nullable": true},
        })),
        "AdBreak": object(&["preroll", "postroll", "midrolls"], json!({
            "preroll": {"type": "boolean"}, "postroll": {"type": "boolean"},
            "midrolls": {"type": "array", "items": {"type": "number", "minimum": 0}},
        })),
        "WebhookRun": object(&["attempted", "delivered", "failed", "pending"], json!({
            "attempted": {"type": "integer"}, "delivered": {"type": "integer"},
            "failed": {"type": "integer"}, "pending": {"type": "integer"},
        })),
        "Webhook": object(&["id", "url", "events", "description", "created"], json!({
            "id": string(), "url": string(),
            "events": {"type": "array", "items": {"type": "string", "enum": podhost_core::webhooks::event::EventKind::ALL.map(|k| k.as_str())}, "description": "empty: every event"},
            "description": string(), "created": string(),
            "secret": {"type": "string", "description": "only in the answer to the creation"},
        })),
        "WebhookCreate": {"type": "object", "required": ["url"], "additionalProperties": false, "properties": {
            "url": {"type": "string", "description": "http or https; private and loopback targets are refused unless the deployment allows them"},
            "events": {"type": "array", "items": {"type": "string", "enum": podhost_core::webhooks::event::EventKind::ALL.map(|k| k.as_str())}},
            "description": {"type": "string", "maxLength": 255},
            "secret": {"type": "string", "description": "whsec_ and base64 of 24 to 64 bytes; generated when absent"},
        }},
        "Delivery": object(&["seq", "event_id", "type", "status", "attempts"], json!({
            "seq": {"type": "integer"}, "event_id": string(), "type": string(),
            "status": {"type": "string", "enum": ["pending", "delivered", "failed"]},
            "next_at": {"type": "string", "nullable": true},
            "attempts": {"type": "array", "items": object(&["at", "status", "excerpt", "manual"], json!({
                "at": string(), "status": {"type": "integer", "nullable": true}, "excerpt": string(), "manual": {"type": "boolean"},
            }))},
        })),
        "WaveformOptions": {"type": "object", "additionalProperties": false, "properties": {
            "samples_per_pixel": {"type": "integer", "minimum": 1, "description": "default 256; not with pixels_per_second"},
            "pixels_per_second": {"type": "integer", "minimum": 1},
            "bits": {"type": "integer", "enum": [8, 16], "default": 8},
        }},
        "SilenceOptions": {"type": "object", "additionalProperties": false, "properties": {
            "noise": {"type": "number", "maximum": 0, "default": -60, "description": "threshold in dB"},
            "duration": {"type": "number", "exclusiveMinimum": true, "minimum": 0, "default": 2, "description": "minimum silence in seconds"},
        }},
        "Job": object(&["id", "kind", "media_id", "status", "error", "result"], json!({
            "id": string(),
            "kind": {"type": "string", "enum": ["waveform", "silence", "write_tags", "import"]},
            "media_id": {"type": "integer", "nullable": true, "description": "null for an import"},
            "status": {"type": "string", "enum": ["queued", "running", "succeeded", "failed"]},
            "error": {"type": "string", "nullable": true},
            "result": {"type": "object", "nullable": true, "description": "links to the output; for an import, its report: feed_id, feed, rss_url, items, created, completed, unchanged, files, bytes, problems"},
            "created": string(),
            "started": {"type": "string", "nullable": true},
            "finished": {"type": "string", "nullable": true},
            "attempts": {"type": "integer"},
        })),
        "Waveform": object(&["version", "channels", "sample_rate", "samples_per_pixel", "bits", "length", "data"], json!({
            "version": {"type": "integer"}, "channels": {"type": "integer"}, "sample_rate": {"type": "integer"},
            "samples_per_pixel": {"type": "integer"}, "bits": {"type": "integer"}, "length": {"type": "integer"},
            "data": {"type": "array", "items": {"type": "integer"}},
        })),
        "SilenceReport": object(&["silences", "duration", "midrolls"], json!({
            "silences": {"type": "array", "items": object(&["start", "end", "duration"], json!({"start": {"type": "number"}, "end": {"type": "number"}, "duration": {"type": "number"}}))},
            "duration": {"type": "number"},
            "midrolls": {"type": "array", "items": {"type": "number"}},
        })),
        "StatsReport": object(&["from", "to", "total", "days", "feeds", "episodes", "apps"], json!({
            "from": {"type": "string", "format": "date"},
            "to": {"type": "string", "format": "date"},
            "total": {"type": "integer", "minimum": 0},
            "days": {"type": "array", "items": object(&["date", "downloads"], json!({"date": {"type": "string", "format": "date"}, "downloads": {"type": "integer", "minimum": 0}}))},
            "feeds": {"type": "array", "items": object(&["feed_id", "downloads"], json!({"feed_id": string(), "downloads": {"type": "integer", "minimum": 0}}))},
            "episodes": {"type": "array", "items": object(&["feed_id", "show_id", "downloads"], json!({"feed_id": string(), "show_id": string(), "downloads": {"type": "integer", "minimum": 0}}))},
            "apps": {"type": "array", "items": object(&["app", "downloads"], json!({"app": string(), "downloads": {"type": "integer", "minimum": 0}}))},
            "hours": {"type": "array", "description": "downloads per UTC hour of the day, hour 0 first", "items": object(&["hour", "downloads"], json!({"hour": {"type": "integer", "minimum": 0, "maximum": 23}, "downloads": {"type": "integer", "minimum": 0}}))},
            "platforms": {"type": "array", "description": "downloads per device (OPAWG devices list)", "items": object(&["platform", "downloads"], json!({"platform": string(), "downloads": {"type": "integer", "minimum": 0}}))},
            "method": object(&["guideline", "window"], json!({"guideline": string(), "window": string()})),
            "subscribers": {"type": "array", "description": "downloads through private podcasts' subscriber URLs", "items": object(&["subscriber_id", "downloads"], json!({"subscriber_id": string(), "downloads": {"type": "integer", "minimum": 0}}))},
        })),
        "EpisodeUpdate": {"type": "object", "properties": update, "additionalProperties": false},
        "Subscriber": object(&["id", "label", "feed_url", "created", "revoked"], json!({
            "id": string(), "label": string(),
            "feed_url": {"type": "string", "description": "the subscriber's own feed URL"},
            "created": {"type": "string", "format": "date-time"},
            "revoked": {"type": "string", "format": "date-time", "nullable": true},
        })),
        "NewSubscriber": {"type": "object", "properties": {"label": {"type": "string", "maxLength": 255}}, "additionalProperties": false},
        "Token": object(&["id", "label", "scopes", "created", "last_used", "revoked"], json!({
            "id": string(), "label": string(), "scopes": scope_list.clone(),
            "created": {"type": "string", "format": "date-time"},
            "last_used": {"type": "string", "format": "date-time", "nullable": true, "description": "to the minute"},
            "revoked": {"type": "string", "format": "date-time", "nullable": true},
        })),
        "NewToken": {"type": "object", "required": ["scopes"], "properties": {
            "label": {"type": "string", "maxLength": 255}, "scopes": scope_list.clone(),
        }, "additionalProperties": false},
        "CreatedToken": object(&["id", "label", "scopes", "created", "last_used", "revoked", "token"], json!({
            "id": string(), "label": string(), "scopes": scope_list.clone(),
            "created": {"type": "string", "format": "date-time"},
            "last_used": {"type": "string", "nullable": true}, "revoked": {"type": "string", "nullable": true},
            "token": {"type": "string", "description": "the bearer secret; shown only here"},
        })),
        "OAuthTokenRequest": object(&["grant_type"], json!({
            "grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token"]},
            "code": string(), "redirect_uri": string(), "code_verifier": string(),
            "refresh_token": string(), "client_id": string(), "client_secret": string(),
        })),
        "OAuthRevokeRequest": object(&["token"], json!({
            "token": string(), "token_type_hint": {"type": "string", "enum": ["access_token", "refresh_token"]},
            "client_id": string(), "client_secret": string(),
        })),
        "OAuthTokenResponse": object(&["access_token", "token_type", "expires_in", "refresh_token", "scope"], json!({
            "access_token": string(), "token_type": {"type": "string", "enum": ["Bearer"]},
            "expires_in": {"type": "integer", "minimum": 0}, "refresh_token": string(),
            "scope": {"type": "string", "description": "space-separated"},
        })),
        "OAuthError": object(&["error"], json!({"error": string(), "error_description": string()})),
        "OAuthMetadata": object(&["issuer", "authorization_endpoint", "token_endpoint", "response_types_supported"], json!({
            "issuer": string(), "authorization_endpoint": string(), "token_endpoint": string(),
            "revocation_endpoint": string(), "service_documentation": string(),
            "scopes_supported": {"type": "array", "items": string()},
            "response_types_supported": {"type": "array", "items": string()},
            "response_modes_supported": {"type": "array", "items": string()},
            "grant_types_supported": {"type": "array", "items": string()},
            "code_challenge_methods_supported": {"type": "array", "items": string()},
            "token_endpoint_auth_methods_supported": {"type": "array", "items": string()},
            "revocation_endpoint_auth_methods_supported": {"type": "array", "items": string()},
        })),
    })
}

/// The document.
pub fn document(host: &PodcastHost) -> Value {
    let mut paths = serde_json::Map::new();
    for row in routes().filter(|r| r.surface.documented()) {
        let entry = paths
            .entry(row.path.to_string())
            .or_insert_with(|| json!({}));
        entry[row.method.as_str().to_lowercase()] = operation(row);
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "podhost",
            "version": "1.0.0",
            "description": "The podcast hosting API. Operations and fields marked x-podhost-addition are podhost's additions to the specification.",
        },
        "servers": [{ "url": host.urls().base() }],
        "paths": paths,
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "schemas": schemas(),
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

    #[test]
    fn every_referenced_schema_exists() {
        let (host, _) =
            podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
        let doc = document(&host);
        let mut found = Vec::new();
        refs(&doc, &mut found);
        let schemas = &doc["components"]["schemas"];
        for target in &found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} points into the schemas"));
            assert!(schemas.get(name).is_some(), "{target} is not defined");
        }
        // And every schema a row names.
        for row in routes().filter(|r| r.surface.documented()) {
            let named = [
                match row.body {
                    BodyKind::Json { schema, .. }
                    | BodyKind::Multipart { schema, .. }
                    | BodyKind::Form { schema, .. } => Some(schema),
                    BodyKind::None => None,
                },
                match row.success.shape {
                    Shape::Bare(name)
                    | Shape::Data(name)
                    | Shape::DataList(name)
                    | Shape::JsonOrBinary(name) => Some(name),
                    Shape::Empty | Shape::AnyObject | Shape::Document(_) => None,
                },
            ];
            for name in named.into_iter().flatten() {
                assert!(schemas.get(name).is_some(), "{} {name}", row.path);
            }
        }
    }

    #[test]
    fn operations_follow_their_rows() {
        let (host, _) =
            podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
        let doc = document(&host);
        let op = &doc["paths"]["/api/media/{media_id}"]["get"];
        assert_eq!(op["security"], json!([{"bearer": []}]));
        assert_eq!(op["description"], "Scopes: media, media-read-only.");
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
        assert_eq!(names, ["feed_id", "show_id", "feed_id_to"]);
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
}
