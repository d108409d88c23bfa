//! The API's own documentation.

use crate::routes::{Shape, Spec, declare::endpoints};

endpoints! {
    /// The API's own documentation.
    pub enum DocsEndpoint: Docs, tag "documentation";

    /// this document
    Openapi {} = GET "/api/openapi.json",
        Spec::open()
            .answers(200, "the OpenAPI document", Shape::AnyObject);

    /// the API reference for people: every operation and shape, as a web page
    ApiDocs {} = GET "/api/docs",
        Spec::open()
            .answers(200, "the reference", Shape::Document("text/html"));
}
