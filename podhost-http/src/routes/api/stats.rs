//! Download statistics by the IAB guidelines.

use podhost_core::{Action, EpisodeId, FeedId};

use crate::{
    routes::{Shape, Spec, declare::endpoints, query::*},
    wire::{self, schema::schema},
};

endpoints! {
    /// Download statistics by the IAB guidelines.
    pub enum StatsEndpoint: Api, tag "statistics";

    /// downloads of all the caller's podcasts
    AccountStats {} = GET "/api/stats",
        Spec::token(Action::ReadStatistics)
            .addition()
            .query(&[FROM, TO])
            .answers(200, "the report", Shape::Data(schema::<wire::stats::Stats>()));

    /// every counted download row of a period as CSV: date, hour, feed_id, show_id, app, platform,
    /// subscriber_id, downloads, campaign_id, impressions, country
    StatsCsv {} = GET "/api/stats/csv",
        Spec::token(Action::ReadStatistics)
            .addition()
            .query(&[FROM, TO])
            .answers(200, "the rows", Shape::Document("text/csv"));

    /// downloads of one podcast
    FeedStats { feed_id: FeedId } = GET "/api/stats/feeds/{feed_id}",
        Spec::token(Action::ReadStatistics)
            .addition()
            .query(&[FROM, TO])
            .answers(200, "the report", Shape::Data(schema::<wire::stats::Stats>()));

    /// each episode's downloads on each of its first 30 days after publication (day 1 = its first 24 hours, to the hour), and the podcast's median at each age
    FeedCurves { feed_id: FeedId } = GET "/api/stats/feeds/{feed_id}/curves",
        Spec::token(Action::ReadStatistics)
            .addition()
            .answers(200, "the curves", Shape::Data(schema::<wire::stats::CurvesRecord>()));

    /// downloads of one episode
    EpisodeStats { feed_id: FeedId, show_id: EpisodeId } = GET "/api/stats/feeds/{feed_id}/shows/{show_id}",
        Spec::token(Action::ReadStatistics)
            .addition()
            .query(&[FROM, TO])
            .answers(200, "the report", Shape::Data(schema::<wire::stats::Stats>()));
}
