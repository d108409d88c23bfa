//! Every error the API answers, and the one mapping from errors to statuses and bodies.

use http::{Method, StatusCode};
use podhost_core::FieldErrors;
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
    /// A body larger than allowed for this route.
    BodyTooLarge(u64),
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
        ApiError::BodyTooLarge(limit) => message(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is larger than the limit of {limit} bytes"),
        ),
        ApiError::Invalid(fields) => invalid(fields),
        ApiError::RateLimited { retry_after } => message(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many requests; try again in {retry_after} seconds"),
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
    fn each_error_has_its_status() {
        let mut fields = FieldErrors::default();
        fields.add("page.size", "the page size may not be greater than 500");
        let cases: Vec<(ApiError, u16)> = vec![
            (podhost_core::Error::Unauthenticated.into(), 401),
            (ApiError::BadRequest("x".into()), 400),
            (ApiError::NoRoute, 404),
            (ApiError::MethodNotAllowed(vec![Method::GET]), 405),
            (ApiError::BodyTooLarge(10), 413),
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
