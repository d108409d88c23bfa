//! A row of the route table: everything the API, its documentation and its tests know about one
//! operation. The [`endpoints!`](super::declare) declaration fills the row's identity (its
//! operation, summary, method, path, parameters, surface and tag); the rest comes from a
//! [`Spec`] built with `const` methods.

use http::Method;
use podhost_core::Scope;
use serde_json::Value;

use super::params::PathParam;

/// Who a route is for and how it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The REST API: a bearer token with the row's scope, JSON answers, in the OpenAPI
    /// document, unknown query parameters refused.
    Api,
    /// The API's own documentation (the OpenAPI document, the reference page): no token, in
    /// the OpenAPI document, unknown query parameters refused.
    Docs,
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

impl Surface {
    /// Whether its routes are operations of the OpenAPI document.
    pub fn documented(self) -> bool {
        matches!(self, Surface::Api | Surface::Docs | Surface::OAuth)
    }

    /// Whether its routes refuse query parameters they do not know (422).
    pub fn strict_query(self) -> bool {
        matches!(self, Surface::Api | Surface::Docs)
    }
}

/// A query parameter a route knows.
#[derive(Debug, Clone, Copy)]
pub struct QueryParam {
    /// Its name, e.g. `page[size]`.
    pub name: &'static str,
    /// Its OpenAPI schema.
    pub schema: fn() -> Value,
    /// Its description.
    pub description: &'static str,
}

/// The body a route reads.
#[derive(Debug, Clone, Copy)]
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
#[derive(Debug, Clone, Copy)]
pub struct Success {
    /// Its status.
    pub status: u16,
    /// Its description.
    pub description: &'static str,
    /// Its body.
    pub shape: Shape,
}

/// The body of a successful answer.
#[derive(Debug, Clone, Copy)]
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
    /// A document of this media type (the public routes, pages, CSV).
    Document(&'static str),
}

/// What a row says besides its identity: who may call it, what it reads and answers. Built in
/// `const` context: `Spec::token(Scope::Media).query(&[...]).answers(200, "...", shape)`.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The scope a token needs; `None`: no token at all.
    pub scope: Option<Scope>,
    /// The query parameters it knows.
    pub query: &'static [QueryParam],
    /// The body it reads, with an example.
    pub body: BodyKind,
    /// Its successful answer.
    pub success: Success,
    /// Statuses it may answer besides the ones every route of its kind may.
    pub errors: &'static [u16],
    /// Whether the route is podhost's addition to the specification.
    pub addition: bool,
}

impl Spec {
    const BLANK: Spec = Spec {
        scope: None,
        query: &[],
        body: BodyKind::None,
        success: Success {
            status: 200,
            description: "",
            shape: Shape::Empty,
        },
        errors: &[],
        addition: false,
    };

    /// An operation of the specification that needs a token with `scope`.
    pub const fn token(scope: Scope) -> Spec {
        let mut spec = Spec::BLANK;
        spec.scope = Some(scope);
        spec
    }

    /// A route without a token, podhost's own (not in the specification).
    pub const fn open() -> Spec {
        let mut spec = Spec::BLANK;
        spec.addition = true;
        spec
    }

    /// Marks the route as podhost's addition to the specification.
    pub const fn addition(mut self) -> Spec {
        self.addition = true;
        self
    }

    /// The query parameters it knows.
    pub const fn query(mut self, query: &'static [QueryParam]) -> Spec {
        self.query = query;
        self
    }

    /// The body it reads.
    pub const fn body(mut self, body: BodyKind) -> Spec {
        self.body = body;
        self
    }

    /// A JSON body of `schema` (sent or not), with an example.
    pub const fn json(self, schema: &'static str, required: bool, example: &'static str) -> Spec {
        self.body(BodyKind::Json {
            schema,
            required,
            example,
        })
    }

    /// Its successful answer.
    pub const fn answers(mut self, status: u16, description: &'static str, shape: Shape) -> Spec {
        self.success = Success {
            status,
            description,
            shape,
        };
        self
    }

    /// Statuses it may answer besides the ones every route of its kind may.
    pub const fn errors(mut self, errors: &'static [u16]) -> Spec {
        self.errors = errors;
        self
    }
}

/// One route: everything the API, its documentation and its tests know about it.
#[derive(Debug)]
pub struct Route {
    /// The operation's name: its variant in the group's endpoint enum (`ListMedia`); the
    /// OpenAPI `operationId` is its snake case.
    pub operation: &'static str,
    /// What it does, in a few words: the variant's doc comment.
    pub summary: &'static str,
    /// The method (`HEAD` is derived from `GET`).
    pub method: Method,
    /// The path template as the OpenAPI document writes it, e.g. `/api/media/{media_id}`.
    pub path: &'static str,
    /// The template's parameters, in order, with their kinds.
    pub params: &'static [PathParam],
    /// Who the route is for.
    pub surface: Surface,
    /// The group it belongs to: the OpenAPI tag.
    pub tag: &'static str,
    /// The scope a token needs; `None`: no token at all.
    pub scope: Option<Scope>,
    /// The query parameters it knows (on [`Surface::strict_query`] routes any other is
    /// refused with 422).
    pub query: &'static [QueryParam],
    /// The body it reads, with an example.
    pub body: BodyKind,
    /// Whether the route is podhost's addition to the specification.
    pub addition: bool,
    /// Its successful answer.
    pub success: Success,
    /// Statuses it may answer besides the ones every route of its kind may.
    pub errors: &'static [u16],
}

impl Route {
    /// The names of the template's path parameters, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.params.iter().map(|p| p.name)
    }

    /// Whether a token is needed.
    pub fn authenticated(&self) -> bool {
        self.scope.is_some()
    }

    /// Whether the route knows the query parameter `name`.
    pub fn knows(&self, name: &str) -> bool {
        self.query.iter().any(|q| q.name == name)
    }

    /// The summary, trimmed of the doc comment's leading spaces.
    pub fn summary(&self) -> &'static str {
        self.summary.trim()
    }

    /// The OpenAPI `operationId`: the operation's name in snake case (`list_media`).
    pub fn operation_id(&self) -> String {
        let mut id = String::new();
        for (i, c) in self.operation.char_indices() {
            if c.is_ascii_uppercase() {
                if i > 0 {
                    id.push('_');
                }
                id.push(c.to_ascii_lowercase());
            } else {
                id.push(c);
            }
        }
        id
    }
}

/// The rows of one group of endpoints (one enum, one handler, one OpenAPI tag).
#[derive(Debug)]
pub struct Table {
    /// The group's name: the OpenAPI tag.
    pub tag: &'static str,
    /// What the group is about: the enum's doc comment, the tag's description.
    pub description: &'static str,
    /// Who its routes are for.
    pub surface: Surface,
    /// Its routes.
    pub rows: &'static [Route],
}
