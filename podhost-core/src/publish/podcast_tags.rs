//! The Podcasting 2.0 tags of a feed (the podcastindex.org namespace), channel and item, as
//! the namespace writes them.

use super::{
    feed_values::{enclosure_type, yes_no},
    xml_text::clean_value,
    xml_writer::Xml,
};
use crate::{
    model::EpisodeView,
    urls::{FeedLinks, FileLink},
};

/// Attributes of which some are absent: `(name, Some(value))` pairs kept.
fn attrs<'a>(pairs: &[(&'a str, Option<String>)]) -> Vec<(&'a str, String)> {
    pairs
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| (*k, v)))
        .collect()
}

fn borrowed<'a>(owned: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    owned.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn text_el(x: &mut Xml, name: &str, pairs: &[(&str, Option<String>)], text: &str) {
    let owned = attrs(pairs);
    x.text_with(name, &borrowed(&owned), text);
}

fn empty_el(x: &mut Xml, name: &str, pairs: &[(&str, Option<String>)]) {
    let owned = attrs(pairs);
    x.empty(name, &borrowed(&owned));
}

/// An element whose text is optional: with its text, or empty when there is none.
fn optional_text_el(
    x: &mut Xml,
    name: &str,
    pairs: &[(&str, Option<String>)],
    text: &Option<String>,
) {
    match text.as_deref().map(clean_value).filter(|t| !t.is_empty()) {
        Some(t) => text_el(x, name, pairs, &t),
        None => empty_el(x, name, pairs),
    }
}

