//! Who may do what, generated from the route table (`podhost_http::routes()`): every row against
//! every scope, with another account's ids, without a valid token, with an unknown query
//! parameter, `HEAD` for every `GET`, and `405` for every other method. A row added to the
//! table is covered here the day it is declared.
//!
//! Path parameters are filled by name with objects made through the core (not the API, whose
//! rate limit they would spend); bodies come from the row's example. Requests that change
//! something get objects of their own, so that no request depends on another.

mod common;

use bytes::Bytes;
use common::{Answer, Fixture};
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use podhost_core::{
    EpisodeId, FeedId, JobId, MediaId, MetadataPatch, Principal, Scope, Scopes,
    model::{JobKind, NewEpisode, NewFeed},
    tags::Chapter,
    webhooks::subscription::NewWebhook,
};
use podhost_http::{Route, routes::Surface};
use serde_json::{Value, json};

/// The objects a request's path names: alice's.
#[derive(Clone)]
struct World {
    media: MediaId,
    feed: FeedId,
    show: EpisodeId,
    job: JobId,
    webhook: String,
    seq: u64,
    /// A personal token of alice's (its id).
    token: String,
    /// A subscriber of `feed`: its id and its key.
    subscriber: String,
    campaign: String,
    key: String,
    /// A member invited to the account (its id).
    member: String,
    /// An invitation's secret (the site's routes of it).
    invitation: String,
    /// A valid authorization request of an OAuth client of alice's (a query string).
    authorize: String,
    /// `account`, `blob` and `name` of a public download with chapters.
    account: String,
    blob: String,
    name: String,
    /// A video of the published episode, packaged for HLS: its id and blob.
    video: MediaId,
    video_blob: String,
    /// A comment of `show` (a reply from a remote actor) and a block of alice's (their ids).
    comment: String,
    block: String,
}

/// A remote actor on a wiremock server, whose replies become comments: its actor's URL and
/// key, one per test process.
async fn remote() -> &'static (
    wiremock::MockServer,
    podhost_core::activitypub::keys::ActorKey,
) {
    static REMOTE: tokio::sync::OnceCell<(
        wiremock::MockServer,
        podhost_core::activitypub::keys::ActorKey,
    )> = tokio::sync::OnceCell::const_new();
    REMOTE
        .get_or_init(|| async {
            use wiremock::{Mock, ResponseTemplate, matchers};
            let server = wiremock::MockServer::start().await;
            let key = podhost_core::activitypub::keys::ActorKey::generate();
            let id = format!("{}/users/remote", server.uri());
            Mock::given(matchers::method("GET"))
                .and(matchers::path("/users/remote"))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                    "id": id, "type": "Person", "preferredUsername": "remote",
                    "inbox": format!("{id}/inbox"),
                    "publicKey": {"id": format!("{id}#main-key"), "owner": id, "publicKeyPem": key.public_pem()},
                })))
                .mount(&server)
                .await;
            (server, key)
        })
        .await
}

/// A comment of the remote actor on `show`, posted signed to the podcast's inbox: its id.
async fn comment_on(
    fx: &Fixture,
    who: &Principal,
    feed: &FeedId,
    show: EpisodeId,
    tag: &str,
) -> String {
    let (server, key) = remote().await;
    let actor = format!("{}/users/remote", server.uri());
    let note = format!("{actor}/statuses/{tag}");
    let reply = json!({
        "id": format!("{note}/activity"), "type": "Create", "actor": actor,
        "object": {
            "id": note, "type": "Note", "attributedTo": actor, "content": "<p>A comment</p>",
            "inReplyTo": format!("{}/ap/podcasts/{feed}/episodes/{show}", podhost_testkit::TEST_PUBLIC_URL),
        },
    })
    .to_string();
    let path = format!("/ap/podcasts/{feed}/inbox");
    let headers = podhost_core::activitypub::signatures::sign_draft(
        key,
        &format!("{actor}#main-key"),
        "POST",
        &format!("{}{path}", podhost_testkit::TEST_PUBLIC_URL),
        Some(reply.as_bytes()),
        fx.host.now(),
    )
    .unwrap();
    let mut request = Request::post(path).header("content-type", "application/activity+json");
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let answer = fx
        .send(request.body(Full::new(Bytes::from(reply))).unwrap())
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let comments = fx.host.fediverse().comments(who, feed, show).await.unwrap();
    comments.last().unwrap().id.clone()
}

async fn alice(fx: &Fixture) -> Principal {
    fx.host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap()
}

