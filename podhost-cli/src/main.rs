//! `podhost`: the command line. Parses, runs, maps the outcome to an exit code.

use std::process::ExitCode;

/// jemalloc: a request's many small allocations cost less than with glibc's allocator, whose
/// malloc and free took 7 % of a feed 304's time and whose cost varied from run to run (10.6
/// to 14.5 µs of CPU a request, against 10.1 to 10.3 with jemalloc, nginx 10.1 to 10.4;
/// mimalloc was as fast but held four times the memory).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match podhost_cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Looked for by hand: a refused command line is reported as JSON too.
        Err(e) => {
            let json = std::env::args_os().any(|arg| arg == "--json");
            return podhost_cli::error::report_usage(&e, json);
        }
    };
    let json = cli.global.json;
    // Log lines go to stderr (buffered: `logs.rs`): podhost's from INFO, libraries' from WARN
    // (`--log-libraries`: from INFO); PODHOST_LOG=debug (or any tracing filter, or RUST_LOG)
    // says otherwise. Colour only on a terminal (and without NO_COLOR): a file or a pipe gets
    // plain text.
    use std::io::IsTerminal;
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (writer, _written_at_exit) = podhost_cli::logs::Logs::to_stderr();
    let logs = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_env_filter(podhost_cli::logs::filter(cli.global.log_libraries));
    match cli.global.log_format {
        // Text, as tracing-subscriber writes it, for less (`logs::Text`).
        podhost_cli::LogFormat::Text => logs
            .event_format(podhost_cli::logs::Text { colour })
            .fmt_fields(podhost_cli::logs::TextFields)
            .init(),
        // A line's fields at the top; its request's, job's or delivery's (`request_id`
        // among them) under `span`.
        podhost_cli::LogFormat::Json => logs
            .event_format(podhost_cli::logs::Json)
            .fmt_fields(tracing_subscriber::fmt::format::JsonFields::new())
            .init(),
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return podhost_cli::error::report(&e.into(), json),
    };
    match runtime.block_on(podhost_cli::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => podhost_cli::error::report(&e, json),
    }
}