fn num(n: f64) -> String {
    // Whole numbers without a fraction, others as they are.
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn people(x: &mut Xml, people: &[crate::model::podcast::Person]) {
    for p in people {
        text_el(
            x,
            "podcast:person",
            &[
                ("role", p.role.clone()),
                ("group", p.group.clone()),
                ("img", p.img.clone()),
                ("href", p.href.clone()),
            ],
            &p.name,
        );
    }
}

fn location(x: &mut Xml, l: &Option<crate::model::podcast::Location>) {
    if let Some(l) = l {
        text_el(
            x,
            "podcast:location",
            &[("geo", l.geo.clone()), ("osm", l.osm.clone())],
            &l.name,
        );
    }
}

fn license(x: &mut Xml, l: &Option<crate::model::podcast::License>) {
    if let Some(l) = l {
        text_el(x, "podcast:license", &[("url", l.url.clone())], &l.name);
    }
}

fn txts(x: &mut Xml, txt: &[crate::model::podcast::Txt]) {
    for t in txt {
        text_el(x, "podcast:txt", &[("purpose", t.purpose.clone())], &t.text);
    }
}

fn images(x: &mut Xml, images: &[crate::model::podcast::Image]) {
    for i in images {
        empty_el(
            x,
            "podcast:image",
            &[
                ("href", Some(i.href.clone())),
                ("alt", i.alt.clone()),
                ("aspect-ratio", i.aspect_ratio.clone()),
                ("width", i.width.map(|w| w.to_string())),
                ("height", i.height.map(|h| h.to_string())),
                ("type", i.mime.clone()),
                ("purpose", i.purpose.clone()),
            ],
        );
    }
}

fn chat(x: &mut Xml, c: &Option<crate::model::podcast::Chat>) {
    if let Some(c) = c {
        empty_el(
            x,
            "podcast:chat",
            &[
                ("server", Some(c.server.clone())),
                ("protocol", Some(c.protocol.clone())),
                ("accountId", c.account_id.clone()),
                ("space", c.space.clone()),
            ],
        );
    }
}

fn remote_item(x: &mut Xml, r: &crate::model::podcast::RemoteItem) {
    empty_el(
        x,
        "podcast:remoteItem",
        &[
            ("feedGuid", Some(r.feed_guid.clone())),
            ("itemGuid", r.item_guid.clone()),
            ("feedUrl", r.feed_url.clone()),
            ("medium", r.medium.clone()),
        ],
    );
}

fn recipients(x: &mut Xml, list: &[crate::model::podcast::ValueRecipient]) {
    for r in list {
        empty_el(
            x,
            "podcast:valueRecipient",
            &[
                ("name", r.name.clone()),
                ("type", Some(r.kind.clone())),
                ("address", Some(r.address.clone())),
                ("split", Some(r.split.to_string())),
                ("customKey", r.custom_key.clone()),
                ("customValue", r.custom_value.clone()),
                ("fee", r.fee.map(|f| f.to_string())),
            ],
        );
    }
}

fn value(x: &mut Xml, v: &Option<crate::model::podcast::ValueBlock>) {
    let Some(v) = v else { return };
    let owned = attrs(&[
        ("type", Some(v.kind.clone())),
        ("method", Some(v.method.clone())),
        ("suggested", v.suggested.clone()),
    ]);
    x.open("podcast:value", &borrowed(&owned));
    recipients(x, &v.recipients);
    for split in &v.time_splits {
        let owned = attrs(&[
            ("startTime", Some(num(split.start_time))),
            ("duration", Some(num(split.duration))),
            ("remoteStartTime", split.remote_start_time.map(num)),
            ("remotePercentage", split.remote_percentage.map(num)),
        ]);
        x.open("podcast:valueTimeSplit", &borrowed(&owned));
        if let Some(r) = &split.remote_item {
            remote_item(x, r);
        }
        recipients(x, &split.recipients);
        x.close("podcast:valueTimeSplit");
    }
    x.close("podcast:value");
}

/// The channel's Podcasting 2.0 tags (besides guid, locked, funding, medium).
pub(super) fn channel_tags(x: &mut Xml, t: &crate::model::podcast::ChannelTags) {
    people(x, &t.person);
    location(x, &t.location);
    for trailer in &t.trailer {
        text_el(
            x,
            "podcast:trailer",
            &[
                ("pubdate", Some(trailer.pubdate.clone())),
                ("url", Some(trailer.url.clone())),
                ("length", trailer.length.map(|l| l.to_string())),
                ("type", trailer.mime.clone()),
                ("season", trailer.season.map(|s| s.to_string())),
            ],
            &trailer.title,
        );
    }
    license(x, &t.license);
    for b in &t.block {
        text_el(
            x,
            "podcast:block",
            &[("id", b.id.clone())],
            yes_no(b.blocked),
        );
    }
    txts(x, &t.txt);
    if !t.podroll.is_empty() {
        x.open("podcast:podroll", &[]);
        for r in &t.podroll {
            remote_item(x, r);
        }
        x.close("podcast:podroll");
    }
    if let Some(u) = &t.update_frequency {
        text_el(
            x,
            "podcast:updateFrequency",
            &[
                ("complete", u.complete.map(|c| c.to_string())),
                ("dtstart", u.dtstart.clone()),
                ("rrule", u.rrule.clone()),
            ],
            &u.text,
        );
    }
    value(x, &t.value);
    chat(x, &t.chat);
    if let Some(p) = &t.publisher {
        x.open("podcast:publisher", &[]);
        remote_item(x, p);
        x.close("podcast:publisher");
    }
    images(x, &t.image);
    for i in &t.id {
        empty_el(
            x,
            "podcast:id",
            &[
                ("platform", Some(i.platform.clone())),
                ("id", i.id.clone()),
                ("url", Some(i.url.clone())),
            ],
        );
    }
    for s in &t.social {
        let owned = attrs(&[
            ("platform", Some(s.platform.clone())),
            ("url", Some(s.url.clone())),
            ("podcastAccountId", s.podcast_account_id.clone()),
            ("priority", s.priority.map(|p| p.to_string())),
        ]);
        x.open("podcast:social", &borrowed(&owned));
        for up in &s.social_sign_up {
            empty_el(
                x,
                "podcast:socialSignUp",
                &[
                    ("homeUrl", Some(up.home_url.clone())),
                    ("signUpUrl", Some(up.sign_up_url.clone())),
                    ("priority", up.priority.map(|p| p.to_string())),
                ],
            );
        }
        x.close("podcast:social");
    }
    recommendations(x, &t.recommendations);
}

fn recommendations(x: &mut Xml, list: &[crate::model::podcast::Recommendations]) {
    for r in list {
        optional_text_el(
            x,
            "podcast:recommendations",
            &[
                ("url", Some(r.url.clone())),
                ("type", Some(r.mime.clone())),
                ("language", r.language.clone()),
            ],
            &r.text,
        );
    }
}

/// A channel's live items (`podcast:liveItem`), after its other items' tags.
pub(super) fn live_items(x: &mut Xml, t: &crate::model::podcast::ChannelTags) {
    for l in &t.live_item {
        let owned = attrs(&[
            ("status", Some(l.status.clone())),
            ("start", Some(l.start.clone())),
            ("end", l.end.clone()),
        ]);
        x.open("podcast:liveItem", &borrowed(&owned));
        x.text("title", &l.title);
        x.text_with("guid", &[("isPermaLink", "false")], &l.guid);
        x.empty(
            "enclosure",
            &[("url", &l.url), ("type", &l.mime), ("length", "0")],
        );
        for link in &l.content_link {
            x.text_with("podcast:contentLink", &[("href", &link.href)], &link.text);
        }
        chat(x, &l.chat);
        if let Some(v) = &l.live_value {
            x.empty(
                "podcast:liveValue",
                &[("uri", &v.uri), ("protocol", &v.protocol)],
            );
        }
        x.close("podcast:liveItem");
    }
}

/// An item's Podcasting 2.0 tags (besides the uploaded transcript and the file's chapters).
pub(super) fn item_tags(
    x: &mut Xml,
    t: &crate::model::podcast::ItemTags,
    view: &EpisodeView,
    links: &FeedLinks<'_>,
    account: &crate::ids::AccountId,
    prefixes: &[String],
) {
    for tr in &t.transcripts {
        empty_el(
            x,
            "podcast:transcript",
            &[
                ("url", Some(tr.url.clone())),
                ("type", Some(tr.mime.clone())),
                ("language", tr.language.clone()),
                ("rel", tr.rel.clone()),
            ],
        );
    }
    for s in &t.soundbite {
        optional_text_el(
            x,
            "podcast:soundbite",
            &[
                ("startTime", Some(num(s.start_time))),
                ("duration", Some(num(s.duration))),
            ],
            &s.text,
        );
    }
    people(x, &t.person);
    location(x, &t.location);
    if let Some(season) = &t.season {
        text_el(
            x,
            "podcast:season",
            &[("name", season.name.clone())],
            &season.number.to_string(),
        );
    }
    if let Some(episode) = &t.episode {
        text_el(
            x,
            "podcast:episode",
            &[("display", episode.display.clone())],
            &num(episode.number),
        );
    }
    license(x, &t.license);
    for a in &t.alternate_enclosure {
        // A file podhost holds: its URL first, its type, size and SHA-384 unless given.
        let held = a
            .media
            .and_then(|id| view.alternates.iter().find(|m| m.id == id));
        let mime = match (a.mime.trim().is_empty(), held) {
            (true, Some(m)) => enclosure_type(&m.facts.mime).to_string(),
            _ => a.mime.clone(),
        };
        let owned = attrs(&[
            ("type", Some(mime)),
            (
                "length",
                a.length.or(held.map(|m| m.size)).map(|l| l.to_string()),
            ),
            ("bitrate", a.bitrate.map(num)),
            ("height", a.height.map(|h| h.to_string())),
            ("lang", a.lang.clone()),
            ("title", a.title.clone()),
            ("rel", a.rel.clone()),
            ("codecs", a.codecs.clone()),
            ("default", a.default.map(|d| d.to_string())),
        ]);
        x.open("podcast:alternateEnclosure", &borrowed(&owned));
        if let Some(m) = held {
            empty_el(
                x,
                "podcast:source",
                &[("uri", Some(links.enclosure(account, m, prefixes)))],
            );
        }
        for s in &a.source {
            empty_el(
                x,
                "podcast:source",
                &[
                    ("uri", Some(s.uri.clone())),
                    ("contentType", s.content_type.clone()),
                ],
            );
        }
        let computed = held.and_then(|m| m.facts.sha384.clone()).map(|value| {
            crate::model::podcast::Integrity {
                kind: "sri".into(),
                value,
            }
        });
        if let Some(i) = a.integrity.as_ref().or(computed.as_ref()) {
            empty_el(
                x,
                "podcast:integrity",
                &[
                    ("type", Some(i.kind.clone())),
                    ("value", Some(i.value.clone())),
                ],
            );
        }
        x.close("podcast:alternateEnclosure");
    }
    // The episode's video, once packaged: its HLS stream beside the audio enclosure.
    if let Some(video) = &view.video
        && let Some(streamed) = &video.results.hls
    {
        let owned = attrs(&[
            ("type", Some(crate::publish::HLS_TYPE.to_string())),
            // The top variant's bytes: parsers (partytime) skip an alternate without a length.
            ("length", Some(streamed.length.to_string())),
            ("bitrate", Some(streamed.bitrate.to_string())),
            ("height", Some(streamed.height.to_string())),
            ("title", Some("Video".to_string())),
        ]);
        x.open("podcast:alternateEnclosure", &borrowed(&owned));
        empty_el(
            x,
            "podcast:source",
            &[("uri", Some(links.file(account, video, FileLink::Stream)))],
        );
        x.close("podcast:alternateEnclosure");
    }
    value(x, &t.value);
    for s in &t.social_interact {
        empty_el(
            x,
            "podcast:socialInteract",
            &[
                ("uri", Some(s.uri.clone())),
                ("protocol", Some(s.protocol.clone())),
                ("accountId", s.account_id.clone()),
                ("accountUrl", s.account_url.clone()),
                ("priority", s.priority.map(|p| p.to_string())),
            ],
        );
    }
    txts(x, &t.txt);
    chat(x, &t.chat);
    images(x, &t.image);
    recommendations(x, &t.recommendations);
}
