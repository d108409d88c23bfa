//! Responses: media, feeds, episodes.

use podhost_core::{
    model::{EpisodeView, FeedView, Media},
    probe::MediaKind,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::{Ctx, format};
use crate::urls::ApiUrls;

fn kind_name(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Audio => "audio",
        MediaKind::Video => "video",
        MediaKind::Image => "image",
        MediaKind::Document => "document",
        MediaKind::Other => "other",
    }
}

/// An item of the media list (2.1).
pub fn media_item(ctx: &Ctx<'_>, m: &Media) -> Value {
    let tz = &ctx.host.config().display_time_zone;
    json!({
        "id": m.id.to_string(),
        "name": m.name,
        "byte": m.size,
        "created": format::date_time(m.created, tz),
        "size": format::size(m.size),
        "last": format::time_date(m.updated, tz),
        "cat": m.category.as_deref().unwrap_or("_default_"),
        "url": ctx.host.media_url(ctx.account, m),
        "extension": m.facts.extension,
        "mimetype": m.facts.mime,
        "type": kind_name(m.kind()),
        "created_date": format::date(m.created, tz),
        "created_time": format::hour_minute(m.created, tz),
    })
}

/// The single media record (2.1), returned by get, upload and copy.
pub fn media_single(ctx: &Ctx<'_>, m: &Media) -> Value {
    let tz = &ctx.host.config().display_time_zone;
    json!({
        "id": m.id.get(),
        "name": m.name,
        "byte": m.size,
        "size": format::size(m.size),
        "time": format::date_time(m.created, tz),
        "last": format::date_time(m.updated, tz),
        "cat": m.category,
        "mimetype": m.facts.mime,
        "type": kind_name(m.kind()),
        "info": m.facts.info,
        "mime": m.facts.mime,
        // Additions.
        "url": ctx.host.media_url(ctx.account, m),
        "extension": m.facts.extension,
        "duration": m.facts.audio.as_ref().map(|a| format::hms(a.duration_ms)),
    })
}

fn logo_url(ctx: &Ctx<'_>, logo: Option<&Media>) -> String {
    logo.map(|m| ctx.host.media_url(ctx.account, m))
        .unwrap_or_default()
}

fn feed_links(ctx: &Ctx<'_>, v: &FeedView) -> Value {
    let urls = ctx.host.urls();
    json!({
        "self": ApiUrls::new(ctx.host).feed(&v.feed.id),
        "rss": urls.rss(&v.feed.id),
        "web": urls.feed_page(&v.feed.id),
        "logo": logo_url(ctx, v.logo.as_ref()),
    })
}

/// An item of the feed list (2.2): `links` before `attributes`, no `itunes`/`googleplay`.
pub fn feed_list_item(ctx: &Ctx<'_>, v: &FeedView) -> Value {
    let f = &v.feed;
    json!({
        "type": "feed",
        "id": f.id.as_str(),
        "links": feed_links(ctx, v),
        "attributes": {
            "rss": {"title": f.title, "description": f.description, "copyright": f.copyright},
            "logo": logo_url(ctx, v.logo.as_ref()),
        },
        "shows_count": v.episode_count,
        "relationships": ["entry"],
    })
}

/// The single feed (2.2): `attributes` before `links`, with the directory objects and
/// podhost's additional channel fields.
pub fn feed_single(ctx: &Ctx<'_>, v: &FeedView) -> Value {
    let f = &v.feed;
    let it = &f.itunes;
    json!({
        "type": "feed",
        "id": f.id.as_str(),
        "attributes": {
            "rss": {
                "title": f.title,
                "description": f.description,
                "copyright": f.copyright,
                "language": f.language,
                "link": f.link,
            },
            "itunes": {
                "subtitle": it.subtitle,
                "summary": it.summary,
                "author": it.author,
                "category": it.category,
                "subcategory": it.subcategory,
                "explicit": it.explicit,
                "type": match it.show_type { podhost_core::model::ShowType::Episodic => "episodic", podhost_core::model::ShowType::Serial => "serial" },
                "owner": {"name": it.owner_name, "email": it.owner_email},
                "block": it.block,
                "complete": it.complete,
                "new-feed-url": it.new_feed_url,
            },
            "googleplay": {"author": f.googleplay.author, "description": f.googleplay.description},
            "podcast": channel_podcast(f),
            "logo": logo_url(ctx, v.logo.as_ref()),
            // Addition.
            "private": f.private,
        },
        "links": feed_links(ctx, v),
        "shows_count": v.episode_count,
        "relationships": ["entry"],
    })
}

