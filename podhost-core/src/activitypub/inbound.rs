//! What arrives from the fediverse, read defensively: activities posted to an inbox, and the
//! actor and key documents fetched to check who sent them. Only the fields podhost acts on are
//! read; anything else is ignored, and a document that lacks one of them is refused.

use serde_json::Value;

/// The largest activity an inbox reads, in bytes (Mastodon's own limit is about this).
pub const MAX_ACTIVITY_BYTES: usize = 256 * 1024;

/// The largest actor or key document podhost reads, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 20;

/// How long a fetch of an actor or key may take, in all.
pub const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// An activity posted to an inbox.
#[derive(Clone, Debug)]
pub struct Activity {
    /// Its id (a URL).
    pub id: String,
    /// Its type (`Follow`, `Create`, ...).
    pub kind: String,
    /// Who sends it (a URL).
    pub actor: String,
    /// What it is about: an id, or an object.
    pub object: Value,
    /// The whole document.
    pub raw: Value,
}

/// The id of an object given as its id or as the object.
pub fn id_of(value: &Value) -> Option<&str> {
    match value {
        Value::String(id) => Some(id),
        Value::Object(fields) => fields.get("id").and_then(Value::as_str),
        _ => None,
    }
}

/// The type of an object given as the object (`None` for a bare id).
pub fn type_of(value: &Value) -> Option<&str> {
    match value.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds.iter().find_map(Value::as_str),
        _ => None,
    }
}

/// Reads an activity: JSON with an `id`, a `type` and an `actor`, each http(s) URL where one
/// must be.
pub fn parse_activity(body: &[u8]) -> Result<Activity, String> {
    if body.len() > MAX_ACTIVITY_BYTES {
        return Err(format!("an activity is at most {MAX_ACTIVITY_BYTES} bytes"));
    }
    let raw: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let kind = type_of(&raw)
        .ok_or("an activity without a type")?
        .to_string();
    let actor = raw
        .get("actor")
        .and_then(id_of)
        .ok_or("an activity without an actor")?
        .to_string();
    let id = raw
        .get("id")
        .and_then(Value::as_str)
        .ok_or("an activity without an id")?
        .to_string();
    for url in [&actor, &id] {
        web_url(url)?;
    }
    let object = raw.get("object").cloned().unwrap_or(Value::Null);
    Ok(Activity {
        id,
        kind,
        actor,
        object,
        raw,
    })
}

/// An http(s) URL with a host, or why not.
pub fn web_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|e| format!("\"{text}\" is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("\"{text}\" is not an http or https URL"));
    }
    Ok(url)
}

/// Whether two URLs have one origin (scheme, host, port).
pub fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

/// The origin of a URL as written in a sentence: `https://social.example` (with the port when
/// not the scheme's); the text itself when it is no URL.
pub fn origin_of(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_string(), |u| u.origin().ascii_serialization())
}

/// A remote actor, as its instance serves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteActor {
    /// Its id.
    pub id: String,
    /// Its inbox.
    pub inbox: String,
    /// Its instance's shared inbox.
    pub shared_inbox: Option<String>,
    /// Its display name (its handle when none).
    pub name: String,
    /// `@name@instance`.
    pub handle: String,
    /// Its profile page (its id when none).
    pub url: String,
    /// Its public keys: id and PEM.
    pub keys: Vec<(String, String)>,
}

/// Reads an actor document fetched from `fetched`: its id must be on the fetched URL's
/// origin, its inbox an http(s) URL.
pub fn parse_actor(doc: &Value, fetched: &str) -> Result<RemoteActor, String> {
    let id = doc
        .get("id")
        .and_then(Value::as_str)
        .ok_or("an actor without an id")?;
    if !same_origin(id, fetched) {
        return Err(format!(
            "{fetched} served an actor of another origin ({id})"
        ));
    }
    let inbox = doc
        .get("inbox")
        .and_then(Value::as_str)
        .ok_or("an actor without an inbox")?;
    web_url(inbox)?;
    let shared_inbox = doc
        .get("endpoints")
        .and_then(|e| e.get("sharedInbox"))
        .and_then(Value::as_str)
        .filter(|url| web_url(url).is_ok())
        .map(str::to_string);
    let username = doc
        .get("preferredUsername")
        .and_then(Value::as_str)
        .unwrap_or("");
    let host = crate::model::social::instance_of(id).unwrap_or_default();
    let handle = if username.is_empty() {
        id.to_string()
    } else {
        format!("@{username}@{host}")
    };
    let name = doc
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .map_or_else(|| handle.clone(), |n| n.trim().chars().take(200).collect());
    let url = match doc.get("url") {
        Some(Value::String(url)) if web_url(url).is_ok() => url.clone(),
        Some(Value::Object(link)) => link
            .get("href")
            .and_then(Value::as_str)
            .filter(|url| web_url(url).is_ok())
            .unwrap_or(id)
            .to_string(),
        _ => id.to_string(),
    };
    Ok(RemoteActor {
        id: id.to_string(),
        inbox: inbox.to_string(),
        shared_inbox,
        name,
        handle,
        url,
        keys: keys_of(doc),
    })
}

