//! The route table as a table of cases, and what must hold of every row.

use http::Method;
use podhost_core::{EpisodeId, FeedId, MediaId};

use super::{
    api::{
        episodes::EpisodeEndpoint, feeds::FeedEndpoint, media::MediaEndpoint,
        metadata::MetadataEndpoint, processing::ProcessingEndpoint, stats::StatsEndpoint,
        tokens::TokenEndpoint, webhooks::WebhookEndpoint,
    },
    docs::DocsEndpoint,
    matcher::shape,
    oauth::OAuthEndpoint,
    pages::PageEndpoint,
    public::PublicEndpoint,
    site::SiteEndpoint,
    *,
};

fn feed(s: &str) -> FeedId {
    FeedId::new(s).unwrap()
}

/// A comparable form of a routing result.
fn routed(method: Method, path: &str) -> Result<Endpoint, String> {
    match route(&method, path) {
        Ok((_, endpoint)) => Ok(endpoint),
        Err(RouteError::NotFound(surface)) => Err(format!("404 {surface:?}")),
        Err(RouteError::MethodNotAllowed(allowed)) => Err(format!("405 {allowed:?}")),
        Err(RouteError::BadParameter(_, ParamError::NotFound)) => Err("404".into()),
        Err(RouteError::BadParameter(_, ParamError::BadRequest(m))) => Err(format!("400 {m}")),
    }
}

