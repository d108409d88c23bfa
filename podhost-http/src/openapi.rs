//! The OpenAPI 3.0.3 document served at `GET /api/openapi.json`. Its paths come from the route
//! table ([`ROUTES`]); a test checks that the two are the same set.

use http::Method;
use podhost_core::{PodcastHost, model::PageRequest};
use serde_json::{Value, json};

use crate::routes::ROUTES;

fn r(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn body(schema: Value) -> Value {
    json!({ "content": { "application/json": { "schema": schema } } })
}

fn error_responses(extra: &[u16]) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    for status in [400u16, 401, 403, 404, 405, 429, 500].iter().chain(extra) {
        let (description, schema) = match status {
            422 => (
                "validation failed: messages per field",
                r("ValidationError"),
            ),
            401 => ("missing, unknown or revoked token", r("Error")),
            403 => ("the token lacks the scope", r("Error")),
            404 => (
                "no such object (another account's objects never exist)",
                r("Error"),
            ),
            409 => (
                "conflict: an id that is taken, a file still in use, a changed version",
                r("Error"),
            ),
            413 => ("the body is larger than the limit", r("Error")),
            429 => ("rate limit reached; see retry-after", r("Error")),
            500 => ("internal fault", r("Error")),
            405 => ("wrong method", r("Error")),
            _ => ("malformed request", r("Error")),
        };
        map.insert(status.to_string(), json!({ "description": description, "content": { "application/json": { "schema": schema } } }));
    }
    map
}

fn ok(status: u16, description: &str, schema: Option<Value>, extra_errors: &[u16]) -> Value {
    let mut responses = error_responses(extra_errors);
    let mut success = json!({ "description": description });
    if let Some(schema) = schema {
        success["content"] = json!({ "application/json": { "schema": schema } });
    }
    responses.insert(status.to_string(), success);
    Value::Object(responses)
}

fn path_param(name: &str, schema: Value, description: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "schema": schema, "description": description })
}

fn query(name: &str, schema: Value, description: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "schema": schema, "description": description })
}

fn paging() -> Vec<Value> {
    vec![
        query(
            "page[number]",
            json!({"type": "integer", "minimum": 1, "default": 1}),
            "page number, from 1",
        ),
        query(
            "page[size]",
            json!({"type": "integer", "minimum": 1, "maximum": PageRequest::MAX_SIZE, "default": PageRequest::DEFAULT_SIZE}),
            "page size",
        ),
    ]
}

fn media_id(name: &str) -> Value {
    path_param(
        name,
        json!({"type": "integer", "minimum": 1, "maximum": podhost_core::MAX_SAFE_ID}),
        "media id",
    )
}

fn feed_id() -> Value {
    path_param(
        "feed_id",
        json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^/]+$"}),
        "feed id (URL-encoded)",
    )
}

fn webhook_id() -> Value {
    path_param(
        "webhook_id",
        json!({"type": "string"}),
        "subscription id (wh_…)",
    )
}

fn show_id() -> Value {
    path_param(
        "show_id",
        json!({"type": "string", "pattern": "^pod-[0-9]+$"}),
        "episode id",
    )
}

