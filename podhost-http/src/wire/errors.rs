//! The error answers' shapes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// An error: what went wrong.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Error")]
pub struct ErrorBody<'a> {
    /// What went wrong.
    pub message: &'a str,
}

/// A validation error: what went wrong, and the messages of each field.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "ValidationError")]
pub struct ValidationBody<'a> {
    /// What went wrong.
    pub message: &'a str,
    /// The messages of each field, by the field's name (`itunes.title`).
    pub errors: &'a BTreeMap<String, Vec<String>>,
}