async fn upload(fx: &Fixture, who: &Principal, name: &str) -> MediaId {
    let wav = podhost_testkit::fixtures::wav(0.1, 8000);
    podhost_testkit::setup::upload(&fx.host, who, name, wav)
        .await
        .id
}

/// Waits until a job of alice ended, and wants it to have succeeded.
async fn succeeded(fx: &Fixture, who: &Principal, job: &JobId) {
    for _ in 0..2400 {
        let job = fx.host.work().get_job(who, job).await.unwrap();
        if job.status.is_final() {
            assert_eq!(job.status.as_str(), "succeeded", "{:?}", job.error);
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("job {job} did not end");
}

impl World {
    /// Alice's objects for the requests that only read: a media file with chapters, a
    /// waveform and a silence report; a podcast with a published episode; a job; a webhook
    /// subscription and an event.
    async fn readable(fx: &Fixture) -> World {
        let who = alice(fx).await;
        let mut world = World::fresh_objects(fx, &who, "read").await;
        let stop = fx.start_workers();
        // A video, packaged for HLS as it is uploaded (by ffmpeg, which the tests need).
        let clip = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../podhost-core/tests/fixtures/h264_aac.mp4"
        ))
        .unwrap();
        world.video = podhost_testkit::setup::upload(&fx.host, &who, "world.mp4", clip)
            .await
            .id;
        for tries in 0.. {
            let video = fx
                .host
                .podcasts()
                .get_media(&who, world.video)
                .await
                .unwrap();
            if let Some(streamed) = &video.results.hls {
                succeeded(fx, &who, &streamed.job).await;
                world.video_blob = video.blob.as_str().to_string();
                break;
            }
            assert!(tries < 2400, "the video was not packaged");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let chapters = MetadataPatch {
            chapters: Some(vec![Chapter {
                start_ms: 0,
                end_ms: None,
                title: "Start".into(),
                url: None,
            }]),
            ..MetadataPatch::default()
        };
        let (_, job) = fx
            .host
            .podcasts()
            .update_metadata(&who, world.media, chapters)
            .await
            .unwrap();
        succeeded(fx, &who, &job.unwrap().id).await;
        for kind in [JobKind::Silence, JobKind::Waveform] {
            let job = fx
                .host
                .work()
                .submit_job(&who, world.media, kind, Value::Null)
                .await
                .unwrap();
            succeeded(fx, &who, &job.id).await;
            world.job = job.id;
        }
        drop(stop);
        // The file is the episode's too, so a subscriber's key opens it.
        let patch = podhost_core::model::EpisodePatch {
            media: Some(Some(world.media)),
            video: Some(Some(world.video)),
            ..Default::default()
        };
        fx.host
            .podcasts()
            .update_episode(&who, &world.feed, world.show, &patch)
            .await
            .unwrap();
        // Its statistics are public, so their page answers.
        let public_stats = podhost_core::model::FeedPatch {
            public_stats: Some(true),
            ..Default::default()
        };
        fx.host
            .podcasts()
            .update_feed(&who, &world.feed, &public_stats)
            .await
            .unwrap();
        let media = fx
            .host
            .podcasts()
            .get_media(&who, world.media)
            .await
            .unwrap();
        let url = fx.host.podcasts().media_url(who.account(), &media);
        let parts: Vec<&str> = url.rsplitn(4, '/').collect();
        (world.name, world.blob, world.account) =
            (parts[0].into(), parts[1].into(), parts[2].into());
        world
    }

    /// A copy of `self` with objects of its own for one request that changes something.
    async fn fresh(&self, fx: &Fixture, n: usize) -> World {
        let who = alice(fx).await;
        let fresh = World::fresh_objects(fx, &who, &n.to_string()).await;
        World {
            job: self.job.clone(),
            account: self.account.clone(),
            blob: self.blob.clone(),
            name: self.name.clone(),
            video: self.video,
            video_blob: self.video_blob.clone(),
            ..fresh
        }
    }

    async fn fresh_objects(fx: &Fixture, who: &Principal, tag: &str) -> World {
        let webhook = fx
            .host
            .work()
            .create_webhook(
                who,
                NewWebhook {
                    url: "http://127.0.0.1:9/hook".into(),
                    events: Vec::new(),
                    description: None,
                    secret: None,
                },
            )
            .await
            .unwrap();
        // The first change after the subscription is its first event.
        let media = upload(fx, who, &format!("{tag}.wav")).await;
        let feed = fx
            .host
            .podcasts()
            .create_feed(who, NewFeed::titled(format!("world-{tag}"), "World"))
            .await
            .unwrap()
            .feed
            .id;
        let mut episode = NewEpisode::titled("Pilot");
        episode.fields.is_public = Some(true);
        let show = fx
            .host
            .podcasts()
            .create_episode(who, &feed, episode)
            .await
            .unwrap()
            .episode
            .id;
        let token = fx
            .host
            .access()
            .create_token(who, &format!("token-{tag}"), Scopes::all())
            .await
            .unwrap()
            .token
            .id
            .to_string();
        let client = fx
            .host
            .access()
            .create_client(
                who,
                "App",
                vec!["https://app.example/cb".into()],
                false,
                Scopes::all(),
            )
            .await
            .unwrap()
            .client
            .id;
        let authorize = format!(
            "?response_type=code&client_id={client}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb\
             &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
        );
        let comment = comment_on(fx, who, &feed, show, tag).await;
        let block = fx
            .host
            .fediverse()
            .block(who, &format!("blocked-{tag}.example"))
            .await
            .unwrap()
            .target
            .id();
        let subscriber = fx
            .host
            .delivery()
            .add_subscriber(who, &feed, "tester")
            .await
            .unwrap();
        // Its own ad file: the world's file is deleted by the test of that row.
        let ad = upload(fx, who, &format!("{tag}-ad.wav")).await;
        let campaign = fx
            .host
            .ads()
            .create_campaign(
                who,
                podhost_core::model::NewCampaign {
                    name: format!("campaign-{tag}"),
                    media: Some(ad),
                    positions: vec![podhost_core::model::Position::Preroll],
                    ..Default::default()
                },
            )
            .await
            .unwrap()
            .campaign
            .id
            .to_string();
        let invited = fx
            .host
            .access()
            .invite_member(
                who,
                podhost_core::model::NewMember {
                    login: format!("member-{tag}"),
                    name: String::new(),
                    role: podhost_core::model::Role::Editor,
                    feeds: None,
                },
            )
            .await
            .unwrap();
        let invitation = invited
            .invitation_url
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        World {
            member: invited.member.id.to_string(),
            invitation,
            campaign,
            media,
            feed,
            show,
            token,
            key: subscriber.key().to_string(),
            subscriber: subscriber.id.to_string(),
            authorize,
            job: "job_aaaaaaaaaaaaaaaaaaaa".parse().unwrap(),
            seq: webhook.after_seq + 1,
            webhook: webhook.id,
            account: String::new(),
            blob: String::new(),
            name: String::new(),
            video: media,
            video_blob: String::new(),
            comment,
            block,
        }
    }

    /// The row's path with this world's objects.
    fn path(&self, row: &Route) -> String {
        let mut path = row.path.to_string();
        // The HLS rows name the video.
        let stream = row.path.contains("/hls/");
        for name in row.path_params() {
            let value = match name {
                "id" if stream => self.video.to_string(),
                "blob" if stream => self.video_blob.clone(),
                "track" => "180p".into(),
                "file" => "index.m3u8".into(),
                "media_id" | "id" => self.media.to_string(),
                "feed_id" => self.feed.as_str().to_string(),
                "show_id" | "episode_id" => self.show.to_string(),
                "comment_id" => self.comment.clone(),
                "block_id" => self.block.clone(),
                "job_id" => self.job.to_string(),
                "webhook_id" => self.webhook.clone(),
                "seq" => self.seq.to_string(),
                "account" => self.account.clone(),
                "blob" => self.blob.clone(),
                "name" => self.name.clone(),
                "token_id" => self.token.clone(),
                "subscriber_id" => self.subscriber.clone(),
                "campaign_id" => self.campaign.clone(),
                "key" => self.key.clone(),
                "member_id" => self.member.clone(),
                "secret" => self.invitation.clone(),
                // The site's (no token; only routing is tested with them here).
                "client_id" => "cli_aaaaaaaaaaaaaaaa".into(),
                "grant_id" => "gr_aaaaaaaaaaaaaaaaaaaa".into(),
                other => panic!("{}: no object for {{{other}}}", row.path),
            };
            path = path.replace(&format!("{{{name}}}"), &value);
        }
        path
    }
}

/// Sends the row's request (its example body) with `token` (none when empty) and `query`.
async fn send(
    fx: &Fixture,
    row: &Route,
    method: Method,
    world: &World,
    token: &str,
    query: &str,
) -> Answer {
    // The authorization page needs a valid request to answer 200, oEmbed a page's URL.
    let page = format!(
        "{}/podcasts/{}",
        podhost_testkit::TEST_PUBLIC_URL,
        world.feed
    );
    let oembed = format!(
        "?url={}",
        percent_encoding::utf8_percent_encode(&page, percent_encoding::NON_ALPHANUMERIC)
    );
    let webfinger = format!("?resource=acct:{}@pod.test", world.feed);
    let query = match (row.path, query.is_empty()) {
        ("/oauth/authorize", true) => world.authorize.as_str(),
        ("/oembed", true) => oembed.as_str(),
        ("/.well-known/webfinger", true) => webfinger.as_str(),
        _ => query,
    };
    let mut request = Request::builder()
        .method(method)
        .uri(format!("{}{query}", world.path(row)));
    if !token.is_empty() {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let wav = podhost_testkit::fixtures::wav(0.1, 8000);
    let body = match row.example_body(&wav) {
        None => Vec::new(),
        Some((content_type, body)) => {
            request = request.header("content-type", content_type);
            body
        }
    };
    fx.send(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
}

fn authenticated() -> impl Iterator<Item = &'static Route> {
    podhost_http::routes().filter(|r| r.authenticated())
}

fn what(row: &Route) -> String {
    format!("{} {}", row.method, row.path)
}

/// The version of alice's account: a refused request leaves it as it was.
async fn version(fx: &Fixture) -> u64 {
    fx.host.account_version(&alice(fx).await).await.unwrap()
}

#[tokio::test]
async fn every_authenticated_row_against_every_scope() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    let mut n = 0;
    for scope in Scope::ALL {
        let token = fx.token(scope.as_str()).await;
        for row in authenticated() {
            n += 1;
            let needed = row.scope.unwrap();
            let world = match row.method {
                Method::GET => readable.clone(),
                _ => readable.fresh(&fx, n).await,
            };
            let before = version(&fx).await;
            let answer = send(&fx, row, row.method.clone(), &world, &token, "").await;
            // An invitation grants its role's scopes too: a token holding the row's scope but
            // not those is refused, saying so (a member grants no more than they hold).
            let grants = row.method == Method::POST && row.path == "/api/members";
            if grants && Scopes::from_iter([scope]).allows(needed) {
                assert_eq!(
                    answer.status,
                    StatusCode::FORBIDDEN,
                    "{scope} {}",
                    what(row)
                );
                let message = answer.body["message"].as_str().unwrap_or_default();
                assert!(message.contains("which this token lacks"), "{message}");
                assert_eq!(
                    version(&fx).await,
                    before,
                    "{scope} {}: unchanged",
                    what(row)
                );
            } else if Scopes::from_iter([scope]).allows(needed) {
                assert_eq!(
                    answer.status.as_u16(),
                    row.success.status,
                    "{scope} {}: {}",
                    what(row),
                    answer.body
                );
                if let Some(location) = answer.headers.get("location") {
                    assert!(
                        location
                            .to_str()
                            .unwrap()
                            .starts_with("https://pod.test/api/"),
                        "{}: an absolute Location: {location:?}",
                        what(row)
                    );
                }
            } else {
                assert_eq!(
                    answer.status,
                    StatusCode::FORBIDDEN,
                    "{scope} {}: {}",
                    what(row),
                    answer.body
                );
                assert_eq!(
                    answer.body["message"],
                    format!("this operation needs the scope {needed}"),
                    "{scope} {}",
                    what(row)
                );
                assert_eq!(
                    version(&fx).await,
                    before,
                    "{scope} {}: unchanged",
                    what(row)
                );
            }
        }
    }
}

#[tokio::test]
async fn another_accounts_objects_are_not_found_on_every_row() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    for (n, row) in authenticated().enumerate() {
        if row.path_params().next().is_none() {
            continue; // lists and creations act on the caller's own account
        }
        let world = match row.method {
            Method::GET => readable.clone(),
            _ => readable.fresh(&fx, n).await,
        };
        let before = version(&fx).await;
        let answer = send(&fx, row, row.method.clone(), &world, &fx.mallory, "").await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{}: {}",
            what(row),
            answer.body
        );
        assert_eq!(
            version(&fx).await,
            before,
            "{}: alice's things unchanged",
            what(row)
        );
    }
}

