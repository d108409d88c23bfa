//! Printing results: aligned text for people, JSON for scripts.

use std::io::Write;

/// Where and how results are printed.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    json: bool,
}

impl Output {
    /// JSON when `json`, text otherwise.
    pub fn new(json: bool) -> Self {
        Output { json }
    }

    /// Prints a value: `json` when JSON is asked for, else `text`.
    pub fn print(
        &self,
        json: impl serde::Serialize,
        text: impl FnOnce() -> String,
    ) -> std::io::Result<()> {
        let printed = if self.json {
            serde_json::to_string(&json)?
        } else {
            text()
        };
        if !printed.is_empty() || self.json {
            writeln!(std::io::stdout().lock(), "{printed}")?;
        }
        note_if_guessed(&printed);
        Ok(())
    }

    /// Writes each warning on stderr as `warning: field: message`, in text and JSON alike (the
    /// JSON on stdout carries them too): what podcast apps will do with what was saved.
    pub fn warnings(&self, warnings: &[podhost_core::publish::readiness::Warning]) {
        let mut err = std::io::stderr().lock();
        for warning in warnings {
            let _ = writeln!(err, "warning: {warning}");
        }
    }

    /// Whether JSON is asked for.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// Prints one object: `json` when JSON is asked for, else `fields` as aligned `key  value`
    /// lines.
    pub fn fields(
        &self,
        json: impl serde::Serialize,
        fields: impl FnOnce() -> Vec<(&'static str, String)>,
    ) -> std::io::Result<()> {
        self.print(json, || {
            let fields = fields();
            let width = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            fields
                .iter()
                .map(|(key, value)| format!("{key:<width$}  {value}").trim_end().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// Prints rows: a JSON array, or a text table with a header.
    pub fn table<T: serde::Serialize>(
        &self,
        header: &[&str],
        rows: Vec<(T, Vec<String>)>,
    ) -> std::io::Result<()> {
        let printed = if self.json {
            let values: Vec<_> = rows.into_iter().map(|(json, _)| json).collect();
            serde_json::to_string(&values)?
        } else {
            let cells: Vec<Vec<String>> = rows.into_iter().map(|(_, cells)| cells).collect();
            text_table(header, &cells)
        };
        writeln!(std::io::stdout().lock(), "{printed}")?;
        note_if_guessed(&printed);
        Ok(())
    }
}

/// Rows as aligned text columns under a header, without a final line break.
pub fn text_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s
    };
    let mut lines = vec![line(header.to_vec())];
    for row in rows {
        lines.push(line(row.iter().map(String::as_str).collect()));
    }
    lines.join("\n")
}

/// A timestamp as RFC 3339, seconds precision, UTC.
pub fn time(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// An optional value as text: empty when absent.
pub fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// The guessed base URL of this command's links, when it guessed one (`context` sets it), and
/// whether notes are JSON log lines (`--log-format json`).
pub(crate) static GUESSED: std::sync::OnceLock<(String, bool)> = std::sync::OnceLock::new();

/// Whether the note about the guessed base URL was said.
static NOTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says, once, that the links start with a guessed base URL when `printed` holds one of them,
/// on stderr as the logs are written.
fn note_if_guessed(printed: &str) {
    let Some((base, json)) = GUESSED.get() else {
        return;
    };
    if !printed.contains(base.as_str()) || NOTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let message = format!(
        "note: links start with {base}, a guess: no --public-url was given and no server has \
         recorded its public URL in this store; give --public-url URL (or PODHOST_PUBLIC_URL), \
         or start `podhost serve` on this store once"
    );
    match json {
        true => tracing::info!(target: "podhost", "{message}"),
        false => eprintln!("podhost: {message}"),
    }
}
