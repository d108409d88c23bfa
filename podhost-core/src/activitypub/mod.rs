//! The fediverse: each public podcast as an ActivityPub actor that listeners follow, whose new
//! episodes are posted to its followers, and whose posts' replies come back as comments.
//!
//! This module holds the protocol's pure parts (keys, HTTP Signatures); the service that keeps
//! followers and comments is `host/fediverse/`.

pub mod documents;
pub mod inbound;
pub mod keys;
pub mod signatures;