#[tokio::test]
async fn without_a_valid_token_every_authenticated_row_is_401() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    let owner = alice(&fx).await;
    let revoked = fx
        .host
        .access()
        .create_token(&owner, "gone", Scopes::all())
        .await
        .unwrap();
    fx.host
        .access()
        .revoke_token(&owner, &revoked.token.id)
        .await
        .unwrap();
    let before = version(&fx).await;
    for token in ["", "nonsense", revoked.secret.as_str()] {
        for row in authenticated() {
            // Failed tokens are throttled per address after ten; an hour later the address's
            // failures are forgotten.
            fx.clock.advance(jiff::SignedDuration::from_hours(2));
            let answer = send(&fx, row, row.method.clone(), &readable, token, "").await;
            assert_eq!(
                (answer.status, &answer.body),
                (
                    StatusCode::UNAUTHORIZED,
                    &json!({"message": "Unauthenticated."})
                ),
                "{token:?} {}",
                what(row)
            );
        }
    }
    assert_eq!(version(&fx).await, before);
}

#[tokio::test]
async fn an_unknown_query_parameter_is_422_on_every_api_row() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    let before = version(&fx).await;
    for row in podhost_http::routes().filter(|r| r.surface == Surface::Api) {
        let answer = send(
            &fx,
            row,
            row.method.clone(),
            &readable,
            &fx.alice,
            "?bogus=1",
        )
        .await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}: {}",
            what(row),
            answer.body
        );
        assert!(answer.body["message"].is_string(), "{}", what(row));
        assert_eq!(
            answer.body["errors"],
            json!({"bogus": ["unknown query parameter"]}),
            "{}",
            what(row)
        );
    }
    assert_eq!(version(&fx).await, before, "nothing was handled");
}

