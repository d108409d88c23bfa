//! The API reference for people, written from the OpenAPI document (itself derived from the
//! route tables and the wire types): as Markdown (`docs/api.md`, kept equal to this by a test)
//! and as the page at `GET /api/docs` (HTML rendered here, no script). Both show every
//! operation by its group: method and path, what it does, who may call it, its parameters,
//! body and answers, then every shape with its fields.

use maud::{Markup, html};
use serde_json::{Map, Value};

/// One documented operation, read from the document.
struct Operation<'a> {
    method: String,
    path: &'a str,
    op: &'a Value,
}

/// The document's operations by tag, in the document's tag order.
fn by_tag(doc: &Value) -> Vec<(&str, &str, Vec<Operation<'_>>)> {
    let mut groups: Vec<(&str, &str, Vec<Operation<'_>>)> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or(""),
                t["description"].as_str().unwrap_or(""),
                Vec::new(),
            )
        })
        .collect();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let tag = op["tags"][0].as_str().unwrap_or("");
            if let Some(group) = groups.iter_mut().find(|g| g.0 == tag) {
                group.2.push(Operation {
                    method: method.to_uppercase(),
                    path,
                    op,
                });
            }
        }
    }
    groups
}

/// A schema's type in a few words: a shape's name, `[T]`, `a | b`, `T or null`.
fn type_of(schema: &Value) -> String {
    let nullable = schema["nullable"] == Value::Bool(true);
    let base = if let Some(target) = schema["$ref"].as_str() {
        target.rsplit('/').next().unwrap_or(target).to_string()
    } else if let Some([first]) = schema["allOf"].as_array().map(Vec::as_slice) {
        type_of(first)
    } else if let Some(values) = schema["enum"].as_array() {
        values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" | ")
    } else {
        match schema["type"].as_str() {
            Some("array") => format!("[{}]", type_of(&schema["items"])),
            Some("string") if schema["format"] == "binary" => "file".to_string(),
            Some(t) => t.to_string(),
            None => "any".to_string(),
        }
    };
    if nullable {
        format!("{base} or null")
    } else {
        base
    }
}

/// The fields of an object schema: name, type, description, whether required.
fn fields(schema: &Value) -> Vec<(String, String, String, bool)> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, field)| {
            (
                name.clone(),
                type_of(field),
                one_line(field["description"].as_str().unwrap_or("")),
                required.contains(&name.as_str()),
            )
        })
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An operation's request body: its media type and the shape it names.
fn body_of(op: &Value) -> Option<(String, String)> {
    let content = op["requestBody"]["content"].as_object()?;
    let (media_type, media) = content.iter().next()?;
    let shape = match &media["schema"] {
        s if s.get("$ref").is_some() => type_of(s),
        _ => "the fields below".to_string(),
    };
    Some((media_type.clone(), shape))
}

/// An operation's answers: status, what it is, the shape it carries.
fn answers(op: &Value) -> Vec<(String, String, String)> {
    op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, response)| {
            let shape = response["content"]
                .as_object()
                .and_then(|c| c.iter().next())
                .map(|(media_type, media)| {
                    let schema = &media["schema"];
                    match (
                        media_type.as_str(),
                        schema["properties"]["data"].is_object(),
                    ) {
                        ("application/json", true) => {
                            format!("{{data: {}}}", type_of(&schema["properties"]["data"]))
                        }
                        ("application/json", false) => type_of(schema),
                        (other, _) => other.to_string(),
                    }
                })
                .unwrap_or_default();
            (
                status.clone(),
                one_line(response["description"].as_str().unwrap_or("")),
                shape,
            )
        })
        .collect()
}

fn parameters(op: &Value) -> Vec<(String, String, String, String)> {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or("").to_string(),
                p["in"].as_str().unwrap_or("").to_string(),
                type_of(&p["schema"]),
                one_line(p["description"].as_str().unwrap_or("")),
            )
        })
        .collect()
}

