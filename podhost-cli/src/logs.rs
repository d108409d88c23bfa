//! Where log lines go: stderr, through a buffer that a thread of its own writes out every
//! 100 ms (or when 64 KiB wait). Writing a line costs a copy into the buffer under a lock: no
//! system call and no wake-up of another thread per line (an access line a request at 90,000
//! requests a second cost 15 % of a feed 304's throughput when each line was written at once,
//! and 10 % when each woke a writer thread). A line reaches stderr at most 100 ms after it is
//! made; what waits is written when the program ends (not when it is killed with SIGKILL).
//!
//! Which lines are written ([`filter`]): podhost's own from INFO, other crates' (libraries
//! podhost uses) from WARN, unless `--log-libraries` or a filter in `PODHOST_LOG` or
//! `RUST_LOG` says otherwise. A line a library wrote through the `log` crate is written under
//! its own target, without the source file and line `log` attaches (the build machine's
//! paths).

use podhost_core::lock::Locked;
use std::{
    io::{self, BufWriter, Stderr, Write},
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

/// The targets of podhost's own lines: every target starting with `podhost` (`podhost`,
/// `podhost::access`, `podhost_core::…`, `podhost_http::…`, `podhost_cli::…`).
const OWN: &str = "podhost";

/// The filter of log lines: `PODHOST_LOG` when set, else `RUST_LOG` as it is, else
/// podhost's lines from INFO and every other crate's from WARN (from INFO when `libraries`).
///
/// `PODHOST_LOG` takes a tracing filter (`debug`, `info,podhost::access=warn`); a bare level in
/// it is podhost's level, other crates' staying at WARN unless `libraries` (with it, the level
/// is everyone's); directives naming a target are kept as they are (`hyper=debug`).
pub fn filter(libraries: bool) -> tracing_subscriber::EnvFilter {
    let directives = match std::env::var("PODHOST_LOG") {
        Ok(podhost_log) if !podhost_log.trim().is_empty() => directives(&podhost_log, libraries),
        _ => match std::env::var("RUST_LOG") {
            Ok(rust_log) if !rust_log.trim().is_empty() => rust_log,
            _ => directives("info", libraries),
        },
    };
    tracing_subscriber::EnvFilter::try_new(&directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(self::directives("info", libraries)))
}

/// The directives of `PODHOST_LOG`'s `filter`: a bare level made podhost's, with other crates at
/// WARN first; with `libraries`, the filter as it is, other crates at INFO unless it gives a
/// bare level (everyone's then).
fn directives(filter: &str, libraries: bool) -> String {
    let is_level = |part: &str| {
        part.parse::<tracing_subscriber::filter::LevelFilter>()
            .is_ok()
    };
    let parts: Vec<&str> = filter
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    // Everyone's level first: WARN, or with `libraries` the filter's own level, else INFO.
    let everyone = match libraries {
        false => "warn",
        true => match parts.iter().any(|part| is_level(part)) {
            true => "",
            false => "info",
        },
    };
    std::iter::once(everyone.to_string())
        .filter(|level| !level.is_empty())
        .chain(
            parts
                .into_iter()
                .map(|part| match is_level(part) && !libraries {
                    true => format!("{OWN}={part}"),
                    false => part.to_string(),
                }),
        )
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::directives;

    #[test]
    fn a_bare_level_is_podhosts_and_libraries_stay_at_warn_unless_asked() {
        assert_eq!(directives("info", false), "warn,podhost=info");
        assert_eq!(directives("debug", false), "warn,podhost=debug");
        assert_eq!(
            directives("info,podhost::access=warn", false),
            "warn,podhost=info,podhost::access=warn"
        );
        assert_eq!(directives("hyper=debug", false), "warn,hyper=debug");
        assert_eq!(directives("info", true), "info");
        assert_eq!(directives("podhost=debug", true), "info,podhost=debug");
    }
}

/// The target a line is written under: a `log` record's own (`log.target`), else the event's.
fn target_of<'a>(event: &tracing::Event<'a>) -> std::borrow::Cow<'a, str> {
    struct LogTarget(Option<String>);
    impl tracing::field::Visit for LogTarget {
        fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
            if field.name() == "log.target" {
                self.0 = Some(value.to_string());
            }
        }
        fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
    }
    let meta = event.metadata();
    if meta.fields().field("log.target").is_none() {
        return std::borrow::Cow::Borrowed(meta.target());
    }
    let mut found = LogTarget(None);
    event.record(&mut found);
    match found.0 {
        Some(target) => std::borrow::Cow::Owned(target),
        None => std::borrow::Cow::Borrowed(meta.target()),
    }
}

/// The fields the `log` bridge adds to a record (`log.target`, `log.module_path`, `log.file`,
/// `log.line`): never written (the file is a path on the build machine).
fn is_log_field(name: &str) -> bool {
    name.starts_with("log.")
}

