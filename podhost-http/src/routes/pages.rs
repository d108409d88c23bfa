//! The podcasts' web pages.

use podhost_core::{EpisodeId, FeedId};

use crate::routes::{Shape, Spec, declare::endpoints, query::PAGE};

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
}