/// A podcast's `podcast` object: guid, locked, funding, medium, then its other Podcasting 2.0
/// tags by their names.
fn channel_podcast(f: &podhost_core::model::Feed) -> Value {
    let mut podcast = json!({
        "guid": f.podcast.guid.to_string(),
        "locked": f.podcast.locked,
        "funding": f.podcast.funding.iter().map(|x| json!({"url": x.url, "text": x.text})).collect::<Vec<_>>(),
        "medium": f.podcast.medium,
    });
    if let (Some(out), Ok(Value::Object(tags))) = (
        podcast.as_object_mut(),
        serde_json::to_value(&f.podcast.tags),
    ) {
        out.extend(tags);
    }
    podcast
}

/// An episode's `podcast` object: the uploaded transcript's media id, then its other
/// Podcasting 2.0 tags by their names.
fn item_podcast(e: &podhost_core::model::Episode) -> Value {
    let mut podcast = json!({"transcript": e.transcript.map(|m| m.get())});
    if let (Some(out), Ok(Value::Object(tags))) =
        (podcast.as_object_mut(), serde_json::to_value(&e.podcast))
    {
        out.extend(tags);
    }
    podcast
}

fn opt_num(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

/// An episode's `itunes` object (2.3).
#[derive(Serialize)]
pub struct Itunes<'a> {
    title: &'a str,
    subtitle: &'a str,
    logo: String,
    summary: &'a str,
    #[serde(rename = "episodeType")]
    episode_type: &'static str,
    author: &'a str,
    duration: String,
    season: String,
    episode: String,
    /// Addition.
    explicit: Option<bool>,
}

fn itunes<'a>(ctx: &Ctx<'_>, v: &'a EpisodeView) -> Itunes<'a> {
    let it = &v.episode.itunes;
    Itunes {
        title: &it.title,
        subtitle: &it.subtitle,
        logo: logo_url(ctx, v.logo.as_ref()),
        summary: &it.summary,
        episode_type: it.episode_type.as_str(),
        author: &it.author,
        duration: duration_ms(v).map(format::hms).unwrap_or_default(),
        season: opt_num(it.season),
        episode: opt_num(it.episode),
        explicit: it.explicit,
    }
}

fn duration_ms(v: &EpisodeView) -> Option<u64> {
    v.media
        .as_ref()
        .and_then(|m| m.facts.audio.as_ref())
        .map(|a| a.duration_ms)
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

/// An item of the episode list (2.3): serialized straight from the episode, no JSON tree in
/// between (a page of 50 of a large podcast is rendered on every cache miss).
#[derive(Serialize)]
pub struct EpisodeItem<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: String,
    feed_id: &'a str,
    links: EpisodeLinks,
    attributes: EpisodeItemAttributes<'a>,
    relationships: [&'static str; 1],
}

#[derive(Serialize)]
struct EpisodeLinks {
    #[serde(rename = "self")]
    this: String,
    web: String,
    logo: String,
    media: String,
}

#[derive(Serialize)]
struct EpisodeItemAttributes<'a> {
    title: &'a str,
    description: &'a str,
    author: &'a str,
    link: &'a str,
    copyright: &'a str,
    logo: String,
    guid: &'a str,
    publish_date: String,
    publish_date_formatted: String,
    is_published: u8,
    file: &'a str,
    enclosure_url: String,
    itunes: Itunes<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
    duration_formatted: String,
    /// Addition.
    is_public: u8,
}

/// An item of the episode list (2.3).
pub fn episode_item<'a>(ctx: &Ctx<'_>, v: &'a EpisodeView) -> EpisodeItem<'a> {
    let e = &v.episode;
    let tz = &ctx.host.config().display_time_zone;
    let urls = ctx.host.urls();
    let media_url = v
        .media
        .as_ref()
        .map(|m| ctx.host.media_url(ctx.account, m))
        .unwrap_or_default();
    let logo = logo_url(ctx, v.logo.as_ref());
    EpisodeItem {
        kind: "show",
        id: e.id.to_string(),
        feed_id: e.feed.as_str(),
        links: EpisodeLinks {
            this: ApiUrls::new(ctx.host).episode(&e.feed, e.id),
            web: urls.episode_page(&e.feed, e.id),
            logo: logo.clone(),
            media: media_url.clone(),
        },
        attributes: EpisodeItemAttributes {
            title: &e.title,
            description: &e.description,
            author: &e.author,
            link: &e.link,
            copyright: &e.copyright,
            logo,
            guid: &e.guid,
            publish_date: e.publish_at.as_second().to_string(),
            publish_date_formatted: format::publish_date_formatted(e.publish_at, tz),
            is_published: u8::from(v.is_published),
            file: v.media.as_ref().map_or("", |m| m.name.as_str()),
            enclosure_url: media_url,
            itunes: itunes(ctx, v),
            kind: v.media.as_ref().map_or("unknown", |m| kind_name(m.kind())),
            duration_formatted: duration_ms(v)
                .map(format::minutes_seconds)
                .unwrap_or_default(),
            is_public: u8::from(e.is_public),
        },
        relationships: ["entry"],
    }
}

