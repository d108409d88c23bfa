//! Accounts and what belongs to them: accounts, tokens, ownership, scopes.

use std::sync::Arc;

use object_store::ObjectStore;
use podhost_core::{
    Error, FeedId, Scope, Scopes,
    model::{
        EpisodeListQuery, EpisodePatch, FeedPatch, MediaCopy, MediaListQuery, NewEpisode, NewFeed,
        NewMedia, PageRequest,
    },
};

use crate::{body, fixtures, test_host};

use super::assert_err;
use crate::setup::{account as owner, upload};

/// Accounts: created once, listed, names validated.
pub async fn accounts(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    host.access().create_account("alice").await.unwrap();
    host.access().create_account("bob").await.unwrap();
    assert_err!(
        host.access().create_account("alice").await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.access().create_account("Not Valid").await,
        Error::Invalid(_)
    );
    let names: Vec<_> = host
        .access()
        .list_accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id.to_string())
        .collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_err!(
        host.access().owner(&"carol".parse().unwrap()).await,
        Error::NotFound { .. }
    );
}

/// Tokens: shown once, hashed, scoped, listed without secrets, revoked everywhere.
pub async fn tokens(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store.clone());
    let alice = owner(&host, "alice").await;
    let new = host
        .access()
        .create_token(
            &alice,
            "ci",
            Scopes::parse_list("media,feeds-read-only").unwrap(),
        )
        .await
        .unwrap();
    assert!(new.secret.len() >= 43, "at least 256 bits of secret");
    let principal = host.access().authenticate(&new.secret).await.unwrap();
    assert_eq!(principal.account().as_str(), "alice");
    assert_eq!(principal.token_id(), Some(&new.token.id));
    assert!(principal.scopes().allows(Scope::MediaReadOnly));
    assert!(!principal.scopes().allows(Scope::Feeds));

    for bad in [
        "",
        "nonsense",
        "phk_",
        &new.secret[..new.secret.len() - 1],
        &format!("{}x", &new.secret[..new.secret.len() - 1]),
    ] {
        assert_err!(
            host.access().authenticate(bad).await,
            Error::Unauthenticated
        );
    }
    // A token cannot mint tokens.
    assert_err!(
        host.access()
            .create_token(&principal, "more", Scopes::all())
            .await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.access()
            .create_token(&alice, "none", Scopes::default())
            .await,
        Error::Invalid(_)
    );

    let listed = host.access().list_tokens(&alice).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].token.label, "ci");
    assert!(
        !format!("{listed:?}").contains(&new.secret),
        "the secret is never listed"
    );

    // Another process sharing the store sees the revocation.
    let (other, _) = test_host(store);
    assert!(other.access().authenticate(&new.secret).await.is_ok());
    let revoked = host
        .access()
        .revoke_token_by_id(&new.token.id)
        .await
        .unwrap();
    assert!(revoked.revoked.is_some());
    assert_err!(
        host.access().authenticate(&new.secret).await,
        Error::Unauthenticated
    );
    assert_err!(
        other.access().authenticate(&new.secret).await,
        Error::Unauthenticated
    );
    assert!(
        host.access()
            .revoke_token(&alice, &new.token.id)
            .await
            .is_ok(),
        "revoking twice is fine"
    );
}

/// Another account's objects do not exist for a caller: every operation says not found.
pub async fn ownership(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let mallory = owner(&host, "mallory").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(0.2, 8000)).await;
    let show = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = host
        .podcasts()
        .create_episode(&alice, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;
    let token = host
        .access()
        .create_token(&alice, "t", Scopes::all())
        .await
        .unwrap()
        .token
        .id;
    host.podcasts()
        .create_feed(&mallory, NewFeed::titled("mine", "Mine"))
        .await
        .unwrap();
    let mine = FeedId::new("mine").unwrap();

    let m = &mallory;
    let results: Vec<(&str, Result<(), Error>)> = vec![
        (
            "get_media",
            host.podcasts().get_media(m, audio.id).await.map(drop),
        ),
        (
            "download_media",
            host.podcasts().download_media(m, audio.id).await.map(drop),
        ),
        (
            "delete_media",
            host.podcasts().delete_media(m, audio.id).await,
        ),
        (
            "copy_media",
            host.podcasts()
                .copy_media(
                    m,
                    audio.id,
                    MediaCopy {
                        label: "x".into(),
                        category: "y".into(),
                    },
                )
                .await
                .map(drop),
        ),
        (
            "get_feed",
            host.podcasts().get_feed(m, &show).await.map(drop),
        ),
        (
            "update_feed",
            host.podcasts()
                .update_feed(m, &show, &FeedPatch::default())
                .await
                .map(drop),
        ),
        ("delete_feed", host.podcasts().delete_feed(m, &show).await),
        (
            "list_episodes",
            host.podcasts()
                .list_episodes(m, &show, &EpisodeListQuery::default())
                .await
                .map(drop),
        ),
        (
            "get_episode",
            host.podcasts().get_episode(m, &show, ep).await.map(drop),
        ),
        (
            "create_episode",
            host.podcasts()
                .create_episode(m, &show, NewEpisode::titled("x"))
                .await
                .map(drop),
        ),
        (
            "update_episode",
            host.podcasts()
                .update_episode(m, &show, ep, &EpisodePatch::default())
                .await
                .map(drop),
        ),
        (
            "delete_episode",
            host.podcasts().delete_episode(m, &show, ep).await,
        ),
        (
            "copy_episode",
            host.podcasts()
                .copy_episode(m, &show, ep, Some(&mine))
                .await
                .map(drop),
        ),
        (
            "revoke_token",
            host.access().revoke_token(m, &token).await.map(drop),
        ),
    ];
    for (op, result) in results {
        assert!(
            matches!(result, Err(Error::NotFound { .. })),
            "{op}: {result:?}"
        );
    }
    // Using alice's media in mallory's episode: not found as a reference either.
    let mut new = NewEpisode::titled("Steal");
    new.fields.media = Some(Some(audio.id));
    assert_err!(
        host.podcasts().create_episode(m, &mine, new).await,
        Error::Invalid(_)
    );
    assert_eq!(
        host.podcasts()
            .list_media(m, &MediaListQuery::default())
            .await
            .unwrap()
            .total,
        0
    );
    assert_eq!(
        host.podcasts()
            .list_feeds(m, PageRequest::default())
            .await
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        host.podcasts()
            .get_episode(&alice, &show, ep)
            .await
            .unwrap()
            .episode
            .title,
        "One",
        "nothing changed"
    );
}

