//! The conformance suite against the in-memory and the local-folder store.

use std::sync::Arc;

use podhost_testkit::conformance::run_all;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_store() {
    run_all(|| {
        (
            Arc::new(object_store::memory::InMemory::new()),
            Box::new(()),
        )
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_folder_store() {
    run_all(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let opened = podhost_core::open_store(dir.path().to_str().expect("a UTF-8 path"))
            .expect("the folder opens");
        (opened.store, Box::new(dir))
    })
    .await;
}

/// The whole suite on a real S3-compatible server (`podhost_testkit::s3`), a bucket per case.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_store() {
    let Some(server) = podhost_testkit::s3::S3Server::shared_or_skip("s3_store") else {
        return;
    };
    run_all(|| (server.store().store, Box::new(()))).await;
}
