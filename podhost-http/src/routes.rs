//! Routing: a request line becomes a typed [`Endpoint`] before anything is handled. The table
//! [`ROUTES`] is the one list of routes; the OpenAPI document is checked against it.

use http::Method;
use podhost_core::{EpisodeId, FeedId, JobId, MediaId};

/// One operation of the API, with its path parameters parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `POST /api/webhooks-processing`
    WebhooksProcessing,
    /// `POST /api/generate/waveform/{id}`
    GenerateWaveform(MediaId),
    /// `POST /api/generate/silence/{id}`
    GenerateSilence(MediaId),
    /// `GET /api/media`
    ListMedia,
    /// `POST /api/media`
    UploadMedia,
    /// `GET /api/media/{media_id}`
    GetMedia(MediaId),
    /// `DELETE /api/media/{media_id}`
    DeleteMedia(MediaId),
    /// `POST /api/media/{media_id}/copy`
    CopyMedia(MediaId),
    /// `GET /api/media/{id}/metadata`
    GetMetadata(MediaId),
    /// `PUT /api/media/{id}/metadata`
    PutMetadata(MediaId),
    /// `GET /api/feeds`
    ListFeeds,
    /// `POST /api/feeds` (addition)
    CreateFeed,
    /// `GET /api/feeds/{feed_id}`
    GetFeed(FeedId),
    /// `PUT /api/feeds/{feed_id}` (addition)
    UpdateFeed(FeedId),
    /// `DELETE /api/feeds/{feed_id}`
    DeleteFeed(FeedId),
    /// `GET /api/feed/{feed_id}/shows`
    ListEpisodes(FeedId),
    /// `POST /api/feed/{feed_id}/show`
    CreateEpisode(FeedId),
    /// `GET /api/feed/{feed_id}/show/{show_id}`
    GetEpisode(FeedId, EpisodeId),
    /// `PUT /api/feed/{feed_id}/show/{show_id}`
    UpdateEpisode(FeedId, EpisodeId),
    /// `DELETE /api/feed/{feed_id}/show/{show_id}`
    DeleteEpisode(FeedId, EpisodeId),
    /// `POST /api/feed/{feed_id}/show/{show_id}/copy`
    CopyEpisode(FeedId, EpisodeId),
    /// `GET /api/media/{id}/waveform` (addition; `?format=dat` for the binary form)
    GetWaveform(MediaId),
    /// `GET /api/media/{id}/silence` (addition)
    GetSilence(MediaId),
    /// `GET /api/jobs/{id}` (addition)
    GetJob(JobId),
    /// `GET /api/webhooks`
    ListWebhooks,
    /// `POST /api/webhooks`
    CreateWebhook,
    /// `GET /api/webhooks/{id}`
    GetWebhook(String),
    /// `DELETE /api/webhooks/{id}`
    DeleteWebhook(String),
    /// `GET /api/webhooks/{id}/deliveries`
    WebhookDeliveries(String),
    /// `POST /api/webhooks/{id}/deliveries/{seq}/redeliver`
    Redeliver(String, u64),
    /// `GET /api/stats` (addition): downloads of all the caller's podcasts
    StatsAccount,
    /// `GET /api/stats/feeds/{feed_id}` (addition)
    StatsFeed(FeedId),
    /// `GET /api/stats/feeds/{feed_id}/shows/{show_id}` (addition)
    StatsEpisode(FeedId, EpisodeId),
    /// `GET /api/openapi.json` (addition; no authentication)
    OpenApi,
}