/// The single episode (2.3), with podhost's additions after the specified fields.
pub fn episode_single(ctx: &Ctx<'_>, v: &EpisodeView) -> Value {
    let e = &v.episode;
    let tz = &ctx.host.config().display_time_zone;
    json!({
        "type": "show",
        "id": e.id.to_string(),
        "feed_id": e.feed.as_str(),
        "attributes": {
            "title": e.title,
            "subtitle": e.subtitle,
            "link": e.link,
            "description": e.description,
            "author": e.author,
            "email": e.email,
            "copyright": e.copyright,
            "itunes": itunes(ctx, v),
            // Additions.
            "guid": e.guid,
            "is_public": u8::from(e.is_public),
            "is_published": u8::from(v.is_published),
            "publish_date": e.publish_at.as_second().to_string(),
            "publish_date_formatted": format::publish_date_formatted(e.publish_at, tz),
            "show_media": e.media.map(|m| m.get()),
            "enclosure_url": v.media.as_ref().map(|m| ctx.host.media_url(ctx.account, m)).unwrap_or_default(),
            "duration_formatted": duration_ms(v).map(format::minutes_seconds).unwrap_or_default(),
            "podcast": item_podcast(e),
            "version": e.version,
        },
    })
}

/// A download statistics report (addition).
pub fn stats_report(r: &podhost_core::stats::StatsReport) -> Value {
    json!({
        "from": r.from.to_string(),
        "to": r.to.to_string(),
        "total": r.total,
        "days": r.days.iter().map(|d| json!({ "date": d.date.to_string(), "downloads": d.downloads })).collect::<Vec<_>>(),
        "feeds": r.feeds.iter().map(|f| json!({ "feed_id": f.feed_id.as_str(), "downloads": f.downloads })).collect::<Vec<_>>(),
        "episodes": r.episodes.iter().map(|e| json!({ "feed_id": e.feed_id.as_str(), "show_id": e.episode_id.to_string(), "downloads": e.downloads })).collect::<Vec<_>>(),
        "apps": r.apps.iter().map(|a| json!({ "app": a.app, "downloads": a.downloads })).collect::<Vec<_>>(),
        "hours": r.hours.iter().enumerate().map(|(hour, n)| json!({ "hour": hour, "downloads": n })).collect::<Vec<_>>(),
        "platforms": r.platforms.iter().map(|p| json!({ "platform": p.platform, "downloads": p.downloads })).collect::<Vec<_>>(),
        "method": { "guideline": podhost_core::stats::GUIDELINE, "window": podhost_core::stats::WINDOW },
        // Addition: downloads through private podcasts' subscriber URLs.
        "subscribers": r.subscribers.iter().map(|s| json!({ "subscriber_id": s.subscriber_id.as_str(), "downloads": s.downloads })).collect::<Vec<_>>(),
    })
}

/// A background job: `{id, kind, media_id, status, error, result}` (decisions.md), then the
/// additions `created`, `started`, `finished`, `attempts`. `result` links to the output once
/// the job succeeded.
pub fn job(host: &podhost_core::PodcastHost, j: &podhost_core::model::Job) -> Value {
    use podhost_core::model::{JobKind, JobStatus};
    let urls = ApiUrls::new(host);
    let result = match (j.status, j.kind, j.media) {
        (JobStatus::Succeeded, JobKind::Waveform, Some(m)) => json!({
            "waveform": urls.waveform(m),
            "waveform_dat": format!("{}?format=dat", urls.waveform(m)),
        }),
        (JobStatus::Succeeded, JobKind::Silence, Some(m)) => json!({ "silence": urls.silence(m) }),
        (JobStatus::Succeeded, JobKind::WriteTags, Some(m)) => {
            json!({ "metadata": urls.metadata(m) })
        }
        // The import's report, with a link to the podcast it made.
        (JobStatus::Succeeded, JobKind::Import, _) => {
            let mut report = j.report.clone().unwrap_or_else(|| json!({}));
            let feed = report["feed_id"]
                .as_str()
                .and_then(|id| podhost_core::FeedId::new(id).ok());
            if let (Some(feed), Some(object)) = (feed, report.as_object_mut()) {
                object.insert("feed".into(), json!(urls.feed(&feed)));
            }
            report
        }
        _ => Value::Null,
    };
    let time = |t: Option<jiff::Timestamp>| t.map(|t| t.to_string());
    json!({
        "id": j.id.as_str(),
        "kind": j.kind.as_str(),
        "media_id": j.media.map(podhost_core::MediaId::get),
        "status": j.status.as_str(),
        "error": j.error,
        "result": result,
        "created": j.created.to_string(),
        "started": time(j.started),
        "finished": time(j.finished),
        "attempts": j.attempts,
    })
}