/// The operation object of one route.
fn operation(method: &Method, path: &str) -> Value {
    let op = |summary: &str,
              scopes: &str,
              params: Vec<Value>,
              request: Option<Value>,
              responses: Value,
              addition: bool| {
        let mut o = json!({
            "summary": summary,
            "description": format!("Scopes: {scopes}."),
            "parameters": params,
            "responses": responses,
            "security": [{"bearer": []}],
        });
        if let Some(request) = request {
            o["requestBody"] = request;
        }
        if addition {
            o["x-podhost-addition"] = json!(true);
            o["description"] = json!(format!(
                "Scopes: {scopes}. An addition of podhost to the specification."
            ));
        }
        o
    };
    let multipart = |schema: &str| json!({ "required": true, "content": { "multipart/form-data": { "schema": r(schema) } } });
    let json_body = |schema: &str, required: bool| {
        let mut b = body(r(schema));
        b["required"] = json!(required);
        b
    };
    let data = |schema: &str| json!({"type": "object", "required": ["data"], "properties": {"data": r(schema)}});
    let data_list = |schema: &str| json!({"type": "object", "required": ["data"], "properties": {"data": {"type": "array", "items": r(schema)}}});
    match (method.as_str(), path) {
        ("POST", "/api/webhooks-processing") => op(
            "deliver the caller's due webhook deliveries now (delivery otherwise runs in the background)",
            "webhooks",
            vec![],
            None,
            ok(200, "what was done", Some(data("WebhookRun")), &[]),
            false,
        ),
        ("GET", "/api/webhooks") => op(
            "the caller's webhook subscriptions (without their secrets)",
            "webhooks",
            vec![],
            None,
            ok(200, "the subscriptions", Some(data_list("Webhook")), &[]),
            true,
        ),
        ("POST", "/api/webhooks") => op(
            "subscribe a URL to events; the signing secret (Standard Webhooks, whsec_) is shown only in this answer",
            "webhooks",
            vec![],
            Some(json_body("WebhookCreate", true)),
            ok(
                201,
                "the subscription, with its secret",
                Some(data("Webhook")),
                &[413, 422],
            ),
            true,
        ),
        ("GET", "/api/webhooks/{webhook_id}") => op(
            "one subscription",
            "webhooks",
            vec![webhook_id()],
            None,
            ok(200, "the subscription", Some(data("Webhook")), &[]),
            true,
        ),
        ("DELETE", "/api/webhooks/{webhook_id}") => op(
            "remove a subscription",
            "webhooks",
            vec![webhook_id()],
            None,
            ok(204, "removed", None, &[]),
            true,
        ),
        ("GET", "/api/webhooks/{webhook_id}/deliveries") => op(
            "the recent deliveries of a subscription, newest first, with their attempts",
            "webhooks",
            vec![webhook_id()],
            None,
            ok(200, "the deliveries", Some(data_list("Delivery")), &[]),
            true,
        ),
        ("POST", "/api/webhooks/{webhook_id}/deliveries/{seq}/redeliver") => op(
            "send an event to a subscription again, now",
            "webhooks",
            vec![
                webhook_id(),
                path_param(
                    "seq",
                    json!({"type": "integer", "minimum": 1}),
                    "the event's number (`seq` of a delivery)",
                ),
            ],
            None,
            ok(
                200,
                "the delivery with the new attempt",
                Some(data("Delivery")),
                &[],
            ),
            true,
        ),
        ("POST", "/api/generate/waveform/{id}") => op(
            "generate a waveform (a background job; BBC audiowaveform's format)",
            "media",
            vec![media_id("id")],
            Some(json_body("WaveformOptions", false)),
            ok(
                202,
                "the job, queued (or the one already queued or running for this file); Location: /api/jobs/{id}",
                Some(data("Job")),
                &[413, 422],
            ),
            false,
        ),
        ("POST", "/api/generate/silence/{id}") => op(
            "detect silences and suggest ad breaks (a background job; ffmpeg silencedetect's rule)",
            "media",
            vec![media_id("id")],
            Some(json_body("SilenceOptions", false)),
            ok(
                202,
                "the job, queued (or the one already queued or running for this file); Location: /api/jobs/{id}",
                Some(data("Job")),
                &[413, 422],
            ),
            false,
        ),
        ("GET", "/api/jobs/{job_id}") => op(
            "a background job",
            "media, media-read-only",
            vec![path_param(
                "job_id",
                json!({"type": "string", "pattern": "^job_[a-z0-9]{20}$"}),
                "job id",
            )],
            None,
            ok(200, "the job", Some(data("Job")), &[]),
            true,
        ),
        ("GET", "/api/media/{id}/waveform") => {
            let mut o = op(
                "the latest waveform of a file, in audiowaveform's JSON (not wrapped, for peaks.js) or `.dat` form",
                "media, media-read-only",
                vec![
                    media_id("id"),
                    query(
                        "format",
                        json!({"type": "string", "enum": ["json", "dat"], "default": "json"}),
                        "json or the binary dat",
                    ),
                ],
                None,
                ok(200, "the waveform", Some(r("Waveform")), &[422]),
                true,
            );
            o["responses"]["200"]["content"]["application/octet-stream"] =
                json!({"schema": {"type": "string", "format": "binary"}});
            o
        }
        ("GET", "/api/media/{id}/silence") => op(
            "the latest silence report of a file",
            "media, media-read-only",
            vec![media_id("id")],
            None,
            ok(
                200,
                "the silences and suggested mid-roll positions",
                Some(data("SilenceReport")),
                &[],
            ),
            true,
        ),
        ("GET", "/api/media/{id}/metadata") => op(
            "a media file's metadata: facts, the tags read from the file, ad breaks",
            "media, media-read-only",
            vec![media_id("id")],
            None,
            ok(200, "the metadata", Some(data("Metadata")), &[]),
            false,
        ),
        ("PUT", "/api/media/{id}/metadata") => op(
            "change a media file's metadata: ad breaks at once; tags, chapters and cover written into a new file (a new URL) by the job in `job`",
            "media",
            vec![media_id("id")],
            Some(json_body("MetadataUpdate", false)),
            ok(
                200,
                "the metadata now, and the tag-writing job",
                Some(data("Metadata")),
                &[409, 413, 422],
            ),
            false,
        ),
        ("GET", "/api/media") => {
            let mut params = vec![
                query(
                    "sort_by",
                    json!({"type": "string", "enum": ["name", "size", "created"], "default": "name"}),
                    "sort key",
                ),
                query(
                    "sort_dir",
                    json!({"type": "string", "enum": ["asc", "desc"], "default": "desc"}),
                    "sort direction",
                ),
                query(
                    "filter",
                    json!({"type": "string"}),
                    "case-insensitive substring of the file name",
                ),
                query(
                    "strict",
                    json!({"type": "integer", "enum": [0, 1], "default": 0}),
                    "1: filter is an exact name",
                ),
            ];
            params.extend(paging());
            op(
                "list files",
                "media, media-read-only",
                params,
                None,
                ok(200, "the files", Some(r("MediaList")), &[422]),
                false,
            )
        }
        ("POST", "/api/media") => op(
            "upload a file",
            "media",
            vec![],
            Some(multipart("MediaUpload")),
            ok(201, "the stored file", Some(r("MediaRecord")), &[413, 422]),
            false,
        ),
        ("GET", "/api/media/{media_id}") => op(
            "get a file",
            "media, media-read-only",
            vec![media_id("media_id")],
            None,
            ok(200, "the file", Some(r("MediaRecord")), &[]),
            false,
        ),
        ("DELETE", "/api/media/{media_id}") => op(
            "delete a file",
            "media",
            vec![media_id("media_id")],
            None,
            ok(204, "deleted", None, &[409]),
            false,
        ),
        ("POST", "/api/media/{media_id}/copy") => op(
            "copy a file",
            "media",
            vec![media_id("media_id")],
            Some(json_body("MediaCopy", true)),
            ok(201, "the copy", Some(r("MediaRecord")), &[413, 422]),
            false,
        ),
        ("GET", "/api/feeds") => op(
            "list podcasts",
            "feeds, feeds-read-only",
            paging(),
            None,
            ok(200, "the podcasts", Some(data_list("FeedListItem")), &[422]),
            false,
        ),
        ("POST", "/api/feeds") => op(
            "create a podcast",
            "feeds",
            vec![],
            Some(json_body("FeedCreate", true)),
            ok(201, "the podcast", Some(data("Feed")), &[409, 413, 422]),
            true,
        ),
        ("GET", "/api/feeds/{feed_id}") => op(
            "get a podcast",
            "feeds, feeds-read-only",
            vec![feed_id()],
            None,
            ok(200, "the podcast", Some(data("Feed")), &[]),
            false,
        ),
        ("PUT", "/api/feeds/{feed_id}") => op(
            "change a podcast",
            "feeds",
            vec![feed_id()],
            Some(json_body("FeedUpdate", false)),
            ok(200, "the podcast", Some(data("Feed")), &[413, 422]),
            true,
        ),
        ("DELETE", "/api/feeds/{feed_id}") => op(
            "delete a podcast and its episodes",
            "feeds",
            vec![feed_id()],
            None,
            ok(204, "deleted", None, &[]),
            false,
        ),
        ("GET", "/api/feed/{feed_id}/shows") => {
            let mut params = vec![feed_id()];
            params.extend(paging());
            params.push(query(
                "sortBy",
                json!({"type": "string", "enum": ["lastUpdate", "is_public"]}),
                "sort key; default: publishing date",
            ));
            params.push(query(
                "sortDesc",
                json!({"type": "string", "enum": ["desc", "asc", "true", "false"]}),
                "desc or true: descending",
            ));
            params.push(query(
                "filter",
                json!({"type": "string"}),
                "searched in title and description (also accepted as a JSON body field)",
            ));
            op(
                "list episodes",
                "shows, shows-read-only",
                params,
                None,
                ok(
                    200,
                    "the episodes",
                    Some(data_list("EpisodeListItem")),
                    &[422],
                ),
                false,
            )
        }
        ("POST", "/api/feed/{feed_id}/show") => op(
            "create an episode",
            "shows",
            vec![feed_id()],
            Some(multipart("EpisodeCreate")),
            ok(201, "the episode", Some(data("Episode")), &[413, 422]),
            false,
        ),
        ("GET", "/api/feed/{feed_id}/show/{show_id}") => op(
            "get an episode",
            "shows, shows-read-only",
            vec![
                feed_id(),
                show_id(),
                query(
                    "feed_id",
                    json!({"type": "string"}),
                    "ignored; the path names the feed",
                ),
            ],
            None,
            ok(200, "the episode", Some(data("Episode")), &[]),
            false,
        ),
        ("PUT", "/api/feed/{feed_id}/show/{show_id}") => op(
            "change an episode",
            "shows",
            vec![feed_id(), show_id()],
            Some(json_body("EpisodeUpdate", false)),
            ok(200, "the episode", Some(data("Episode")), &[409, 413, 422]),
            false,
        ),
        ("DELETE", "/api/feed/{feed_id}/show/{show_id}") => op(
            "delete an episode",
            "shows",
            vec![feed_id(), show_id()],
            None,
            ok(204, "deleted", None, &[]),
            false,
        ),
        ("POST", "/api/feed/{feed_id}/show/{show_id}/copy") => op(
            "copy an episode as a draft",
            "shows",
            vec![
                feed_id(),
                show_id(),
                query(
                    "feed_id_to",
                    json!({"type": "string"}),
                    "the target feed; default: the same feed",
                ),
            ],
            None,
            ok(201, "the copy", Some(data("Episode")), &[422]),
            false,
        ),
        ("GET", "/api/stats") => op(
            "downloads of all the caller's podcasts",
            "stats",
            stats_period(),
            None,
            ok(200, "the report", Some(data("StatsReport")), &[422]),
            true,
        ),
        ("GET", "/api/stats/feeds/{feed_id}") => op(
            "downloads of one podcast",
            "stats",
            [vec![feed_id()], stats_period()].concat(),
            None,
            ok(200, "the report", Some(data("StatsReport")), &[422]),
            true,
        ),
        ("GET", "/api/stats/feeds/{feed_id}/shows/{show_id}") => op(
            "downloads of one episode",
            "stats",
            [vec![feed_id(), show_id()], stats_period()].concat(),
            None,
            ok(200, "the report", Some(data("StatsReport")), &[422]),
            true,
        ),
        ("GET", "/api/openapi.json") => json!({
            "summary": "this document",
            "description": "No authentication. An addition of podhost to the specification.",
            "security": [],
            "x-podhost-addition": true,
            "responses": { "200": { "description": "the OpenAPI document", "content": { "application/json": { "schema": {"type": "object"} } } } },
        }),
        _ => json!({}),
    }
}

