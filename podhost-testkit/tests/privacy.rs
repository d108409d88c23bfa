//! Private stays private, as a proptest: random histories of public and private podcasts,
//! episodes, shared files, subscribers and the podcaster's word, checked after every step on
//! two hosts of one in-memory store (the conformance suite runs sampled histories on every
//! store). A failing history shrinks to the few steps that break the rule.

use std::sync::Arc;

use podhost_testkit::conformance::privacy::{check_history, history};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn no_history_opens_a_private_file_or_a_dead_key(steps in history(32)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = runtime.block_on(async {
            let store: Arc<dyn object_store::ObjectStore> =
                Arc::new(object_store::memory::InMemory::new());
            let (host, _) = podhost_testkit::test_host(store.clone());
            let (other, _) = podhost_testkit::test_host(store);
            check_history(&host, &other, "alice", &steps).await
        });
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}