/// Every route: method, path template as the OpenAPI document writes it.
pub const ROUTES: &[(Method, &str)] = &[
    (Method::POST, "/api/webhooks-processing"),
    (Method::POST, "/api/generate/waveform/{id}"),
    (Method::POST, "/api/generate/silence/{id}"),
    (Method::GET, "/api/media"),
    (Method::POST, "/api/media"),
    (Method::GET, "/api/media/{media_id}"),
    (Method::DELETE, "/api/media/{media_id}"),
    (Method::POST, "/api/media/{media_id}/copy"),
    (Method::GET, "/api/media/{id}/metadata"),
    (Method::PUT, "/api/media/{id}/metadata"),
    (Method::GET, "/api/feeds"),
    (Method::POST, "/api/feeds"),
    (Method::GET, "/api/feeds/{feed_id}"),
    (Method::PUT, "/api/feeds/{feed_id}"),
    (Method::DELETE, "/api/feeds/{feed_id}"),
    (Method::GET, "/api/feed/{feed_id}/shows"),
    (Method::POST, "/api/feed/{feed_id}/show"),
    (Method::GET, "/api/feed/{feed_id}/show/{show_id}"),
    (Method::PUT, "/api/feed/{feed_id}/show/{show_id}"),
    (Method::DELETE, "/api/feed/{feed_id}/show/{show_id}"),
    (Method::POST, "/api/feed/{feed_id}/show/{show_id}/copy"),
    (Method::GET, "/api/media/{id}/waveform"),
    (Method::GET, "/api/media/{id}/silence"),
    (Method::GET, "/api/jobs/{job_id}"),
    (Method::GET, "/api/webhooks"),
    (Method::POST, "/api/webhooks"),
    (Method::GET, "/api/webhooks/{webhook_id}"),
    (Method::DELETE, "/api/webhooks/{webhook_id}"),
    (Method::GET, "/api/webhooks/{webhook_id}/deliveries"),
    (
        Method::POST,
        "/api/webhooks/{webhook_id}/deliveries/{seq}/redeliver",
    ),
    (Method::GET, "/api/stats"),
    (Method::GET, "/api/stats/feeds/{feed_id}"),
    (Method::GET, "/api/stats/feeds/{feed_id}/shows/{show_id}"),
    (Method::GET, "/api/openapi.json"),
];

/// Why a request line names no endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteError {
    /// No such path.
    NotFound,
    /// The path exists for other methods (listed for the `Allow` header).
    MethodNotAllowed(Vec<Method>),
    /// The path exists but a parameter is malformed (a non-numeric id, ...): the message.
    BadParameter(String),
}

/// Parses a request line into an endpoint.
pub fn route(method: &Method, path: &str) -> Result<Endpoint, RouteError> {
    let segments: Vec<String> = match path.strip_prefix("/api/") {
        Some(rest) => rest
            .split('/')
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect(),
        None => return Err(RouteError::NotFound),
    };
    let segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    let media = |s: &str| {
        s.parse::<MediaId>().map_err(|_| {
            RouteError::BadParameter(format!("{s:?} is not a media id (a positive integer)"))
        })
    };
    // A feed id that cannot exist names no resource.
    let feed = |s: &str| FeedId::new(s).map_err(|_| RouteError::NotFound);
    let episode = |s: &str| {
        s.parse::<EpisodeId>().map_err(|_| {
            RouteError::BadParameter(format!("{s:?} is not an episode id (pod-<digits>)"))
        })
    };
    use Endpoint as E;
    use Method as M;
    Ok(match (method, segs.as_slice()) {
        (&M::POST, ["webhooks-processing"]) => E::WebhooksProcessing,
        (&M::POST, ["generate", "waveform", id]) => E::GenerateWaveform(media(id)?),
        (&M::POST, ["generate", "silence", id]) => E::GenerateSilence(media(id)?),
        (&M::GET, ["media"]) => E::ListMedia,
        (&M::POST, ["media"]) => E::UploadMedia,
        (&M::GET, ["media", id]) => E::GetMedia(media(id)?),
        (&M::DELETE, ["media", id]) => E::DeleteMedia(media(id)?),
        (&M::POST, ["media", id, "copy"]) => E::CopyMedia(media(id)?),
        (&M::GET, ["media", id, "metadata"]) => E::GetMetadata(media(id)?),
        (&M::PUT, ["media", id, "metadata"]) => E::PutMetadata(media(id)?),
        (&M::GET, ["feeds"]) => E::ListFeeds,
        (&M::POST, ["feeds"]) => E::CreateFeed,
        (&M::GET, ["feeds", id]) => E::GetFeed(feed(id)?),
        (&M::PUT, ["feeds", id]) => E::UpdateFeed(feed(id)?),
        (&M::DELETE, ["feeds", id]) => E::DeleteFeed(feed(id)?),
        (&M::GET, ["feed", id, "shows"]) => E::ListEpisodes(feed(id)?),
        (&M::POST, ["feed", id, "show"]) => E::CreateEpisode(feed(id)?),
        (&M::GET, ["feed", id, "show", show]) => E::GetEpisode(feed(id)?, episode(show)?),
        (&M::PUT, ["feed", id, "show", show]) => E::UpdateEpisode(feed(id)?, episode(show)?),
        (&M::DELETE, ["feed", id, "show", show]) => E::DeleteEpisode(feed(id)?, episode(show)?),
        (&M::POST, ["feed", id, "show", show, "copy"]) => E::CopyEpisode(feed(id)?, episode(show)?),
        (&M::GET, ["media", id, "waveform"]) => E::GetWaveform(media(id)?),
        (&M::GET, ["media", id, "silence"]) => E::GetSilence(media(id)?),
        (&M::GET, ["jobs", id]) => E::GetJob(id.parse().map_err(|_| RouteError::NotFound)?),
        (&M::GET, ["webhooks"]) => E::ListWebhooks,
        (&M::POST, ["webhooks"]) => E::CreateWebhook,
        (&M::GET, ["webhooks", id]) => E::GetWebhook(id.to_string()),
        (&M::DELETE, ["webhooks", id]) => E::DeleteWebhook(id.to_string()),
        (&M::GET, ["webhooks", id, "deliveries"]) => E::WebhookDeliveries(id.to_string()),
        (&M::POST, ["webhooks", id, "deliveries", seq, "redeliver"]) => E::Redeliver(
            id.to_string(),
            seq.parse()
                .map_err(|_| RouteError::BadParameter(format!("{seq:?} is not an event number")))?,
        ),
        (&M::GET, ["stats"]) => E::StatsAccount,
        (&M::GET, ["stats", "feeds", id]) => E::StatsFeed(feed(id)?),
        (&M::GET, ["stats", "feeds", id, "shows", show]) => {
            E::StatsEpisode(feed(id)?, episode(show)?)
        }
        (&M::GET, ["openapi.json"]) => E::OpenApi,
        (_, segs) => {
            let allowed = allowed_methods(segs);
            return Err(if allowed.is_empty() {
                RouteError::NotFound
            } else {
                RouteError::MethodNotAllowed(allowed)
            });
        }
    })
}

