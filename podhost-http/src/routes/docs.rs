//! The API's own documentation.

use crate::routes::{Shape, Spec, declare::endpoints};

endpoints! {
    /// The API's own documentation.
    pub enum DocsEndpoint: Docs, tag "documentation";

    /// this document
    Openapi {} = GET "/api/openapi.json",
        Spec::open()
            .answers(200, "the OpenAPI document", Shape::AnyObject);
}
