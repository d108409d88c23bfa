//! Request bodies: multipart fields (`itunes[title]`) and JSON objects (`{"itunes":{"title"}}`)
//! are flattened to one map (`itunes.title`), then read into core types with every problem
//! reported under its field. The neutral names of the specification (`dirA`, `dirB`,
//! `indexns`) are accepted as aliases of `itunes`, `googleplay`, `podcast`.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{Timestamp, civil, tz::TimeZone};
use podhost_core::{
    FieldErrors, MediaId,
    model::{EpisodePatch, EpisodeType, FeedPatch, Funding, ShowType},
};
use serde_json::Value;

fn canonical_group(name: &str) -> &str {
    match name {
        "dirA" => "itunes",
        "dirB" => "googleplay",
        "indexns" => "podcast",
        other => other,
    }
}

/// Whether a field is read whole rather than flattened: `podcast.funding` and the Podcasting
/// 2.0 tags (`podcast.person`, ...).
fn whole(key: &str) -> bool {
    use podhost_core::model::podcast::{CHANNEL_TAGS, ITEM_TAGS};
    key.strip_prefix("podcast.").is_some_and(|tag| {
        tag == "funding" || CHANNEL_TAGS.contains(&tag) || ITEM_TAGS.contains(&tag)
    })
}

/// A flat view of a request body's fields, remembering which were read.
#[derive(Debug, Default)]
pub struct Fields {
    values: BTreeMap<String, Value>,
    read: BTreeSet<String>,
    /// Problems found so far.
    pub errors: FieldErrors,
}

impl Fields {
    /// From a JSON object; `errors` says so when the body is not one.
    pub fn from_json(body: Value) -> Self {
        let mut fields = Fields::default();
        match body {
            Value::Object(map) => fields.flatten("", map),
            _ => fields.errors.add("body", "the body is a JSON object"),
        }
        fields
    }

    fn flatten(&mut self, prefix: &str, map: serde_json::Map<String, Value>) {
        for (key, value) in map {
            let key = if prefix.is_empty() {
                canonical_group(&key).to_string()
            } else {
                format!("{prefix}.{key}")
            };
            match value {
                // `podcast.funding` and the Podcasting 2.0 tags are kept whole.
                Value::Object(inner) if !whole(&key) => self.flatten(&key, inner),
                other => {
                    self.values.insert(key, other);
                }
            }
        }
    }

    /// Adds a multipart text field: `itunes[title]` becomes `itunes.title`.
    pub fn add_form_field(&mut self, name: &str, value: String) {
        let key = match name.split_once('[') {
            Some((group, rest)) => {
                let inner = rest.trim_end_matches(']').replace("][", ".");
                format!("{}.{}", canonical_group(group), inner)
            }
            None => name.to_string(),
        };
        self.values.insert(key, Value::String(value));
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.read.insert(key.to_string());
        match self.values.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.clone()),
        }
    }

    /// A field's JSON value as sent (lists and such); `None` when absent or null.
    pub fn raw(&mut self, key: &str) -> Option<Value> {
        self.take(key)
    }

    /// The Podcasting 2.0 tags of `names` that were sent, under `podcast`, as JSON (a
    /// multipart field's text is read as JSON); `null` removes a tag.
    pub fn podcast_tags(&mut self, names: &[&str]) -> podhost_core::model::podcast::TagsPatch {
        let mut patch = podhost_core::model::podcast::TagsPatch::new();
        for name in names {
            let key = format!("podcast.{name}");
            if !self.has(&key) {
                continue;
            }
            self.read.insert(key.clone());
            let value = match self.values.get(&key).cloned().unwrap_or(Value::Null) {
                Value::String(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(parsed) => parsed,
                    Err(e) => {
                        self.errors.add(key, format!("not JSON: {e}"));
                        continue;
                    }
                },
                other => other,
            };
            patch.insert(name.to_string(), value);
        }
        patch
    }

    /// True when the field was sent (even as null).
    pub fn has(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// A string field.
    pub fn string(&mut self, key: &str) -> Option<String> {
        match self.take(key)? {
            Value::String(s) => Some(s),
            Value::Number(n) => Some(n.to_string()),
            _ => {
                self.errors.add(key, "must be a string");
                None
            }
        }
    }

    /// An integer field (a JSON number or a string of digits).
    pub fn integer(&mut self, key: &str) -> Option<u64> {
        let value = self.take(key)?;
        let parsed = match &value {
            Value::Number(n) => n.as_u64(),
            Value::String(s) if s.trim().is_empty() => return None,
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        if parsed.is_none() {
            self.errors.add(key, "must be a whole number");
        }
        parsed
    }

    /// An optional integer that can be cleared: absent -> `None`, null or "" -> `Some(None)`.
    pub fn clearable_integer(&mut self, key: &str) -> Option<Option<u64>> {
        match self.values.get(key) {
            None => {
                self.read.insert(key.to_string());
                None
            }
            Some(Value::Null) => {
                self.read.insert(key.to_string());
                Some(None)
            }
            Some(Value::String(s)) if s.trim().is_empty() => {
                self.read.insert(key.to_string());
                Some(None)
            }
            Some(_) => self.integer(key).map(Some),
        }
    }

    /// A boolean: true/false, 1/0, "1"/"0", "true"/"false".
    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        let value = self.take(key)?;
        let parsed = match &value {
            Value::Bool(b) => Some(*b),
            Value::Number(n) => match n.as_u64() {
                Some(0) => Some(false),
                Some(1) => Some(true),
                _ => None,
            },
            Value::String(s) => match s.trim() {
                "1" | "true" | "on" => Some(true),
                "0" | "false" | "off" | "" => Some(false),
                _ => None,
            },
            _ => None,
        };
        if parsed.is_none() {
            self.errors.add(key, "must be true or false (or 1 or 0)");
        }
        parsed
    }

    fn media(&mut self, key: &str) -> Option<Option<MediaId>> {
        let id = self.clearable_integer(key)?;
        match id.map(MediaId::new).transpose() {
            Ok(id) => Some(id),
            Err(_) => {
                self.errors.add(key, "must be a media id");
                None
            }
        }
    }

    /// Records every field that was sent but never read as unknown.
    pub fn reject_unknown(&mut self) {
        let unknown: Vec<String> = self
            .values
            .keys()
            .filter(|k| !self.read.contains(*k))
            .cloned()
            .collect();
        for key in unknown {
            self.errors.add(key, "unknown field");
        }
    }
}

