//! The podcasts' web pages.

use podhost_core::{EpisodeId, FeedId};

use crate::{
    routes::{
        Shape, Spec,
        declare::endpoints,
        query::{OEMBED_FORMAT, OEMBED_MAX_HEIGHT, OEMBED_MAX_WIDTH, OEMBED_URL, PAGE},
    },
    wire::{self, schema::schema},
};

endpoints! {
    /// The podcasts' web pages.
    pub enum PageEndpoint: Page, tag "pages";

    /// the podcast's web page, its newest episodes and links to the pages of the rest (`rel=prev`, `rel=next`)
    PodcastPage { feed_id: FeedId } = GET "/podcasts/{feed_id}",
        Spec::open()
            .query(&[PAGE])
            .answers(200, "the page", Shape::Document("text/html"))
            .errors(&[304, 400, 404, 410]);

    /// the podcast's public statistics (downloads per month, top apps), when its podcaster published them (`public_stats`)
    PodcastStats { feed_id: FeedId } = GET "/podcasts/{feed_id}/stats",
        Spec::open()
            .answers(200, "the page", Shape::Document("text/html"))
            .errors(&[304, 404, 410]);

    /// a published episode's web page
    EpisodePage { feed_id: FeedId, show_id: EpisodeId } = GET "/podcasts/{feed_id}/{show_id}",
        Spec::open()
            .answers(200, "the page", Shape::Document("text/html"))
            .errors(&[304, 404, 410]);

    /// the embeddable player of the podcast's newest episode, for an `<iframe>` on any site (cover, title, play, seek, speed, chapters, transcript)
    PodcastPlayer { feed_id: FeedId } = GET "/embed/{feed_id}",
        Spec::open()
            .answers(200, "the player", Shape::Document("text/html"))
            .errors(&[304, 404, 410]);

    /// the embeddable player of a published episode
    EpisodePlayer { feed_id: FeedId, show_id: EpisodeId } = GET "/embed/{feed_id}/{show_id}",
        Spec::open()
            .answers(200, "the player", Shape::Document("text/html"))
            .errors(&[304, 404, 410]);

    /// oEmbed 1.0 (the `rich` type): the player to embed for the URL of a podcast's or an episode's page; the pages link it for discovery
    OEmbed {} = GET "/oembed",
        Spec::open()
            .query(&[OEMBED_URL, OEMBED_FORMAT, OEMBED_MAX_WIDTH, OEMBED_MAX_HEIGHT])
            .answers(200, "the embedding", Shape::Bare(schema::<wire::oembed::OEmbed>()))
            .errors(&[400, 404, 501]);

    /// what crawlers may read: the public pages and players, never the API, subscribers' private feeds or the signed-in site
    Robots {} = GET "/robots.txt",
        Spec::open()
            .answers(200, "the rules", Shape::Document("text/plain"));
}
