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
    /// An upload is larger than the configured limit
    /// ([`HostConfig::max_upload_bytes`](crate::HostConfig::max_upload_bytes)).
    #[error(
        "the upload is larger than the limit of {} for an uploaded file (see docs/configuration.md)",
        crate::error::size_text(*limit)
    )]
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
    #[error("too many failed attempts; try again in {}", wait_text(*retry_after))]
    Throttled {
        /// How long to wait.
        retry_after: std::time::Duration,
    },
    /// A request with this `Idempotency-Key` is being carried out (by this server or another):
    /// the caller sends it again after this long, and gets its answer.
    #[error(
        "a request with this Idempotency-Key is being carried out; send it again in {}",
        wait_text(*retry_after)
    )]
    InProgress {
        /// How long to wait.
        retry_after: std::time::Duration,
    },
    /// The store has no space left (a local folder's disk is full, or its quota spent): nothing
    /// of the write is kept, and the same request succeeds once there is space again.
    #[error("the store has no space left: {message}")]
    InsufficientStorage {
        /// What could not be written.
        message: String,
    },
    /// The store did not answer in time: it stalls, or this server cannot reach it. The
    /// operation may still take effect; sent again after `retry_after` with the same
    /// Idempotency-Key, it takes effect once.
    #[error(
        "the store is not answering ({message}); try again in {}",
        wait_text(*retry_after)
    )]
    Unavailable {
        /// What did not answer.
        message: String,
        /// How long to wait before trying again.
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

/// Which kind of [`Error`] an error is, without its details: a closed list, so that a frontend
/// or a test that goes through every kind (each refusal a sentence) is told by the compiler when
/// a kind is added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// [`Error::NotFound`].
    NotFound,
    /// [`Error::Forbidden`].
    Forbidden,
    /// [`Error::Unauthenticated`].
    Unauthenticated,
    /// [`Error::Invalid`].
    Invalid,
    /// [`Error::Conflict`].
    Conflict,
    /// [`Error::TooLarge`].
    TooLarge,
    /// [`Error::Interrupted`].
    Interrupted,
    /// [`Error::Throttled`].
    Throttled,
    /// [`Error::InProgress`].
    InProgress,
    /// [`Error::InsufficientStorage`].
    InsufficientStorage,
    /// [`Error::Unavailable`].
    Unavailable,
    /// [`Error::Storage`].
    Storage,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::NotFound,
        ErrorKind::Forbidden,
        ErrorKind::Unauthenticated,
        ErrorKind::Invalid,
        ErrorKind::Conflict,
        ErrorKind::TooLarge,
        ErrorKind::Interrupted,
        ErrorKind::Throttled,
        ErrorKind::InProgress,
        ErrorKind::InsufficientStorage,
        ErrorKind::Unavailable,
        ErrorKind::Storage,
    ];
}

impl Error {
    /// Its kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Forbidden { .. } => ErrorKind::Forbidden,
            Error::Unauthenticated => ErrorKind::Unauthenticated,
            Error::Invalid(_) => ErrorKind::Invalid,
            Error::Conflict { .. } => ErrorKind::Conflict,
            Error::TooLarge { .. } => ErrorKind::TooLarge,
            Error::Interrupted { .. } => ErrorKind::Interrupted,
            Error::Throttled { .. } => ErrorKind::Throttled,
            Error::InProgress { .. } => ErrorKind::InProgress,
            Error::InsufficientStorage { .. } => ErrorKind::InsufficientStorage,
            Error::Unavailable { .. } => ErrorKind::Unavailable,
            Error::Storage { .. } => ErrorKind::Storage,
        }
    }
}