/// The headers of an answer, `Content-Length` included (the in-process body does not set it),
/// without the one that counts requests. The request id differs per request: its name.
fn head_of(answer: &Answer) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = answer
        .headers
        .iter()
        .filter(|(name, _)| name.as_str() != "x-ratelimit-remaining")
        .map(|(k, v)| {
            let v = v.to_str().unwrap();
            // A cookie of random value (the sign-in form's CSRF token): its name.
            let v = match k.as_str() {
                "set-cookie" => v.split('=').next().unwrap(),
                "x-request-id" => "(generated)",
                _ => v,
            };
            (k.to_string(), v.to_string())
        })
        .collect();
    if !answer.headers.contains_key("content-length") {
        headers.push(("content-length".into(), answer.raw.len().to_string()));
    }
    headers.sort();
    headers
}

#[tokio::test]
async fn head_answers_every_get_row_without_the_body() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    for row in podhost_http::routes().filter(|r| r.method == Method::GET) {
        let token = if row.authenticated() {
            fx.alice.as_str()
        } else {
            ""
        };
        let get = send(&fx, row, Method::GET, &readable, token, "").await;
        assert_eq!(
            get.status.as_u16(),
            row.success.status,
            "{}: {}",
            what(row),
            get.body
        );
        let head = send(&fx, row, Method::HEAD, &readable, token, "").await;
        assert_eq!(head.status, get.status, "{}", what(row));
        let (mut head_headers, mut get_headers) = (head_of(&head), head_of(&get));
        if row.path == "/metrics" {
            // The metrics count the GET itself: their length moves from one request to the next.
            head_headers.retain(|(name, _)| name != "content-length");
            get_headers.retain(|(name, _)| name != "content-length");
        }
        assert_eq!(head_headers, get_headers, "{}", what(row));
        assert!(head.raw.is_empty(), "{}: no body", what(row));
    }
}