#[test]
fn routing_table() {
    let m = |n| MediaId::new(n).unwrap();
    let e = |n| EpisodeId::new(n).unwrap();
    use Method as M;
    let s = String::from;
    let cases: Vec<(Method, &str, Result<Endpoint, String>)> = vec![
        (
            M::POST,
            "/api/webhooks-processing",
            Ok(WebhookEndpoint::ProcessWebhooks {}.into()),
        ),
        (
            M::POST,
            "/api/generate/waveform/7",
            Ok(ProcessingEndpoint::GenerateWaveform { id: m(7) }.into()),
        ),
        (
            M::POST,
            "/api/generate/silence/7",
            Ok(ProcessingEndpoint::GenerateSilence { id: m(7) }.into()),
        ),
        (M::GET, "/api/media", Ok(MediaEndpoint::ListMedia {}.into())),
        (
            M::HEAD,
            "/api/media",
            Ok(MediaEndpoint::ListMedia {}.into()),
        ),
        (
            M::POST,
            "/api/media",
            Ok(MediaEndpoint::UploadMedia {}.into()),
        ),
        (
            M::GET,
            "/api/media/42",
            Ok(MediaEndpoint::GetMedia { media_id: m(42) }.into()),
        ),
        (
            M::DELETE,
            "/api/media/42",
            Ok(MediaEndpoint::DeleteMedia { media_id: m(42) }.into()),
        ),
        (
            M::POST,
            "/api/media/42/copy",
            Ok(MediaEndpoint::CopyMedia { media_id: m(42) }.into()),
        ),
        (
            M::GET,
            "/api/media/42/metadata",
            Ok(MetadataEndpoint::GetMetadata { id: m(42) }.into()),
        ),
        (
            M::PUT,
            "/api/media/42/metadata",
            Ok(MetadataEndpoint::PutMetadata { id: m(42) }.into()),
        ),
        (M::GET, "/api/feeds", Ok(FeedEndpoint::ListFeeds {}.into())),
        (
            M::POST,
            "/api/feeds",
            Ok(FeedEndpoint::CreateFeed {}.into()),
        ),
        (
            M::GET,
            "/api/feeds/my%20show",
            Ok(FeedEndpoint::GetFeed {
                feed_id: feed("my show"),
            }
            .into()),
        ),
        (
            M::GET,
            "/api/feeds/caf%C3%A9",
            Ok(FeedEndpoint::GetFeed {
                feed_id: feed("café"),
            }
            .into()),
        ),
        (
            M::PUT,
            "/api/feeds/x",
            Ok(FeedEndpoint::UpdateFeed { feed_id: feed("x") }.into()),
        ),
        (
            M::DELETE,
            "/api/feeds/x",
            Ok(FeedEndpoint::DeleteFeed { feed_id: feed("x") }.into()),
        ),
        (
            M::GET,
            "/api/feed/x/shows",
            Ok(EpisodeEndpoint::ListEpisodes { feed_id: feed("x") }.into()),
        ),
        (
            M::POST,
            "/api/feed/x/show",
            Ok(EpisodeEndpoint::CreateEpisode { feed_id: feed("x") }.into()),
        ),
        (
            M::GET,
            "/api/feed/x/show/pod-3",
            Ok(EpisodeEndpoint::GetEpisode {
                feed_id: feed("x"),
                show_id: e(3),
            }
            .into()),
        ),
        (
            M::PUT,
            "/api/feed/x/show/pod-3",
            Ok(EpisodeEndpoint::UpdateEpisode {
                feed_id: feed("x"),
                show_id: e(3),
            }
            .into()),
        ),
        (
            M::DELETE,
            "/api/feed/x/show/pod-3",
            Ok(EpisodeEndpoint::DeleteEpisode {
                feed_id: feed("x"),
                show_id: e(3),
            }
            .into()),
        ),
        (
            M::POST,
            "/api/feed/x/show/pod-3/copy",
            Ok(EpisodeEndpoint::CopyEpisode {
                feed_id: feed("x"),
                show_id: e(3),
            }
            .into()),
        ),
        (
            M::GET,
            "/api/media/42/waveform",
            Ok(ProcessingEndpoint::GetWaveform { id: m(42) }.into()),
        ),
        (
            M::GET,
            "/api/media/42/silence",
            Ok(ProcessingEndpoint::GetSilence { id: m(42) }.into()),
        ),
        (
            M::GET,
            "/api/jobs/job_abcdefghijklmnopqrst",
            Ok(ProcessingEndpoint::GetJob {
                job_id: "job_abcdefghijklmnopqrst".parse().unwrap(),
            }
            .into()),
        ),
        (
            M::GET,
            "/api/webhooks/wh_1",
            Ok(WebhookEndpoint::GetWebhook {
                webhook_id: s("wh_1"),
            }
            .into()),
        ),
        (
            M::POST,
            "/api/webhooks/wh_1/deliveries/9/redeliver",
            Ok(WebhookEndpoint::Redeliver {
                webhook_id: s("wh_1"),
                seq: 9,
            }
            .into()),
        ),
        (
            M::GET,
            "/api/stats",
            Ok(StatsEndpoint::AccountStats {}.into()),
        ),
        (
            M::GET,
            "/api/stats/feeds/x/shows/pod-3",
            Ok(StatsEndpoint::EpisodeStats {
                feed_id: feed("x"),
                show_id: e(3),
            }
            .into()),
        ),
        (
            M::GET,
            "/api/openapi.json",
            Ok(Endpoint::Docs(DocsEndpoint::Openapi {})),
        ),
        (
            M::GET,
            "/feeds/my%20show/rss",
            Ok(Endpoint::Public(PublicEndpoint::Rss {
                feed_id: feed("my show"),
            })),
        ),
        (
            M::HEAD,
            "/media/alice/b1/a%20b.mp3",
            Ok(Endpoint::Public(PublicEndpoint::Download {
                account: s("alice"),
                blob: s("b1"),
                name: s("a b.mp3"),
            })),
        ),
        (
            M::GET,
            "/chapters/alice/b1.json",
            Ok(Endpoint::Public(PublicEndpoint::Chapters {
                account: s("alice"),
                blob: s("b1"),
            })),
        ),
        (
            M::GET,
            "/podcasts/show",
            Ok(Endpoint::Page(PageEndpoint::PodcastPage {
                feed_id: feed("show"),
            })),
        ),
        (
            M::GET,
            "/podcasts/show/pod-7",
            Ok(Endpoint::Page(PageEndpoint::EpisodePage {
                feed_id: feed("show"),
                show_id: e(7),
            })),
        ),
        (M::GET, "/", Ok(Endpoint::Site(SiteEndpoint::Home {}))),
        (
            M::GET,
            "/account",
            Ok(Endpoint::Site(SiteEndpoint::Account {})),
        ),
        (
            M::POST,
            "/account/tokens/tok_abcdefghijklmnop/revoke",
            Ok(Endpoint::Site(SiteEndpoint::RevokeToken {
                token_id: "tok_abcdefghijklmnop".parse().unwrap(),
            })),
        ),
        (M::POST, "/account/tokens/tok_1/revoke", Err(s("404"))),
        (
            M::GET,
            "/oauth/authorize",
            Ok(Endpoint::OAuth(OAuthEndpoint::Authorize {})),
        ),
        (
            M::POST,
            "/oauth/authorize",
            Ok(Endpoint::Site(SiteEndpoint::Consent {})),
        ),
        (
            M::POST,
            "/oauth/token",
            Ok(Endpoint::OAuth(OAuthEndpoint::OauthToken {})),
        ),
        (
            M::GET,
            "/.well-known/oauth-authorization-server",
            Ok(Endpoint::OAuth(OAuthEndpoint::OauthMetadata {})),
        ),
        (
            M::DELETE,
            "/api/tokens/tok_abcdefghijklmnop",
            Ok(TokenEndpoint::RevokeToken {
                token_id: "tok_abcdefghijklmnop".parse().unwrap(),
            }
            .into()),
        ),
        // Errors.
        (M::GET, "/oauth/token", Err(s("405 [POST]"))),
        (M::GET, "/account/nothing", Err(s("404 Site"))),
        (M::GET, "/api/nothing", Err(s("404 Api"))),
        (M::GET, "/api/media/42/extra", Err(s("404 Api"))),
        (M::GET, "/api/jobs/job_x", Err(s("404"))),
        (M::GET, "/api/feeds/", Err(s("404"))),
        (M::GET, "/chapters/alice/b1", Err(s("404 Public"))),
        (M::GET, "/podcasts/show/pod-1/more", Err(s("404 Page"))),
        (
            M::GET,
            "/podcasts/show/7",
            Err(s("400 \"7\" is not an episode id (pod-<digits>)")),
        ),
        (
            M::PATCH,
            "/api/media/42",
            Err(s("405 [GET, HEAD, PUT, DELETE]")),
        ),
        (M::PUT, "/api/media", Err(s("405 [GET, HEAD, POST]"))),
        (M::POST, "/feeds/x/rss", Err(s("405 [GET, HEAD]"))),
        (M::HEAD, "/api/webhooks-processing", Err(s("405 [POST]"))),
        (
            M::GET,
            "/api/media/abc",
            Err(s("400 \"abc\" is not a media id (a positive integer)")),
        ),
        (
            M::GET,
            "/api/media/0",
            Err(s("400 \"0\" is not a media id (a positive integer)")),
        ),
        (
            M::GET,
            "/api/feed/x/show/3",
            Err(s("400 \"3\" is not an episode id (pod-<digits>)")),
        ),
    ];
    for (method, path, expected) in cases {
        assert_eq!(routed(method.clone(), path), expected, "{method} {path}");
    }
}

