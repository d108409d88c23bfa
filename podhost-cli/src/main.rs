//! `podhost`: the command line. Parses, runs, maps the outcome to an exit code.

use std::process::ExitCode;

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
    // Log lines go to stderr; PODHOST_LOG=debug (or any tracing filter) says how much. Colour
    // only on a terminal (and without NO_COLOR): a file or a pipe gets plain text.
    use std::io::IsTerminal;
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PODHOST_LOG")
                .unwrap_or_else(|_| "info".into()),
        );
    match cli.global.log_format {
        podhost_cli::LogFormat::Text => logs.init(),
        // A line's fields at the top; its request's, job's or delivery's (`request_id`
        // among them) under `span`.
        podhost_cli::LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
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