/// Every operation needs its scope; a write scope includes its read-only scope.
pub async fn scopes(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(0.2, 8000)).await;
    let show = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = host
        .podcasts()
        .create_episode(&alice, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;

    for scope in Scope::ALL {
        let secret = host
            .access()
            .create_token(&alice, scope.as_str(), Scopes::from_iter([scope]))
            .await
            .unwrap()
            .secret;
        let who = host.access().authenticate(&secret).await.unwrap();
        let ops: Vec<(Scope, Result<(), Error>)> = vec![
            (
                Scope::MediaReadOnly,
                host.podcasts()
                    .list_media(&who, &MediaListQuery::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::MediaReadOnly,
                host.podcasts().get_media(&who, audio.id).await.map(drop),
            ),
            (
                Scope::MediaReadOnly,
                host.podcasts()
                    .download_media(&who, audio.id)
                    .await
                    .map(drop),
            ),
            (
                Scope::Media,
                host.podcasts()
                    .copy_media(
                        &who,
                        audio.id,
                        MediaCopy {
                            label: "c".into(),
                            category: "".into(),
                        },
                    )
                    .await
                    .map(drop),
            ),
            (
                Scope::Media,
                host.podcasts()
                    .upload_media(
                        &who,
                        NewMedia {
                            name: "u.wav".into(),
                            category: None,
                        },
                        body(fixtures::wav(0.1, 8000), 1024),
                    )
                    .await
                    .map(drop),
            ),
            (
                Scope::FeedsReadOnly,
                host.podcasts()
                    .list_feeds(&who, PageRequest::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::FeedsReadOnly,
                host.podcasts().get_feed(&who, &show).await.map(drop),
            ),
            (
                Scope::Feeds,
                host.podcasts()
                    .update_feed(&who, &show, &FeedPatch::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::ShowsReadOnly,
                host.podcasts()
                    .list_episodes(&who, &show, &EpisodeListQuery::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::ShowsReadOnly,
                host.podcasts().get_episode(&who, &show, ep).await.map(drop),
            ),
            (
                Scope::Shows,
                host.podcasts()
                    .update_episode(&who, &show, ep, &EpisodePatch::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::Shows,
                host.podcasts()
                    .copy_episode(&who, &show, ep, None)
                    .await
                    .map(drop),
            ),
        ];
        for (needed, result) in ops {
            let allowed = Scopes::from_iter([scope]).allows(needed);
            match (&result, allowed) {
                (Ok(()), true) | (Err(Error::Forbidden { .. }), false) => {}
                _ => panic!("token with {scope}, operation needing {needed}: {result:?}"),
            }
        }
    }
    // The destructive ones, with the read-only scope: forbidden, and nothing is gone.
    let read_only = host
        .access()
        .authenticate(
            &host
                .access()
                .create_token(
                    &alice,
                    "ro",
                    Scopes::parse_list("media-read-only,feeds-read-only,shows-read-only").unwrap(),
                )
                .await
                .unwrap()
                .secret,
        )
        .await
        .unwrap();
    assert_err!(
        host.podcasts().delete_media(&read_only, audio.id).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.podcasts().delete_episode(&read_only, &show, ep).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.podcasts().delete_feed(&read_only, &show).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.podcasts()
            .create_episode(&read_only, &show, NewEpisode::titled("x"))
            .await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.podcasts()
            .create_feed(&read_only, NewFeed::titled("new", "New"))
            .await,
        Error::Forbidden { .. }
    );
    assert!(host.podcasts().get_feed(&alice, &show).await.is_ok());
}
