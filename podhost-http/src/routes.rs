//! The route table: [`ROUTES`] declares every route once (method, path template, the typed
//! [`Endpoint`] it builds, scope, query parameters, body, documentation, example), and
//! [`route`] turns a request line into a row and its endpoint. Routing, `405`/`Allow`, `HEAD`,
//! authentication, the scope and query checks (`api.rs`), the OpenAPI document (`openapi.rs`)
//! and the test matrices (`tests/access.rs`) all read this one table.
//!
//! To add an endpoint: add its [`Endpoint`] variant, one row here, and its handler in
//! `handlers::dispatch`; the tests then cover it.

use http::Method;
use podhost_core::{
    EpisodeId, FeedId, JobId, MediaId, Scope, SubscriberId, TokenId, model::PageRequest,
    stats as core_stats,
};
use serde_json::{Value, json};

use crate::site;

/// One operation, with its path parameters parsed.
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
    /// `PUT /api/media/{media_id}` (addition: rename, category)
    UpdateMedia(MediaId),
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
    /// `POST /api/feeds/import` (addition): a podcast imported from its RSS feed, by a job
    ImportFeed,
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
    /// `GET /api/jobs/{job_id}` (addition)
    GetJob(JobId),
    /// `GET /api/webhooks` (addition)
    ListWebhooks,
    /// `POST /api/webhooks` (addition)
    CreateWebhook,
    /// `GET /api/webhooks/{webhook_id}` (addition)
    GetWebhook(String),
    /// `DELETE /api/webhooks/{webhook_id}` (addition)
    DeleteWebhook(String),
    /// `GET /api/webhooks/{webhook_id}/deliveries` (addition)
    WebhookDeliveries(String),
    /// `POST /api/webhooks/{webhook_id}/deliveries/{seq}/redeliver` (addition)
    Redeliver(String, u64),
    /// `GET /api/stats` (addition): downloads of all the caller's podcasts
    StatsAccount,
    /// `GET /api/stats/csv` (addition): the counted rows of a period as CSV
    StatsCsv,
    /// `GET /api/stats/feeds/{feed_id}` (addition)
    StatsFeed(FeedId),
    /// `GET /api/stats/feeds/{feed_id}/shows/{show_id}` (addition)
    StatsEpisode(FeedId, EpisodeId),
    /// `GET /api/openapi.json` (addition; no authentication)
    OpenApi,
    /// `GET /feeds/{feed_id}/rss`: the public RSS feed
    Rss(FeedId),
    /// `GET /media/{account}/{blob}/{name}`: a public download (account, blob, file name)
    Download(String, String, String),
    /// `GET /chapters/{account}/{blob}.json`: a file's public JSON chapters (account, blob)
    Chapters(String, String),
    /// `GET /podcasts/{feed_id}`: the podcast's web page
    PodcastPage(FeedId),
    /// `GET /podcasts/{feed_id}/{show_id}`: an episode's web page
    EpisodePage(FeedId, EpisodeId),
    /// `GET /api/tokens` (addition): the caller's personal tokens
    ListTokens,
    /// `GET /api/feeds/{feed_id}/subscribers` (addition): a private podcast's subscribers
    ListSubscribers(FeedId),
    /// `POST /api/feeds/{feed_id}/subscribers` (addition)
    AddSubscriber(FeedId),
    /// `DELETE /api/feeds/{feed_id}/subscribers/{subscriber_id}` (addition)
    RemoveSubscriber(FeedId, SubscriberId),
    /// `GET /private/{feed_id}/{key}/rss`: a subscriber's feed of a private podcast
    PrivateRss(FeedId, String),
    /// `GET /private/{feed_id}/{key}/media/{blob}/{name}`: a file of a private podcast
    PrivateDownload(FeedId, String, String),
    /// `POST /api/tokens` (addition): a new personal token
    CreateToken,
    /// `DELETE /api/tokens/{token_id}` (addition): revoke a personal token
    RevokeToken(TokenId),
    /// `GET /oauth/authorize`: the OAuth authorization endpoint (the consent page)
    Authorize,
    /// `POST /oauth/authorize`: the user's answer on the consent page
    Consent,
    /// `POST /oauth/token`: the OAuth token endpoint
    OAuthToken,
    /// `POST /oauth/revoke`: OAuth token revocation (RFC 7009)
    OAuthRevoke,
    /// `GET /.well-known/oauth-authorization-server`: OAuth server metadata (RFC 8414)
    OAuthMetadata,
    /// `GET /`: the home page
    Home,
    /// `GET /account`: the key-management site (the sign-in form when signed out)
    Account,
    /// `POST /account/sign-in`
    SignIn,
    /// `POST /account/sign-out`
    SignOut,
    /// `POST /account/tokens`: a personal token made on the site
    SiteCreateToken,
    /// `POST /account/tokens/{token_id}/revoke`
    SiteRevokeToken(TokenId),
    /// `POST /account/clients`: an OAuth client registered on the site
    SiteCreateClient,
    /// `POST /account/clients/{client_id}/delete`
    SiteDeleteClient(String),
    /// `POST /account/grants/{grant_id}/revoke`
    SiteRevokeGrant(String),
}

/// How a row builds its [`Endpoint`] from the path parameters of its template, in order. The
/// kind of each parameter comes from its name ([`PATH_PARAMS`]); a unit test checks that every
/// row's template has the parameters its `Build` takes.
#[derive(Debug, Clone)]
pub enum Build {
    /// No path parameter.
    Unit(Endpoint),
    /// A media id.
    Media(fn(MediaId) -> Endpoint),
    /// A feed id.
    Feed(fn(FeedId) -> Endpoint),
    /// A feed id and an episode id.
    FeedShow(fn(FeedId, EpisodeId) -> Endpoint),
    /// A job id.
    Job(fn(JobId) -> Endpoint),
    /// A personal token's id.
    Token(fn(TokenId) -> Endpoint),
    /// A feed id and a subscriber id.
    FeedSubscriber(fn(FeedId, SubscriberId) -> Endpoint),
    /// A feed id and a subscriber's key.
    FeedKey(fn(FeedId, String) -> Endpoint),
    /// A feed id, a subscriber's key, a blob and a file name.
    FeedKeyFile(fn(FeedId, String, String) -> Endpoint),
    /// An id kept as text (a webhook subscription, a token, a client, a grant), parsed by its
    /// handler.
    Text(fn(String) -> Endpoint),
    /// A webhook subscription id and an event number.
    TextSeq(fn(String, u64) -> Endpoint),
    /// An account and a blob (a stored file version).
    Blob(fn(String, String) -> Endpoint),
    /// An account, a blob and a file name.
    BlobFile(fn(String, String, String) -> Endpoint),
}