/// The episode fields of 4.16 (multipart) and 4.17 (JSON). Returns the patch and whether
/// `write_metadata` was asked for.
pub fn episode_patch(fields: &mut Fields, tz: &TimeZone) -> (EpisodePatch, bool) {
    let f = fields;
    let mut patch = EpisodePatch {
        title: f.string("title"),
        subtitle: f.string("subtitle"),
        author: f.string("author"),
        email: f.string("email"),
        copyright: f.string("copyright"),
        description: f.string("description"),
        link: f.string("link"),
        is_public: f.boolean("is_public"),
        media: f.media("show_media"),
        transcript: f.media("podcast.transcript"),
        podcast_tags: f.podcast_tags(&podhost_core::model::podcast::ITEM_TAGS),
        itunes_title: f.string("itunes.title"),
        itunes_subtitle: f.string("itunes.subtitle"),
        itunes_summary: f.string("itunes.summary"),
        itunes_author: f.string("itunes.author"),
        itunes_logo: f.media("itunes.logo"),
        itunes_explicit: f.boolean("itunes.explicit").map(Some),
        if_version: f.integer("version"),
        ..Default::default()
    };
    patch.itunes_episode = small_number(f, "itunes.episode");
    patch.itunes_season = small_number(f, "itunes.season");
    if let Some(kind) = f.string("itunes.episodeType") {
        match kind.parse::<EpisodeType>() {
            Ok(kind) => patch.itunes_episode_type = Some(kind),
            Err(_) => f
                .errors
                .add("itunes.episodeType", "one of full, trailer, bonus"),
        }
    }
    patch.publish_at = publish_at(f, tz);
    let write_metadata = f.boolean("write_metadata").unwrap_or(false);
    (patch, write_metadata)
}

fn small_number(f: &mut Fields, key: &str) -> Option<Option<u32>> {
    let n = f.clearable_integer(key)?;
    match n.map(u32::try_from).transpose() {
        Ok(n) => Some(n),
        Err(_) => {
            f.errors.add(key, "too large");
            None
        }
    }
}

/// `publishing_date` (YYYY-MM-DD) and `publishing_time` (HH:MM:SS, default 00:00:00), in the
/// display time zone.
fn publish_at(f: &mut Fields, tz: &TimeZone) -> Option<Timestamp> {
    let date = f.string("publishing_date").filter(|s| !s.is_empty());
    let time = f.string("publishing_time").filter(|s| !s.is_empty());
    let date = match date {
        None => {
            if time.is_some() {
                f.errors
                    .add("publishing_date", "is required with publishing_time");
            }
            return None;
        }
        Some(d) => match d.parse::<civil::Date>() {
            Ok(d) if d.to_string() == d.to_string().trim() && d.year() >= 1970 => d,
            _ => {
                f.errors.add("publishing_date", "a date YYYY-MM-DD");
                return None;
            }
        },
    };
    let time = match time {
        None => civil::Time::midnight(),
        Some(t) => match t.parse::<civil::Time>() {
            Ok(t) if t.to_string().len() == 8 || t.subsec_nanosecond() == 0 => t,
            _ => {
                f.errors.add("publishing_time", "a time HH:MM:SS");
                return None;
            }
        },
    };
    match date.to_datetime(time).to_zoned(tz.clone()) {
        Ok(zoned) => Some(zoned.timestamp()),
        Err(_) => {
            f.errors.add(
                "publishing_date",
                "not a valid moment in the display time zone",
            );
            None
        }
    }
}

