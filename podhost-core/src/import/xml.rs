//! A feed's XML read into a small tree: elements with their namespace (known ones by a short
//! name), local name, attributes and text. Namespaces are resolved as declared, and an
//! undeclared prefix of a known namespace (`itunes:` without its `xmlns`, as some hosts write)
//! is taken for that namespace.
//!
//! Safety: quick-xml expands no entity but the five predefined ones and character references;
//! a document with a DTD that declares entities is refused outright (the billion laughs and
//! external entities need one), and any other named reference stays as written.

use quick_xml::{
    events::{BytesStart, Event},
    name::ResolveResult,
    reader::NsReader,
};

/// The namespaces an import reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ns {
    /// No namespace (RSS 2.0 itself).
    Rss,
    /// Apple's `itunes:`.
    Itunes,
    /// Google Play's `googleplay:`.
    GooglePlay,
    /// The Podcasting 2.0 `podcast:` namespace.
    Podcast,
    /// `content:` (`content:encoded`).
    Content,
    /// `atom:`.
    Atom,
    /// Yahoo's `media:` (Media RSS).
    Media,
    /// Anything else.
    Other,
}

fn ns_of_uri(uri: &[u8]) -> Ns {
    let uri = String::from_utf8_lossy(uri).to_ascii_lowercase();
    let uri = uri.trim_end_matches('/');
    match uri {
        "http://www.itunes.com/dtds/podcast-1.0.dtd"
        | "https://www.itunes.com/dtds/podcast-1.0.dtd" => Ns::Itunes,
        "http://www.google.com/schemas/play-podcasts/1.0"
        | "https://www.google.com/schemas/play-podcasts/1.0" => Ns::GooglePlay,
        "http://purl.org/rss/1.0/modules/content" => Ns::Content,
        "http://www.w3.org/2005/atom" => Ns::Atom,
        "http://search.yahoo.com/mrss" => Ns::Media,
        u if u.starts_with("https://podcastindex.org/namespace/")
            || u.starts_with("https://github.com/podcastindex-org/podcast-namespace") =>
        {
            Ns::Podcast
        }
        _ => Ns::Other,
    }
}

fn ns_of_prefix(prefix: &[u8]) -> Ns {
    match prefix {
        b"itunes" => Ns::Itunes,
        b"googleplay" => Ns::GooglePlay,
        b"podcast" => Ns::Podcast,
        b"content" => Ns::Content,
        b"atom" => Ns::Atom,
        b"media" => Ns::Media,
        _ => Ns::Other,
    }
}

/// One element.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub(crate) ns: Ns,
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) text: String,
    pub(crate) children: Vec<Element>,
}

impl Element {
    /// The first child `ns:name`.
    pub(crate) fn child(&self, ns: Ns, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.ns == ns && c.name == name)
    }

    /// Every child `ns:name`.
    pub(crate) fn all<'a>(&'a self, ns: Ns, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children
            .iter()
            .filter(move |c| c.ns == ns && c.name == name)
    }

    /// The trimmed text of the first child `ns:name`, when it has some.
    pub(crate) fn text_of(&self, ns: Ns, name: &str) -> Option<String> {
        self.child(ns, name)
            .map(|c| c.text.trim().to_string())
            .filter(|t| !t.is_empty())
    }

    /// An attribute by local name.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads a document into its root element. The error is a sentence for the podcaster.
pub(crate) fn parse(xml: &[u8]) -> Result<Element, String> {
    let mut reader = NsReader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut stack: Vec<Element> = Vec::new();
    let mut buf = Vec::new();
    loop {
        let (resolved, event) = reader
            .read_resolved_event_into(&mut buf)
            .map_err(|e| format!("the feed is not well-formed XML ({e})"))?;
        match event {
            Event::DocType(doctype) => {
                let text = String::from_utf8_lossy(doctype.as_ref()).to_ascii_uppercase();
                if text.contains("<!ENTITY") || text.contains("ENTITY") {
                    return Err("the feed declares XML entities in a DTD; podhost refuses \
                                them (they can expand without bound or read other files)"
                        .into());
                }
            }
            Event::Start(start) => {
                let element = element(&resolved, &start);
                stack.push(element);
            }
            Event::Empty(start) => {
                let element = element(&resolved, &start);
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::End(_) => {
                let done = stack.pop().ok_or("the feed is not well-formed XML")?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => return Ok(done),
                }
            }
            Event::Text(text) => {
                if let Some(top) = stack.last_mut() {
                    top.text
                        .push_str(&text.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::CData(data) => {
                if let Some(top) = stack.last_mut() {
                    top.text
                        .push_str(&String::from_utf8_lossy(&data.into_inner()));
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(top) = stack.last_mut() {
                    let name = reference.decode().map_err(|e| e.to_string())?;
                    match reference.resolve_char_ref() {
                        Ok(Some(c)) => top.text.push(c),
                        _ => match quick_xml::escape::resolve_predefined_entity(&name) {
                            Some(text) => top.text.push_str(text),
                            // Not defined anywhere (no DTD is read): kept as written.
                            None => {
                                top.text.push('&');
                                top.text.push_str(&name);
                                top.text.push(';');
                            }
                        },
                    }
                }
            }
            Event::Eof if stack.is_empty() => {
                return Err("the feed is not well-formed XML: it holds no element".into());
            }
            Event::Eof => return Err("the feed is not well-formed XML: it ends too soon".into()),
            _ => {}
        }
        buf.clear();
    }
}

fn element(resolved: &ResolveResult<'_>, start: &BytesStart<'_>) -> Element {
    let ns = match resolved {
        ResolveResult::Bound(ns) => ns_of_uri(ns.as_ref()),
        ResolveResult::Unbound => Ns::Rss,
        ResolveResult::Unknown(prefix) => ns_of_prefix(prefix),
    };
    let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
    let attrs = start
        .attributes()
        .flatten()
        .map(|a| {
            let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned());
            (key, value)
        })
        .collect();
    Element {
        ns,
        name,
        attrs,
        text: String::new(),
        children: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_never_expanded() {
        let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<rss><channel><title>&lol2;</title></channel></rss>"#;
        let refused = parse(laughs.as_bytes()).unwrap_err();
        assert!(refused.contains("entities"), "{refused}");
        let external = r#"<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<rss><channel><title>&xxe;</title></channel></rss>"#;
        assert!(parse(external.as_bytes()).is_err());
        // Without a DTD, an unknown reference stays as written.
        let undefined = r#"<rss><channel><title>a &lol9; b &amp; &#233;</title></channel></rss>"#;
        let root = parse(undefined.as_bytes()).unwrap();
        let channel = root.child(Ns::Rss, "channel").unwrap();
        assert_eq!(channel.text_of(Ns::Rss, "title").unwrap(), "a &lol9; b & é");
    }

    #[test]
    fn namespaces_are_resolved_and_undeclared_prefixes_guessed() {
        let xml = r#"<rss xmlns:i="http://www.itunes.com/DTDs/Podcast-1.0.dtd"><channel>
            <i:author>Declared</i:author><itunes:summary>Undeclared</itunes:summary>
            <title><![CDATA[A <b>title</b>]]></title></channel></rss>"#;
        let root = parse(xml.as_bytes()).unwrap();
        let channel = root.child(Ns::Rss, "channel").unwrap();
        assert_eq!(channel.text_of(Ns::Itunes, "author").unwrap(), "Declared");
        assert_eq!(
            channel.text_of(Ns::Itunes, "summary").unwrap(),
            "Undeclared"
        );
        assert_eq!(channel.text_of(Ns::Rss, "title").unwrap(), "A <b>title</b>");
    }
}
