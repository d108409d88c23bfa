//! Download statistics (addition): `GET /api/stats`, `/api/stats/feeds/{feed_id}` and
//! `/api/stats/feeds/{feed_id}/shows/{show_id}`, with `from` and `to` (UTC days, `YYYY-MM-DD`).

use http::StatusCode;
use podhost_core::{EpisodeId, FeedId, FieldErrors, stats::StatsQuery};

use super::{Answer, data};
use crate::{
    api::{Api, Call, RequestBody},
    wire,
};

/// All three: the report, narrowed to a podcast or one of its episodes.
pub(super) async fn get<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: Option<FeedId>,
    episode: Option<EpisodeId>,
) -> Answer {
    let (from, to) = {
        let mut errors = FieldErrors::default();
        let mut day = |name: &str| {
            let value = call.param(name)?;
            match value.trim().parse::<jiff::civil::Date>() {
                Ok(day) => Some(day),
                Err(_) => {
                    errors.add(name, "must be a day as YYYY-MM-DD");
                    None
                }
            }
        };
        let period = (day("from"), day("to"));
        errors.into_result()?;
        period
    };
    let query = StatsQuery {
        feed,
        episode,
        from,
        to,
    };
    let report = api.host.download_stats(&call.who, &query).await?;
    data(StatusCode::OK, wire::stats_report(&report))
}
