//! The route table: every route is declared once, as a row of its group's table
//! (`endpoints!`, in `declare`): the variant of a typed endpoint enum (its doc comment the summary,
//! its fields the path parameters), the method and template, who may call it, its query
//! parameters, body, answers and examples. Routing, `405`/`Allow`, `HEAD`, authentication, the
//! scope and query checks, the OpenAPI document, the API reference and the test matrices all
//! read these tables.
//!
//! An [`Endpoint`] says by its variant how a request is answered: [`Endpoint::Api`] needs a
//! token and goes to the handlers, the others to the documentation, the public side, the
//! pages, the site and the OAuth endpoints. Each dispatcher matches its enum without a
//! catch-all, so a route without a handler does not compile.
//!
//! To add an endpoint: a row in its group's table and an arm in the group's handler.

pub mod api;
pub(crate) mod declare;
pub mod docs;
pub mod fediverse;
mod matcher;
pub mod oauth;
pub mod ops;
pub mod pages;
pub mod params;
pub mod public;
pub mod query;
mod row;
pub mod site;

pub use api::ApiEndpoint;
pub use matcher::{RouteError, route};
pub use params::{ParamError, ParamKind, PathParam};
pub use row::{BodyKind, Made, QueryParam, Route, Shape, Spec, Success, Surface, Table};

/// Declares the kinds of endpoints once: the enum, the list of tables, and the building of an
/// endpoint from a row of a table.
macro_rules! surfaces {
    (
        $(#[doc = $api_doc:literal])* Api(api::ApiEndpoint),
        $($(#[doc = $doc:literal])* $surface:ident($module:ident::$endpoint:ident),)*
    ) => {
        /// One operation, with its path parameters parsed, by the way it is answered.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum Endpoint {
            $(#[doc = $api_doc])*
            Api(ApiEndpoint),
            $($(#[doc = $doc])* $surface($module::$endpoint),)*
        }

        /// Every table, in the order requests are matched against them.
        pub fn tables() -> impl Iterator<Item = &'static Table> {
            api::TABLES.iter().copied().chain([$(&$module::TABLE),*])
        }

        /// The endpoint of row `operation` of the `table`-th table of [`tables`].
        fn build(table: usize, operation: &str, args: &[String]) -> Result<Endpoint, ParamError> {
            if table < api::TABLES.len() {
                return ApiEndpoint::build(table, operation, args).map(Endpoint::Api);
            }
            let mut index = api::TABLES.len();
            $(
                if table == index {
                    return $module::$endpoint::build(operation, args).map(Endpoint::$surface);
                }
                index += 1;
            )*
            let _ = index;
            Err(ParamError::NotFound)
        }

        impl<E: Into<ApiEndpoint>> From<E> for Endpoint {
            fn from(endpoint: E) -> Self {
                Endpoint::Api(endpoint.into())
            }
        }
    };
}

surfaces! {
    /// The REST API: a token, then a handler.
    Api(api::ApiEndpoint),
    /// The API's documentation.
    Docs(docs::DocsEndpoint),
    /// What podcast apps fetch.
    Public(public::PublicEndpoint),
    /// The fediverse: WebFinger, NodeInfo, actors, inboxes.
    Fediverse(fediverse::FediverseEndpoint),
    /// The web pages.
    Page(pages::PageEndpoint),
    /// The site for browsers.
    Site(site::SiteEndpoint),
    /// The OAuth endpoints.
    OAuth(oauth::OAuthEndpoint),
    /// The probes.
    Ops(ops::OpsEndpoint),
}

/// Every route.
pub fn routes() -> impl Iterator<Item = &'static Route> {
    tables().flat_map(|t| t.rows)
}

/// A path of the row's template with sample values (tests call every route with these).
pub fn sample_path(row: &Route) -> String {
    let mut path = row.path.to_string();
    for param in row.params {
        path = path.replace(&format!("{{{}}}", param.name), param.kind.sample());
    }
    path
}

#[cfg(test)]
mod tests;
