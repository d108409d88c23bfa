//! Failures: the one mapping of errors to codes and exit codes, and their one-line reports.
//!
//! A failure is reported as one line on stderr, `podhost: MESSAGE`, or with `--json` as
//! `{"error": {"message": MESSAGE, "code": CODE}}`. The exit code follows the code: 1 for an
//! unexpected failure, 2 for bad input, 3 for not found, 4 for a conflict, 75 (sysexits'
//! `EX_TEMPFAIL`) when the store did not answer in time and the same command may be run again.

use std::process::ExitCode;

use serde_json::json;

/// What kind of failure it was: the `code` of a JSON error and the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The command line itself was wrong (an unknown flag, a missing `--user`): exit 2.
    Usage,
    /// A value broke a rule (a title too long, a file that cannot be read): exit 2.
    Invalid,
    /// The object does not exist (for this user): exit 3.
    NotFound,
    /// A name or id is taken, or the object is in use or changed meanwhile: exit 4.
    Conflict,
    /// The store did not answer in time: the same command may be run again later: exit 75.
    Unavailable,
    /// A background job ended with an error: exit 1.
    JobFailed,
    /// Anything else: the store failed, a bug: exit 1.
    Internal,
}

impl Code {
    /// The `code` of a JSON error.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Usage => "usage",
            Code::Invalid => "invalid",
            Code::NotFound => "not_found",
            Code::Conflict => "conflict",
            Code::Unavailable => "unavailable",
            Code::JobFailed => "job_failed",
            Code::Internal => "internal",
        }
    }

    /// The process's exit code.
    pub fn exit_code(self) -> u8 {
        match self {
            Code::Usage | Code::Invalid => 2,
            Code::NotFound => 3,
            Code::Conflict => 4,
            Code::Unavailable => 75,
            Code::JobFailed | Code::Internal => 1,
        }
    }

    /// The code of a core error: the one place where core errors meet exit codes.
    pub fn of_core(e: &podhost_core::Error) -> Code {
        use podhost_core::Error as E;
        match e {
            E::Invalid(_) | E::TooLarge { .. } => Code::Invalid,
            E::NotFound { .. } => Code::NotFound,
            E::Conflict { .. } | E::InProgress { .. } => Code::Conflict,
            E::Unavailable { .. } => Code::Unavailable,
            // The CLI acts as the owner: a refusal of scope or credentials is not the user's
            // input, and neither is an interrupted read of a local file or a store failure.
            _ => Code::Internal,
        }
    }
}

/// A failure the command line found itself, with the words that say how to fix it.
#[derive(Debug)]
pub struct Failure {
    /// What kind of failure.
    pub code: Code,
    /// One line: what was wrong and how to fix it.
    pub message: String,
}

impl Failure {
    /// A failure of kind `code`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// Bad input.
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure::new(Code::Invalid, message)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The code and the one-line message of any error a command returned.
pub fn classify(e: &anyhow::Error) -> (Code, String) {
    let code = if let Some(failure) = e.downcast_ref::<Failure>() {
        failure.code
    } else if let Some(core) = e.downcast_ref::<podhost_core::Error>() {
        Code::of_core(core)
    } else if e.downcast_ref::<podhost_core::UnknownScope>().is_some() {
        Code::Invalid
    } else {
        Code::Internal
    };
    // `{:#}` joins the causes on one line; a message never spans lines.
    let message = format!("{e:#}").replace('\n', " ");
    (code, message)
}

/// Reports a failure on stderr (as JSON with `--json`) and returns its exit code. A closed
/// output pipe (`podhost ... | head`) is not a failure.
pub fn report(e: &anyhow::Error, json: bool) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    let (code, message) = classify(e);
    if json {
        let value = json!({"error": {"message": message, "code": code.as_str()}});
        eprintln!("{value}");
    } else {
        eprintln!("podhost: {message}");
    }
    ExitCode::from(code.exit_code())
}

/// Reports a command line clap refused, on one line like every failure (clap's first line,
/// the values it would take and its tip); `--help` and `--version` print and succeed.
pub fn report_usage(e: &clap::Error, json: bool) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let message = match e.kind() {
        clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "a subcommand is required".to_string()
        }
        _ => {
            let rendered = e.render().to_string();
            let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("invalid command line");
            let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
            let mut listing = message.ends_with(':');
            for line in lines {
                if line.starts_with("Usage:") {
                    listing = false;
                } else if listing {
                    // "the following required arguments were not provided:" and their names.
                    message.push(' ');
                    message.push_str(line);
                } else if line.starts_with("[possible values") || line.starts_with("tip:") {
                    message.push_str("; ");
                    message.push_str(line.trim_start_matches('[').trim_end_matches(']'));
                }
            }
            message
        }
    };
    let message = format!("{message} (see `podhost --help`)");
    if json {
        eprintln!(
            "{}",
            json!({"error": {"message": message, "code": Code::Usage.as_str()}})
        );
    } else {
        eprintln!("podhost: {message}");
    }
    ExitCode::from(Code::Usage.exit_code())
}

/// True when the error is a closed output pipe (`podhost ... | head`): not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Turns a core `NotFound` into a failure that says where to look, for the user `user` (and
/// the podcast `feed`, when the object is an episode of one).
pub(crate) fn not_found_hint(
    e: podhost_core::Error,
    user: &str,
    feed: Option<&str>,
) -> anyhow::Error {
    let podhost_core::Error::NotFound { what, id } = &e else {
        return e.into();
    };
    let how = match *what {
        "media" => format!("list them with `podhost media list --user {user}`"),
        "feed" => format!("list them with `podhost feed list --user {user}`"),
        "episode" => format!(
            "list them with `podhost episode list --user {user} --feed {}`",
            feed.map_or("FEED".to_string(), shell_word)
        ),
        "webhook" => format!("list them with `podhost webhook list --user {user}`"),
        "token" => format!("list them with `podhost token list --user {user}`"),
        "event" => format!(
            "list the deliveries with `podhost webhook deliveries --user {user} WEBHOOK_ID`"
        ),
        "job" => format!("ask for the job again (`podhost waveform MEDIA_ID --user {user}`)"),
        _ => return e.into(),
    };
    let id = if *what == "feed" {
        shell_word(id)
    } else {
        id.clone()
    };
    Failure::new(Code::NotFound, format!("no {what} {id} for {user}: {how}")).into()
}

/// `word` as a shell would need it typed: quoted when it holds anything but safe characters.
pub(crate) fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:/@+=".contains(c));
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
