//! `docs/api.md`, the API reference, is the route tables' and the wire types' own: rendered from
//! the OpenAPI document and kept equal to it here. `UPDATE_DOCS=1` writes it instead.

use std::path::Path;

#[test]
fn docs_api_md_is_the_route_table() {
    let (host, _) =
        podhost_testkit::test_host(std::sync::Arc::new(object_store::memory::InMemory::new()));
    let rendered = podhost_http::api_reference(&host);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/api.md");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &rendered).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    if written != rendered {
        let line = written
            .lines()
            .zip(rendered.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "the end".to_string(), |n| format!("line {}", n + 1));
        panic!(
            "docs/api.md differs from the route tables (first at {line}); regenerate it: \
             UPDATE_DOCS=1 cargo test -p podhost-http --test api_reference"
        );
    }
}