/// The channel fields of `POST /api/feeds` and `PUT /api/feeds/{id}`.
pub fn feed_patch(fields: &mut Fields) -> FeedPatch {
    let f = fields;
    // Both spellings are read (so neither is reported unknown); the flat one wins.
    let [
        rss_title,
        rss_description,
        rss_copyright,
        rss_language,
        rss_link,
    ] = ["title", "description", "copyright", "language", "link"]
        .map(|k| f.string(&format!("rss.{k}")));
    let mut patch = FeedPatch {
        title: f.string("title").or(rss_title),
        description: f.string("description").or(rss_description),
        copyright: f.string("copyright").or(rss_copyright),
        language: f.string("language").or(rss_language),
        link: f.string("link").or(rss_link),
        logo: f.media("logo"),
        itunes_subtitle: f.string("itunes.subtitle"),
        itunes_summary: f.string("itunes.summary"),
        itunes_author: f.string("itunes.author"),
        itunes_category: f.string("itunes.category"),
        itunes_subcategory: f.string("itunes.subcategory"),
        itunes_explicit: f.boolean("itunes.explicit"),
        itunes_owner_name: f.string("itunes.owner.name"),
        itunes_owner_email: f.string("itunes.owner.email"),
        itunes_block: f.boolean("itunes.block"),
        itunes_complete: f.boolean("itunes.complete"),
        googleplay_author: f.string("googleplay.author"),
        googleplay_description: f.string("googleplay.description"),
        podcast_locked: f.boolean("podcast.locked"),
        podcast_medium: f.string("podcast.medium"),
        podcast_tags: f.podcast_tags(&podhost_core::model::podcast::CHANNEL_TAGS),
        private: f.boolean("private"),
        ..Default::default()
    };
    if f.has("itunes.new-feed-url") {
        patch.itunes_new_feed_url = Some(f.string("itunes.new-feed-url").filter(|s| !s.is_empty()));
    }
    if let Some(kind) = f.string("itunes.type") {
        match kind.as_str() {
            "episodic" => patch.itunes_type = Some(ShowType::Episodic),
            "serial" => patch.itunes_type = Some(ShowType::Serial),
            _ => f.errors.add("itunes.type", "episodic or serial"),
        }
    }
    if let Some(list) = f.take("podcast.funding") {
        match serde_json::from_value::<Vec<FundingIn>>(list) {
            Ok(list) => {
                patch.podcast_funding = Some(
                    list.into_iter()
                        .map(|x| Funding {
                            url: x.url,
                            text: x.text,
                        })
                        .collect(),
                )
            }
            Err(_) => f
                .errors
                .add("podcast.funding", "a list of {\"url\", \"text\"}"),
        }
    }
    patch
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FundingIn {
    url: String,
    #[serde(default)]
    text: String,
}

/// The body of `PUT /api/media/{id}/metadata`: `title`, `artist`, `album`, `year`, `comment`
/// (null removes), `chapters` (`[{start, end?, title, url?}]`, seconds), `image` (a media id,
/// null removes the cover), `adbreak` (`{preroll, postroll, midrolls}`, null removes).
pub fn metadata_patch(fields: &mut Fields) -> podhost_core::MetadataPatch {
    let mut patch = podhost_core::MetadataPatch::default();
    let text = |fields: &mut Fields, key: &str| -> Option<Option<String>> {
        if !fields.has(key) {
            return None;
        }
        Some(fields.string(key).filter(|s| !s.is_empty()))
    };
    patch.title = text(fields, "title");
    patch.artist = text(fields, "artist");
    patch.album = text(fields, "album");
    patch.comment = text(fields, "comment");
    if fields.has("year") {
        patch.year = Some(fields.clearable_integer("year").flatten().and_then(|y| {
            match i32::try_from(y).ok().filter(|y| *y <= 9999) {
                Some(y) => Some(y),
                None => {
                    fields.errors.add("year", "a year from 0 to 9999");
                    None
                }
            }
        }));
    }
    patch.image = fields.media("image");
    if fields.has("chapters") {
        patch.chapters = fields.take("chapters").map_or(Some(Vec::new()), |value| {
            chapters(&value, &mut fields.errors)
        });
    }
    if fields.has("adbreak") {
        // Sent as null: no ad breaks.
        fields.take("adbreak");
        patch.adbreak = Some(None);
    } else if ["adbreak.preroll", "adbreak.postroll", "adbreak.midrolls"]
        .iter()
        .any(|k| fields.has(k))
    {
        let preroll = fields.boolean("adbreak.preroll").unwrap_or(false);
        let postroll = fields.boolean("adbreak.postroll").unwrap_or(false);
        let midrolls = match fields.take("adbreak.midrolls") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| {
                    let n = v.as_f64();
                    if n.is_none() {
                        fields.errors.add("adbreak.midrolls", "a list of seconds");
                    }
                    n
                })
                .collect(),
            Some(_) => {
                fields.errors.add("adbreak.midrolls", "a list of seconds");
                Vec::new()
            }
        };
        patch.adbreak = Some(Some(podhost_core::model::AdBreak {
            preroll,
            postroll,
            midrolls,
        }));
    }
    patch
}

