//! The JSON wire shapes of the API, built from core types at the edge. Each shape is a struct
//! declared once: its serialization is the answer, its JSON Schema (schemars) the OpenAPI
//! document's component, and for requests the reader checks bodies against that same schema
//! ([`read`]). Field names and order follow the specification; podhost's additions come after
//! the specified fields.

pub mod access;
pub mod campaigns;
pub mod episodes;
pub mod errors;
mod event;
pub mod fediverse;
pub mod feeds;
pub mod format;
pub mod jobs;
pub mod media;
pub mod members;
pub mod metadata;
pub mod names;
pub mod oauth;
pub mod oembed;
pub mod ops;
pub mod read;
pub mod schema;
pub mod stats;
pub mod tags;
pub mod webhooks;

use serde::Serialize;

pub use access::{subscriber, token};
pub use episodes::{EpisodeItem, episode_item, episode_single};
pub use event::WireEvents;
pub use feeds::{feed_list_item, feed_single};
pub use jobs::{job, silence_report};
pub use media::{media_item, media_single};
pub use metadata::metadata;
pub use read::Body;
pub use schema::{Example, FilePart};
pub use stats::stats_report;
pub use webhooks::{delivery, webhook, webhook_run};

/// What the wire builders need besides the object: the host (URLs, time zone).
pub struct Ctx<'a> {
    /// The host.
    pub host: &'a podhost_core::PodcastHost,
    /// The account the objects belong to.
    pub account: &'a podhost_core::AccountId,
}

impl<'a> Ctx<'a> {
    /// The context of answers to `who`.
    pub fn of(host: &'a podhost_core::PodcastHost, who: &'a podhost_core::Principal) -> Self {
        Ctx {
            host,
            account: who.account(),
        }
    }
}

/// `{"data": ...}`, the envelope of most answers.
#[derive(Serialize)]
pub struct Data<T> {
    /// The answer.
    pub data: T,
}

/// The bytes of `Data { data: [items] }` (compact, as `response::json_body` writes it) around
/// items serialized before: `write_item(i, out)` appends item `i`'s JSON.
pub fn data_array(
    items: usize,
    capacity: usize,
    mut write_item: impl FnMut(usize, &mut Vec<u8>),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(b"{\"data\":[");
    for i in 0..items {
        if i > 0 {
            out.push(b',');
        }
        write_item(i, &mut out);
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod envelope_tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn items_put_together_are_what_the_envelope_serializes() {
        for items in [
            vec![],
            vec![json!({"a": 1})],
            vec![json!({"a": "x"}), json!([1, 2])],
        ] {
            let together = data_array(items.len(), 0, |i, out| {
                out.extend_from_slice(&serde_json::to_vec(&items[i]).unwrap())
            });
            let serialized = serde_json::to_vec(&Data { data: &items }).unwrap();
            assert_eq!(together, serialized);
        }
    }
}