/// The public keys a document carries (`publicKey`, one or several), as id and PEM.
fn keys_of(doc: &Value) -> Vec<(String, String)> {
    let key = |k: &Value| {
        Some((
            k.get("id")?.as_str()?.to_string(),
            k.get("publicKeyPem")?.as_str()?.to_string(),
        ))
    };
    match doc.get("publicKey") {
        Some(Value::Array(keys)) => keys.iter().filter_map(key).collect(),
        Some(k) => key(k).into_iter().collect(),
        None => Vec::new(),
    }
}

/// A key document on its own (Mastodon serves `{id, owner, publicKeyPem}` at a key's URL):
/// its owner and PEM, when `doc` is one.
pub fn parse_key(doc: &Value, key_id: &str) -> Option<(String, String)> {
    if doc.get("id")?.as_str()? != key_id {
        return None;
    }
    Some((
        doc.get("owner")?.as_str()?.to_string(),
        doc.get("publicKeyPem")?.as_str()?.to_string(),
    ))
}

/// A post that arrived (a reply).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Its id.
    pub id: String,
    /// Who wrote it.
    pub attributed_to: String,
    /// What it answers.
    pub in_reply_to: Option<String>,
    /// Its HTML, as sent (cleaned before it is kept).
    pub content: String,
    /// When it was posted (as sent).
    pub published: Option<String>,
    /// Its page.
    pub url: Option<String>,
}

/// Reads a `Note` (or `Article`, `Page`, `Question`: what people reply with) given as an object.
pub fn parse_note(value: &Value) -> Option<Note> {
    let kind = type_of(value)?;
    if !matches!(kind, "Note" | "Article" | "Page" | "Question") {
        return None;
    }
    let id = value.get("id")?.as_str()?.to_string();
    let attributed_to = value.get("attributedTo").and_then(id_of)?.to_string();
    let url = match value.get("url") {
        Some(Value::String(url)) => Some(url.clone()),
        Some(Value::Object(link)) => link.get("href").and_then(Value::as_str).map(str::to_string),
        Some(Value::Array(links)) => links.iter().find_map(|l| match l {
            Value::String(url) => Some(url.clone()),
            other => other
                .get("href")
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
        _ => None,
    }
    .filter(|url| web_url(url).is_ok());
    Some(Note {
        id,
        attributed_to,
        in_reply_to: value.get("inReplyTo").and_then(id_of).map(str::to_string),
        content: value
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        published: value
            .get("published")
            .and_then(Value::as_str)
            .map(str::to_string),
        url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_activity_needs_an_id_a_type_and_an_actor() {
        let ok = json!({"id": "https://a.example/1", "type": "Follow", "actor": "https://a.example/u", "object": "https://b.example/x"});
        let activity = parse_activity(ok.to_string().as_bytes()).unwrap();
        assert_eq!(
            (activity.kind.as_str(), id_of(&activity.object)),
            ("Follow", Some("https://b.example/x"))
        );
        for bad in [
            json!({"type": "Follow", "actor": "https://a.example/u"}),
            json!({"id": "https://a.example/1", "actor": "https://a.example/u"}),
            json!({"id": "https://a.example/1", "type": "Follow"}),
            json!({"id": "https://a.example/1", "type": "Follow", "actor": "ftp://a.example/u"}),
        ] {
            assert!(parse_activity(bad.to_string().as_bytes()).is_err(), "{bad}");
        }
        assert!(parse_activity(b"not json").is_err());
        assert!(parse_activity(&vec![b' '; MAX_ACTIVITY_BYTES + 1]).is_err());
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        assert!(same_origin(
            "https://a.example/users/ann/statuses/1",
            "https://A.example:443/users/ann"
        ));
        for other in [
            "https://b.example/users/ann",
            "http://a.example/users/ann",
            "https://a.example:8443/users/ann",
            "not a url",
        ] {
            assert!(
                !same_origin("https://a.example/statuses/1", other),
                "{other}"
            );
        }
        assert_eq!(
            origin_of("https://a.example:8443/x#y"),
            "https://a.example:8443"
        );
        assert_eq!(origin_of("https://a.example:443/x"), "https://a.example");
    }

    #[test]
    fn an_actor_of_another_origin_than_its_url_is_refused() {
        let doc = json!({
            "id": "https://a.example/users/ann", "inbox": "https://a.example/users/ann/inbox",
            "preferredUsername": "ann", "endpoints": {"sharedInbox": "https://a.example/inbox"},
            "publicKey": {"id": "https://a.example/users/ann#main-key", "owner": "https://a.example/users/ann", "publicKeyPem": "PEM"}
        });
        let actor = parse_actor(&doc, "https://a.example/users/ann#main-key").unwrap();
        assert_eq!(actor.handle, "@ann@a.example");
        assert_eq!(
            actor.shared_inbox.as_deref(),
            Some("https://a.example/inbox")
        );
        assert_eq!(
            actor.keys,
            vec![("https://a.example/users/ann#main-key".into(), "PEM".into())]
        );
        assert!(parse_actor(&doc, "https://evil.example/users/ann").is_err());
    }
}
