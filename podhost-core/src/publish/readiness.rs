//! What podcast apps ask of a podcast and an episode beyond valid RSS: warnings that never block
//! a save, shown with the podcast's and the episode's answers (the API, the CLI, the site).
//!
//! Valid RSS is not enough to be listed: Apple Podcasts requires a square cover of 1400 to
//! 3000 px (JPEG or PNG), a category, a language, a description and an author; Spotify checks
//! the owner's e-mail to confirm the podcast is yours; both skip an item without an enclosure.
//! podhost accepts each of these (the spec allows them), and says what an app will do with it.

use std::fmt;

use crate::{
    ids::EpisodeId,
    model::{EpisodeView, FeedView},
    probe::MediaKind,
};

/// One thing a podcast or an episode lacks for the podcast apps: the field it concerns (as the
/// API names it) and a sentence saying what an app does without it and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The field, as the API names it (`logo`, `itunes.category`, `show_media`).
    pub field: &'static str,
    /// What is missing and what the apps do about it, in words.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The sides of a cover Apple Podcasts accepts, in pixels.
pub const COVER_SIDES: std::ops::RangeInclusive<u32> = 1400..=3000;

/// The most episodes a podcast's warning names one by one; the rest are counted.
const NAMED_EPISODES: usize = 5;

/// What `view`'s podcast lacks for Apple Podcasts and Spotify, and its public episodes that
/// apps will skip ([`FeedView::silent`]). Empty for a private podcast: it is not listed in
/// any app's directory.
pub fn podcast(view: &FeedView) -> Vec<Warning> {
    let feed = &view.feed;
    let mut found = Vec::new();
    let mut warn = |field, message: String| found.push(Warning { field, message });
    if feed.private {
        return found;
    }
    match &view.logo {
        None => warn(
            "logo",
            "the podcast has no cover: Apple Podcasts and Spotify list a podcast only with a \
             square JPEG or PNG cover of 1400 to 3000 px"
                .into(),
        ),
        Some(cover) => {
            let image = cover.facts.image.as_ref();
            let (w, h) = image.map_or((0, 0), |i| (i.width, i.height));
            let typed = matches!(cover.facts.mime.as_str(), "image/jpeg" | "image/png");
            if cover.facts.kind == MediaKind::Image
                && (!typed || w != h || !COVER_SIDES.contains(&w))
            {
                warn(
                    "logo",
                    format!(
                        "the cover is {}, {w} x {h} px: Apple Podcasts takes a square JPEG or \
                         PNG of 1400 to 3000 px",
                        cover.facts.mime
                    ),
                );
            }
        }
    }
    let it = &feed.itunes;
    if it.category.is_empty() {
        warn(
            "itunes.category",
            "no category: Apple Podcasts requires one of its categories, such as Technology or Society & Culture"
                .into(),
        );
    }
    if feed.description.trim().is_empty() {
        warn(
            "description",
            "no description: Apple Podcasts and Spotify require one".into(),
        );
    }
    if feed.language.trim().is_empty() {
        warn(
            "language",
            "no language: Apple Podcasts requires one, such as en or de".into(),
        );
    }
    if it.author.trim().is_empty() {
        warn(
            "itunes.author",
            "no author: Apple Podcasts shows the author under the title and requires one".into(),
        );
    }
    if it.owner_email.trim().is_empty() {
        warn(
            "itunes.owner.email",
            "no owner e-mail: Spotify and Apple Podcasts send the code that proves the podcast \
             is yours to this address"
                .into(),
        );
    }
    if !view.silent.is_empty() {
        warn("episodes", silent_sentence(&view.silent));
    }
    found
}

/// What apps will do with `view`'s episode: one that is public without audio has an item
/// without an enclosure, which Apple Podcasts and Spotify skip. None for a draft.
pub fn episode(view: &EpisodeView) -> Vec<Warning> {
    let mut found = Vec::new();
    if view.episode.is_public && view.media.is_none() {
        found.push(Warning {
            field: "show_media",
            message: "the episode is public but has no audio: its feed item has no enclosure, \
                      which Apple Podcasts, Spotify and most apps skip; give it audio \
                      (show_media, a media file of the account)"
                .into(),
        });
    }
    found
}

/// The sentence naming the public episodes without audio.
fn silent_sentence(silent: &[EpisodeId]) -> String {
    let named: Vec<String> = silent
        .iter()
        .take(NAMED_EPISODES)
        .map(|id| id.to_string())
        .collect();
    let more = silent.len().saturating_sub(NAMED_EPISODES);
    let list = match more {
        0 => named.join(", "),
        n => format!("{} and {n} more", named.join(", ")),
    };
    match silent.len() {
        1 => format!(
            "the public episode {list} has no audio: apps skip an item without an enclosure"
        ),
        _ => format!(
            "the public episodes {list} have no audio: apps skip an item without an enclosure"
        ),
    }
}