#[test]
fn every_row_routes_to_itself() {
    for row in routes() {
        let (found, _) = route(&row.method, &sample_path(row)).unwrap();
        assert!(std::ptr::eq(found, row), "{} {}", row.method, row.path);
        // Every API route needs a token; off the API, only an operator's route may (the
        // metrics), never a public one.
        let may_need_one = matches!(row.surface, Surface::Api | Surface::Ops);
        assert!(
            (row.surface == Surface::Api) <= row.scope.is_some()
                && (row.scope.is_some() <= may_need_one),
            "{}: only the API's and the operator's routes need a token",
            row.path
        );
    }
}

#[test]
fn no_two_rows_of_one_method_share_a_path() {
    let rows: Vec<&Route> = routes().collect();
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let path = sample_path(b);
            let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
            assert!(
                a.method != b.method || shape(a.path, &segments).is_none(),
                "{} {} and {}",
                a.method,
                a.path,
                b.path
            );
        }
    }
}

#[test]
fn operations_are_named_once() {
    let mut ids: Vec<String> = routes()
        .filter(|r| r.surface.documented())
        .map(Route::operation_id)
        .collect();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "operation ids: {ids:?}");
    assert_eq!(
        routes()
            .find(|r| r.path == "/api/media")
            .unwrap()
            .operation_id(),
        "list_media"
    );
}

#[test]
fn bodies_examples_and_queries_are_well_formed() {
    for row in routes() {
        // An example is a body its own schema takes.
        if let Some(schema) = row.body.schema()
            && let Some(example) = schema.example()
        {
            let form = !matches!(row.body, BodyKind::Json { .. });
            let problems = crate::wire::read::problems(&schema.whole(), example, form);
            assert!(
                problems.is_empty(),
                "{} {}: {problems}",
                row.method,
                row.path
            );
        }
        for param in row.query {
            assert!((param.schema)().is_object(), "{} {}", row.path, param.name);
        }
        assert!((200..300).contains(&row.success.status), "{}", row.path);
        assert!(!row.summary().is_empty(), "{} has a summary", row.path);
    }
}

#[test]
fn the_documented_patterns_take_what_the_core_takes() {
    let feed_pattern = regex::Regex::new(FeedId::PATTERN).unwrap();
    for id in [
        "f",
        "my-show",
        "Mein Podcast",
        "über",
        "a b",
        "x.y_z",
        "",
        " lead",
        "trail ",
        "a/b",
        "tab\there",
        "nl\n",
        "\u{85}next",
        "\u{7f}",
    ] {
        assert_eq!(
            feed_pattern.is_match(id),
            FeedId::new(id).is_ok(),
            "feed id {id:?}"
        );
    }
    let episode_pattern = regex::Regex::new(EpisodeId::PATTERN).unwrap();
    for id in [
        "pod-1",
        "pod-01",
        "pod-123",
        "pod-9007199254740991",
        "pod-0",
        "pod-",
        "pod-x",
        "pod--1",
        "1",
        "POD-1",
        "pod-1 ",
    ] {
        assert_eq!(
            episode_pattern.is_match(id),
            id.parse::<EpisodeId>().is_ok(),
            "episode id {id:?}"
        );
    }
    // Logins as stored: the pattern and the core agree on every lowercase one.
    let login_pattern = regex::Regex::new(podhost_core::Login::PATTERN).unwrap();
    for login in [
        "sam",
        "sam-2_b",
        "sam@example.com",
        "s.a+m@mail.example.org",
        "élodie@exemple.fr",
        "a@b.c",
        "a@b..c",
        "",
        "-sam",
        "sam@",
        "@example.com",
        "sam@example",
        "sam@.example.com",
        "sam@example.com.",
        "sam@@example.com",
        "sa m@example.com",
        "tab\t@example.com",
        "\u{85}@example.com",
        "x@y@example.com",
    ] {
        assert_eq!(
            login_pattern.is_match(login),
            podhost_core::Login::new(login).is_ok(),
            "login {login:?}"
        );
    }
}