impl Build {
    /// The kinds of the path parameters this constructor takes, in order.
    pub fn kinds(&self) -> &'static [ParamKind] {
        use ParamKind as K;
        match self {
            Build::Unit(_) => &[],
            Build::Media(_) => &[K::Media],
            Build::Feed(_) => &[K::Feed],
            Build::FeedShow(_) => &[K::Feed, K::Episode],
            Build::Job(_) => &[K::Job],
            Build::Token(_) => &[K::Token],
            Build::FeedSubscriber(_) => &[K::Feed, K::Subscriber],
            Build::FeedKey(_) => &[K::Feed, K::Text],
            Build::FeedKeyFile(_) => &[K::Feed, K::Text, K::Text, K::Text],
            Build::Text(_) => &[K::Text],
            Build::TextSeq(_) => &[K::Text, K::Seq],
            Build::Blob(_) => &[K::Text, K::Text],
            Build::BlobFile(_) => &[K::Text, K::Text, K::Text],
        }
    }

    /// The endpoint of these parsed parameters; `None` when they are not of [`Build::kinds`].
    fn make(&self, args: Vec<Arg>) -> Option<Endpoint> {
        use Arg as A;
        Some(match (self, args.as_slice()) {
            (Build::Unit(e), []) => e.clone(),
            (Build::Media(f), [A::Media(m)]) => f(*m),
            (Build::Feed(f), [A::Feed(feed)]) => f(feed.clone()),
            (Build::FeedShow(f), [A::Feed(feed), A::Episode(e)]) => f(feed.clone(), *e),
            (Build::Job(f), [A::Job(j)]) => f(j.clone()),
            (Build::Token(f), [A::Token(t)]) => f(t.clone()),
            (Build::FeedSubscriber(f), [A::Feed(feed), A::Subscriber(s)]) => {
                f(feed.clone(), s.clone())
            }
            (Build::FeedKey(f), [A::Feed(feed), A::Text(key)]) => f(feed.clone(), key.clone()),
            (Build::FeedKeyFile(f), [A::Feed(feed), A::Text(key), A::Text(blob), A::Text(_)]) => {
                f(feed.clone(), key.clone(), blob.clone())
            }
            (Build::Text(f), [A::Text(w)]) => f(w.clone()),
            (Build::TextSeq(f), [A::Text(w), A::Seq(s)]) => f(w.clone(), *s),
            (Build::Blob(f), [A::Text(a), A::Text(b)]) => f(a.clone(), b.clone()),
            (Build::BlobFile(f), [A::Text(a), A::Text(b), A::Text(n)]) => {
                f(a.clone(), b.clone(), n.clone())
            }
            _ => return None,
        })
    }
}

/// Who a route is for and how it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The REST API: JSON answers, in the OpenAPI document, unknown query parameters refused.
    Api,
    /// What podcast apps fetch (feeds, downloads, chapters): any query parameter is accepted
    /// (apps add their own).
    Public,
    /// The web pages: like [`Surface::Public`], and a missing page is an HTML page too.
    Page,
    /// The site for browsers (home, the key-management site, the consent form): HTML, a
    /// session cookie instead of a token, forms with a CSRF token; not in the OpenAPI document.
    Site,
    /// The OAuth 2 endpoints: no bearer token (clients authenticate as OAuth says), answers as
    /// OAuth says; in the OpenAPI document.
    OAuth,
}

/// The kind of a path parameter: how it is parsed and what its OpenAPI schema is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A media id; malformed: 400.
    Media,
    /// A feed id; one that cannot exist: 404.
    Feed,
    /// An episode id (`pod-<digits>`); malformed: 400.
    Episode,
    /// A job id; malformed: 404.
    Job,
    /// A personal token's id; malformed: 404.
    Token,
    /// A subscriber's id; malformed: 404.
    Subscriber,
    /// Any non-empty text (a webhook id, an account, a blob, a file name).
    Text,
    /// An event number; malformed: 400.
    Seq,
}

/// A path parameter, known by its name in templates.
#[derive(Debug)]
pub struct PathParam {
    /// The name between braces in templates.
    pub name: &'static str,
    /// How it is parsed.
    pub kind: ParamKind,
    /// Its description in the OpenAPI document.
    pub description: &'static str,
}

/// Every path parameter name a template may use.
pub static PATH_PARAMS: &[PathParam] = &[
    PathParam {
        name: "media_id",
        kind: ParamKind::Media,
        description: "media id",
    },
    PathParam {
        name: "id",
        kind: ParamKind::Media,
        description: "media id",
    },
    PathParam {
        name: "feed_id",
        kind: ParamKind::Feed,
        description: "feed id (URL-encoded)",
    },
    PathParam {
        name: "show_id",
        kind: ParamKind::Episode,
        description: "episode id",
    },
    PathParam {
        name: "job_id",
        kind: ParamKind::Job,
        description: "job id",
    },
    PathParam {
        name: "webhook_id",
        kind: ParamKind::Text,
        description: "subscription id (wh_…)",
    },
    PathParam {
        name: "seq",
        kind: ParamKind::Seq,
        description: "the event's number (`seq` of a delivery)",
    },
    PathParam {
        name: "token_id",
        kind: ParamKind::Token,
        description: "token id (tok_…)",
    },
    PathParam {
        name: "subscriber_id",
        kind: ParamKind::Subscriber,
        description: "subscriber id (sub_…)",
    },
    PathParam {
        name: "key",
        kind: ParamKind::Text,
        description: "a subscriber's key (sub_…_…)",
    },
    PathParam {
        name: "client_id",
        kind: ParamKind::Text,
        description: "OAuth client id (cli_…)",
    },
    PathParam {
        name: "grant_id",
        kind: ParamKind::Text,
        description: "grant id (gr_…)",
    },
    PathParam {
        name: "account",
        kind: ParamKind::Text,
        description: "the account",
    },
    PathParam {
        name: "blob",
        kind: ParamKind::Text,
        description: "the stored version of a file",
    },
    PathParam {
        name: "name",
        kind: ParamKind::Text,
        description: "the file name",
    },
];

/// The path parameter of this name.
pub fn path_param(name: &str) -> Option<&'static PathParam> {
    PATH_PARAMS.iter().find(|p| p.name == name)
}

impl ParamKind {
    /// The OpenAPI schema of a parameter of this kind.
    pub fn schema(self) -> Value {
        match self {
            ParamKind::Media => {
                json!({"type": "integer", "minimum": 1, "maximum": podhost_core::MAX_SAFE_ID})
            }
            ParamKind::Feed => {
                json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^/]+$"})
            }
            ParamKind::Episode => json!({"type": "string", "pattern": "^pod-[0-9]+$"}),
            ParamKind::Job => json!({"type": "string", "pattern": "^job_[a-z0-9]{20}$"}),
            ParamKind::Token => json!({"type": "string", "pattern": "^tok_[a-z0-9]{16}$"}),
            ParamKind::Subscriber => json!({"type": "string", "pattern": "^sub_[a-z0-9]{16}$"}),
            ParamKind::Text => json!({"type": "string", "minLength": 1}),
            ParamKind::Seq => json!({"type": "integer", "minimum": 1}),
        }
    }

    fn parse(self, s: &str) -> Result<Arg, ParamError> {
        let bad = |what: &str| ParamError::BadRequest(format!("{s:?} is not {what}"));
        match self {
            ParamKind::Media => s
                .parse()
                .map(Arg::Media)
                .map_err(|_| bad("a media id (a positive integer)")),
            ParamKind::Feed => FeedId::new(s)
                .map(Arg::Feed)
                .map_err(|_| ParamError::NotFound),
            ParamKind::Episode => s
                .parse()
                .map(Arg::Episode)
                .map_err(|_| bad("an episode id (pod-<digits>)")),
            ParamKind::Job => s.parse().map(Arg::Job).map_err(|_| ParamError::NotFound),
            ParamKind::Token => s.parse().map(Arg::Token).map_err(|_| ParamError::NotFound),
            ParamKind::Subscriber => s
                .parse()
                .map(Arg::Subscriber)
                .map_err(|_| ParamError::NotFound),
            ParamKind::Text if s.is_empty() => Err(ParamError::NotFound),
            ParamKind::Text => Ok(Arg::Text(s.to_string())),
            ParamKind::Seq => s.parse().map(Arg::Seq).map_err(|_| bad("an event number")),
        }
    }
}

/// A parsed path parameter.
#[derive(Debug)]
enum Arg {
    Media(MediaId),
    Feed(FeedId),
    Episode(EpisodeId),
    Job(JobId),
    Token(TokenId),
    Subscriber(SubscriberId),
    Text(String),
    Seq(u64),
}

/// A query parameter a route knows.
#[derive(Debug)]
pub struct QueryParam {
    /// Its name, e.g. `page[size]`.
    pub name: &'static str,
    /// Its OpenAPI schema.
    pub schema: fn() -> Value,
    /// Its description.
    pub description: &'static str,
}

