//! The API's answers held to its own OpenAPI document: [`check`] validates an answer's status
//! and JSON body against what the document says the operation answers, so a test that makes a
//! request also tests that the document tells the truth. The test fixtures call it on every
//! answer; integrators may call it on theirs.
//!
//! The document is OpenAPI 3.0 (`nullable`, `exclusiveMinimum` as a boolean); it is turned into
//! JSON Schema draft 4 and validated with the `jsonschema` crate.

use podhost_core::lock::Locked;
use std::{
    collections::HashMap,
    sync::{Arc, LazyLock, Mutex},
};

use http::Method;
use serde_json::{Map, Value, json};

/// The document, as JSON Schema, and the validators made from it so far.
struct Contract {
    document: Value,
    components: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

static CONTRACT: LazyLock<Contract> = LazyLock::new(|| {
    let (host, _) = crate::test_host(Arc::new(object_store::memory::InMemory::new()));
    let document = podhost_http::openapi_document(&host);
    let mut components = document["components"].clone();
    to_json_schema(&mut components);
    Contract {
        document,
        components,
        validators: Mutex::default(),
    }
});

/// OpenAPI 3.0's `nullable` as JSON Schema writes it.
fn to_json_schema(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for inner in map.values_mut() {
                to_json_schema(inner);
            }
            if map.remove("nullable") == Some(Value::Bool(true)) {
                if let Some(Value::String(t)) = map.get("type").cloned() {
                    map.insert("type".into(), json!([t, "null"]));
                    if let Some(Value::Array(values)) = map.get_mut("enum") {
                        values.push(Value::Null);
                    }
                } else {
                    let inner = Value::Object(std::mem::take(map));
                    map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                }
            }
            map.remove("example");
        }
        Value::Array(items) => items.iter_mut().for_each(to_json_schema),
        _ => {}
    }
}

/// Checks an answer to `method path` (the request's path, query left out) against the document:
/// `Ok` when the route is not in the document (the public side, the site), or its status is one
/// the operation documents and its JSON body fits that status's schema; otherwise what is
/// wrong.
pub fn check(
    method: &Method,
    path: &str,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<(), String> {
    let contract = &*CONTRACT;
    let Ok((row, _)) = podhost_http::routes::route(method, path) else {
        return Ok(());
    };
    if !row.surface.documented() || *method == Method::HEAD || *method == Method::OPTIONS {
        return Ok(());
    }
    let what = format!("{} {} ({})", row.method, row.path, path);
    let operation = &contract.document["paths"][row.path][row.method.as_str().to_lowercase()];
    let Some(response) = operation["responses"].get(status.to_string()) else {
        return Err(format!("{what}: status {status} is not in the document"));
    };
    let media_type = content_type
        .map(|t| t.split(';').next().unwrap_or("").trim())
        .unwrap_or("");
    let documented = response["content"].as_object();
    if body.is_empty() {
        return Ok(());
    }
    if media_type != "application/json" {
        return match documented {
            Some(types) if types.contains_key(media_type) || types.contains_key("*/*") => Ok(()),
            _ => Err(format!(
                "{what}: {status} answers {media_type:?}, which the document does not name"
            )),
        };
    }
    let Some(schema) = response["content"]["application/json"].get("schema") else {
        return Err(format!(
            "{what}: {status} answers JSON, which the document does not name"
        ));
    };
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("{what}: {status} is not JSON: {e}"))?;
    if status >= 400 {
        crate::refusal::check_answer(&value).map_err(|problem| {
            format!("{what}: the {status} refusal does not read well: {problem}")
        })?;
    }
    let key = format!("{what} {status}");
    let validator = {
        let mut validators = contract.validators.locked();
        match validators.get(&key) {
            Some(v) => v.clone(),
            None => {
                let mut schema = schema.clone();
                to_json_schema(&mut schema);
                let mut root = Map::new();
                root.insert("allOf".into(), json!([schema]));
                root.insert("components".into(), contract.components.clone());
                let validator = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft4)
                    .build(&Value::Object(root))
                    .map_err(|e| format!("{what}: the document's schema does not build: {e}"))?;
                let validator = Arc::new(validator);
                validators.insert(key, validator.clone());
                validator
            }
        }
    };
    let problems: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{what}: the {status} answer leaves its schema:\n  {}\nanswer: {value}",
            problems.join("\n  ")
        ))
    }
}

/// [`check`], panicking with what is wrong: for tests.
pub fn assert_answer(
    method: &Method,
    path: &str,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) {
    if let Err(problem) = check(method, path, status, content_type, body) {
        panic!("the answer breaks the OpenAPI document: {problem}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_that_leaves_its_schema_is_caught() {
        let json = Some("application/json");
        let get = |path: &str, status: u16, body: &str| {
            check(&Method::GET, path, status, json, body.as_bytes())
        };
        let error = r#"{"message": "no such media"}"#;
        assert_eq!(get("/api/media/7", 404, error), Ok(()));
        assert!(
            get("/api/media/7", 404, r#"{"text": "no"}"#).is_err(),
            "no message"
        );
        assert!(
            get("/api/media/7", 200, r#"{"id": "7"}"#).is_err(),
            "a string id"
        );
        assert!(
            get("/api/media/7", 418, error).is_err(),
            "an undocumented status"
        );
        assert!(
            check(&Method::GET, "/api/media/7", 200, Some("text/html"), b"<p>").is_err(),
            "an undocumented media type"
        );
        // Routes outside the document are not held to it.
        assert_eq!(get("/feeds/f/rss", 200, "<rss/>"), Ok(()));
    }
}
