//! What a page says of itself to machines that unfold links: schema.org's `PodcastSeries` and
//! `PodcastEpisode` in JSON-LD (search engines, link previews), built from the same values the
//! page shows.

use maud::{Markup, PreEscaped, html};
use serde_json::{Value, json};

/// The `<script type="application/ld+json">` of `data`: a data block, never run (the pages'
/// Content-Security-Policy allows no script). `<` is written as `\u003c`, so no text of the
/// podcaster's can close the element.
pub(super) fn script(data: &Value) -> Markup {
    let text = data.to_string().replace('<', "\\u003c");
    html! { script type="application/ld+json" { (PreEscaped(text)) } }
}

/// A podcast: its name, description, page, feed, cover, author and language.
pub(super) struct Series<'a> {
    pub(super) name: &'a str,
    pub(super) description: &'a str,
    pub(super) url: &'a str,
    pub(super) feed: &'a str,
    pub(super) image: Option<&'a str>,
    pub(super) author: &'a str,
    pub(super) lang: &'a str,
}

impl Series<'_> {
    /// The podcast as a `PodcastSeries`.
    pub(super) fn data(&self) -> Value {
        let mut data = json!({
            "@context": "https://schema.org",
            "@type": "PodcastSeries",
            "name": self.name,
            "url": self.url,
            "webFeed": self.feed,
            "inLanguage": self.lang,
        });
        let more = [
            ("description", non_empty(self.description)),
            ("image", self.image.map(Value::from)),
            (
                "author",
                (!self.author.is_empty()).then(|| json!({"@type": "Person", "name": self.author})),
            ),
        ];
        extend(&mut data, more);
        data
    }
}

/// An episode of `series`: its name, description, page, date, duration, picture and audio.
pub(super) struct Episode<'a> {
    pub(super) name: &'a str,
    pub(super) description: &'a str,
    pub(super) url: &'a str,
    /// `YYYY-MM-DD`.
    pub(super) published: &'a str,
    /// ISO 8601 (`PT1H5M3S`).
    pub(super) duration: Option<&'a str>,
    pub(super) image: Option<&'a str>,
    /// The enclosure's URL and MIME type.
    pub(super) audio: Option<(&'a str, &'a str)>,
}

impl Episode<'_> {
    /// The episode as a `PodcastEpisode`, part of `series`.
    pub(super) fn data(&self, series: &Series<'_>) -> Value {
        let mut data = json!({
            "@context": "https://schema.org",
            "@type": "PodcastEpisode",
            "name": self.name,
            "url": self.url,
            "datePublished": self.published,
            "inLanguage": series.lang,
            "partOfSeries": {"@type": "PodcastSeries", "name": series.name, "url": series.url},
        });
        let more = [
            ("description", non_empty(self.description)),
            ("timeRequired", self.duration.map(Value::from)),
            ("image", self.image.or(series.image).map(Value::from)),
            (
                "associatedMedia",
                self.audio.map(|(url, mime)| {
                    json!({"@type": "MediaObject", "contentUrl": url, "encodingFormat": mime})
                }),
            ),
        ];
        extend(&mut data, more);
        data
    }
}

fn non_empty(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| Value::from(text))
}

fn extend<const N: usize>(data: &mut Value, more: [(&str, Option<Value>); N]) {
    for (key, value) in more {
        if let Some(value) = value {
            data[key] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_text_closes_the_data_block() {
        let markup = script(&json!({"name": "</script><script>alert(1)</script>"})).into_string();
        assert_eq!(markup.matches("</script>").count(), 1, "{markup}");
        let inner = markup
            .trim_start_matches("<script type=\"application/ld+json\">")
            .trim_end_matches("</script>");
        let back: Value = serde_json::from_str(inner).unwrap();
        assert_eq!(back["name"], "</script><script>alert(1)</script>");
    }
}
