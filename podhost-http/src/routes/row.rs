//! A row of the route table: everything the API, its documentation and its tests know about one
//! operation. The [`endpoints!`](super::declare) declaration fills the row's identity (its
//! operation, summary, method, path, parameters, surface and tag); the rest comes from a
//! [`Spec`] built with `const` methods.

use http::Method;
use podhost_core::{Action, Scope};
use serde_json::Value;

use super::params::PathParam;
use crate::wire::schema::SchemaRef;

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
    /// Probes for a load balancer (`/healthz`, `/readyz`): no token, no rate limit, any query
    /// parameter accepted; in the OpenAPI document.
    Ops,
}

impl Surface {
    /// Whether its routes are operations of the OpenAPI document.
    pub fn documented(self) -> bool {
        matches!(
            self,
            Surface::Api | Surface::Docs | Surface::OAuth | Surface::Ops
        )
    }

    /// Whether its requests read the latest: every write answered before them, through any
    /// server (see `RequestContext::reading_latest`). What a podcaster and their tools read
    /// does; what apps and browsers fetch of the public podcast (feeds, downloads, pages) may
    /// be as old as the catalog's refresh interval, like the caches in front of it.
    pub fn reads_latest(self) -> bool {
        match self {
            Surface::Api | Surface::Site | Surface::OAuth => true,
            Surface::Docs | Surface::Public | Surface::Page | Surface::Ops => false,
        }
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

/// The body a route reads. Its schema is a wire type's (with the example the document shows
/// and the tests send).
#[derive(Debug, Clone, Copy)]
pub enum BodyKind {
    /// None (a body sent anyway is not read).
    None,
    /// JSON of a wire type.
    Json {
        /// The wire type.
        schema: SchemaRef,
        /// Whether a body must be sent (else an empty body is `{}`).
        required: bool,
    },
    /// `application/x-www-form-urlencoded` (the OAuth endpoints; the site's forms, which are
    /// not in the document).
    Form {
        /// The wire type, for the documented forms.
        schema: Option<SchemaRef>,
    },
    /// `multipart/form-data` of a wire type: its nested fields are form fields named with
    /// brackets (`itunes[title]`).
    Multipart {
        /// The wire type.
        schema: SchemaRef,
        /// The file field the tests fill with a small WAV; `None` when they send no file.
        file: Option<&'static str>,
    },
}

impl BodyKind {
    /// The wire type of the body, when it has one.
    pub fn schema(&self) -> Option<SchemaRef> {
        match *self {
            BodyKind::None | BodyKind::Form { schema: None } => None,
            BodyKind::Json { schema, .. }
            | BodyKind::Form {
                schema: Some(schema),
            }
            | BodyKind::Multipart { schema, .. } => Some(schema),
        }
    }
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
    /// The wire type, bare.
    Bare(SchemaRef),
    /// `{"data": <the wire type>}`.
    Data(SchemaRef),
    /// `{"data": [<the wire type>]}`.
    DataList(SchemaRef),
    /// The wire type as JSON, or binary (`application/octet-stream`) when asked for.
    JsonOrBinary(SchemaRef),
    /// Any JSON object.
    AnyObject,
    /// A document of this media type (the public routes, pages, CSV).
    Document(&'static str),
}

impl Shape {
    /// The wire type of the answer, when it has one.
    pub fn schema(&self) -> Option<SchemaRef> {
        match *self {
            Shape::Bare(s) | Shape::Data(s) | Shape::DataList(s) | Shape::JsonOrBinary(s) => {
                Some(s)
            }
            Shape::Empty | Shape::AnyObject | Shape::Document(_) => None,
        }
    }
}

/// What a row says besides its identity: who may call it, what it reads and answers. Built in
/// `const` context: `Spec::token(Action::EditMedia).query(&[...]).answers(200, "...", shape)`.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// What a caller does by calling it, in the core's authorization table; `None`: no token
    /// at all.
    pub action: Option<Action>,
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
    /// What the route makes, for the document's links to the routes that use it.
    pub makes: Option<Made>,
}

/// What a route makes (a podcast, a file, an episode, a job): the path parameters that name it
/// in other routes, and where its id is in the answer (a JSON pointer). The document links the
/// route to every route whose path takes one of those parameters.
#[derive(Debug, Clone, Copy)]
pub struct Made {
    /// The path parameters that name what was made (`feed_id`; `media_id` and `id` for a file).
    pub params: &'static [&'static str],
    /// The JSON pointer of its id in the answer (`/data/id`).
    pub at: &'static str,
}

impl Spec {
    const BLANK: Spec = Spec {
        action: None,
        query: &[],
        body: BodyKind::None,
        success: Success {
            status: 200,
            description: "",
            shape: Shape::Empty,
        },
        errors: &[],
        addition: false,
        makes: None,
    };

    /// An operation of the specification that needs a token that may do `action` (its scope
    /// is the action's, [`Action::scope`]).
    pub const fn token(action: Action) -> Spec {
        let mut spec = Spec::BLANK;
        spec.action = Some(action);
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

    /// A JSON body of a wire type, sent or not.
    pub const fn json(self, schema: SchemaRef, required: bool) -> Spec {
        self.body(BodyKind::Json { schema, required })
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

    /// What it makes: the path parameters that name it, and where its id is in the answer.
    pub const fn makes(mut self, params: &'static [&'static str], at: &'static str) -> Spec {
        self.makes = Some(Made { params, at });
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
    /// What a caller does by calling it, in the core's authorization table; `None`: no token
    /// at all.
    pub action: Option<Action>,
    /// The scope a token needs (the action's; derived, never declared); `None`: no token.
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
    /// What it makes, for the document's links.
    pub makes: Option<Made>,
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

    /// The row's example request body: its `Content-Type` and bytes (JSON, a form, or a
    /// multipart form whose file field holds `file`); `None` for a row that reads no body.
    pub fn example_body(&self, file: &[u8]) -> Option<(String, Vec<u8>)> {
        let fields = |schema: Option<SchemaRef>| -> Vec<(String, String)> {
            match schema.and_then(|s| s.example()) {
                Some(Value::Object(map)) => map
                    .into_iter()
                    .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                    .collect(),
                _ => Vec::new(),
            }
        };
        match self.body {
            BodyKind::None => None,
            BodyKind::Json { schema, .. } => {
                let example = schema
                    .example()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                Some(("application/json".into(), example.to_string().into_bytes()))
            }
            BodyKind::Form { schema } => Some((
                "application/x-www-form-urlencoded".into(),
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(fields(schema))
                    .finish()
                    .into_bytes(),
            )),
            BodyKind::Multipart { schema, file: name } => {
                let boundary = "example-boundary";
                let mut body = Vec::new();
                for (field, value) in fields(Some(schema)) {
                    body.extend_from_slice(
                        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n").as_bytes(),
                    );
                }
                if let Some(name) = name {
                    body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"a.wav\"\r\n\r\n").as_bytes());
                    body.extend_from_slice(file);
                    body.extend_from_slice(b"\r\n");
                }
                body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
                Some((format!("multipart/form-data; boundary={boundary}"), body))
            }
        }
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