#[tokio::test]
async fn other_methods_are_405_with_the_methods_of_the_table() {
    let fx = Fixture::new().await;
    let readable = World::readable(&fx).await;
    for row in podhost_http::routes() {
        let path = readable.path(row);
        // Every row the path routes to: its own, and a template that also matches it
        // (`GET /api/feeds/import` reads a podcast whose id is "import").
        let mut allowed: Vec<String> = podhost_http::routes()
            .filter(|r| {
                podhost_http::routes::route(&r.method, &path)
                    .is_ok_and(|(found, _)| std::ptr::eq(found, *r))
            })
            .flat_map(|r| match r.method {
                Method::GET => vec!["GET".to_string(), "HEAD".to_string()],
                ref m => vec![m.to_string()],
            })
            .collect();
        allowed.sort();
        let answer = fx.public(Method::PATCH, &path, &[]).await;
        assert_eq!(
            answer.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{}",
            row.path
        );
        let mut listed: Vec<String> = answer.headers["allow"]
            .to_str()
            .unwrap()
            .split(", ")
            .map(str::to_string)
            .collect();
        listed.sort();
        assert_eq!(listed, allowed, "{}", row.path);
    }
}

/// Files sent with a new episode become media items of the episode's commit: the operation's
/// scope, `shows`, is all it needs (as the specification gives it).
#[tokio::test]
async fn an_episodes_uploaded_files_need_only_the_shows_scope() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let wav = || vec![("media", "a.wav", podhost_testkit::fixtures::wav(0.1, 8000))];
    let cases = [("shows", 201), ("media", 403), ("shows,media", 201)];
    for (scopes, status) in cases {
        let token = fx.token(scopes).await;
        let answer = fx
            .multipart("/api/feed/show/show", &token, &[("title", "T")], &wav())
            .await;
        assert_eq!(answer.status.as_u16(), status, "{scopes}: {}", answer.body);
    }
}

