//! Who may act as whom, as a proptest: random histories of a team (invitations, acceptances by
//! whoever holds the link, role and podcast changes, removals, tokens of fewer scopes, sign-ins,
//! accounts an operator makes later on logins people made first), checked after every step
//! (podhost_testkit::conformance::teams). A failing history shrinks to the few steps that
//! break the rule.

use std::sync::Arc;

use podhost_testkit::conformance::teams::{check_history, config, history};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_member_grants_more_than_they_hold_and_no_login_is_reached_but_by_its_holder(
        steps in history(24)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = runtime.block_on(async {
            let store: Arc<dyn object_store::ObjectStore> =
                Arc::new(object_store::memory::InMemory::new());
            let (host, clock) = podhost_testkit::test_host_with(store, config());
            check_history(&host, &clock, &steps).await
        });
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}
