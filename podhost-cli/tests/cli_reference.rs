//! docs/cli.md, the command line reference, is generated from the clap definition of
//! `podhost` and kept equal to it: this test renders the reference and compares it with the file
//! byte for byte. With `UPDATE_DOCS=1` it writes the file instead:
//!
//! ```sh
//! UPDATE_DOCS=1 cargo test -p podhost-cli --test cli_reference
//! ```

use std::{fmt::Write as _, path::PathBuf};

use clap::{Command, CommandFactory};

/// The command that rewrites docs/cli.md from the definition.
const REGENERATE: &str = "UPDATE_DOCS=1 cargo test -p podhost-cli --test cli_reference";

/// The width help is wrapped at, whatever the terminal (or `COLUMNS`) says.
const WIDTH: usize = 100;

/// Where the reference lives, from this crate's folder.
fn reference_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md")
}

#[test]
fn docs_cli_md_is_the_clap_definition() {
    let rendered = render(podhost_cli::Cli::command());
    let path = reference_path();
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| !v.is_empty()) {
        std::fs::write(&path, &rendered).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    if written != rendered {
        let line = first_difference(&written, &rendered);
        panic!(
            "docs/cli.md is not the reference the clap definition of `podhost` renders \
             (first difference at line {line}); regenerate it with `{REGENERATE}` and commit it"
        );
    }
}

/// The line (from 1) where `a` and `b` first differ.
fn first_difference(a: &str, b: &str) -> usize {
    let mut a_lines = a.lines();
    let mut b_lines = b.lines();
    let mut line = 1;
    loop {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            _ => return line,
        }
    }
}

/// The whole reference: a contents list, then every command (depth first, in definition order)
/// with its long help. The global options are shown once, under `podhost` itself.
fn render(cmd: Command) -> String {
    let mut root = hide_env_values(cmd).term_width(WIDTH);
    root.build();

    let mut commands = Vec::new();
    collect(&root, &mut commands);

    let mut out = String::new();
    out.push_str("# `podhost` command line reference\n\n");
    out.push_str(
        "<!-- Generated from the clap definition by podhost-cli/tests/cli_reference.rs: do not \
         edit by hand. Regenerate with `UPDATE_DOCS=1 cargo test -p podhost-cli --test \
         cli_reference`. -->\n\n",
    );
    out.push_str(
        "Every command's help, in clap's long form (as `podhost help COMMAND` or `--help` \
         prints it when a command has more to say), with each environment variable's name. The \
         global options, under [`podhost`](#podhost), are taken by every command and listed \
         once. What the commands are for, with examples, their `--json` output and exit codes: \
         [command-line.md](command-line.md).\n\n",
    );
    for (path, _) in &commands {
        let indent = "  ".repeat(path.len() - 1);
        let title = path.join(" ");
        writeln!(out, "{indent}- [`{title}`](#{})", anchor(&title)).unwrap();
    }
    for (path, cmd) in commands {
        let title = path.join(" ");
        let help = if path.len() == 1 {
            cmd.clone().render_long_help().to_string()
        } else {
            own_help(cmd)
        };
        write!(out, "\n## `{title}`\n\n```text\n").unwrap();
        for line in help.trim_end().lines() {
            writeln!(out, "{}", line.trim_end()).unwrap();
        }
        out.push_str("```\n");
    }
    out
}

/// A subcommand's long help without the global options: the usage line as `--help` prints it
/// (its `[OPTIONS]` counts the global options), above the command's own arguments.
fn own_help(cmd: &Command) -> String {
    let usage = cmd.clone().render_usage().to_string();
    let template =
        format!("{{before-help}}{{about-with-newline}}\n{usage}\n\n{{all-args}}{{after-help}}");
    cmd.clone()
        .mut_args(|arg| match arg.is_global_set() {
            true => arg.hide(true),
            false => arg,
        })
        .help_template(template)
        .render_long_help()
        .to_string()
}

/// Every command under `cmd` (itself first), with its path of names, leaving out clap's own
/// `help` subcommands.
fn collect<'a>(cmd: &'a Command, out: &mut Vec<(Vec<String>, &'a Command)>) {
    fn walk<'a>(cmd: &'a Command, path: Vec<String>, out: &mut Vec<(Vec<String>, &'a Command)>) {
        out.push((path.clone(), cmd));
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = path.clone();
            path.push(sub.get_name().to_string());
            walk(sub, path, out);
        }
    }
    walk(cmd, vec![cmd.get_name().to_string()], out);
}

/// Environment variables are named without the value they happen to have where this runs.
fn hide_env_values(cmd: Command) -> Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut cmd = cmd.mut_args(|arg| arg.hide_env_values(true));
    for name in names {
        cmd = cmd.mut_subcommand(name, hide_env_values);
    }
    cmd
}

/// GitHub's anchor of a heading made of `title` in backticks.
fn anchor(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}
