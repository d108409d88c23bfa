//! Runnable examples of embedding podhost: `cargo run -p podhost-examples --example embed`
//! (also `mount`, `clock`, `webhook_sender`). `cargo test` runs each of them too.

/// An example's `main` and the test that runs the same code under `cargo test`: both call the
/// example's `async fn run() -> anyhow::Result<()>`.
#[macro_export]
macro_rules! main {
    ($run:ident) => {
        #[tokio::main]
        async fn main() -> anyhow::Result<()> {
            $run().await
        }

        #[cfg(test)]
        #[tokio::test]
        async fn the_example_runs() {
            $run().await.expect("the example runs");
        }
    };
}
