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
pub(super) fn shape<'p>(template: &str, segments: &[&'p str]) -> Option<Vec<&'p str>> {
    let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut params = Vec::new();
    for (part, raw) in parts.iter().zip(segments) {
        match segment(part) {
            Segment::Literal(literal) if literal == *raw => {}
            Segment::Literal(_) => return None,
            Segment::Param { suffix } => params.push(raw.strip_suffix(suffix)?),
        }
    }
    Some(params)
}

/// The row and endpoint of a request line. `HEAD` finds the `GET` row.
pub fn route(method: &Method, path: &str) -> Result<(&'static Route, Endpoint), RouteError> {
    let wanted = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let mut allowed: Vec<Method> = Vec::new();
    let rows = tables()
        .enumerate()
        .flat_map(|(table, t)| t.rows.iter().map(move |row| (table, row)));
    for (table, row) in rows {
        let Some(raw) = shape(row.path, &segments) else {
            continue;
        };
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
        return build(table, row.operation, &args)
            .map(|endpoint| (row, endpoint))
            .map_err(|e| RouteError::BadParameter(row, e));
    }
    if allowed.is_empty() {
        // A path under a prefix that only pages use is a missing page.
        let first = segments.first().copied().unwrap_or("");
        let surface = tables()
            .flat_map(|t| t.rows)
            .find(|r| r.path.trim_start_matches('/').split('/').next() == Some(first))
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
