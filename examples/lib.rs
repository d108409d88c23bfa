//! Examples of embedding podhost; run them with `cargo run -p podhost-examples --example NAME`.
