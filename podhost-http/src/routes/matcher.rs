//! From a request line to a row and its endpoint: the templates' literal segments must match,
//! parameters are percent-decoded and parsed by their types; a path that exists for other
//! methods is a 405 with the methods it has.

use http::Method;

use super::{Endpoint, ParamError, Route, Surface, build, tables};

/// Why a request line names no endpoint.
#[derive(Debug)]
pub enum RouteError {
    /// No such path; the answer is of this surface (a page for `/podcasts/...`).
    NotFound(Surface),
    /// The path exists for other methods (listed for the `Allow` header, `HEAD` with `GET`).
    MethodNotAllowed(Vec<Method>),
    /// The route exists but a path parameter is malformed.
    BadParameter(&'static Route, ParamError),
}

/// One segment of a template: a literal, or a parameter with an optional literal suffix
/// (`{blob}.json`).
enum Segment<'a> {
    Literal(&'a str),
    Param { suffix: &'a str },
}

fn segment(template: &str) -> Segment<'_> {
    match template
        .strip_prefix('{')
        .and_then(|rest| rest.split_once('}'))
    {
        Some((_, suffix)) => Segment::Param { suffix },
        None => Segment::Literal(template),
    }
}

/// The raw (still percent-encoded) values of the template's parameters in `segments`, or
/// `None` when the path does not have the template's shape.
#[cfg(test)]
pub(super) fn shape<'p>(template: &str, segments: &[&'p str]) -> Option<Vec<&'p str>> {
    let parts: Vec<Segment<'_>> = split(template).map(segment).collect();
    let mut params = Vec::new();
    matches(&parts, segments, &mut params).then_some(params)
}

/// The segments of a path or a template (without the leading `/`).
fn split(path: &str) -> std::str::Split<'_, char> {
    path.trim_start_matches('/').split('/')
}

/// Whether `segments` have the shape of a template's `parts`, pushing the raw parameter values
/// onto `params` (left partly filled when not).
fn matches<'p>(parts: &[Segment<'_>], segments: &[&'p str], params: &mut Vec<&'p str>) -> bool {
    if parts.len() != segments.len() {
        return false;
    }
    for (part, raw) in parts.iter().zip(segments) {
        match part {
            Segment::Literal(literal) if literal == raw => {}
            Segment::Literal(_) => return false,
            Segment::Param { suffix } => match raw.strip_suffix(suffix) {
                Some(value) => params.push(value),
                None => return false,
            },
        }
    }
    true
}

/// A row of the tables with its template split once, for matching every request line.
struct Compiled {
    /// Which of [`tables`] holds the row.
    table: usize,
    row: &'static Route,
    parts: Vec<Segment<'static>>,
}

/// The rows of the tables whose templates have `segments` segments, in the tables' order,
/// templates split (a path is matched only against templates of its length).
fn compiled(segments: usize) -> &'static [Compiled] {
    static ROWS: std::sync::OnceLock<Vec<Vec<Compiled>>> = std::sync::OnceLock::new();
    let by_length = ROWS.get_or_init(|| {
        let mut by_length: Vec<Vec<Compiled>> = Vec::new();
        let rows = tables()
            .enumerate()
            .flat_map(|(table, t)| t.rows.iter().map(move |row| (table, row)));
        for (table, row) in rows {
            let parts: Vec<Segment<'static>> = split(row.path).map(segment).collect();
            if by_length.len() <= parts.len() {
                by_length.resize_with(parts.len() + 1, Vec::new);
            }
            by_length[parts.len()].push(Compiled { table, row, parts });
        }
        by_length
    });
    by_length.get(segments).map_or(&[], Vec::as_slice)
}

/// The row and endpoint of a request line. `HEAD` finds the `GET` row.
pub fn route(method: &Method, path: &str) -> Result<(&'static Route, Endpoint), RouteError> {
    let wanted = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    let segments: Vec<&str> = split(path).collect();
    let mut allowed: Vec<Method> = Vec::new();
    let mut raw = Vec::new();
    for Compiled { table, row, parts } in compiled(segments.len()) {
        raw.clear();
        if !matches(parts, &segments, &mut raw) {
            continue;
        }
        if row.method != wanted {
            if row.method == Method::GET {
                allowed.push(Method::HEAD);
            }
            allowed.push(row.method.clone());
            continue;
        }
        let args: Vec<String> = raw
            .iter()
            .map(|value| {
                percent_encoding::percent_decode_str(value)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect();
        return build(*table, row.operation, &args)
            .map(|endpoint| (*row, endpoint))
            .map_err(|e| RouteError::BadParameter(row, e));
    }
    if allowed.is_empty() {
        // A path under a prefix that only pages use is a missing page.
        let first = segments.first().copied().unwrap_or("");
        let surface = tables()
            .flat_map(|t| t.rows)
            .find(|r| split(r.path).next() == Some(first))
            .map_or(Surface::Api, |r| r.surface);
        Err(RouteError::NotFound(surface))
    } else {
        allowed.sort_by_key(method_order);
        allowed.dedup();
        Err(RouteError::MethodNotAllowed(allowed))
    }
}

/// The order of methods in `Allow`.
fn method_order(method: &Method) -> usize {
    [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
    ]
    .iter()
    .position(|m| m == method)
    .unwrap_or(usize::MAX)
}
