//! Runnable examples of embedding podhost: `cargo run -p podhost-examples --example embed`.