/// The body a route reads.
#[derive(Debug)]
pub enum BodyKind {
    /// None (a body sent anyway is not read).
    None,
    /// JSON of the named component schema.
    Json {
        /// The component schema.
        schema: &'static str,
        /// Whether a body must be sent (else an empty body is `{}`).
        required: bool,
        /// An example body, as JSON text.
        example: &'static str,
    },
    /// `application/x-www-form-urlencoded` of the named component schema (the OAuth endpoints,
    /// the site's forms).
    Form {
        /// The component schema.
        schema: &'static str,
        /// Example fields.
        example: &'static [(&'static str, &'static str)],
    },
    /// `multipart/form-data` of the named component schema.
    Multipart {
        /// The component schema.
        schema: &'static str,
        /// The file field the example fills (tests send a small WAV in it); `None` when the
        /// example sends no file.
        file: Option<&'static str>,
        /// Example text fields.
        example: &'static [(&'static str, &'static str)],
    },
}

/// What a successful answer is.
#[derive(Debug)]
pub struct Success {
    /// Its status.
    pub status: u16,
    /// Its description.
    pub description: &'static str,
    /// Its body.
    pub shape: Shape,
}

/// The body of a successful answer.
#[derive(Debug)]
pub enum Shape {
    /// No body.
    Empty,
    /// The named component schema, bare.
    Bare(&'static str),
    /// `{"data": <the named schema>}`.
    Data(&'static str),
    /// `{"data": [<the named schema>]}`.
    DataList(&'static str),
    /// The named schema as JSON, or binary (`application/octet-stream`) when asked for.
    JsonOrBinary(&'static str),
    /// Any JSON object.
    AnyObject,
    /// A document of this media type (the public routes).
    Document(&'static str),
}

/// One route: everything the API, its documentation and its tests know about it.
#[derive(Debug)]
pub struct Route {
    /// The method (`HEAD` is derived from `GET`).
    pub method: Method,
    /// The path template as the OpenAPI document writes it, e.g. `/api/media/{media_id}`.
    pub path: &'static str,
    /// How the [`Endpoint`] is built from the path parameters.
    pub build: Build,
    /// Who the route is for.
    pub surface: Surface,
    /// The scope a token needs; `None`: no token at all (public routes, the OpenAPI document).
    pub scope: Option<Scope>,
    /// The query parameters it knows (on [`Surface::Api`] routes any other is refused with 422).
    pub query: &'static [QueryParam],
    /// The body it reads, with an example.
    pub body: BodyKind,
    /// Whether the route is podhost's addition to the specification.
    pub addition: bool,
    /// What it does, in a few words.
    pub summary: &'static str,
    /// Its successful answer.
    pub success: Success,
    /// Statuses it may answer besides the ones every route of its kind may.
    pub errors: &'static [u16],
}

impl Route {
    /// The names of the template's path parameters, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> + use<> {
        let path: &'static str = self.path;
        path.split('/').filter_map(|s| segment(s).param())
    }

    /// Whether a token is needed.
    pub fn authenticated(&self) -> bool {
        self.scope.is_some()
    }

    /// Whether the route knows the query parameter `name`.
    pub fn knows(&self, name: &str) -> bool {
        self.query.iter().any(|q| q.name == name)
    }
}

/// One segment of a template: a literal, or a parameter with an optional literal suffix
/// (`{blob}.json`).
enum Segment<'a> {
    Literal(&'a str),
    Param { name: &'a str, suffix: &'a str },
}

impl<'a> Segment<'a> {
    fn param(&self) -> Option<&'a str> {
        match self {
            Segment::Param { name, .. } => Some(name),
            Segment::Literal(_) => None,
        }
    }
}

fn segment(template: &str) -> Segment<'_> {
    match template
        .strip_prefix('{')
        .and_then(|rest| rest.split_once('}'))
    {
        Some((name, suffix)) => Segment::Param { name, suffix },
        None => Segment::Literal(template),
    }
}

/// The raw (still percent-encoded) values of the template's parameters in `segments`, or
/// `None` when the path does not have the template's shape.
fn shape<'p>(template: &str, segments: &[&'p str]) -> Option<Vec<(&'static PathParam, &'p str)>> {
    let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut params = Vec::new();
    for (part, raw) in parts.iter().zip(segments) {
        match segment(part) {
            Segment::Literal(literal) if literal == *raw => {}
            Segment::Literal(_) => return None,
            Segment::Param { name, suffix } => {
                let value = raw.strip_suffix(suffix)?;
                params.push((path_param(name)?, value));
            }
        }
    }
    Some(params)
}

/// Why a path parameter names nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// Malformed (400 with this message).
    BadRequest(String),
    /// It cannot name anything (404).
    NotFound,
}