/// How long a line may wait in the buffer.
const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// The buffer's size: a fuller buffer is written by the line that fills it.
const BUFFER: usize = 64 << 10;

/// Log lines to stderr, buffered; a `MakeWriter` for tracing-subscriber.
#[derive(Clone)]
pub struct Logs {
    buffer: Arc<Mutex<BufWriter<Stderr>>>,
}

/// Writes what waits when dropped: keep it until the program ends.
pub struct Flushed {
    logs: Logs,
}

impl Logs {
    /// The buffered stderr, and its flusher thread (stopped with the program).
    pub fn to_stderr() -> (Logs, Flushed) {
        let logs = Logs {
            buffer: Arc::new(Mutex::new(BufWriter::with_capacity(BUFFER, io::stderr()))),
        };
        let flusher = logs.clone();
        let spawned = std::thread::Builder::new()
            .name("podhost-log".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(FLUSH_EVERY);
                    let _ = flusher.lock().flush();
                }
            });
        if spawned.is_err() {
            // Without the thread, each line is written at once.
            let _ = logs.lock().flush();
        }
        (logs.clone(), Flushed { logs })
    }

    fn lock(&self) -> MutexGuard<'_, BufWriter<Stderr>> {
        self.buffer.locked()
    }
}

impl Drop for Flushed {
    fn drop(&mut self) {
        let _ = self.logs.lock().flush();
    }
}

/// One line's writer: the buffer, locked while the line is copied in.
pub struct Line<'a>(MutexGuard<'a, BufWriter<Stderr>>);

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        // Written by the flusher thread: a line never waits for stderr.
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(self.lock())
    }
}

/// The text line, as tracing-subscriber's default format writes it
/// (`2026-11-27T10:48:10.180667Z  INFO request{request_id="…" method=GET route="…"}:
/// podhost::access: answered status=200 ms=0.21 records=0`), for less: the date and time to the
/// second written once a second per thread, integers without the `Debug` machinery. An access
/// line a request is the one line written at full load.
pub struct Text {
    /// Colour for a terminal: the time dimmed, the level in its colour.
    pub colour: bool,
}

thread_local! {
    /// The second last written, and its text up to the fraction (`2026-11-27T10:48:10.`).
    static SECOND: std::cell::RefCell<(i64, String)> = const { std::cell::RefCell::new((i64::MIN, String::new())) };
}

/// Writes the time now, to the microsecond, in UTC (RFC 3339).
fn write_now(out: &mut impl std::fmt::Write) -> std::fmt::Result {
    let now = jiff::Timestamp::now();
    let (second, micros) = (now.as_second(), now.subsec_microsecond());
    SECOND.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached.0 != second {
            cached.0 = second;
            cached.1 = now.strftime("%Y-%m-%dT%H:%M:%S.").to_string();
        }
        out.write_str(&cached.1)
    })?;
    write!(out, "{micros:06}Z")
}

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for Text
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut out: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let meta = event.metadata();
        let (level, paint) = match *meta.level() {
            tracing::Level::ERROR => (" ERROR ", "\x1b[31m"),
            tracing::Level::WARN => ("  WARN ", "\x1b[33m"),
            tracing::Level::INFO => ("  INFO ", "\x1b[32m"),
            tracing::Level::DEBUG => (" DEBUG ", "\x1b[34m"),
            tracing::Level::TRACE => (" TRACE ", "\x1b[35m"),
        };
        if self.colour {
            out.write_str("\x1b[2m")?;
            write_now(&mut out)?;
            write!(out, "\x1b[0m{paint}{level}\x1b[0m")?;
        } else {
            write_now(&mut out)?;
            out.write_str(level)?;
        }
        // The request the line is made for (its id and labels; no span is made per request).
        podhost_core::RequestContext::with_current(|request| match request {
            Some(request) => {
                out.write_str("request{")?;
                let mut fields = Fields {
                    out: &mut out,
                    first: true,
                    result: Ok(()),
                };
                fields.text("request_id", request.id());
                for (name, value) in request.labels() {
                    fields.text(name, value);
                }
                fields.result?;
                out.write_str("}: ")
            }
            None => Ok(()),
        })?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                out.write_str(span.name())?;
                let extensions = span.extensions();
                if let Some(fields) =
                    extensions.get::<tracing_subscriber::fmt::FormattedFields<N>>()
                    && !fields.is_empty()
                {
                    write!(out, "{{{fields}}}")?;
                }
                out.write_char(':')?;
            }
            out.write_char(' ')?;
        }
        out.write_str(&target_of(event))?;
        out.write_str(": ")?;
        event.record(&mut Fields {
            out: &mut out,
            first: true,
            result: Ok(()),
        });
        out.write_char('\n')
    }
}

/// The fields of spans, written as [`Text`] writes an event's (`name=value`), without
/// tracing-subscriber's styling machinery (a request's span is made for every request).
pub struct TextFields;

