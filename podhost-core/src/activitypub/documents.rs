//! The ActivityPub documents a podcast's actor serves and sends: its actor, its episodes'
//! posts and the activities about them, its collections, and the WebFinger and NodeInfo
//! answers that find it. Pure functions of the podcast as stored; JSON-LD in the compacted
//! form every implementation reads (Mastodon's, Fedify's).

use serde_json::{Value, json};

use crate::{
    ids::{AccountId, EpisodeId, FeedId},
    model::{EpisodeView, Feed, Media},
    urls::{FeedLinks, FileLink, Urls},
};

/// The media type of ActivityPub documents (what `Accept` and `Content-Type` say).
pub const ACTIVITY_JSON: &str = "application/activity+json";

/// The JSON-LD media type ActivityPub allows for the same documents.
pub const LD_JSON: &str = "application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\"";

/// The public audience.
pub const PUBLIC: &str = "https://www.w3.org/ns/activitystreams#Public";

/// Posts on one page of a podcast's outbox.
pub const OUTBOX_PAGE: usize = 20;

/// The `@context` of every document: ActivityStreams, the security vocabulary (the public
/// key), and Mastodon's terms (`featured`, `discoverable`).
fn context() -> Value {
    json!([
        "https://www.w3.org/ns/activitystreams",
        "https://w3id.org/security/v1",
        {
            "toot": "http://joinmastodon.org/ns#",
            "discoverable": "toot:discoverable",
            "featured": { "@id": "toot:featured", "@type": "@id" },
            "manuallyApprovesFollowers": "as:manuallyApprovesFollowers",
            "schema": "http://schema.org#",
            "PropertyValue": "schema:PropertyValue",
            "value": "schema:value"
        }
    ])
}

/// What a podcast's actor is made of.
pub struct ActorSource<'a> {
    /// The podcast.
    pub feed: &'a Feed,
    /// Its cover, when it has one.
    pub logo: Option<&'a Media>,
    /// The account that holds it.
    pub account: &'a AccountId,
    /// Its key's public half (SPKI PEM).
    pub public_key_pem: &'a str,
}

/// A podcast's actor: a `Service` (it posts by itself) named by its title, its profile from the
/// podcast (description, cover, links to its page and its feed), its public key.
pub fn actor(urls: &Urls, source: &ActorSource<'_>) -> Value {
    let feed = source.feed;
    let id = urls.actor(&feed.id);
    let page = urls.feed_page(&feed.id);
    let rss = urls.rss(&feed.id);
    let mut actor = json!({
        "@context": context(),
        "id": id,
        "type": "Service",
        "preferredUsername": feed.id.fediverse_name(),
        "name": feed.title,
        "summary": crate::publish::notes::feed_notes(&feed.description),
        "url": page,
        "inbox": urls.actor_collection(&feed.id, "inbox"),
        "outbox": urls.actor_collection(&feed.id, "outbox"),
        "followers": urls.actor_collection(&feed.id, "followers"),
        "featured": urls.actor_collection(&feed.id, "featured"),
        "endpoints": { "sharedInbox": urls.shared_inbox() },
        "manuallyApprovesFollowers": false,
        "discoverable": true,
        "published": feed.created.to_string(),
        "publicKey": {
            "id": urls.actor_key(&feed.id),
            "owner": id,
            "publicKeyPem": source.public_key_pem,
        },
        "attachment": [
            property("Podcast", &page),
            property("RSS", &rss),
        ],
    });
    if let (Some(logo), Some(fields)) = (source.logo, actor.as_object_mut()) {
        let url = FeedLinks::Public(urls).file(source.account, logo, FileLink::Download);
        fields.insert(
            "icon".into(),
            json!({ "type": "Image", "mediaType": logo.facts.mime, "url": url }),
        );
    }
    actor
}

/// A profile field as Mastodon shows it: a name and a link.
fn property(name: &str, url: &str) -> Value {
    let link = maud::html! { a href=(url) rel="me nofollow noopener" target="_blank" { (url) } };
    json!({
        "type": "PropertyValue",
        "name": name,
        "value": link.into_string(),
    })
}

