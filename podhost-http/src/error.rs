//! Every error the API answers, and the one mapping from errors to statuses and bodies.

use http::{Method, StatusCode};
use podhost_core::{FieldErrors, size_text as bytes};
use serde_json::Value;

use crate::wire::errors::{ErrorBody, ValidationBody};

/// An error answer of the API.
#[derive(Debug)]
pub enum ApiError {
    /// An error of the core.
    Core(podhost_core::Error),
    /// Malformed JSON or multipart, a bad path parameter.
    BadRequest(String),
    /// No such route.
    NoRoute,
    /// The route exists for other methods.
    MethodNotAllowed(Vec<Method>),
    /// A body, or a part of it, larger than a limit: `what` passed `limit` (the answer, 413,
    /// names both).
    BodyTooLarge {
        /// What passed the limit: `the body`, `the field title`, `the form`.
        what: String,
        /// The limit it passed.
        limit: Limit,
    },
    /// Query or body validation with messages per field.
    Invalid(FieldErrors),
    /// The server has [`HttpConfig::max_in_flight`](crate::HttpConfig) requests in progress:
    /// shed, to be sent again in a second.
    Busy,
    /// A form of the answer this server does not make (oEmbed's `format=xml`).
    NotImplemented(String),
    /// Too many requests for this token; retry after this many seconds.
    RateLimited {
        /// Seconds until the window resets.
        retry_after: u64,
    },
}

/// A size limit of a request body, named in the 413 that refuses one past it (each is listed
/// in docs/configuration.md, "Size limits").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The largest JSON body, in bytes ([`HttpConfig::max_json_bytes`](crate::HttpConfig)).
    JsonBody(u64),
    /// The largest text field of a multipart form, in bytes.
    TextField(u64),
    /// The text fields of a multipart form together, in bytes.
    FormText(u64),
    /// The most fields a multipart form may have.
    FormFields(u64),
    /// The largest ActivityPub activity a fediverse inbox takes, in bytes.
    Activity(u64),
}

impl Limit {
    /// The limit's size, and what it is the limit for.
    fn described(self) -> (String, &'static str) {
        match self {
            Limit::JsonBody(n) => (bytes(n), "a JSON body"),
            Limit::TextField(n) => (bytes(n), "a multipart text field"),
            Limit::FormText(n) => (bytes(n), "the text fields of a multipart form together"),
            Limit::FormFields(n) => (format!("{n} fields"), "a multipart form"),
            Limit::Activity(n) => (bytes(n), "an ActivityPub activity"),
        }
    }
}

impl ApiError {
    /// A JSON body past `limit` bytes.
    pub fn json_too_large(limit: usize) -> ApiError {
        ApiError::BodyTooLarge {
            what: "the body".into(),
            limit: Limit::JsonBody(limit as u64),
        }
    }
}

impl From<podhost_core::Error> for ApiError {
    fn from(e: podhost_core::Error) -> Self {
        ApiError::Core(e)
    }
}

/// The status and JSON body of an error. 500 bodies are generic; the detail goes to the log.
pub fn status_and_body(error: &ApiError) -> (StatusCode, Value) {
    use podhost_core::Error as E;
    let message = |status: StatusCode, text: String| {
        let body = ErrorBody { message: &text };
        (status, serde_json::to_value(body).unwrap_or(Value::Null))
    };
    match error {
        ApiError::Core(e) => match e {
            E::NotFound { .. } => message(StatusCode::NOT_FOUND, e.to_string()),
            E::Forbidden { .. } => message(StatusCode::FORBIDDEN, e.to_string()),
            E::Unauthenticated => message(StatusCode::UNAUTHORIZED, "Unauthenticated.".into()),
            E::Invalid(fields) => invalid(fields),
            E::Conflict { .. } | E::InProgress { .. } => {
                message(StatusCode::CONFLICT, e.to_string())
            }
            E::TooLarge { .. } => message(StatusCode::PAYLOAD_TOO_LARGE, e.to_string()),
            E::Interrupted { .. } => message(StatusCode::BAD_REQUEST, e.to_string()),
            E::Throttled { .. } => message(StatusCode::TOO_MANY_REQUESTS, e.to_string()),
            E::InsufficientStorage { .. } => {
                tracing::error!(error = %e, "the store is full");
                message(StatusCode::INSUFFICIENT_STORAGE, e.to_string())
            }
            E::Unavailable { .. } => {
                tracing::warn!(error = %e, "the store is not answering");
                message(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
            }
            other => {
                tracing::error!(error = %other, "internal error");
                message(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error; the server log has the details".into(),
                )
            }
        },
        ApiError::BadRequest(text) => message(StatusCode::BAD_REQUEST, text.clone()),
        ApiError::NotImplemented(text) => message(StatusCode::NOT_IMPLEMENTED, text.clone()),
        ApiError::NoRoute => message(StatusCode::NOT_FOUND, "no such endpoint".into()),
        ApiError::MethodNotAllowed(allowed) => {
            let names: Vec<_> = allowed.iter().map(Method::as_str).collect();
            message(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("this endpoint answers {}", names.join(", ")),
            )
        }
        ApiError::BodyTooLarge { what, limit } => {
            let (size, of) = limit.described();
            let past = match limit {
                Limit::FormFields(_) => "has more fields than",
                Limit::FormText(_) => "are larger than",
                _ => "is larger than",
            };
            message(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("{what} {past} the limit of {size} for {of} (see docs/configuration.md)"),
            )
        }
        ApiError::Invalid(fields) => invalid(fields),
        ApiError::RateLimited { retry_after } => message(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "too many requests; try again in {}",
                podhost_core::wait_text(std::time::Duration::from_secs(*retry_after))
            ),
        ),
        ApiError::Busy => message(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server has too many requests in progress; try again in 1 second".into(),
        ),
    }
}

