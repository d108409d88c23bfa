//! Download statistics (addition): `GET /api/stats`, `/api/stats/feeds/{feed_id}` and
//! `/api/stats/feeds/{feed_id}/shows/{show_id}`, with `from` and `to` (UTC days, `YYYY-MM-DD`),
//! and the CSV export `GET /api/stats/csv`.

use crate::headers::SetHeader;
use http::{StatusCode, header};
use podhost_core::{EpisodeId, FeedId, FieldErrors, stats::StatsQuery};

use super::answers::{Answer, data};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::stats::StatsEndpoint,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: StatsEndpoint,
    call: Call<B>,
) -> Answer {
    use StatsEndpoint as E;
    match endpoint {
        E::AccountStats {} => get(api, call, None, None).await,
        E::StatsCsv {} => csv(api, call).await,
        E::FeedStats { feed_id } => get(api, call, Some(feed_id), None).await,
        E::EpisodeStats { feed_id, show_id } => get(api, call, Some(feed_id), Some(show_id)).await,
        E::FeedCurves { feed_id } => curves(api, call, &feed_id).await,
    }
}

/// `GET /api/stats/feeds/{feed_id}/curves`
pub(super) async fn curves<B: RequestBody>(api: &Api, call: Call<B>, feed: &FeedId) -> Answer {
    let curves = api.host.analytics().episode_curves(&call.who, feed).await?;
    data(StatusCode::OK, wire::stats::curves(&curves))
}

/// All three: the report, narrowed to a podcast or one of its episodes.
pub(super) async fn get<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    feed: Option<FeedId>,
    episode: Option<EpisodeId>,
) -> Answer {
    let query = query_of(&call, feed, episode)?;
    let report = api
        .host
        .analytics()
        .download_stats(&call.who, &query)
        .await?;
    data(StatusCode::OK, wire::stats_report(&report))
}

/// `GET /api/stats/csv`: every counted download row of the period, as CSV (RFC 4180), one line
/// per day, hour, podcast, episode, app, device and subscriber.
pub(super) async fn csv<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let query = query_of(&call, None, None)?;
    let rows = api
        .host
        .analytics()
        .download_rows(&call.who, &query)
        .await?;
    let ads = api.host.ads().impression_rows(&call.who, &query).await?;
    let mut out = csv::Writer::from_writer(Vec::new());
    let header = [
        "date",
        "hour",
        "feed_id",
        "show_id",
        "app",
        "platform",
        "subscriber_id",
        "downloads",
        "campaign_id",
        "impressions",
        "country",
    ];
    let written = out.write_record(header).and_then(|()| {
        for row in &rows {
            out.write_record([
                row.date.to_string(),
                row.hour.to_string(),
                row.feed_id.to_string(),
                row.episode_id.to_string(),
                row.app.clone(),
                row.platform.clone(),
                row.subscriber_id
                    .as_ref()
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
                row.downloads.to_string(),
                String::new(),
                String::new(),
                row.country.clone(),
            ])?;
        }
        // A campaign's impressions in an episode on a day (with the scope `ads-read-only`).
        for row in &ads {
            out.write_record([
                row.date.to_string(),
                String::new(),
                row.feed_id.to_string(),
                row.episode_id.to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                row.campaign_id.to_string(),
                row.impressions.to_string(),
                String::new(),
            ])?;
        }
        out.flush().map_err(csv::Error::from)
    });
    let bytes = written
        .ok()
        .and_then(|()| out.into_inner().ok())
        .ok_or_else(|| podhost_core::Error::Storage {
            message: "writing CSV into memory failed".into(),
            source: None,
        })?;
    // The API's standard headers, as a CSV attachment.
    let mut answer = response::json_bytes(StatusCode::OK, bytes::Bytes::from(bytes));
    let h = answer.headers_mut();
    h.put(header::CONTENT_TYPE, "text/csv; charset=utf-8");
    h.put(
        header::CONTENT_DISPOSITION,
        "attachment; filename=\"podhost-downloads.csv\"",
    );
    Ok(answer)
}

/// The period and scope of a statistics request.
fn query_of<B: RequestBody>(
    call: &Call<B>,
    feed: Option<FeedId>,
    episode: Option<EpisodeId>,
) -> Result<StatsQuery, crate::error::ApiError> {
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
    Ok(StatsQuery {
        feed,
        episode,
        from,
        to,
    })
}