/// Chapters from `[{start, end?, title, url?}]` with times in seconds.
fn chapters(
    value: &Value,
    errors: &mut podhost_core::FieldErrors,
) -> Option<Vec<podhost_core::tags::Chapter>> {
    let Value::Array(items) = value else {
        errors.add("chapters", "a list of {start, end, title, url}");
        return None;
    };
    let ms = |v: Option<&Value>| -> Result<Option<u64>, ()> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| Some((s * 1000.0).round() as u64))
                .ok_or(()),
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("chapters.{i}");
        let Value::Object(map) = item else {
            errors.add(field, "a chapter is {start, end, title, url}");
            continue;
        };
        for key in map.keys() {
            if !["start", "end", "title", "url"].contains(&key.as_str()) {
                errors.add(format!("{field}.{key}"), "unknown field");
            }
        }
        let start = ms(map.get("start"));
        let end = ms(map.get("end"));
        let (Ok(Some(start_ms)), Ok(end_ms)) = (start, end) else {
            errors.add(
                format!("{field}.start"),
                "start (and end) in seconds from the beginning, not negative",
            );
            continue;
        };
        let title = map.get("title").and_then(Value::as_str).unwrap_or("");
        let url = map.get("url").and_then(Value::as_str).map(str::to_string);
        out.push(podhost_core::tags::Chapter {
            start_ms,
            end_ms,
            title: title.to_string(),
            url,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn multipart_and_json_names_meet_in_one_map() {
        let mut form = Fields::default();
        form.add_form_field("dirA[title]", "A".into());
        form.add_form_field("itunes[episode]", "7".into());
        form.add_form_field("indexns[transcript]", "12".into());
        form.add_form_field("is_public", "1".into());
        form.add_form_field("publishing_date", "2026-05-01".into());
        form.add_form_field("publishing_time", "06:30:00".into());
        let (patch, write) = episode_patch(&mut form, &TimeZone::UTC);
        form.reject_unknown();
        assert!(form.errors.is_empty(), "{}", form.errors);
        assert_eq!(patch.itunes_title.as_deref(), Some("A"));
        assert_eq!(patch.itunes_episode, Some(Some(7)));
        assert_eq!(patch.transcript, Some(Some(MediaId::new(12).unwrap())));
        assert_eq!(patch.is_public, Some(true));
        assert_eq!(
            patch.publish_at,
            Some("2026-05-01T06:30:00Z".parse().unwrap())
        );
        assert!(!write);

        let mut json = Fields::from_json(
            json!({"itunes": {"season": "3", "explicit": true}, "podcast": {"transcript": null}, "is_public": "0"}),
        );
        let (patch, _) = episode_patch(&mut json, &TimeZone::UTC);
        json.reject_unknown();
        assert!(json.errors.is_empty(), "{}", json.errors);
        assert_eq!(patch.itunes_season, Some(Some(3)));
        assert_eq!(patch.itunes_explicit, Some(Some(true)));
        assert_eq!(patch.transcript, Some(None));
        assert_eq!(patch.is_public, Some(false));
    }

    #[test]
    fn bad_fields_are_reported_by_name() {
        let mut json = Fields::from_json(json!({
            "title": 5, "is_public": "maybe", "show_media": "x", "itunes": {"episodeType": "pilot", "episode": -1},
            "publishing_date": "2026-13-01", "colour": "blue"
        }));
        let _ = episode_patch(&mut json, &TimeZone::UTC);
        json.reject_unknown();
        let fields: Vec<_> = json.errors.fields().keys().map(String::as_str).collect();
        assert_eq!(
            fields,
            [
                "colour",
                "is_public",
                "itunes.episode",
                "itunes.episodeType",
                "publishing_date",
                "show_media"
            ]
        );
        let not_object = Fields::from_json(json!([1, 2]));
        assert!(!not_object.errors.is_empty());
    }
}