/// A silence report: the silences in seconds, the duration, the suggested mid-roll positions.
pub fn silence_report(r: &podhost_core::analysis::SilenceReport) -> Value {
    json!({
        "silences": r.silences.iter().map(|s| json!({ "start": s.start, "end": s.end, "duration": s.duration })).collect::<Vec<_>>(),
        "duration": r.duration,
        "midrolls": r.midrolls,
    })
}

/// A media file's metadata (4.9): its facts, the tags read from the file (chapter times in
/// seconds), the stored ad breaks, Apple's artwork check for images and covers; after a `PUT`,
/// the job writing the tags.
pub fn metadata(m: &podhost_core::Metadata, job: Option<Value>) -> Value {
    let media = &m.media;
    let audio = media.facts.audio.as_ref();
    let image = media.facts.image.as_ref();
    let seconds = |ms: u64| ms as f64 / 1000.0;
    let tags = m.tags.as_ref().map(|t| {
        json!({
            "title": t.title,
            "artist": t.artist,
            "album": t.album,
            "year": t.year,
            "comment": t.comment,
            "chapters": t.chapters.iter().map(|c| json!({
                "start": seconds(c.start_ms),
                "end": c.end_ms.map(seconds),
                "title": c.title,
                "url": c.url,
            })).collect::<Vec<_>>(),
            "cover": t.cover.as_ref().map(|c| json!({ "mime": c.mime, "size": c.bytes.len() })),
        })
    });
    json!({
        "id": media.id.get(),
        "type": kind_name(media.kind()),
        "mime": media.facts.mime,
        "info": media.facts.info,
        "duration": audio.map(|a| seconds(a.duration_ms)),
        "bitrate": audio.map(|a| a.bitrate),
        "sample_rate": audio.map(|a| a.sample_rate),
        "channels": audio.map(|a| a.channels),
        "codec": audio.map(|a| a.codec.clone()),
        "width": image.map(|i| i.width),
        "height": image.map(|i| i.height),
        "tags": tags,
        "tags_error": m.tags_error,
        "adbreak": media.adbreak.as_ref().map(|a| json!({ "preroll": a.preroll, "postroll": a.postroll, "midrolls": a.midrolls })),
        "artwork": m.artwork.as_ref().map(|a| json!({
            "width": a.width,
            "height": a.height,
            "meets_apple_rule": a.problems.is_empty(),
            "problems": a.problems,
        })),
        "job": job,
    })
}

/// A private podcast's subscriber: `{id, label, feed_url, created, revoked}`.
pub fn subscriber(host: &podhost_core::PodcastHost, s: &podhost_core::model::Subscriber) -> Value {
    json!({
        "id": s.id.as_str(),
        "label": s.label,
        "feed_url": host.subscriber_feed_url(s),
        "created": s.created.to_string(),
        "revoked": s.revoked.map(|t| t.to_string()),
    })
}

/// A personal token as its list shows it (never its secret): `{id, label, scopes, created,
/// last_used, revoked}`.
pub fn token(t: &podhost_core::model::Token, last_used: Option<jiff::Timestamp>) -> Value {
    json!({
        "id": t.id.as_str(),
        "label": t.label,
        "scopes": t.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "created": t.created.to_string(),
        "last_used": last_used.map(|t| t.to_string()),
        "revoked": t.revoked.map(|t| t.to_string()),
    })
}

/// A webhook subscription; the secret only when it was just created.
pub fn webhook(w: &podhost_core::webhooks::subscription::Webhook, with_secret: bool) -> Value {
    let mut value = json!({
        "id": w.id,
        "url": w.url,
        "events": w.events.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        "description": w.description,
        "created": w.created.to_string(),
    });
    if with_secret {
        value["secret"] = json!(w.secret);
    }
    value
}

/// One event's delivery to a subscription, with its attempts.
pub fn delivery(d: &podhost_core::webhooks::delivery::Delivery) -> Value {
    json!({
        "seq": d.seq,
        "event_id": d.event_id,
        "type": d.kind,
        "status": d.status.as_str(),
        "next_at": (d.status == podhost_core::webhooks::delivery::DeliveryStatus::Pending).then(|| d.next_at.to_string()),
        "attempts": d.attempts.iter().map(|a| json!({
            "at": a.at.to_string(),
            "status": a.status,
            "excerpt": a.excerpt,
            "manual": a.manual,
        })).collect::<Vec<_>>(),
    })
}

/// What a round of webhook deliveries did (`POST /api/webhooks-processing`).
pub fn webhook_run(r: &podhost_core::WebhookRun) -> Value {
    json!({
        "attempted": r.attempted,
        "delivered": r.delivered,
        "failed": r.failed,
        "pending": r.pending,
    })
}