impl From<object_store::Error> for Error {
    fn from(e: object_store::Error) -> Self {
        if out_of_space(&e) {
            return Error::InsufficientStorage {
                message: e.to_string(),
            };
        }
        if let Some(stalled) = cause::<crate::store::metered::Stalled>(&e) {
            return Error::Unavailable {
                message: stalled.to_string(),
                retry_after: stalled.after,
            };
        }
        if unreachable(&e) {
            return Error::Unavailable {
                message: e.to_string(),
                retry_after: std::time::Duration::from_secs(1),
            };
        }
        Error::Storage {
            message: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

/// Whether `e` says the store kept failing after the client's own retries: a 5xx answer each
/// time (SeaweedFS's gateway while its filer restarts, an S3 "slow down"). Then nothing was
/// done, or it is unknown, and trying again later is the answer (503), not a fault of
/// podhost's (500). (A store that does not answer at all is the store timeout's: `Stalled`.)
fn unreachable(e: &(dyn std::error::Error + 'static)) -> bool {
    // object_store does not export its retry error's type: its message says the status.
    std::iter::successors(Some(e), |error| error.source()).any(|error| {
        error
            .to_string()
            .contains("Server returned non-2xx status code: 5")
    })
}

/// The errors of type `T` in `e`'s chain of causes, `e` first.
fn causes<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a T> {
    std::iter::successors(Some(e), |error| error.source())
        .filter_map(|error| error.downcast_ref::<T>())
}

/// The first error of type `T` in `e`'s chain of causes, `e` included.
fn cause<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    causes(e).next()
}

/// Whether `e`, or an error it was caused by, is a file system out of space or quota (ENOSPC,
/// EDQUOT): what a local folder's full disk answers a write.
fn out_of_space(e: &(dyn std::error::Error + 'static)) -> bool {
    causes::<std::io::Error>(e).any(|io| {
        io.kind() == std::io::ErrorKind::StorageFull
            || io.kind() == std::io::ErrorKind::QuotaExceeded
    })
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

/// A wait as a refusal says it, in whole seconds and at least one (`1 second`, `30 seconds`),
/// as the `Retry-After` header gives it.
pub fn wait_text(wait: std::time::Duration) -> String {
    match wait.as_secs().max(1) {
        1 => "1 second".to_string(),
        n => format!("{n} seconds"),
    }
}

/// A number of bytes as limits are written: in KiB, MiB or GiB when it is a whole number of
/// them, else in bytes (`64 KiB`, `2 GiB`, `1000 bytes`).
pub fn size_text(n: u64) -> String {
    match n {
        n if n > 0 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n > 0 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n > 0 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        1 => "1 byte".to_string(),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a local folder's store answers a write on a full disk: object_store's error over
    /// its own, over the file system's ENOSPC (EDQUOT for a spent quota).
    #[derive(Debug, thiserror::Error)]
    #[error("unable to copy data to file: {source}")]
    struct LocalWrite {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn a_store_answering_5xx_after_the_clients_retries_is_unavailable_and_a_4xx_is_not() {
        let s3 = |message: &str| object_store::Error::Generic {
            store: "S3",
            source: message.to_string().into(),
        };
        let failing = s3(
            "Error performing POST http://s3/podhost/x?uploads= in 1.9s, after 10 retries, max_retries: 10, retry_timeout: 180s  - Server returned non-2xx status code: 500 Internal Server Error: <Error/>",
        );
        assert!(matches!(Error::from(failing), Error::Unavailable { .. }));
        let refused = s3("Server returned non-2xx status code: 403 Forbidden: <Error/>");
        assert!(matches!(Error::from(refused), Error::Storage { .. }));
    }

    #[test]
    fn a_full_disk_is_insufficient_storage_and_other_failures_are_storage_errors() {
        let store = |errno: i32| object_store::Error::Generic {
            store: "LocalFileSystem",
            source: Box::new(LocalWrite {
                source: std::io::Error::from_raw_os_error(errno),
            }),
        };
        for (errno, full) in [(28, true), (122, true), (5, false), (13, false)] {
            let error = Error::from(store(errno));
            assert_eq!(
                matches!(error, Error::InsufficientStorage { .. }),
                full,
                "errno {errno}: {error}"
            );
        }
    }
}