/// An episode's post: a public `Note` of the podcast's actor, its title and show notes, a link
/// to its page, and its audio as an attachment (media type, URL, duration).
pub fn note(urls: &Urls, account: &AccountId, feed: &Feed, view: &EpisodeView) -> Value {
    let ep = &view.episode;
    let page = urls.episode_page(&feed.id, ep.id);
    let notes = crate::publish::notes::feed_notes(&ep.description);
    let title = maud::html! { p { strong { (ep.title) } } };
    let link = maud::html! { p { a href=(page) { (page) } } };
    let content = format!("{}{notes}{}", title.into_string(), link.into_string());
    let mut attachment = Vec::new();
    if let Some(media) = &view.media {
        let url = FeedLinks::Public(urls).enclosure(account, media, &feed.prefixes);
        let mut audio = json!({
            "type": "Document",
            "mediaType": media.facts.mime,
            "url": url,
            "name": ep.title,
        });
        if let (Some(facts), Some(fields)) = (&media.facts.audio, audio.as_object_mut()) {
            fields.insert(
                "duration".into(),
                Value::String(format!("PT{}S", facts.duration_ms.div_ceil(1000))),
            );
        }
        attachment.push(audio);
    }
    json!({
        "@context": context(),
        "id": urls.episode_note(&feed.id, ep.id),
        "type": "Note",
        "attributedTo": urls.actor(&feed.id),
        "to": [PUBLIC],
        "cc": [urls.actor_collection(&feed.id, "followers")],
        "published": ep.publish_at.to_string(),
        "updated": ep.updated.max(ep.publish_at).to_string(),
        "name": ep.title,
        "url": page,
        "content": content,
        "attachment": attachment,
        "sensitive": ep.itunes.explicit.unwrap_or(feed.itunes.explicit),
    })
}

/// What happened to an episode's post.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// It was published.
    Create,
    /// It changed.
    Update,
}

/// The activity of `verb` about an episode's post (`note`), by the podcast's actor, to the
/// public and its followers. A `Create` has the post's id and `/activity`; an update has an id
/// of its own (`#update-{change}`), as each is a new activity.
pub fn activity(
    urls: &Urls,
    feed: &FeedId,
    episode: EpisodeId,
    verb: Verb,
    change: &str,
    note: Value,
) -> Value {
    let note_id = urls.episode_note(feed, episode);
    let (kind, id) = match verb {
        Verb::Create => ("Create", format!("{note_id}/activity")),
        Verb::Update => ("Update", format!("{note_id}/activity#update-{change}")),
    };
    let mut object = note;
    if let Some(fields) = object.as_object_mut() {
        fields.remove("@context");
    }
    let published = object.get("updated").cloned().unwrap_or(Value::Null);
    json!({
        "@context": context(),
        "id": id,
        "type": kind,
        "actor": urls.actor(feed),
        "published": published,
        "to": [PUBLIC],
        "cc": [urls.actor_collection(feed, "followers")],
        "object": object,
    })
}

/// The `Delete` of an episode's post (unpublished or deleted): a `Tombstone` in its place.
pub fn delete(urls: &Urls, feed: &FeedId, episode: EpisodeId, change: &str) -> Value {
    let note_id = urls.episode_note(feed, episode);
    json!({
        "@context": context(),
        "id": format!("{note_id}/activity#delete-{change}"),
        "type": "Delete",
        "actor": urls.actor(feed),
        "to": [PUBLIC],
        "cc": [urls.actor_collection(feed, "followers")],
        "object": { "id": note_id, "type": "Tombstone" },
    })
}

/// The `Update` of a podcast's actor (its title, description or cover changed).
pub fn update_actor(urls: &Urls, feed: &FeedId, change: &str, actor: Value) -> Value {
    let mut object = actor;
    if let Some(fields) = object.as_object_mut() {
        fields.remove("@context");
    }
    json!({
        "@context": context(),
        "id": format!("{}#update-{change}", urls.actor(feed)),
        "type": "Update",
        "actor": urls.actor(feed),
        "to": [PUBLIC],
        "cc": [urls.actor_collection(feed, "followers")],
        "object": object,
    })
}

/// The `Accept` of a `Follow` of the podcast.
pub fn accept(urls: &Urls, feed: &FeedId, follower: &str, follow: &str, change: &str) -> Value {
    json!({
        "@context": context(),
        "id": format!("{}#accept-{change}", urls.actor(feed)),
        "type": "Accept",
        "actor": urls.actor(feed),
        "to": [follower],
        "object": {
            "id": follow,
            "type": "Follow",
            "actor": follower,
            "object": urls.actor(feed),
        },
    })
}

/// A podcast's outbox: its posts' `Create`s, newest first, [`OUTBOX_PAGE`] a page. `page`
/// none: the collection with its count and a link to its first page.
pub fn outbox(
    urls: &Urls,
    feed: &FeedId,
    total: usize,
    page: Option<(usize, Vec<Value>)>,
) -> Value {
    let id = urls.actor_collection(feed, "outbox");
    match page {
        None => json!({
            "@context": context(),
            "id": id,
            "type": "OrderedCollection",
            "totalItems": total,
            "first": format!("{id}?page=1"),
            "last": format!("{id}?page={}", total.div_ceil(OUTBOX_PAGE).max(1)),
        }),
        Some((number, items)) => {
            let mut page = json!({
                "@context": context(),
                "id": format!("{id}?page={number}"),
                "type": "OrderedCollectionPage",
                "partOf": id,
                "totalItems": total,
                "orderedItems": items,
            });
            if let Some(fields) = page.as_object_mut() {
                if number * OUTBOX_PAGE < total {
                    fields.insert(
                        "next".into(),
                        Value::String(format!("{id}?page={}", number + 1)),
                    );
                }
                if number > 1 {
                    fields.insert(
                        "prev".into(),
                        Value::String(format!("{id}?page={}", number - 1)),
                    );
                }
            }
            page
        }
    }
}

