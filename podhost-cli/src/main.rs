//! `podhost`: the command line. Parses, runs, maps the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = podhost_cli::Cli::parse();
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