impl<'w> tracing_subscriber::fmt::FormatFields<'w> for TextFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        mut out: tracing_subscriber::fmt::format::Writer<'w>,
        fields: R,
    ) -> std::fmt::Result {
        let mut visitor = Fields {
            out: &mut out,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

/// Writes an event's fields: the message first, then `name=value` pairs.
struct Fields<'a, 'w> {
    out: &'a mut tracing_subscriber::fmt::format::Writer<'w>,
    first: bool,
    result: std::fmt::Result,
}

impl Fields<'_, '_> {
    fn pair(&mut self, field: &tracing::field::Field, value: impl std::fmt::Display) {
        self.named(field.name(), value);
    }

    fn named(&mut self, name: &str, value: impl std::fmt::Display) {
        if self.result.is_err() || is_log_field(name) {
            return;
        }
        let space = if std::mem::take(&mut self.first) {
            ""
        } else {
            " "
        };
        self.result = match name {
            "message" => write!(self.out, "{space}{value}"),
            name => write!(self.out, "{space}{name}={value}"),
        };
    }

    /// A text field, quoted as `Debug` quotes it; a text with nothing to escape (a request id,
    /// a route) is copied as it is.
    fn text(&mut self, name: &str, value: &str) {
        let plain = value
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
        match (name, plain) {
            ("message", _) => self.named(name, value),
            (_, true) => self.named(name, format_args!("\"{value}\"")),
            (_, false) => self.named(name, format_args!("{value:?}")),
        }
    }
}

impl tracing::field::Visit for Fields<'_, '_> {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        self.pair(field, itoa::Buffer::new().format(value));
    }

    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        self.pair(field, itoa::Buffer::new().format(value));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.text(field.name(), value);
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.pair(field, format_args!("{value:?}"));
    }
}

/// The JSON line (`--log-format json`): one object a line, the event's fields at the top, the
/// span's (a job's, a delivery's) or the request's (its id and labels) under `span`, as
/// tracing-subscriber's JSON format writes them with `flatten_event` and `with_current_span`:
/// `{"timestamp":…,"level":"INFO","message":"answered","status":200,…,"target":"podhost::access",
/// "span":{"request_id":…,"method":"GET","route":…,"name":"request"}}`. Span fields are kept
/// as JSON ([`tracing_subscriber::fmt::format::JsonFields`]).
pub struct Json;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for Json
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut out: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        use serde_json::{Map, Value};
        let meta = event.metadata();
        let mut time = String::with_capacity(32);
        write_now(&mut time)?;
        let mut line: Vec<(String, Value)> = vec![
            ("timestamp".into(), Value::String(time)),
            ("level".into(), Value::String(meta.level().to_string())),
        ];
        event.record(&mut JsonFields(&mut line));
        line.retain(|(name, _)| !is_log_field(name));
        line.push((
            "target".into(),
            Value::String(target_of(event).into_owned()),
        ));
        let span = match ctx.lookup_current() {
            Some(span) => {
                let extensions = span.extensions();
                let mut fields: Map<String, Value> = extensions
                    .get::<tracing_subscriber::fmt::FormattedFields<N>>()
                    .and_then(|f| serde_json::from_str(f).ok())
                    .unwrap_or_default();
                fields.insert("name".into(), Value::String(span.name().into()));
                Some(fields)
            }
            None => podhost_core::RequestContext::with_current(|request| {
                request.map(|request| {
                    let mut fields = Map::new();
                    fields.insert("request_id".into(), Value::String(request.id().into()));
                    for (name, value) in request.labels() {
                        fields.insert((*name).into(), Value::String((*value).into()));
                    }
                    fields.insert("name".into(), Value::String("request".into()));
                    fields
                })
            }),
        };
        if let Some(span) = span {
            line.push(("span".into(), Value::Object(span)));
        }
        out.write_char('{')?;
        for (n, (key, value)) in line.iter().enumerate() {
            if n > 0 {
                out.write_char(',')?;
            }
            let key = serde_json::to_string(key).map_err(|_| std::fmt::Error)?;
            let value = serde_json::to_string(value).map_err(|_| std::fmt::Error)?;
            write!(out, "{key}:{value}")?;
        }
        out.write_str("}\n")
    }
}

/// An event's fields as JSON values, in order.
struct JsonFields<'a>(&'a mut Vec<(String, serde_json::Value)>);

impl tracing::field::Visit for JsonFields<'_> {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        self.0.push((field.name().into(), value.into()));
    }

    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        self.0.push((field.name().into(), value.into()));
    }

    fn record_f64(&mut self, field: &tracing::field::Field, value: f64) {
        self.0.push((field.name().into(), value.into()));
    }

    fn record_bool(&mut self, field: &tracing::field::Field, value: bool) {
        self.0.push((field.name().into(), value.into()));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push((field.name().into(), value.into()));
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .push((field.name().into(), format!("{value:?}").into()));
    }
}