/// A podcast's followers: how many (who they are is theirs to show).
pub fn followers(urls: &Urls, feed: &FeedId, total: usize) -> Value {
    json!({
        "@context": context(),
        "id": urls.actor_collection(feed, "followers"),
        "type": "OrderedCollection",
        "totalItems": total,
        "orderedItems": [],
    })
}

/// A podcast's featured posts (pinned on its profile): its newest episode's.
pub fn featured(urls: &Urls, feed: &FeedId, notes: Vec<Value>) -> Value {
    json!({
        "@context": context(),
        "id": urls.actor_collection(feed, "featured"),
        "type": "OrderedCollection",
        "totalItems": notes.len(),
        "orderedItems": notes,
    })
}

/// The WebFinger answer (RFC 7033) for a podcast: its handle, its actor, its page.
pub fn webfinger(urls: &Urls, feed: &FeedId) -> Value {
    let actor = urls.actor(feed);
    let page = urls.feed_page(feed);
    json!({
        "subject": format!("acct:{}@{}", feed.fediverse_name(), urls.authority()),
        "aliases": [actor, page],
        "links": [
            { "rel": "self", "type": ACTIVITY_JSON, "href": actor },
            { "rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": page },
        ],
    })
}

/// The podcast a WebFinger `resource` names on this deployment: `acct:{name}@{authority}`
/// (with or without `acct:`, a leading `@` allowed), or the actor's or page's URL.
pub fn webfinger_feed(urls: &Urls, resource: &str) -> Option<FeedId> {
    let resource = resource.trim();
    if let Some((feed, None)) = urls.ap_object(resource) {
        return Some(feed);
    }
    if let Some((feed, None)) = urls.shown_at(resource) {
        return Some(feed);
    }
    let handle = resource.strip_prefix("acct:").unwrap_or(resource);
    let handle = handle.strip_prefix('@').unwrap_or(handle);
    let (name, host) = handle.rsplit_once('@')?;
    if !host.eq_ignore_ascii_case(urls.authority()) {
        return None;
    }
    FeedId::from_fediverse_name(name)
}

/// The NodeInfo discovery document (`/.well-known/nodeinfo`).
pub fn nodeinfo_links(urls: &Urls) -> Value {
    json!({
        "links": [{
            "rel": "http://nodeinfo.diaspora.software/ns/schema/2.1",
            "href": format!("{}/nodeinfo/2.1", urls.base()),
        }],
    })
}

/// NodeInfo 2.1: podhost, ActivityPub, its podcasts on the fediverse as users.
pub fn nodeinfo(users: usize) -> Value {
    json!({
        "version": "2.1",
        "software": {
            "name": "podhost",
            "version": env!("CARGO_PKG_VERSION"),
            "homepage": "https://example.invalid/podhost",
        },
        "protocols": ["activitypub"],
        "services": { "inbound": [], "outbound": ["rss2.0"] },
        "openRegistrations": false,
        "usage": { "users": { "total": users } },
        "metadata": {},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webfinger_names_a_podcast_by_its_handle_or_its_urls() {
        let urls = Urls::new("https://pods.example");
        let feed = FeedId::new("my-show").unwrap();
        for resource in [
            "acct:my-show@pods.example",
            "acct:@my-show@pods.example",
            "my-show@PODS.example",
            "https://pods.example/ap/podcasts/my-show",
            "https://pods.example/podcasts/my-show",
        ] {
            assert_eq!(
                webfinger_feed(&urls, resource),
                Some(feed.clone()),
                "{resource}"
            );
        }
        for resource in [
            "acct:my-show@elsewhere.example",
            "acct:my-show",
            "https://pods.example/ap/podcasts/my-show/episodes/1",
        ] {
            assert_eq!(webfinger_feed(&urls, resource), None, "{resource}");
        }
        let jrd = webfinger(&urls, &feed);
        assert_eq!(jrd["subject"], "acct:my-show@pods.example");
        assert_eq!(
            jrd["links"][0]["href"],
            "https://pods.example/ap/podcasts/my-show"
        );
    }

    #[test]
    fn the_authority_keeps_a_port() {
        let urls = Urls::new("http://127.0.0.1:8080");
        assert_eq!(urls.authority(), "127.0.0.1:8080");
        let feed = FeedId::new("show").unwrap();
        assert_eq!(urls.handle(&feed), "@show@127.0.0.1:8080");
        assert_eq!(
            urls.ap_object("http://127.0.0.1:8080/ap/podcasts/show/episodes/pod-3"),
            Some((feed.clone(), Some(EpisodeId::new(3).unwrap())))
        );
        assert_eq!(
            urls.ap_object("http://127.0.0.1:8080/ap/podcasts/show"),
            Some((feed, None))
        );
        assert_eq!(
            urls.ap_object("http://127.0.0.1:8080/ap/podcasts/show/inbox"),
            None
        );
    }
}