/// The methods [`ROUTES`] has for a path (`{...}` in a template matches any segment).
fn allowed_methods(segs: &[&str]) -> Vec<Method> {
    ROUTES
        .iter()
        .filter(|(_, template)| {
            let parts: Vec<&str> = template.trim_start_matches("/api/").split('/').collect();
            parts.len() == segs.len()
                && parts
                    .iter()
                    .zip(segs)
                    .all(|(p, s)| p.starts_with('{') || p == s)
        })
        .map(|(method, _)| method.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(s: &str) -> FeedId {
        FeedId::new(s).unwrap()
    }

    #[test]
    fn routing_table() {
        let m = |n| MediaId::new(n).unwrap();
        let e = |n| EpisodeId::new(n).unwrap();
        use Endpoint as E;
        let cases: Vec<(Method, &str, Result<Endpoint, RouteError>)> = vec![
            (
                Method::POST,
                "/api/webhooks-processing",
                Ok(E::WebhooksProcessing),
            ),
            (
                Method::POST,
                "/api/generate/waveform/7",
                Ok(E::GenerateWaveform(m(7))),
            ),
            (
                Method::POST,
                "/api/generate/silence/7",
                Ok(E::GenerateSilence(m(7))),
            ),
            (Method::GET, "/api/media", Ok(E::ListMedia)),
            (Method::POST, "/api/media", Ok(E::UploadMedia)),
            (Method::GET, "/api/media/42", Ok(E::GetMedia(m(42)))),
            (Method::DELETE, "/api/media/42", Ok(E::DeleteMedia(m(42)))),
            (Method::POST, "/api/media/42/copy", Ok(E::CopyMedia(m(42)))),
            (
                Method::GET,
                "/api/media/42/metadata",
                Ok(E::GetMetadata(m(42))),
            ),
            (
                Method::PUT,
                "/api/media/42/metadata",
                Ok(E::PutMetadata(m(42))),
            ),
            (Method::GET, "/api/feeds", Ok(E::ListFeeds)),
            (Method::POST, "/api/feeds", Ok(E::CreateFeed)),
            (
                Method::GET,
                "/api/feeds/my%20show",
                Ok(E::GetFeed(feed("my show"))),
            ),
            (Method::PUT, "/api/feeds/x", Ok(E::UpdateFeed(feed("x")))),
            (Method::DELETE, "/api/feeds/x", Ok(E::DeleteFeed(feed("x")))),
            (
                Method::GET,
                "/api/feed/x/shows",
                Ok(E::ListEpisodes(feed("x"))),
            ),
            (
                Method::POST,
                "/api/feed/x/show",
                Ok(E::CreateEpisode(feed("x"))),
            ),
            (
                Method::GET,
                "/api/feed/x/show/pod-3",
                Ok(E::GetEpisode(feed("x"), e(3))),
            ),
            (
                Method::PUT,
                "/api/feed/x/show/pod-3",
                Ok(E::UpdateEpisode(feed("x"), e(3))),
            ),
            (
                Method::DELETE,
                "/api/feed/x/show/pod-3",
                Ok(E::DeleteEpisode(feed("x"), e(3))),
            ),
            (
                Method::POST,
                "/api/feed/x/show/pod-3/copy",
                Ok(E::CopyEpisode(feed("x"), e(3))),
            ),
            (Method::GET, "/api/openapi.json", Ok(E::OpenApi)),
            (
                Method::GET,
                "/api/media/42/waveform",
                Ok(E::GetWaveform(m(42))),
            ),
            (
                Method::GET,
                "/api/media/42/silence",
                Ok(E::GetSilence(m(42))),
            ),
            (
                Method::GET,
                "/api/jobs/job_abcdefghijklmnopqrst",
                Ok(E::GetJob("job_abcdefghijklmnopqrst".parse().unwrap())),
            ),
            (Method::GET, "/api/jobs/job_x", Err(RouteError::NotFound)),
            (Method::GET, "/api/stats", Ok(E::StatsAccount)),
            (
                Method::GET,
                "/api/stats/feeds/x/shows/pod-3",
                Ok(E::StatsEpisode(feed("x"), e(3))),
            ),
            (
                Method::GET,
                "/api/feeds/caf%C3%A9",
                Ok(E::GetFeed(feed("café"))),
            ),
            // Errors.
            (Method::GET, "/", Err(RouteError::NotFound)),
            (Method::GET, "/api/nothing", Err(RouteError::NotFound)),
            (
                Method::GET,
                "/api/media/42/extra",
                Err(RouteError::NotFound),
            ),
            (
                Method::PATCH,
                "/api/media/42",
                Err(RouteError::MethodNotAllowed(vec![
                    Method::GET,
                    Method::DELETE,
                ])),
            ),
            (
                Method::PUT,
                "/api/media",
                Err(RouteError::MethodNotAllowed(vec![
                    Method::GET,
                    Method::POST,
                ])),
            ),
            (
                Method::GET,
                "/api/media/abc",
                Err(RouteError::BadParameter(
                    "\"abc\" is not a media id (a positive integer)".into(),
                )),
            ),
            (
                Method::GET,
                "/api/media/0",
                Err(RouteError::BadParameter(
                    "\"0\" is not a media id (a positive integer)".into(),
                )),
            ),
            (
                Method::GET,
                "/api/feed/x/show/3",
                Err(RouteError::BadParameter(
                    "\"3\" is not an episode id (pod-<digits>)".into(),
                )),
            ),
        ];
        for (method, path, expected) in cases {
            assert_eq!(route(&method, path), expected, "{method} {path}");
        }
    }

    #[test]
    fn every_route_of_the_table_routes() {
        for (method, template) in ROUTES {
            let path = template
                .replace("{id}", "1")
                .replace("{media_id}", "1")
                .replace("{feed_id}", "f")
                .replace("{show_id}", "pod-1")
                .replace("{job_id}", "job_abcdefghijklmnopqrst")
                .replace("{webhook_id}", "wh_x")
                .replace("{seq}", "1");
            assert!(route(method, &path).is_ok(), "{method} {template}");
        }
    }
}