/// A multipart body's fields (forms are documented inline, not as a shape).
fn inline_fields(op: &Value) -> Vec<(String, String, String, bool)> {
    op["requestBody"]["content"]
        .as_object()
        .and_then(|c| c.values().next())
        .map(|media| &media["schema"])
        .filter(|s| s.get("$ref").is_none())
        .map(fields)
        .unwrap_or_default()
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The reference as Markdown.
pub fn markdown(doc: &Value) -> String {
    let mut out = String::new();
    out.push_str("# The podhost API reference\n\n");
    out.push_str(
        "Every operation of the REST API, by group, then every shape it reads and answers. \
         Generated from the route tables (`podhost-http/src/routes/`) and the wire types \
         (`podhost-http/src/wire/`), as the OpenAPI document at `/api/openapi.json` and the \
         page at `/api/docs` are; `cargo test -p podhost-http --test api_reference` keeps this \
         file equal to them (`UPDATE_DOCS=1` rewrites it). What every route has in common \
         (tokens, errors, headers, limits) is in [rest-api.md](rest-api.md).\n",
    );
    for (tag, description, operations) in by_tag(doc) {
        out.push_str(&format!("\n## {tag}\n\n{}\n", one_line(description)));
        for o in operations {
            let op = o.op;
            out.push_str(&format!(
                "\n### `{} {}`\n\n{}\n\n",
                o.method,
                o.path,
                one_line(op["summary"].as_str().unwrap_or(""))
            ));
            out.push_str(&format!(
                "`{}` · {}\n",
                op["operationId"].as_str().unwrap_or(""),
                one_line(op["description"].as_str().unwrap_or(""))
            ));
            let params = parameters(op);
            if !params.is_empty() {
                out.push_str("\n| parameter | in | type | description |\n|---|---|---|---|\n");
                for (name, place, kind, description) in params {
                    out.push_str(&format!(
                        "| `{}` | {place} | {} | {} |\n",
                        cell(&name),
                        cell(&kind),
                        cell(&description)
                    ));
                }
            }
            if let Some((media_type, shape)) = body_of(op) {
                out.push_str(&format!("\nBody: `{media_type}`, {shape}.\n"));
                let inline = inline_fields(op);
                if !inline.is_empty() {
                    out.push_str("\n| field | type | description |\n|---|---|---|\n");
                    for (name, kind, description, required) in inline {
                        let required = if required { " (required)" } else { "" };
                        out.push_str(&format!(
                            "| `{}`{required} | {} | {} |\n",
                            cell(&name),
                            cell(&kind),
                            cell(&description)
                        ));
                    }
                }
            }
            out.push_str("\n| answer | what | body |\n|---|---|---|\n");
            for (status, description, shape) in answers(op) {
                out.push_str(&format!(
                    "| {status} | {} | {} |\n",
                    cell(&description),
                    cell(&shape)
                ));
            }
        }
    }
    out.push_str("\n## Shapes\n");
    for (name, schema) in doc["components"]["schemas"]
        .as_object()
        .unwrap_or(&Map::new())
    {
        out.push_str(&format!(
            "\n### {name}\n\n{}\n",
            one_line(schema["description"].as_str().unwrap_or(""))
        ));
        let fields = fields(schema);
        if fields.is_empty() {
            out.push_str(&format!("\n{}\n", type_of(schema)));
            continue;
        }
        out.push_str("\n| field | type | description |\n|---|---|---|\n");
        for (field, kind, description, required) in fields {
            let required = if required { " (required)" } else { "" };
            out.push_str(&format!(
                "| `{}`{required} | {} | {} |\n",
                cell(&field),
                cell(&kind),
                cell(&description)
            ));
        }
    }
    out
}

/// The reference as the page of `GET /api/docs`.
pub fn page(doc: &Value) -> String {
    let groups = by_tag(doc);
    let schemas = doc["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let body: Markup = html! {
        header.site-header {
            div.wrap.bar {
                a.brand href="/" { "podhost" }
                " "
                nav aria-label="Site" {
                    a href="/account" { "Account" }
                    " · "
                    a href="/api/openapi.json" { "OpenAPI document" }
                }
            }
        }
        main #main .wrap {
            h1 { "The API reference" }
            p { "Every operation of the REST API, by group, then every shape it reads and answers. The same as the "
                a href="/api/openapi.json" { "OpenAPI document" } "." }
            nav aria-label="Groups" {
                ul { @for (tag, _, _) in &groups { li { a href=(format!("#{tag}")) { (tag) } } } }
            }
            @for (tag, description, operations) in &groups {
                section #(tag) {
                    h2 { (tag) }
                    p { (one_line(description)) }
                    @for o in operations {
                        article.panel #(o.op["operationId"].as_str().unwrap_or("")) {
                            h3 { code { (o.method) " " (o.path) } }
                            p { (one_line(o.op["summary"].as_str().unwrap_or(""))) }
                            p.muted { code { (o.op["operationId"].as_str().unwrap_or("")) } " · " (one_line(o.op["description"].as_str().unwrap_or(""))) }
                            @let params = parameters(o.op);
                            @if !params.is_empty() {
                                table {
                                    tr { th { "parameter" } th { "in" } th { "type" } th { "description" } }
                                    @for (name, place, kind, description) in &params {
                                        tr { td { code { (name) } } td { (place) } td { (kind) } td { (description) } }
                                    }
                                }
                            }
                            @if let Some((media_type, shape)) = body_of(o.op) {
                                p { "Body: " code { (media_type) } ", " (shape_link(&shape)) "." }
                                @let inline = inline_fields(o.op);
                                @if !inline.is_empty() {
                                    (field_table(&inline))
                                }
                            }
                            table {
                                tr { th { "answer" } th { "what" } th { "body" } }
                                @for (status, description, shape) in answers(o.op) {
                                    tr { td { (status) } td { (description) } td { (shape_link(&shape)) } }
                                }
                            }
                        }
                    }
                }
            }
            section #shapes {
                h2 { "Shapes" }
                @for (name, schema) in &schemas {
                    article.panel #(format!("shape-{name}")) {
                        h3 { (name) }
                        p { (one_line(schema["description"].as_str().unwrap_or(""))) }
                        @let fields = fields(schema);
                        @if fields.is_empty() { p { (type_of(schema)) } } @else { (field_table(&fields)) }
                    }
                }
            }
        }
    };
    // The reference is in English only: no switch.
    podhost_core::publish::page::site_page(
        podhost_core::Locale::ENGLISH,
        None,
        "The API reference · podhost",
        body,
    )
}

/// A shape's name as a link to it, other text as it is.
fn shape_link(text: &str) -> Markup {
    let name = text
        .trim_start_matches("{data: ")
        .trim_end_matches('}')
        .trim_start_matches('[')
        .trim_end_matches(']');
    if !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name.chars().next().is_some_and(char::is_uppercase)
    {
        html! { a href=(format!("#shape-{name}")) { (text) } }
    } else {
        html! { (text) }
    }
}

fn field_table(fields: &[(String, String, String, bool)]) -> Markup {
    html! {
        table {
            tr { th { "field" } th { "type" } th { "description" } }
            @for (name, kind, description, required) in fields {
                tr {
                    td { code { (name) } @if *required { " (required)" } }
                    td { (shape_link(kind)) }
                    td { (description) }
                }
            }
        }
    }
}
