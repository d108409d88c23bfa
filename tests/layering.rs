//! The core knows no transport: podhost-core must not depend on hyper, clap or tower.

#[test]
fn the_core_depends_on_no_frontend_crate() {
    let manifest = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../podhost-core/Cargo.toml"
    ))
    .unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    for forbidden in [
        "hyper",
        "clap",
        "tower",
        "axum",
        "podhost-http",
        "podhost-cli",
    ] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(forbidden)),
            "podhost-core depends on {forbidden}"
        );
    }
}
