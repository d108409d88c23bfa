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

/// Addition: something podcast apps will do with a podcast or an episode as it is (skip an
/// item without audio, refuse a cover), which does not block the save.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Warning")]
pub struct WarningRecord {
    /// The field it concerns, as the API names it (`logo`, `itunes.category`, `show_media`).
    pub field: &'static str,
    /// What the apps will do, and what they accept.
    pub message: String,
}

/// `warnings` as answers carry them.
pub fn warnings(warnings: Vec<podhost_core::publish::readiness::Warning>) -> Vec<WarningRecord> {
    warnings
        .into_iter()
        .map(|w| WarningRecord {
            field: w.field,
            message: w.message,
        })
        .collect()
}