/// Why a request line names no endpoint.
#[derive(Debug)]
pub enum RouteError {
    /// No such path; the answer is of this surface (a page for `/podcasts/...`).
    NotFound(Surface),
    /// The path exists for other methods (listed for the `Allow` header, `HEAD` with `GET`).
    MethodNotAllowed(Vec<Method>),
    /// The route exists but a path parameter is malformed.
    BadParameter(&'static Route, ParamError),
}

/// The row and endpoint of a request line. `HEAD` finds the `GET` row.
pub fn route(method: &Method, path: &str) -> Result<(&'static Route, Endpoint), RouteError> {
    let wanted = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let mut allowed: Vec<Method> = Vec::new();
    for row in ROUTES {
        let Some(raw) = shape(row.path, &segments) else {
            continue;
        };
        if row.method != wanted {
            if row.method == Method::GET {
                allowed.push(Method::HEAD);
            }
            allowed.push(row.method.clone());
            continue;
        }
        let mut args = Vec::with_capacity(raw.len());
        for (param, value) in raw {
            let decoded = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
            match param.kind.parse(&decoded) {
                Ok(arg) => args.push(arg),
                Err(e) => return Err(RouteError::BadParameter(row, e)),
            }
        }
        return match row.build.make(args) {
            Some(endpoint) => Ok((row, endpoint)),
            None => Err(RouteError::NotFound(row.surface)),
        };
    }
    if allowed.is_empty() {
        // A path under a prefix that only pages use is a missing page.
        let first = segments.first().copied().unwrap_or("");
        let surface = ROUTES
            .iter()
            .find(|r| r.path.trim_start_matches('/').split('/').next() == Some(first))
            .map_or(Surface::Api, |r| r.surface);
        Err(RouteError::NotFound(surface))
    } else {
        allowed.sort_by_key(method_order);
        allowed.dedup();
        Err(RouteError::MethodNotAllowed(allowed))
    }
}

/// The order of methods in `Allow`.
fn method_order(method: &Method) -> usize {
    [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
    ]
    .iter()
    .position(|m| m == method)
    .unwrap_or(usize::MAX)
}

// Query parameters shared by several routes.

const PAGE_NUMBER: QueryParam = QueryParam {
    name: "page[number]",
    schema: || json!({"type": "integer", "minimum": 1, "default": 1}),
    description: "page number, from 1",
};
const PAGE_SIZE: QueryParam = QueryParam {
    name: "page[size]",
    schema: || json!({"type": "integer", "minimum": 1, "maximum": PageRequest::MAX_SIZE, "default": PageRequest::DEFAULT_SIZE}),
    description: "page size",
};
const FROM: QueryParam = QueryParam {
    name: "from",
    schema: || json!({"type": "string", "format": "date", "description": format!("default: {} days before `to`", core_stats::DEFAULT_DAYS - 1)}),
    description: "first UTC day (YYYY-MM-DD)",
};
const TO: QueryParam = QueryParam {
    name: "to",
    schema: || json!({"type": "string", "format": "date", "description": format!("default: today; at most {} days in all", core_stats::MAX_DAYS)}),
    description: "last UTC day, included",
};

/// Every route.
pub static ROUTES: &[Route] = &[
    Route {
        method: Method::POST,
        path: "/api/webhooks-processing",
        build: Build::Unit(Endpoint::WebhooksProcessing),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "deliver the caller's due webhook deliveries now (delivery otherwise runs in the background)",
        success: Success {
            status: 200,
            description: "what was done",
            shape: Shape::Data("WebhookRun"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/generate/waveform/{id}",
        build: Build::Media(Endpoint::GenerateWaveform),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Json {
            schema: "WaveformOptions",
            required: false,
            example: r#"{"samples_per_pixel": 256, "bits": 8}"#,
        },
        addition: false,
        summary: "generate a waveform (a background job; BBC audiowaveform's format)",
        success: Success {
            status: 202,
            description: "the job, queued (or the one already queued or running for this file); Location: the job",
            shape: Shape::Data("Job"),
        },
        errors: &[413],
    },
    Route {
        method: Method::POST,
        path: "/api/generate/silence/{id}",
        build: Build::Media(Endpoint::GenerateSilence),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Json {
            schema: "SilenceOptions",
            required: false,
            example: r#"{"noise": -60, "duration": 2}"#,
        },
        addition: false,
        summary: "detect silences and suggest ad breaks (a background job; ffmpeg silencedetect's rule)",
        success: Success {
            status: 202,
            description: "the job, queued (or the one already queued or running for this file); Location: the job",
            shape: Shape::Data("Job"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/media",
        build: Build::Unit(Endpoint::ListMedia),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[
            QueryParam {
                name: "sort_by",
                schema: || json!({"type": "string", "enum": ["name", "size", "created"], "default": "name"}),
                description: "sort key",
            },
            QueryParam {
                name: "sort_dir",
                schema: || json!({"type": "string", "enum": ["asc", "desc"], "default": "desc"}),
                description: "sort direction",
            },
            QueryParam {
                name: "filter",
                schema: || json!({"type": "string"}),
                description: "case-insensitive substring of the file name",
            },
            QueryParam {
                name: "strict",
                schema: || json!({"type": "integer", "enum": [0, 1], "default": 0}),
                description: "1: filter is an exact name",
            },
            PAGE_NUMBER,
            PAGE_SIZE,
        ],
        body: BodyKind::None,
        addition: false,
        summary: "list files",
        success: Success {
            status: 200,
            description: "the files",
            shape: Shape::Bare("MediaList"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/media",
        build: Build::Unit(Endpoint::UploadMedia),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Multipart {
            schema: "MediaUpload",
            file: Some("media"),
            example: &[],
        },
        addition: false,
        summary: "upload a file",
        success: Success {
            status: 201,
            description: "the stored file; Location: the file",
            shape: Shape::Bare("MediaRecord"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/media/{media_id}",
        build: Build::Media(Endpoint::GetMedia),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "get a file",
        success: Success {
            status: 200,
            description: "the file",
            shape: Shape::Bare("MediaRecord"),
        },
        errors: &[],
    },
    Route {
        method: Method::PUT,
        path: "/api/media/{media_id}",
        build: Build::Media(Endpoint::UpdateMedia),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Json {
            schema: "MediaUpdate",
            required: false,
            example: r#"{"name": "interview-final.wav", "category": "archive"}"#,
        },
        addition: true,
        summary: "rename a file (its download URL keeps its name) or move it to another category",
        success: Success {
            status: 200,
            description: "the file",
            shape: Shape::Bare("MediaRecord"),
        },
        errors: &[413],
    },
    Route {
        method: Method::DELETE,
        path: "/api/media/{media_id}",
        build: Build::Media(Endpoint::DeleteMedia),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "delete a file",
        success: Success {
            status: 204,
            description: "deleted",
            shape: Shape::Empty,
        },
        errors: &[409],
    },
    Route {
        method: Method::POST,
        path: "/api/media/{media_id}/copy",
        build: Build::Media(Endpoint::CopyMedia),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Json {
            schema: "MediaCopy",
            required: true,
            example: r#"{"label": "interview.wav", "category": "archive"}"#,
        },
        addition: false,
        summary: "copy a file",
        success: Success {
            status: 201,
            description: "the copy; Location: the copy",
            shape: Shape::Bare("MediaRecord"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/media/{id}/metadata",
        build: Build::Media(Endpoint::GetMetadata),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "a media file's metadata: facts, the tags read from the file, ad breaks",
        success: Success {
            status: 200,
            description: "the metadata",
            shape: Shape::Data("Metadata"),
        },
        errors: &[],
    },
    Route {
        method: Method::PUT,
        path: "/api/media/{id}/metadata",
        build: Build::Media(Endpoint::PutMetadata),
        surface: Surface::Api,
        scope: Some(Scope::Media),
        query: &[],
        body: BodyKind::Json {
            schema: "MetadataUpdate",
            required: false,
            example: r#"{"title": "Pilot", "artist": "Me", "adbreak": {"preroll": true, "postroll": false, "midrolls": []}}"#,
        },
        addition: false,
        summary: "change a media file's metadata: ad breaks at once; tags, chapters and cover written into a new file (a new URL) by the job in `job`",
        success: Success {
            status: 200,
            description: "the metadata now, and the tag-writing job",
            shape: Shape::Data("Metadata"),
        },
        errors: &[409, 413],
    },
    Route {
        method: Method::GET,
        path: "/api/feeds",
        build: Build::Unit(Endpoint::ListFeeds),
        surface: Surface::Api,
        scope: Some(Scope::FeedsReadOnly),
        query: &[PAGE_NUMBER, PAGE_SIZE],
        body: BodyKind::None,
        addition: false,
        summary: "list podcasts",
        success: Success {
            status: 200,
            description: "the podcasts",
            shape: Shape::DataList("FeedListItem"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/feeds",
        build: Build::Unit(Endpoint::CreateFeed),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::Json {
            schema: "FeedCreate",
            required: true,
            example: r#"{"id": "my-show", "title": "My Show", "description": "Talk about things", "language": "en"}"#,
        },
        addition: true,
        summary: "create a podcast",
        success: Success {
            status: 201,
            description: "the podcast; Location: the podcast",
            shape: Shape::Data("Feed"),
        },
        errors: &[409, 413],
    },
    Route {
        method: Method::POST,
        path: "/api/feeds/import",
        build: Build::Unit(Endpoint::ImportFeed),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::Json {
            schema: "FeedImport",
            required: true,
            example: r#"{"url": "https://feeds.example.com/my-show.xml", "feed_id": "my-show"}"#,
        },
        addition: true,
        summary: "import a podcast from its RSS feed on another host, with its episodes and files (a background job; running it again completes it and duplicates nothing)",
        success: Success {
            status: 202,
            description: "the job, queued (or the one already queued or running for this feed); Location: the job; its result is the import's report",
            shape: Shape::Data("Job"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/feeds/{feed_id}",
        build: Build::Feed(Endpoint::GetFeed),
        surface: Surface::Api,
        scope: Some(Scope::FeedsReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "get a podcast",
        success: Success {
            status: 200,
            description: "the podcast",
            shape: Shape::Data("Feed"),
        },
        errors: &[],
    },
    Route {
        method: Method::PUT,
        path: "/api/feeds/{feed_id}",
        build: Build::Feed(Endpoint::UpdateFeed),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::Json {
            schema: "FeedUpdate",
            required: false,
            example: r#"{"description": "Talk about other things", "itunes": {"author": "Me"}}"#,
        },
        addition: true,
        summary: "change a podcast",
        success: Success {
            status: 200,
            description: "the podcast",
            shape: Shape::Data("Feed"),
        },
        errors: &[413],
    },
    Route {
        method: Method::DELETE,
        path: "/api/feeds/{feed_id}",
        build: Build::Feed(Endpoint::DeleteFeed),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "delete a podcast and its episodes",
        success: Success {
            status: 204,
            description: "deleted",
            shape: Shape::Empty,
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/feed/{feed_id}/shows",
        build: Build::Feed(Endpoint::ListEpisodes),
        surface: Surface::Api,
        scope: Some(Scope::ShowsReadOnly),
        query: &[
            PAGE_NUMBER,
            PAGE_SIZE,
            QueryParam {
                name: "sortBy",
                schema: || json!({"type": "string", "enum": ["lastUpdate", "is_public"]}),
                description: "sort key; default: publishing date",
            },
            QueryParam {
                name: "sortDesc",
                schema: || json!({"type": "string", "enum": ["desc", "asc", "true", "false"]}),
                description: "desc or true: descending",
            },
            QueryParam {
                name: "filter",
                schema: || json!({"type": "string"}),
                description: "searched in title and description (also accepted as a JSON body field)",
            },
        ],
        body: BodyKind::None,
        addition: false,
        summary: "list episodes",
        success: Success {
            status: 200,
            description: "the episodes",
            shape: Shape::DataList("EpisodeListItem"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/feed/{feed_id}/show",
        build: Build::Feed(Endpoint::CreateEpisode),
        surface: Surface::Api,
        scope: Some(Scope::Shows),
        query: &[],
        body: BodyKind::Multipart {
            schema: "EpisodeCreate",
            file: Some("media"),
            example: &[("title", "Pilot"), ("is_public", "1")],
        },
        addition: false,
        summary: "create an episode; files sent in `media` (its audio) and `cover` become media items in the same commit as the episode",
        success: Success {
            status: 201,
            description: "the episode; Location: the episode",
            shape: Shape::Data("Episode"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/feed/{feed_id}/show/{show_id}",
        build: Build::FeedShow(Endpoint::GetEpisode),
        surface: Surface::Api,
        scope: Some(Scope::ShowsReadOnly),
        query: &[QueryParam {
            name: "feed_id",
            schema: || json!({"type": "string"}),
            description: "ignored; the path names the feed",
        }],
        body: BodyKind::None,
        addition: false,
        summary: "get an episode",
        success: Success {
            status: 200,
            description: "the episode",
            shape: Shape::Data("Episode"),
        },
        errors: &[],
    },
    Route {
        method: Method::PUT,
        path: "/api/feed/{feed_id}/show/{show_id}",
        build: Build::FeedShow(Endpoint::UpdateEpisode),
        surface: Surface::Api,
        scope: Some(Scope::Shows),
        query: &[],
        body: BodyKind::Json {
            schema: "EpisodeUpdate",
            required: false,
            example: r#"{"title": "Pilot, again", "itunes": {"episodeType": "full", "season": "1"}}"#,
        },
        addition: false,
        summary: "change an episode",
        success: Success {
            status: 200,
            description: "the episode",
            shape: Shape::Data("Episode"),
        },
        errors: &[409, 413],
    },
    Route {
        method: Method::DELETE,
        path: "/api/feed/{feed_id}/show/{show_id}",
        build: Build::FeedShow(Endpoint::DeleteEpisode),
        surface: Surface::Api,
        scope: Some(Scope::Shows),
        query: &[],
        body: BodyKind::None,
        addition: false,
        summary: "delete an episode",
        success: Success {
            status: 204,
            description: "deleted",
            shape: Shape::Empty,
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/feed/{feed_id}/show/{show_id}/copy",
        build: Build::FeedShow(Endpoint::CopyEpisode),
        surface: Surface::Api,
        scope: Some(Scope::Shows),
        query: &[QueryParam {
            name: "feed_id_to",
            schema: || json!({"type": "string"}),
            description: "the target feed; default: the same feed",
        }],
        body: BodyKind::None,
        addition: false,
        summary: "copy an episode as a draft",
        success: Success {
            status: 201,
            description: "the copy; Location: the copy",
            shape: Shape::Data("Episode"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/media/{id}/waveform",
        build: Build::Media(Endpoint::GetWaveform),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[QueryParam {
            name: "format",
            schema: || json!({"type": "string", "enum": ["json", "dat"], "default": "json"}),
            description: "json or the binary dat",
        }],
        body: BodyKind::None,
        addition: true,
        summary: "the latest waveform of a file, in audiowaveform's JSON (not wrapped, for peaks.js) or `.dat` form",
        success: Success {
            status: 200,
            description: "the waveform",
            shape: Shape::JsonOrBinary("Waveform"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/media/{id}/silence",
        build: Build::Media(Endpoint::GetSilence),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the latest silence report of a file",
        success: Success {
            status: 200,
            description: "the silences and suggested mid-roll positions",
            shape: Shape::Data("SilenceReport"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/jobs/{job_id}",
        build: Build::Job(Endpoint::GetJob),
        surface: Surface::Api,
        scope: Some(Scope::MediaReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a background job",
        success: Success {
            status: 200,
            description: "the job",
            shape: Shape::Data("Job"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/webhooks",
        build: Build::Unit(Endpoint::ListWebhooks),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the caller's webhook subscriptions (without their secrets)",
        success: Success {
            status: 200,
            description: "the subscriptions",
            shape: Shape::DataList("Webhook"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/webhooks",
        build: Build::Unit(Endpoint::CreateWebhook),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::Json {
            schema: "WebhookCreate",
            required: true,
            example: r#"{"url": "https://hooks.example.com/podhost", "events": ["episode.published"], "description": "my app"}"#,
        },
        addition: true,
        summary: "subscribe a URL to events; the signing secret (Standard Webhooks, whsec_) is shown only in this answer",
        success: Success {
            status: 201,
            description: "the subscription, with its secret; Location: the subscription",
            shape: Shape::Data("Webhook"),
        },
        errors: &[413],
    },
    Route {
        method: Method::GET,
        path: "/api/webhooks/{webhook_id}",
        build: Build::Text(Endpoint::GetWebhook),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "one subscription",
        success: Success {
            status: 200,
            description: "the subscription",
            shape: Shape::Data("Webhook"),
        },
        errors: &[],
    },
    Route {
        method: Method::DELETE,
        path: "/api/webhooks/{webhook_id}",
        build: Build::Text(Endpoint::DeleteWebhook),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "remove a subscription",
        success: Success {
            status: 204,
            description: "removed",
            shape: Shape::Empty,
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/webhooks/{webhook_id}/deliveries",
        build: Build::Text(Endpoint::WebhookDeliveries),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the recent deliveries of a subscription, newest first, with their attempts",
        success: Success {
            status: 200,
            description: "the deliveries",
            shape: Shape::DataList("Delivery"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/webhooks/{webhook_id}/deliveries/{seq}/redeliver",
        build: Build::TextSeq(Endpoint::Redeliver),
        surface: Surface::Api,
        scope: Some(Scope::Webhooks),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "send an event to a subscription again, now",
        success: Success {
            status: 200,
            description: "the delivery with the new attempt",
            shape: Shape::Data("Delivery"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/feeds/{feed_id}/subscribers",
        build: Build::Feed(Endpoint::ListSubscribers),
        surface: Surface::Api,
        scope: Some(Scope::FeedsReadOnly),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a podcast's subscribers (for a private podcast), oldest first, revoked ones included",
        success: Success {
            status: 200,
            description: "the subscribers, each with their feed URL",
            shape: Shape::DataList("Subscriber"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/feeds/{feed_id}/subscribers",
        build: Build::Feed(Endpoint::AddSubscriber),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::Json {
            schema: "NewSubscriber",
            required: false,
            example: r#"{"label": "Jane (patron)"}"#,
        },
        addition: true,
        summary: "a subscriber of a private podcast: a feed URL of their own",
        success: Success {
            status: 201,
            description: "the subscriber",
            shape: Shape::Data("Subscriber"),
        },
        errors: &[],
    },
    Route {
        method: Method::DELETE,
        path: "/api/feeds/{feed_id}/subscribers/{subscriber_id}",
        build: Build::FeedSubscriber(Endpoint::RemoveSubscriber),
        surface: Surface::Api,
        scope: Some(Scope::Feeds),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "revoke a subscriber: their feed and files answer 410 on every server within a second",
        success: Success {
            status: 204,
            description: "revoked (also when it already was)",
            shape: Shape::Empty,
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/tokens",
        build: Build::Unit(Endpoint::ListTokens),
        surface: Surface::Api,
        scope: Some(Scope::Tokens),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the caller's personal tokens, oldest first, revoked ones included (never a secret)",
        success: Success {
            status: 200,
            description: "the tokens",
            shape: Shape::DataList("Token"),
        },
        errors: &[],
    },
    Route {
        method: Method::POST,
        path: "/api/tokens",
        build: Build::Unit(Endpoint::CreateToken),
        surface: Surface::Api,
        scope: Some(Scope::Tokens),
        query: &[],
        body: BodyKind::Json {
            schema: "NewToken",
            required: true,
            example: r#"{"label": "helper", "scopes": ["tokens"]}"#,
        },
        addition: true,
        summary: "a new personal token (scopes at most the caller's); its secret is shown only here",
        success: Success {
            status: 201,
            description: "the token, with its secret in `token`",
            shape: Shape::Data("CreatedToken"),
        },
        errors: &[],
    },
    Route {
        method: Method::DELETE,
        path: "/api/tokens/{token_id}",
        build: Build::Token(Endpoint::RevokeToken),
        surface: Surface::Api,
        scope: Some(Scope::Tokens),
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "revoke a personal token (it stops working on every server within a second)",
        success: Success {
            status: 204,
            description: "revoked (also when it already was)",
            shape: Shape::Empty,
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/stats",
        build: Build::Unit(Endpoint::StatsAccount),
        surface: Surface::Api,
        scope: Some(Scope::Stats),
        query: &[FROM, TO],
        body: BodyKind::None,
        addition: true,
        summary: "downloads of all the caller's podcasts",
        success: Success {
            status: 200,
            description: "the report",
            shape: Shape::Data("StatsReport"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/stats/csv",
        build: Build::Unit(Endpoint::StatsCsv),
        surface: Surface::Api,
        scope: Some(Scope::Stats),
        query: &[FROM, TO],
        body: BodyKind::None,
        addition: true,
        summary: "every counted download row of a period as CSV: date, hour, feed_id, show_id, app, platform, subscriber_id, downloads",
        success: Success {
            status: 200,
            description: "the rows",
            shape: Shape::Document("text/csv"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/stats/feeds/{feed_id}",
        build: Build::Feed(Endpoint::StatsFeed),
        surface: Surface::Api,
        scope: Some(Scope::Stats),
        query: &[FROM, TO],
        body: BodyKind::None,
        addition: true,
        summary: "downloads of one podcast",
        success: Success {
            status: 200,
            description: "the report",
            shape: Shape::Data("StatsReport"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/stats/feeds/{feed_id}/shows/{show_id}",
        build: Build::FeedShow(Endpoint::StatsEpisode),
        surface: Surface::Api,
        scope: Some(Scope::Stats),
        query: &[FROM, TO],
        body: BodyKind::None,
        addition: true,
        summary: "downloads of one episode",
        success: Success {
            status: 200,
            description: "the report",
            shape: Shape::Data("StatsReport"),
        },
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/api/openapi.json",
        build: Build::Unit(Endpoint::OpenApi),
        surface: Surface::Api,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "this document",
        success: Success {
            status: 200,
            description: "the OpenAPI document",
            shape: Shape::AnyObject,
        },
        errors: &[],
    },
    // The public side: no token, not in the OpenAPI document.
    Route {
        method: Method::GET,
        path: "/feeds/{feed_id}/rss",
        build: Build::Feed(Endpoint::Rss),
        surface: Surface::Public,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the podcast's RSS feed (validators, 304, gzip)",
        success: Success {
            status: 200,
            description: "the feed",
            shape: Shape::Document("application/rss+xml"),
        },
        errors: &[301, 304, 404, 410],
    },
    Route {
        method: Method::GET,
        path: "/media/{account}/{blob}/{name}",
        build: Build::BlobFile(Endpoint::Download),
        surface: Surface::Public,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a file's bytes (ranges, validators; counted for statistics)",
        success: Success {
            status: 200,
            description: "the file",
            shape: Shape::Document("*/*"),
        },
        errors: &[206, 302, 304, 404, 416],
    },
    Route {
        method: Method::GET,
        path: "/private/{feed_id}/{key}/rss",
        build: Build::FeedKey(Endpoint::PrivateRss),
        surface: Surface::Public,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a subscriber's feed of a private podcast (blocked from directories)",
        success: Success {
            status: 200,
            description: "the feed",
            shape: Shape::Document("application/rss+xml"),
        },
        errors: &[304, 404, 410],
    },
    Route {
        method: Method::GET,
        path: "/private/{feed_id}/{key}/media/{blob}/{name}",
        build: Build::FeedKeyFile(Endpoint::PrivateDownload),
        surface: Surface::Public,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a file of a private podcast, through a subscriber's key (ranges, validators)",
        success: Success {
            status: 200,
            description: "the file",
            shape: Shape::Document("*/*"),
        },
        errors: &[206, 302, 304, 404, 410, 416],
    },
    Route {
        method: Method::GET,
        path: "/chapters/{account}/{blob}.json",
        build: Build::Blob(Endpoint::Chapters),
        surface: Surface::Public,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a file's chapters as JSON (podcast:chapters)",
        success: Success {
            status: 200,
            description: "the chapters",
            shape: Shape::Document(podhost_core::publish::chapters::MIME),
        },
        errors: &[404],
    },
    Route {
        method: Method::GET,
        path: "/podcasts/{feed_id}",
        build: Build::Feed(Endpoint::PodcastPage),
        surface: Surface::Page,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "the podcast's web page",
        success: Success {
            status: 200,
            description: "the page",
            shape: Shape::Document("text/html"),
        },
        errors: &[304, 404, 410],
    },
    Route {
        method: Method::GET,
        path: "/podcasts/{feed_id}/{show_id}",
        build: Build::FeedShow(Endpoint::EpisodePage),
        surface: Surface::Page,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "a published episode's web page",
        success: Success {
            status: 200,
            description: "the page",
            shape: Shape::Document("text/html"),
        },
        errors: &[304, 404, 410],
    },
    // OAuth 2: no bearer token; in the OpenAPI document.
    Route {
        method: Method::GET,
        path: site::paths::AUTHORIZE,
        build: Build::Unit(Endpoint::Authorize),
        surface: Surface::OAuth,
        scope: None,
        query: &[
            oauth_param("response_type", "`code`"),
            oauth_param("client_id", "the client's id"),
            oauth_param("redirect_uri", "one of the client's redirect URIs, exactly"),
            oauth_param(
                "scope",
                "space-separated scopes (default: all the client may ask for)",
            ),
            oauth_param("state", "carried back to the client"),
            oauth_param(
                "code_challenge",
                "PKCE: base64url of the SHA-256 of the verifier",
            ),
            oauth_param("code_challenge_method", "`S256`"),
        ],
        body: BodyKind::None,
        addition: true,
        summary: "OAuth authorization endpoint: the consent page (the sign-in form first when signed out)",
        success: Success {
            status: 200,
            description: "the consent page, or the sign-in form",
            shape: Shape::Document("text/html"),
        },
        errors: &[303, 400],
    },
    Route {
        method: Method::POST,
        path: site::paths::TOKEN,
        build: Build::Unit(Endpoint::OAuthToken),
        surface: Surface::OAuth,
        scope: None,
        query: &[],
        body: BodyKind::Form {
            schema: "OAuthTokenRequest",
            example: &[
                ("grant_type", "refresh_token"),
                ("refresh_token", "phr_x"),
                ("client_id", "cli_x"),
            ],
        },
        addition: true,
        summary: "OAuth token endpoint: an authorization code (with its PKCE verifier) or a refresh token exchanged for tokens",
        success: Success {
            status: 200,
            description: "the tokens",
            shape: Shape::Bare("OAuthTokenResponse"),
        },
        errors: &[400, 401],
    },
    Route {
        method: Method::POST,
        path: site::paths::REVOKE,
        build: Build::Unit(Endpoint::OAuthRevoke),
        surface: Surface::OAuth,
        scope: None,
        query: &[],
        body: BodyKind::Form {
            schema: "OAuthRevokeRequest",
            example: &[("token", "phr_x"), ("client_id", "cli_x")],
        },
        addition: true,
        summary: "OAuth token revocation (RFC 7009): a refresh token ends its grant, an access token itself",
        success: Success {
            status: 200,
            description: "revoked, or there was no such token",
            shape: Shape::Empty,
        },
        errors: &[400, 401],
    },
    Route {
        method: Method::GET,
        path: site::paths::METADATA,
        build: Build::Unit(Endpoint::OAuthMetadata),
        surface: Surface::OAuth,
        scope: None,
        query: &[],
        body: BodyKind::None,
        addition: true,
        summary: "OAuth authorization server metadata (RFC 8414)",
        success: Success {
            status: 200,
            description: "the metadata",
            shape: Shape::Bare("OAuthMetadata"),
        },
        errors: &[],
    },
    // The site for browsers: HTML and forms, a session cookie; not in the OpenAPI document.
    site_row(
        Method::GET,
        site::paths::HOME,
        Build::Unit(Endpoint::Home),
        BodyKind::None,
        "the home page: what this server is, where to go",
    ),
    site_row(
        Method::GET,
        site::paths::ACCOUNT,
        Build::Unit(Endpoint::Account),
        BodyKind::None,
        "the key-management site: tokens, OAuth clients, grants (the sign-in form when signed out)",
    ),
    site_row(
        Method::POST,
        site::paths::SIGN_IN,
        Build::Unit(Endpoint::SignIn),
        form("SignInForm"),
        "sign in with an account's name and password",
    ),
    site_row(
        Method::POST,
        site::paths::SIGN_OUT,
        Build::Unit(Endpoint::SignOut),
        form("CsrfForm"),
        "sign out",
    ),
    site_row(
        Method::POST,
        site::paths::TOKENS,
        Build::Unit(Endpoint::SiteCreateToken),
        form("TokenForm"),
        "create a personal token (shown once)",
    ),
    site_row(
        Method::POST,
        site::paths::TOKEN_REVOKE,
        Build::Token(Endpoint::SiteRevokeToken),
        form("CsrfForm"),
        "revoke a personal token",
    ),
    site_row(
        Method::POST,
        site::paths::CLIENTS,
        Build::Unit(Endpoint::SiteCreateClient),
        form("ClientForm"),
        "register an OAuth client (a confidential one's secret shown once)",
    ),
    site_row(
        Method::POST,
        site::paths::CLIENT_DELETE,
        Build::Text(Endpoint::SiteDeleteClient),
        form("CsrfForm"),
        "delete an OAuth client",
    ),
    site_row(
        Method::POST,
        site::paths::GRANT_REVOKE,
        Build::Text(Endpoint::SiteRevokeGrant),
        form("CsrfForm"),
        "revoke what the account allowed a client",
    ),
    site_row(
        Method::POST,
        site::paths::AUTHORIZE,
        Build::Unit(Endpoint::Consent),
        form("ConsentForm"),
        "the answer on the consent page: a redirect to the client with a code, or with access_denied",
    ),
];

/// An OAuth query parameter of the authorization endpoint.
const fn oauth_param(name: &'static str, description: &'static str) -> QueryParam {
    QueryParam {
        name,
        schema: || json!({"type": "string"}),
        description,
    }
}

/// A form body of the site.
const fn form(schema: &'static str) -> BodyKind {
    BodyKind::Form {
        schema,
        example: &[],
    }
}

/// A row of the site: HTML, no token.
const fn site_row(
    method: Method,
    path: &'static str,
    build: Build,
    body: BodyKind,
    summary: &'static str,
) -> Route {
    Route {
        method,
        path,
        build,
        surface: Surface::Site,
        scope: None,
        query: &[],
        body,
        addition: true,
        summary,
        success: Success {
            status: 200,
            description: "a page, or 303 to one",
            shape: Shape::Document("text/html"),
        },
        errors: &[303, 400, 401, 403, 404, 422, 429],
    }
}
/// Sample values for tests that need a path of every row.
#[cfg(test)]
pub(crate) mod samples {
    use super::*;

    /// A value of each kind, as a path segment.
    pub(crate) fn sample(kind: ParamKind) -> &'static str {
        match kind {
            ParamKind::Media => "1",
            ParamKind::Feed => "f",
            ParamKind::Episode => "pod-1",
            ParamKind::Job => "job_abcdefghijklmnopqrst",
            ParamKind::Token => "tok_abcdefghijklmnop",
            ParamKind::Subscriber => "sub_abcdefghijklmnop",
            ParamKind::Text => "t",
            ParamKind::Seq => "1",
        }
    }

    /// A path of the row's template with sample values.
    pub(crate) fn sample_path(row: &Route) -> String {
        let mut path = row.path.to_string();
        for name in row.path_params() {
            let kind = path_param(name).unwrap().kind;
            path = path.replace(&format!("{{{name}}}"), sample(kind));
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::{samples::sample_path, *};

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
        use Endpoint as E;
        use Method as M;
        let s = String::from;
        let cases: Vec<(Method, &str, Result<Endpoint, String>)> = vec![
            (
                M::POST,
                "/api/webhooks-processing",
                Ok(E::WebhooksProcessing),
            ),
            (
                M::POST,
                "/api/generate/waveform/7",
                Ok(E::GenerateWaveform(m(7))),
            ),
            (
                M::POST,
                "/api/generate/silence/7",
                Ok(E::GenerateSilence(m(7))),
            ),
            (M::GET, "/api/media", Ok(E::ListMedia)),
            (M::HEAD, "/api/media", Ok(E::ListMedia)),
            (M::POST, "/api/media", Ok(E::UploadMedia)),
            (M::GET, "/api/media/42", Ok(E::GetMedia(m(42)))),
            (M::DELETE, "/api/media/42", Ok(E::DeleteMedia(m(42)))),
            (M::POST, "/api/media/42/copy", Ok(E::CopyMedia(m(42)))),
            (M::GET, "/api/media/42/metadata", Ok(E::GetMetadata(m(42)))),
            (M::PUT, "/api/media/42/metadata", Ok(E::PutMetadata(m(42)))),
            (M::GET, "/api/feeds", Ok(E::ListFeeds)),
            (M::POST, "/api/feeds", Ok(E::CreateFeed)),
            (
                M::GET,
                "/api/feeds/my%20show",
                Ok(E::GetFeed(feed("my show"))),
            ),
            (M::GET, "/api/feeds/caf%C3%A9", Ok(E::GetFeed(feed("café")))),
            (M::PUT, "/api/feeds/x", Ok(E::UpdateFeed(feed("x")))),
            (M::DELETE, "/api/feeds/x", Ok(E::DeleteFeed(feed("x")))),
            (M::GET, "/api/feed/x/shows", Ok(E::ListEpisodes(feed("x")))),
            (M::POST, "/api/feed/x/show", Ok(E::CreateEpisode(feed("x")))),
            (
                M::GET,
                "/api/feed/x/show/pod-3",
                Ok(E::GetEpisode(feed("x"), e(3))),
            ),
            (
                M::PUT,
                "/api/feed/x/show/pod-3",
                Ok(E::UpdateEpisode(feed("x"), e(3))),
            ),
            (
                M::DELETE,
                "/api/feed/x/show/pod-3",
                Ok(E::DeleteEpisode(feed("x"), e(3))),
            ),
            (
                M::POST,
                "/api/feed/x/show/pod-3/copy",
                Ok(E::CopyEpisode(feed("x"), e(3))),
            ),
            (M::GET, "/api/media/42/waveform", Ok(E::GetWaveform(m(42)))),
            (M::GET, "/api/media/42/silence", Ok(E::GetSilence(m(42)))),
            (
                M::GET,
                "/api/jobs/job_abcdefghijklmnopqrst",
                Ok(E::GetJob("job_abcdefghijklmnopqrst".parse().unwrap())),
            ),
            (M::GET, "/api/webhooks/wh_1", Ok(E::GetWebhook(s("wh_1")))),
            (
                M::POST,
                "/api/webhooks/wh_1/deliveries/9/redeliver",
                Ok(E::Redeliver(s("wh_1"), 9)),
            ),
            (M::GET, "/api/stats", Ok(E::StatsAccount)),
            (
                M::GET,
                "/api/stats/feeds/x/shows/pod-3",
                Ok(E::StatsEpisode(feed("x"), e(3))),
            ),
            (M::GET, "/api/openapi.json", Ok(E::OpenApi)),
            (M::GET, "/feeds/my%20show/rss", Ok(E::Rss(feed("my show")))),
            (
                M::HEAD,
                "/media/alice/b1/a%20b.mp3",
                Ok(E::Download(s("alice"), s("b1"), s("a b.mp3"))),
            ),
            (
                M::GET,
                "/chapters/alice/b1.json",
                Ok(E::Chapters(s("alice"), s("b1"))),
            ),
            (M::GET, "/podcasts/show", Ok(E::PodcastPage(feed("show")))),
            (
                M::GET,
                "/podcasts/show/pod-7",
                Ok(E::EpisodePage(feed("show"), e(7))),
            ),
            (M::GET, "/", Ok(E::Home)),
            (M::GET, "/account", Ok(E::Account)),
            (
                M::POST,
                "/account/tokens/tok_abcdefghijklmnop/revoke",
                Ok(E::SiteRevokeToken("tok_abcdefghijklmnop".parse().unwrap())),
            ),
            (M::POST, "/account/tokens/tok_1/revoke", Err(s("404"))),
            (M::GET, "/oauth/authorize", Ok(E::Authorize)),
            (M::POST, "/oauth/authorize", Ok(E::Consent)),
            (M::POST, "/oauth/token", Ok(E::OAuthToken)),
            (
                M::GET,
                "/.well-known/oauth-authorization-server",
                Ok(E::OAuthMetadata),
            ),
            (
                M::DELETE,
                "/api/tokens/tok_abcdefghijklmnop",
                Ok(E::RevokeToken("tok_abcdefghijklmnop".parse().unwrap())),
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

    /// The position of a variant; the match has no wildcard, so a new variant must be added
    /// here, and the test below then wants a row for it.
    fn ordinal(e: &Endpoint) -> usize {
        use Endpoint as E;
        match e {
            E::WebhooksProcessing => 0,
            E::GenerateWaveform(_) => 1,
            E::GenerateSilence(_) => 2,
            E::ListMedia => 3,
            E::UploadMedia => 4,
            E::GetMedia(_) => 5,
            E::DeleteMedia(_) => 6,
            E::CopyMedia(_) => 7,
            E::GetMetadata(_) => 8,
            E::PutMetadata(_) => 9,
            E::ListFeeds => 10,
            E::CreateFeed => 11,
            E::GetFeed(_) => 12,
            E::UpdateFeed(_) => 13,
            E::DeleteFeed(_) => 14,
            E::ListEpisodes(_) => 15,
            E::CreateEpisode(_) => 16,
            E::GetEpisode(..) => 17,
            E::UpdateEpisode(..) => 18,
            E::DeleteEpisode(..) => 19,
            E::CopyEpisode(..) => 20,
            E::GetWaveform(_) => 21,
            E::GetSilence(_) => 22,
            E::GetJob(_) => 23,
            E::ListWebhooks => 24,
            E::CreateWebhook => 25,
            E::GetWebhook(_) => 26,
            E::DeleteWebhook(_) => 27,
            E::WebhookDeliveries(_) => 28,
            E::Redeliver(..) => 29,
            E::StatsAccount => 30,
            E::StatsFeed(_) => 31,
            E::StatsEpisode(..) => 32,
            E::OpenApi => 33,
            E::Rss(_) => 34,
            E::Download(..) => 35,
            E::Chapters(..) => 36,
            E::PodcastPage(_) => 37,
            E::EpisodePage(..) => 38,
            E::UpdateMedia(_) => 39,
            E::ImportFeed => 40,
            E::ListTokens => 41,
            E::CreateToken => 42,
            E::RevokeToken(_) => 43,
            E::Authorize => 44,
            E::Consent => 45,
            E::OAuthToken => 46,
            E::OAuthRevoke => 47,
            E::OAuthMetadata => 48,
            E::Home => 49,
            E::Account => 50,
            E::SignIn => 51,
            E::SignOut => 52,
            E::SiteCreateToken => 53,
            E::SiteRevokeToken(_) => 54,
            E::SiteCreateClient => 55,
            E::SiteDeleteClient(_) => 56,
            E::SiteRevokeGrant(_) => 57,
            E::ListSubscribers(_) => 58,
            E::AddSubscriber(_) => 59,
            E::RemoveSubscriber(..) => 60,
            E::PrivateRss(..) => 61,
            E::PrivateDownload(..) => 62,
            E::StatsCsv => 63,
        }
    }
    const VARIANTS: usize = 64;

    #[test]
    fn every_row_agrees_with_its_constructor_and_routes_to_itself() {
        for row in ROUTES {
            let kinds: Vec<ParamKind> = row
                .path_params()
                .map(|name| {
                    path_param(name)
                        .unwrap_or_else(|| panic!("{}: unknown parameter {name}", row.path))
                        .kind
                })
                .collect();
            assert_eq!(kinds, row.build.kinds(), "{} {}", row.method, row.path);
            let (found, _) = route(&row.method, &sample_path(row)).unwrap();
            assert!(std::ptr::eq(found, row), "{} {}", row.method, row.path);
            assert_eq!(
                row.scope.is_none(),
                row.surface != Surface::Api || row.path == "/api/openapi.json",
                "{}: only the public side and the document go without a token",
                row.path
            );
        }
    }

    #[test]
    fn every_endpoint_has_exactly_one_row() {
        let mut rows = [0; VARIANTS];
        for row in ROUTES {
            let (_, endpoint) = route(&row.method, &sample_path(row)).unwrap();
            rows[ordinal(&endpoint)] += 1;
        }
        for (ordinal, count) in rows.iter().enumerate() {
            assert_eq!(*count, 1, "endpoint number {ordinal} has {count} rows");
        }
    }

    #[test]
    fn no_two_rows_of_one_method_share_a_path() {
        for (i, a) in ROUTES.iter().enumerate() {
            for b in &ROUTES[i + 1..] {
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
    fn bodies_examples_and_queries_are_well_formed() {
        for row in ROUTES {
            if let BodyKind::Json { example, .. } = row.body {
                let parsed: Value = serde_json::from_str(example)
                    .unwrap_or_else(|e| panic!("{}: example {e}", row.path));
                assert!(parsed.is_object(), "{}", row.path);
            }
            for param in row.query {
                assert!((param.schema)().is_object(), "{} {}", row.path, param.name);
            }
            assert!((200..300).contains(&row.success.status), "{}", row.path);
        }
    }
}