/// What a `GET` or `HEAD` may write: the notes of a token's, a member's and a session's last
/// use (at most once a minute each), and the rate limit's leases of a window's budget, which
/// every server's requests share through the store. Nothing else.
fn a_note_of_use_or_a_lease(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let note = matches!(
        parts.as_slice(),
        ["accounts", _, "tokens", _, "used"] | ["accounts", _, "members", _, "seen"]
    ) || parts.first() == Some(&"sessions");
    note || parts.first() == Some(&"ratelimit")
}

#[tokio::test]
async fn no_get_or_head_writes_the_store() {
    let store = podhost_testkit::FaultStore::new(std::sync::Arc::new(
        object_store::memory::InMemory::new(),
    ));
    let fx = Fixture::on_store(
        std::sync::Arc::new(store.clone()),
        podhost_http::HttpConfig::default(),
    )
    .await;
    let readable = World::readable(&fx).await;
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some("correct horse battery"))
        .await
        .unwrap();
    let mut browser = common::Browser::default();
    browser
        .sign_in(&fx.api, "alice", "correct horse battery")
        .await;
    // A download this process has counted but not stored: statistics reads see it.
    let download = fx
        .send(
            Request::builder()
                .uri(format!(
                    "/media/{}/{}/{}",
                    readable.account, readable.blob, readable.name
                ))
                .header(
                    "user-agent",
                    "AppleCoreMedia/1.0.0.21E230 (iPhone; U; CPU OS 17_4 like Mac OS X; en_us)",
                )
                .body(Full::new(Bytes::new()))
                .unwrap(),
        )
        .await;
    assert_eq!(download.status, StatusCode::OK);
    // Every write from here on, by kind and path.
    let writes = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = writes.clone();
    let _logged = store.gate(move |call, path| {
        use podhost_testkit::Call;
        if matches!(
            call,
            Call::Put | Call::PutMultipart | Call::Delete | Call::Copy
        ) {
            log.lock().unwrap().push(format!("{call:?} {path}"));
        }
        false
    });
    for signed_in in [false, true] {
        for row in podhost_http::routes().filter(|r| r.method == Method::GET) {
            for method in [Method::GET, Method::HEAD] {
                let mut request = Request::builder()
                    .method(method.clone())
                    .uri(readable.path(row));
                if signed_in {
                    request = request
                        .header("authorization", format!("Bearer {}", fx.alice))
                        .header("cookie", browser.cookie_header());
                }
                let answer = fx
                    .send(request.body(Full::new(Bytes::new())).unwrap())
                    .await;
                assert!(
                    answer.status.as_u16() < 500,
                    "{method} {}: {}",
                    row.path,
                    answer.status
                );
            }
        }
    }
    // What a request left to run in the background has run too.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let writes = writes.lock().unwrap().clone();
    let others: Vec<&String> = writes
        .iter()
        .filter(|w| !a_note_of_use_or_a_lease(w.split_once(' ').map_or("", |(_, p)| p)))
        .collect();
    assert!(others.is_empty(), "GET and HEAD wrote: {others:#?}");
    // The download was counted by every read all the same, and is still not stored.
    let report = fx.get("/api/stats").await;
    let total = report.body["data"]["total"].as_u64().unwrap();
    // Ours, and the row of the public download's own.
    assert_eq!(total, 2, "{}", report.body);
    let curves = fx
        .get(&format!("/api/stats/feeds/{}/curves", readable.feed))
        .await;
    let counted: u64 = curves.body["data"]["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["downloads"].as_array().unwrap())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        counted, total,
        "the curves count what the report counts: {}",
        curves.body
    );
}
