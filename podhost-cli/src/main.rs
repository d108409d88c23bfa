//! `podhost`: the command line. Parses, runs, maps the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = podhost_cli::Cli::parse();
    // Log lines go to stderr; PODHOST_LOG=debug (or any tracing filter) says how much.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PODHOST_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("podhost: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(podhost_cli::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if podhost_cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("podhost: {e:#}");
            ExitCode::from(podhost_cli::exit_code(&e))
        }
    }
}