/// `from` and `to` of the statistics queries.
fn stats_period() -> Vec<Value> {
    let day = json!({"type": "string", "format": "date"});
    vec![
        query(
            "from",
            day.clone(),
            &format!(
                "first UTC day (YYYY-MM-DD); default {} days before `to`",
                podhost_core::stats::DEFAULT_DAYS - 1
            ),
        ),
        query(
            "to",
            day,
            &format!(
                "last UTC day, included; default today; at most {} days in all",
                podhost_core::stats::MAX_DAYS
            ),
        ),
    ]
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
    update["podcast"] = json!({"type": "object", "properties": {"transcript": {"type": "integer", "minimum": 1, "nullable": true}}, "additionalProperties": false});
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
    let mut feed_create = feed_fields.clone();
    feed_create["id"] = json!({"type": "string", "minLength": 1, "maxLength": 100});
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
            "kind": {"type": "string", "enum": ["waveform", "silence", "write_tags"]},
            "media_id": {"type": "integer"},
            "status": {"type": "string", "enum": ["queued", "running", "succeeded", "failed"]},
            "error": {"type": "string", "nullable": true},
            "result": {"type": "object", "nullable": true},
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
        })),
        "EpisodeUpdate": {"type": "object", "properties": update, "additionalProperties": false},
    })
}

/// The document.
pub fn document(host: &PodcastHost) -> Value {
    let mut paths = serde_json::Map::new();
    for (method, path) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[method.as_str().to_lowercase()] = operation(method, path);
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