fn invalid(fields: &FieldErrors) -> (StatusCode, Value) {
    let first = fields
        .fields()
        .iter()
        .next()
        .and_then(|(field, messages)| messages.first().map(|m| format!("{field}: {m}")))
        .unwrap_or_else(|| "the input is invalid".into());
    let body = ValidationBody {
        message: &first,
        errors: fields.fields(),
    };
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        serde_json::to_value(body).unwrap_or(Value::Null),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_413_names_what_passed_which_limit() {
        let field = ApiError::BodyTooLarge {
            what: "the field title".into(),
            limit: Limit::TextField(64 << 10),
        };
        assert_eq!(
            status_and_body(&field).1["message"],
            "the field title is larger than the limit of 64 KiB for a multipart text field \
             (see docs/configuration.md)"
        );
        assert_eq!(
            status_and_body(&ApiError::json_too_large(1 << 20)).1["message"],
            "the body is larger than the limit of 1 MiB for a JSON body (see docs/configuration.md)"
        );
        assert_eq!(bytes(1000), "1000 bytes");
        assert_eq!(bytes(2 << 30), "2 GiB");
        assert_eq!(
            podhost_core::Error::TooLarge { limit: 2 << 30 }.to_string(),
            "the upload is larger than the limit of 2 GiB for an uploaded file (see docs/configuration.md)"
        );
    }

    #[test]
    fn each_error_has_its_status() {
        let mut fields = FieldErrors::default();
        fields.add("page.size", "the page size may not be greater than 500");
        let cases: Vec<(ApiError, u16)> = vec![
            (podhost_core::Error::Unauthenticated.into(), 401),
            (ApiError::BadRequest("x".into()), 400),
            (ApiError::NoRoute, 404),
            (ApiError::MethodNotAllowed(vec![Method::GET]), 405),
            (ApiError::json_too_large(10), 413),
            (ApiError::Invalid(fields.clone()), 422),
            (ApiError::RateLimited { retry_after: 3 }, 429),
            (ApiError::Busy, 503),
            (
                podhost_core::Error::InProgress {
                    retry_after: std::time::Duration::from_secs(4),
                }
                .into(),
                409,
            ),
            (
                podhost_core::Error::InsufficientStorage {
                    message: "no space left on device".into(),
                }
                .into(),
                507,
            ),
            (
                podhost_core::Error::Unavailable {
                    message: "the store did not answer a put within 10s".into(),
                    retry_after: std::time::Duration::from_secs(10),
                }
                .into(),
                503,
            ),
            (
                podhost_core::Error::Storage {
                    message: "disk on fire at /secret/path".into(),
                    source: None,
                }
                .into(),
                500,
            ),
        ];
        for (error, status) in cases {
            let (got, body) = status_and_body(&error);
            assert_eq!(got.as_u16(), status, "{error:?}");
            assert!(body["message"].is_string());
            assert!(
                !body.to_string().contains("/secret/path"),
                "500s hide details"
            );
        }
        let (_, body) = status_and_body(&ApiError::Invalid(fields));
        assert_eq!(
            body["errors"]["page.size"][0],
            "the page size may not be greater than 500"
        );
        let (_, body) = status_and_body(&podhost_core::Error::Unauthenticated.into());
        assert_eq!(body, serde_json::json!({"message": "Unauthenticated."}));
    }
}
