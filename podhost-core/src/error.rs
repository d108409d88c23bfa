//! The error type of every core operation.

use std::collections::BTreeMap;

use crate::scope::Scope;

/// Result of a core operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong in a core operation.
///
/// Frontends map each variant to their own vocabulary (an HTTP status, an exit code) in one
/// place. Messages are lowercase and say what to do where there is something to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The object does not exist for this caller (another account's objects never do).
    #[error("{what} {id} not found")]
    NotFound {
        /// The kind of object, e.g. `episode`.
        what: &'static str,
        /// The identifier that was looked up.
        id: String,
    },
    /// The caller is authenticated but may not do this (it lacks the scope, or only the
    /// account's owner may).
    #[error("{message}")]
    Forbidden {
        /// What is missing, in words.
        message: String,
    },
    /// No valid credentials: the token is missing, unknown or revoked.
    #[error("unauthenticated")]
    Unauthenticated,
    /// The input breaks a rule; one or more messages per field.
    #[error("{0}")]
    Invalid(FieldErrors),
    /// The operation conflicts with the current state (a taken id, a media still in use, a
    /// version that changed meanwhile).
    #[error("{message}")]
    Conflict {
        /// What conflicts, in words.
        message: String,
    },
    /// An upload is larger than the configured limit.
    #[error("the upload is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The caller's byte stream failed before it ended (a truncated upload); nothing was stored.
    #[error("the upload was interrupted: {reason}")]
    Interrupted {
        /// Why the stream ended early.
        reason: String,
    },
    /// Too many failed attempts (signing in, authenticating): the caller must wait this long.
    #[error("too many failed attempts; try again in {} seconds", .retry_after.as_secs().max(1))]
    Throttled {
        /// How long to wait.
        retry_after: std::time::Duration,
    },
    /// A request with this `Idempotency-Key` is being carried out (by this server or another):
    /// the caller sends it again after this long, and gets its answer.
    #[error(
        "a request with this Idempotency-Key is being carried out; send it again in {} seconds",
        .retry_after.as_secs().max(1)
    )]
    InProgress {
        /// How long to wait.
        retry_after: std::time::Duration,
    },
    /// The object store failed or holds something unreadable. Nothing partial is visible.
    #[error("storage error: {message}")]
    Storage {
        /// What failed.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

impl Error {
    pub(crate) fn not_found(what: &'static str, id: impl ToString) -> Self {
        Error::NotFound {
            what,
            id: id.to_string(),
        }
    }

    pub(crate) fn missing_scope(needed: Scope) -> Self {
        Error::Forbidden {
            message: format!("this operation needs the scope {needed}"),
        }
    }

    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Error::Conflict {
            message: message.into(),
        }
    }

    /// A validation error of one field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = FieldErrors::default();
        errors.add(field, message);
        Error::Invalid(errors)
    }

    pub(crate) fn storage(message: impl Into<String>) -> Self {
        Error::Storage {
            message: message.into(),
            source: None,
        }
    }
}

impl From<object_store::Error> for Error {
    fn from(e: object_store::Error) -> Self {
        Error::Storage {
            message: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

/// Validation messages keyed by field name (`title`, `itunes.season`, `page.size`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(BTreeMap<String, Vec<String>>);

impl FieldErrors {
    /// Records one message for a field.
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_default().push(message.into());
    }

    /// True when no field has a message.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The messages, by field, in field order.
    pub fn fields(&self) -> &BTreeMap<String, Vec<String>> {
        &self.0
    }

    /// `Ok(())` when empty, else the errors as [`Error::Invalid`].
    pub fn into_result(self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(self))
        }
    }
}

impl std::fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (field, messages) in &self.0 {
            for m in messages {
                if !first {
                    f.write_str("; ")?;
                }
                first = false;
                write!(f, "{field}: {m}")?;
            }
        }
        if first {
            f.write_str("invalid input")?;
        }
        Ok(())
    }
}
