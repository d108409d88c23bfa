//! The conformance suite: what every [`PodcastHost`] does, whatever store is under it.
//!
//! Each case is a `pub async fn` over a fresh store; [`run_all`] runs every case against stores
//! from a factory and names the case that failed.

use std::{any::Any, future::Future, pin::Pin, sync::Arc};

use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{
    Error, FeedId, MediaId, PodcastHost, Principal, Scope, Scopes,
    model::{
        EpisodeListQuery, EpisodePatch, EpisodeSort, FeedPatch, MediaCopy, MediaListQuery,
        MediaSort, NewEpisode, NewFeed, NewMedia, PageRequest, SortDir,
    },
};

use crate::{body, fixtures, test_host};

/// A case: a name and the test.
pub type Case = (
    &'static str,
    fn(Arc<dyn ObjectStore>) -> Pin<Box<dyn Future<Output = ()> + Send>>,
);

/// Every case of the suite.
pub fn cases() -> Vec<Case> {
    vec![
        ("accounts", |s| Box::pin(accounts(s))),
        ("tokens", |s| Box::pin(tokens(s))),
        ("media", |s| Box::pin(media(s))),
        ("media_list", |s| Box::pin(media_list(s))),
        ("uploads_that_fail_leave_nothing", |s| {
            Box::pin(uploads_that_fail_leave_nothing(s))
        }),
        ("feeds", |s| Box::pin(feeds(s))),
        ("episodes", |s| Box::pin(episodes(s))),
        ("episode_list", |s| Box::pin(episode_list(s))),
        ("scheduled_publishing", |s| {
            Box::pin(scheduled_publishing(s))
        }),
        ("ownership", |s| Box::pin(ownership(s))),
        ("scopes", |s| Box::pin(scopes(s))),
        ("two_hosts_share_a_store", |s| {
            Box::pin(two_hosts_share_a_store(s))
        }),
        ("publishing", |s| Box::pin(publishing(s))),
        ("jobs", |s| Box::pin(jobs(s))),
        ("statistics", |s| Box::pin(statistics(s))),
        ("webhooks", |s| Box::pin(webhooks(s))),
        ("private_podcasts", |s| Box::pin(private_podcasts(s))),
    ]
}

/// Runs every case, each on a fresh store from `make` (which may return a guard, such as a
/// temporary folder, kept alive for the case).
pub async fn run_all(make: impl Fn() -> (Arc<dyn ObjectStore>, Box<dyn Any + Send>)) {
    let mut failed = Vec::new();
    for (name, case) in cases() {
        let (store, guard) = make();
        let outcome = tokio::spawn(case(store)).await;
        drop(guard);
        if outcome.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "conformance cases failed (their panics are above): {failed:?}"
    );
}

macro_rules! assert_err {
    ($result:expr, $pattern:pat) => {
        match $result {
            Err($pattern) => {}
            other => panic!(
                "expected {}, got {:?}",
                stringify!($pattern),
                other.map(|_| "Ok(..)")
            ),
        }
    };
}

/// Creates an account and returns its owner.
pub async fn owner(host: &PodcastHost, name: &str) -> Principal {
    host.create_account(name).await.expect("account created");
    host.owner(&name.parse().expect("a valid name"))
        .await
        .expect("owner")
}

/// Creates the account `alice` with a feed `show`.
async fn owner_with_show(host: &PodcastHost) -> (Principal, podhost_core::FeedId) {
    let alice = owner(host, "alice").await;
    let show = host
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .expect("feed created")
        .feed
        .id;
    (alice, show)
}

async fn upload(
    host: &PodcastHost,
    who: &Principal,
    name: &str,
    bytes: Vec<u8>,
) -> podhost_core::model::Media {
    host.upload_media(
        who,
        NewMedia {
            name: name.into(),
            category: None,
        },
        body(bytes, 4096),
    )
    .await
    .expect("upload")
}

/// Accounts: created once, listed, names validated.
pub async fn accounts(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    host.create_account("alice").await.unwrap();
    host.create_account("bob").await.unwrap();
    assert_err!(host.create_account("alice").await, Error::Conflict { .. });
    assert_err!(host.create_account("Not Valid").await, Error::Invalid(_));
    let names: Vec<_> = host
        .list_accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id.to_string())
        .collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_err!(
        host.owner(&"carol".parse().unwrap()).await,
        Error::NotFound { .. }
    );
}

/// Tokens: shown once, hashed, scoped, listed without secrets, revoked everywhere.
pub async fn tokens(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store.clone());
    let alice = owner(&host, "alice").await;
    let new = host
        .create_token(
            &alice,
            "ci",
            Scopes::parse_list("media,feeds-read-only").unwrap(),
        )
        .await
        .unwrap();
    assert!(new.secret.len() >= 43, "at least 256 bits of secret");
    let principal = host.authenticate(&new.secret).await.unwrap();
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
        assert_err!(host.authenticate(bad).await, Error::Unauthenticated);
    }
    // A token cannot mint tokens.
    assert_err!(
        host.create_token(&principal, "more", Scopes::all()).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.create_token(&alice, "none", Scopes::default()).await,
        Error::Invalid(_)
    );

    let listed = host.list_tokens(&alice).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].token.label, "ci");
    assert!(
        !format!("{listed:?}").contains(&new.secret),
        "the secret is never listed"
    );

    // Another process sharing the store sees the revocation.
    let (other, _) = test_host(store);
    assert!(other.authenticate(&new.secret).await.is_ok());
    let revoked = host.revoke_token_by_id(&new.token.id).await.unwrap();
    assert!(revoked.revoked.is_some());
    assert_err!(host.authenticate(&new.secret).await, Error::Unauthenticated);
    assert_err!(
        other.authenticate(&new.secret).await,
        Error::Unauthenticated
    );
    assert!(
        host.revoke_token(&alice, &new.token.id).await.is_ok(),
        "revoking twice is fine"
    );
}

/// Media: upload detects and probes, names are cleaned and unique, copy, delete, in-use.
pub async fn media(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let wav = fixtures::wav(2.0, 8000);
    let size = wav.len() as u64;
    let audio = upload(&host, &alice, "../talk.wav", wav.clone()).await;
    assert_eq!(audio.name, "talk.wav");
    // Its owner reads its bytes back as they were uploaded.
    let (record, bytes) = host.download_media(&alice, audio.id).await.unwrap();
    assert_eq!(record, audio);
    let bytes: Vec<bytes::Bytes> = futures::TryStreamExt::try_collect(bytes).await.unwrap();
    assert_eq!(bytes.concat(), wav);
    // A job run in this process, with no worker loop, ends with its result stored.
    let job = host
        .submit_job(
            &alice,
            audio.id,
            podhost_core::model::JobKind::Waveform,
            serde_json::Value::Null,
        )
        .await
        .unwrap();
    let ended = host.run_job(&alice, &job.id).await.unwrap();
    assert_eq!(
        ended.status,
        podhost_core::model::JobStatus::Succeeded,
        "{ended:?}"
    );
    host.waveform(&alice, audio.id, podhost_core::WaveformFormat::Json)
        .await
        .unwrap();
    assert_eq!(audio.size, size);
    assert_eq!(audio.facts.mime, "audio/wav");
    assert_eq!(audio.facts.kind, podhost_core::probe::MediaKind::Audio);
    let facts = audio.facts.audio.clone().expect("audio facts");
    assert_eq!((facts.sample_rate, facts.channels), (8000, 1));
    assert!(facts.duration_ms.abs_diff(2000) <= 1, "{facts:?}");

    let image = upload(&host, &alice, "cover.png", fixtures::png(1400, 1400)).await;
    assert_eq!(image.facts.mime, "image/png");
    assert_eq!(
        image.facts.image.map(|i| (i.width, i.height)),
        Some((1400, 1400))
    );

    let again = upload(&host, &alice, "talk.wav", fixtures::wav(0.5, 8000)).await;
    assert_eq!(again.name, "talk (2).wav", "a clash gets a number");
    assert!(again.id > audio.id);

    let copy = host
        .copy_media(
            &alice,
            audio.id,
            MediaCopy {
                label: "talk.wav".into(),
                category: "archive".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(copy.name, "talk (3).wav");
    assert_eq!(copy.category.as_deref(), Some("archive"));
    assert_eq!((copy.size, &copy.blob), (audio.size, &audio.blob));
    assert_eq!(host.get_media(&alice, copy.id).await.unwrap(), copy);

    // In use: 409 naming the user.
    let feed = host
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed;
    let mut new = NewEpisode::titled("One");
    new.fields.media = Some(Some(audio.id));
    let episode = host.create_episode(&alice, &feed.id, new).await.unwrap();
    match host.delete_media(&alice, audio.id).await {
        Err(Error::Conflict { message }) => assert!(
            message.contains(&episode.episode.id.to_string()),
            "{message}"
        ),
        other => panic!("expected a conflict, got {other:?}"),
    }
    // The copy shares the blob: deleting it keeps the original readable.
    host.delete_media(&alice, copy.id).await.unwrap();
    assert_err!(
        host.get_media(&alice, copy.id).await,
        Error::NotFound { .. }
    );
    use object_store::ObjectStoreExt;
    let blob =
        object_store::path::Path::from_iter(["accounts", "alice", "blobs", audio.blob.as_str()]);
    assert!(
        host.store().head(&blob).await.is_ok(),
        "a shared blob stays"
    );
    host.delete_episode(&alice, &feed.id, episode.episode.id)
        .await
        .unwrap();
    host.delete_media(&alice, audio.id).await.unwrap();
    assert!(
        host.store().head(&blob).await.is_err(),
        "the last user's delete removes the blob"
    );
    assert_err!(
        host.delete_media(&alice, audio.id).await,
        Error::NotFound { .. }
    );
}

/// The media list: sort, direction, filter, strict, paging, count before paging.
pub async fn media_list(store: Arc<dyn ObjectStore>) {
    let (host, clock) = test_host(store);
    let alice = owner(&host, "alice").await;
    for (name, len) in [
        ("b-intro.wav", 0.3),
        ("a-talk.wav", 0.1),
        ("C-outro.wav", 0.2),
        ("Intro.wav", 0.4),
    ] {
        upload(&host, &alice, name, fixtures::wav(len, 8000)).await;
        clock.advance(SignedDuration::from_secs(60));
    }
    let names = |page: podhost_core::model::Page<podhost_core::model::Media>| {
        page.items.into_iter().map(|m| m.name).collect::<Vec<_>>()
    };
    let query = |sort_by, sort_dir, filter: Option<&str>, strict| MediaListQuery {
        sort_by,
        sort_dir,
        filter: filter.map(str::to_string),
        strict,
        page: PageRequest::default(),
    };
    let cases: Vec<(MediaListQuery, Vec<&str>)> = vec![
        (
            MediaListQuery::default(),
            vec!["b-intro.wav", "a-talk.wav", "Intro.wav", "C-outro.wav"],
        ),
        (
            query(MediaSort::Name, SortDir::Asc, None, false),
            vec!["C-outro.wav", "Intro.wav", "a-talk.wav", "b-intro.wav"],
        ),
        (
            query(MediaSort::Size, SortDir::Desc, None, false),
            vec!["Intro.wav", "b-intro.wav", "C-outro.wav", "a-talk.wav"],
        ),
        (
            query(MediaSort::Created, SortDir::Asc, None, false),
            vec!["b-intro.wav", "a-talk.wav", "C-outro.wav", "Intro.wav"],
        ),
        (
            query(MediaSort::Name, SortDir::Asc, Some("INTRO"), false),
            vec!["Intro.wav", "b-intro.wav"],
        ),
        (
            query(MediaSort::Name, SortDir::Asc, Some("intro.wav"), true),
            vec![],
        ),
        (
            query(MediaSort::Name, SortDir::Asc, Some("Intro.wav"), true),
            vec!["Intro.wav"],
        ),
    ];
    for (q, expected) in cases {
        assert_eq!(
            names(host.list_media(&alice, &q).await.unwrap()),
            expected,
            "{q:?}"
        );
    }
    let mut paged = query(MediaSort::Name, SortDir::Asc, None, false);
    paged.page = PageRequest::new(Some(2), Some(3)).unwrap();
    let page = host.list_media(&alice, &paged).await.unwrap();
    assert_eq!(page.total, 4, "count is before paging");
    assert_eq!(names(page), ["b-intro.wav"]);
}

/// An upload that breaks off or is too large leaves no record and no blob.
pub async fn uploads_that_fail_leave_nothing(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store.clone());
    let alice = owner(&host, "alice").await;
    let broken = futures::stream::iter(vec![
        Ok(bytes::Bytes::from(fixtures::wav(1.0, 8000))),
        Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "client went away",
        )),
    ]);
    assert_err!(
        host.upload_media(
            &alice,
            NewMedia {
                name: "x.wav".into(),
                category: None
            },
            broken
        )
        .await,
        Error::Interrupted { .. }
    );
    let mut config = host.config().clone();
    config.max_upload_bytes = 1000;
    let small = PodcastHost::new(config, store.clone());
    assert_err!(
        small
            .upload_media(
                &alice,
                NewMedia {
                    name: "big.wav".into(),
                    category: None
                },
                body(vec![0; 5000], 700)
            )
            .await,
        Error::TooLarge { limit: 1000 }
    );
    assert_eq!(
        host.list_media(&alice, &MediaListQuery::default())
            .await
            .unwrap()
            .total,
        0
    );
    use futures::TryStreamExt;
    let blobs: Vec<_> = store
        .list(Some(&object_store::path::Path::from(
            "accounts/alice/blobs",
        )))
        .try_collect()
        .await
        .unwrap();
    assert!(blobs.is_empty(), "no blob is visible: {blobs:?}");
}

/// Feeds: created with a deployment-wide id, updated, listed, deleted with their episodes.
pub async fn feeds(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let bob = owner(&host, "bob").await;
    let created = host
        .create_feed(&alice, NewFeed::titled("My Show ☕", "My Show"))
        .await
        .unwrap();
    assert_eq!(created.feed.language, "en");
    assert_eq!(created.feed.podcast.medium, "podcast");
    assert_eq!(created.episode_count, 0);
    let guid = created.feed.podcast.guid;

    assert_err!(
        host.create_feed(&bob, NewFeed::titled("My Show ☕", "Mine"))
            .await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.create_feed(&alice, NewFeed::titled("My Show ☕", "Again"))
            .await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.create_feed(&alice, NewFeed::titled("a/b", "Slash"))
            .await,
        Error::Invalid(_)
    );
    assert_err!(
        host.create_feed(&alice, NewFeed::titled("untitled", " "))
            .await,
        Error::Invalid(_)
    );
    // A rejected request takes no id.
    host.create_feed(&bob, NewFeed::titled("untitled", "Bob's"))
        .await
        .unwrap();

    let patch = FeedPatch {
        description: Some("<p>About</p>".into()),
        language: Some("de-AT".into()),
        itunes_category: Some("Technology".into()),
        itunes_owner_email: Some("me@example.com".into()),
        ..Default::default()
    };
    let updated = host
        .update_feed(&alice, &created.feed.id, &patch)
        .await
        .unwrap();
    assert_eq!(updated.feed.language, "de-AT");
    assert_eq!(updated.feed.title, "My Show", "unset fields stay");
    assert_eq!(
        updated.feed.podcast.guid, guid,
        "podcast:guid never changes"
    );
    let bad = FeedPatch {
        language: Some("not a language".into()),
        link: Some("ftp://x".into()),
        itunes_owner_email: Some("nobody".into()),
        ..Default::default()
    };
    match host.update_feed(&alice, &created.feed.id, &bad).await {
        Err(Error::Invalid(errors)) => {
            let fields: Vec<_> = errors.fields().keys().map(String::as_str).collect();
            assert_eq!(fields, ["itunes.owner.email", "language", "link"]);
        }
        other => panic!("expected invalid, got {other:?}"),
    }

    host.create_feed(&alice, NewFeed::titled("second", "Second"))
        .await
        .unwrap();
    let list = host
        .list_feeds(&alice, PageRequest::default())
        .await
        .unwrap();
    let ids: Vec<_> = list.items.iter().map(|f| f.feed.id.as_str()).collect();
    assert_eq!(ids, ["My Show ☕", "second"]);

    let ep = host
        .create_episode(&alice, &created.feed.id, NewEpisode::titled("One"))
        .await
        .unwrap();
    assert_eq!(
        host.get_feed(&alice, &created.feed.id)
            .await
            .unwrap()
            .episode_count,
        1
    );
    host.delete_feed(&alice, &created.feed.id).await.unwrap();
    assert_err!(
        host.get_feed(&alice, &created.feed.id).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.get_episode(&alice, &created.feed.id, ep.episode.id)
            .await,
        Error::NotFound { .. }
    );
    assert!(
        host.feed_deleted_at(&alice, &created.feed.id)
            .await
            .unwrap()
            .is_some()
    );
    assert_err!(
        host.create_feed(&alice, NewFeed::titled("My Show ☕", "Back"))
            .await,
        Error::Conflict { .. }
    );
}

/// Episodes: create, update (with and without a version), copy as a draft, delete.
pub async fn episodes(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let (alice, show) = owner_with_show(&host).await;
    let other = host
        .create_feed(&alice, NewFeed::titled("other", "Other"))
        .await
        .unwrap()
        .feed
        .id;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(1.0, 8000)).await;
    let cover = upload(&host, &alice, "c.png", fixtures::png(1400, 1400)).await;

    assert_err!(
        host.create_episode(&alice, &show, NewEpisode::default())
            .await,
        Error::Invalid(_)
    );
    let mut new = NewEpisode::titled("Pilot");
    new.guid = Some("https://old.host/ep/1".into());
    new.fields.media = Some(Some(audio.id));
    new.fields.itunes_logo = Some(Some(cover.id));
    new.fields.is_public = Some(true);
    new.fields.itunes_season = Some(Some(2));
    let created = host.create_episode(&alice, &show, new).await.unwrap();
    let ep = &created.episode;
    assert!(ep.id.to_string().starts_with("pod-"));
    assert_eq!(
        ep.guid, "https://old.host/ep/1",
        "a given guid is kept verbatim"
    );
    assert_eq!(created.media.as_ref().map(|m| m.id), Some(audio.id));
    assert!(created.is_published);

    let mut wrong_kind = NewEpisode::titled("Bad");
    wrong_kind.fields.media = Some(Some(cover.id));
    wrong_kind.fields.itunes_logo = Some(Some(MediaId::new(999).unwrap()));
    match host.create_episode(&alice, &show, wrong_kind).await {
        Err(Error::Invalid(errors)) => {
            let fields: Vec<_> = errors.fields().keys().map(String::as_str).collect();
            assert_eq!(fields, ["itunes.logo", "show_media"]);
        }
        other => panic!("expected invalid, got {:?}", other.map(|v| v.episode)),
    }

    let patch = EpisodePatch {
        title: Some("Pilot (remastered)".into()),
        if_version: Some(ep.version),
        ..Default::default()
    };
    let updated = host
        .update_episode(&alice, &show, ep.id, &patch)
        .await
        .unwrap();
    assert_eq!(updated.episode.title, "Pilot (remastered)");
    assert_eq!(updated.episode.guid, ep.guid, "the guid never changes");
    assert_eq!(updated.episode.version, ep.version + 1);
    assert_err!(
        host.update_episode(&alice, &show, ep.id, &patch).await,
        Error::Conflict { .. }
    );

    let copy = host
        .copy_episode(&alice, &show, ep.id, Some(&other))
        .await
        .unwrap();
    assert_ne!(copy.episode.id, ep.id);
    assert_eq!(copy.episode.guid, copy.episode.id.to_string());
    assert_eq!(copy.episode.feed, other);
    assert!(
        !copy.episode.is_public && !copy.is_published,
        "a copy is a draft"
    );
    assert_eq!(copy.episode.media, Some(audio.id));
    let same = host.copy_episode(&alice, &show, ep.id, None).await.unwrap();
    assert_eq!(same.episode.feed, show);
    assert_err!(
        host.copy_episode(&alice, &show, ep.id, Some(&FeedId::new("nowhere").unwrap()))
            .await,
        Error::Invalid(_)
    );

    host.delete_episode(&alice, &show, ep.id).await.unwrap();
    assert_err!(
        host.get_episode(&alice, &show, ep.id).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.delete_episode(&alice, &show, ep.id).await,
        Error::NotFound { .. }
    );
    // An episode is found only in its own feed.
    assert_err!(
        host.get_episode(&alice, &show, copy.episode.id).await,
        Error::NotFound { .. }
    );
}

/// The episode list: default order newest first, sort keys, filter, paging.
pub async fn episode_list(store: Arc<dyn ObjectStore>) {
    let (host, clock) = test_host(store);
    let (alice, show) = owner_with_show(&host).await;
    let mut ids = Vec::new();
    for (i, title) in ["Alpha", "Beta", "Gamma", "Delta"].iter().enumerate() {
        let mut new = NewEpisode::titled(*title);
        new.fields.is_public = Some(i % 2 == 0);
        new.fields.description = Some(format!("notes about {}", title.to_lowercase()));
        ids.push(
            host.create_episode(&alice, &show, new)
                .await
                .unwrap()
                .episode
                .id,
        );
        clock.advance(SignedDuration::from_secs(3600));
    }
    // Touch Alpha last.
    host.update_episode(
        &alice,
        &show,
        ids[0],
        &EpisodePatch {
            subtitle: Some("x".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let titles = |page: podhost_core::model::Page<podhost_core::model::EpisodeView>| {
        page.items
            .into_iter()
            .map(|v| v.episode.title)
            .collect::<Vec<_>>()
    };
    let q = |sort_by, descending, filter: Option<&str>| EpisodeListQuery {
        sort_by,
        descending,
        filter: filter.map(str::to_string),
        page: PageRequest::default(),
    };
    let cases = [
        (
            q(EpisodeSort::PublishDate, None, None),
            vec!["Delta", "Gamma", "Beta", "Alpha"],
        ),
        (
            q(EpisodeSort::PublishDate, Some(false), None),
            vec!["Alpha", "Beta", "Gamma", "Delta"],
        ),
        (
            q(EpisodeSort::LastUpdate, Some(true), None),
            vec!["Alpha", "Delta", "Gamma", "Beta"],
        ),
        (
            q(EpisodeSort::IsPublic, Some(true), None),
            vec!["Gamma", "Alpha", "Delta", "Beta"],
        ),
        (
            q(EpisodeSort::PublishDate, None, Some("GAMMA")),
            vec!["Gamma"],
        ),
        (
            q(EpisodeSort::PublishDate, None, Some("notes about")),
            vec!["Delta", "Gamma", "Beta", "Alpha"],
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(
            titles(host.list_episodes(&alice, &show, &query).await.unwrap()),
            expected,
            "{query:?}"
        );
    }
    let mut paged = q(EpisodeSort::PublishDate, None, None);
    paged.page = PageRequest::new(Some(2), Some(3)).unwrap();
    let page = host.list_episodes(&alice, &show, &paged).await.unwrap();
    assert_eq!((page.total, titles(page)), (4, vec!["Alpha".to_string()]));
    assert_err!(
        host.list_episodes(
            &alice,
            &FeedId::new("nope").unwrap(),
            &EpisodeListQuery::default()
        )
        .await,
        Error::NotFound { .. }
    );
}

/// A public episode with a future date publishes itself when the time comes.
pub async fn scheduled_publishing(store: Arc<dyn ObjectStore>) {
    let (host, clock) = test_host(store);
    let (alice, show) = owner_with_show(&host).await;
    let mut new = NewEpisode::titled("Tomorrow");
    new.fields.is_public = Some(true);
    new.fields.publish_at = Some(host.now() + SignedDuration::from_hours(24));
    let ep = host.create_episode(&alice, &show, new).await.unwrap();
    assert!(!ep.is_published, "scheduled, not yet published");
    clock.advance(SignedDuration::from_hours(23));
    assert!(
        !host
            .get_episode(&alice, &show, ep.episode.id)
            .await
            .unwrap()
            .is_published
    );
    clock.advance(SignedDuration::from_hours(1));
    assert!(
        host.get_episode(&alice, &show, ep.episode.id)
            .await
            .unwrap()
            .is_published
    );
    let mut draft = NewEpisode::titled("Draft");
    draft.fields.publish_at = Some(host.now() - SignedDuration::from_hours(1));
    assert!(
        !host
            .create_episode(&alice, &show, draft)
            .await
            .unwrap()
            .is_published,
        "a draft never is"
    );
}

/// Another account's objects do not exist for a caller: every operation says not found.
pub async fn ownership(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let mallory = owner(&host, "mallory").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(0.2, 8000)).await;
    let show = host
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = host
        .create_episode(&alice, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;
    let token = host
        .create_token(&alice, "t", Scopes::all())
        .await
        .unwrap()
        .token
        .id;
    host.create_feed(&mallory, NewFeed::titled("mine", "Mine"))
        .await
        .unwrap();
    let mine = FeedId::new("mine").unwrap();

    let m = &mallory;
    let results: Vec<(&str, Result<(), Error>)> = vec![
        ("get_media", host.get_media(m, audio.id).await.map(drop)),
        (
            "download_media",
            host.download_media(m, audio.id).await.map(drop),
        ),
        ("delete_media", host.delete_media(m, audio.id).await),
        (
            "copy_media",
            host.copy_media(
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
        ("get_feed", host.get_feed(m, &show).await.map(drop)),
        (
            "update_feed",
            host.update_feed(m, &show, &FeedPatch::default())
                .await
                .map(drop),
        ),
        ("delete_feed", host.delete_feed(m, &show).await),
        (
            "list_episodes",
            host.list_episodes(m, &show, &EpisodeListQuery::default())
                .await
                .map(drop),
        ),
        (
            "get_episode",
            host.get_episode(m, &show, ep).await.map(drop),
        ),
        (
            "create_episode",
            host.create_episode(m, &show, NewEpisode::titled("x"))
                .await
                .map(drop),
        ),
        (
            "update_episode",
            host.update_episode(m, &show, ep, &EpisodePatch::default())
                .await
                .map(drop),
        ),
        ("delete_episode", host.delete_episode(m, &show, ep).await),
        (
            "copy_episode",
            host.copy_episode(m, &show, ep, Some(&mine)).await.map(drop),
        ),
        ("revoke_token", host.revoke_token(m, &token).await.map(drop)),
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
    assert_err!(host.create_episode(m, &mine, new).await, Error::Invalid(_));
    assert_eq!(
        host.list_media(m, &MediaListQuery::default())
            .await
            .unwrap()
            .total,
        0
    );
    assert_eq!(
        host.list_feeds(m, PageRequest::default())
            .await
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        host.get_episode(&alice, &show, ep)
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
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = host
        .create_episode(&alice, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;

    for scope in Scope::ALL {
        let secret = host
            .create_token(&alice, scope.as_str(), Scopes::from_iter([scope]))
            .await
            .unwrap()
            .secret;
        let who = host.authenticate(&secret).await.unwrap();
        let ops: Vec<(Scope, Result<(), Error>)> = vec![
            (
                Scope::MediaReadOnly,
                host.list_media(&who, &MediaListQuery::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::MediaReadOnly,
                host.get_media(&who, audio.id).await.map(drop),
            ),
            (
                Scope::MediaReadOnly,
                host.download_media(&who, audio.id).await.map(drop),
            ),
            (
                Scope::Media,
                host.copy_media(
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
                host.upload_media(
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
                host.list_feeds(&who, PageRequest::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::FeedsReadOnly,
                host.get_feed(&who, &show).await.map(drop),
            ),
            (
                Scope::Feeds,
                host.update_feed(&who, &show, &FeedPatch::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::ShowsReadOnly,
                host.list_episodes(&who, &show, &EpisodeListQuery::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::ShowsReadOnly,
                host.get_episode(&who, &show, ep).await.map(drop),
            ),
            (
                Scope::Shows,
                host.update_episode(&who, &show, ep, &EpisodePatch::default())
                    .await
                    .map(drop),
            ),
            (
                Scope::Shows,
                host.copy_episode(&who, &show, ep, None).await.map(drop),
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
        .authenticate(
            &host
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
        host.delete_media(&read_only, audio.id).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.delete_episode(&read_only, &show, ep).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.delete_feed(&read_only, &show).await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.create_episode(&read_only, &show, NewEpisode::titled("x"))
            .await,
        Error::Forbidden { .. }
    );
    assert_err!(
        host.create_feed(&read_only, NewFeed::titled("new", "New"))
            .await,
        Error::Forbidden { .. }
    );
    assert!(host.get_feed(&alice, &show).await.is_ok());
}

/// Two hosts on one store: each sees the other's writes; concurrent edits of one episode
/// both apply.
pub async fn two_hosts_share_a_store(store: Arc<dyn ObjectStore>) {
    let (a, _) = test_host(store.clone());
    let (b, _) = test_host(store);
    let alice_a = owner(&a, "alice").await;
    let alice_b = b.owner(&"alice".parse().unwrap()).await.unwrap();
    let show = a
        .create_feed(&alice_a, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let ep = a
        .create_episode(&alice_a, &show, NewEpisode::titled("One"))
        .await
        .unwrap()
        .episode
        .id;
    assert_eq!(
        b.get_episode(&alice_b, &show, ep)
            .await
            .unwrap()
            .episode
            .title,
        "One"
    );

    // Each host sets a different field at the same time: both changes survive.
    let from_a = EpisodePatch {
        subtitle: Some("from a".into()),
        ..Default::default()
    };
    let from_b = EpisodePatch {
        author: Some("from b".into()),
        ..Default::default()
    };
    let (ra, rb) = tokio::join!(
        a.update_episode(&alice_a, &show, ep, &from_a),
        b.update_episode(&alice_b, &show, ep, &from_b),
    );
    ra.unwrap();
    rb.unwrap();
    for host in [&a, &b] {
        let who = host.owner(&"alice".parse().unwrap()).await.unwrap();
        let seen = host.get_episode(&who, &show, ep).await.unwrap().episode;
        assert_eq!(
            (seen.subtitle.as_str(), seen.author.as_str(), seen.version),
            ("from a", "from b", 3)
        );
    }
    // Ids handed out by both hosts never collide.
    let (x, y) = tokio::join!(
        a.create_episode(&alice_a, &show, NewEpisode::titled("from a")),
        b.create_episode(&alice_b, &show, NewEpisode::titled("from b")),
    );
    assert_ne!(x.unwrap().episode.id, y.unwrap().episode.id);
}

/// Reads a public or private file's bytes whole.
async fn read_whole(host: &PodcastHost, media: &podhost_core::publish::PublicMedia) -> Vec<u8> {
    use futures::TryStreamExt;
    let chunks: Vec<bytes::Bytes> = host
        .media_bytes(media, 0..media.size)
        .await
        .expect("the file reads")
        .try_collect()
        .await
        .expect("the file streams");
    chunks.concat()
}

/// The feed of a public podcast names its published episode and the enclosure's URL, whose
/// bytes are the uploaded ones (and a range of them); a second host on the store renders the
/// same feed; a deleted podcast's feed is gone.
pub async fn publishing(store: Arc<dyn ObjectStore>) {
    use podhost_core::publish::PublicFeed;
    let (host, _) = test_host(store.clone());
    let (alice, show) = owner_with_show(&host).await;
    let bytes = fixtures::wav(1.0, 8000);
    let audio = upload(&host, &alice, "a.wav", bytes.clone()).await;
    let mut new = NewEpisode::titled("Pilot");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.create_episode(&alice, &show, new).await.unwrap();
    let PublicFeed::Live(feed) = host.public_feed(&show).await.unwrap() else {
        panic!("the feed is live");
    };
    let xml = String::from_utf8(feed.xml.to_vec()).unwrap();
    assert!(xml.contains("<title>Pilot</title>"), "{xml}");
    assert!(
        xml.contains(audio.blob.as_str()),
        "the enclosure URL: {xml}"
    );
    let media = host
        .public_media("alice", audio.blob.as_str())
        .await
        .unwrap();
    assert_eq!(media.size, bytes.len() as u64);
    assert_eq!(read_whole(&host, &media).await, bytes);
    use futures::TryStreamExt;
    let range: Vec<bytes::Bytes> = host
        .media_bytes(&media, 10..20)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(range.concat(), bytes[10..20]);
    let (second, _) = test_host(store);
    let PublicFeed::Live(again) = second.public_feed(&show).await.unwrap() else {
        panic!("the feed is live on the second host");
    };
    assert_eq!(again.etag, feed.etag, "both hosts render the same bytes");
    host.delete_feed(&alice, &show).await.unwrap();
    assert!(matches!(
        second.public_feed(&show).await.unwrap(),
        PublicFeed::Gone
    ));
}

/// A waveform job submitted by one host runs to the end and its result is read back; another
/// account sees neither the job nor the result.
pub async fn jobs(store: Arc<dyn ObjectStore>) {
    use podhost_core::model::{JobKind, JobStatus};
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let bob = owner(&host, "bob").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(2.0, 8000)).await;
    let job = host
        .submit_job(&alice, audio.id, JobKind::Waveform, serde_json::json!({}))
        .await
        .unwrap();
    let done = host.run_job(&alice, &job.id).await.unwrap();
    assert_eq!(done.status, JobStatus::Succeeded, "{done:?}");
    let json = host
        .waveform(&alice, audio.id, podhost_core::WaveformFormat::Json)
        .await
        .unwrap();
    let peaks: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(peaks["data"].as_array().is_some_and(|d| !d.is_empty()));
    assert_err!(host.get_job(&bob, &job.id).await, Error::NotFound { .. });
    assert_err!(
        host.waveform(&bob, audio.id, podhost_core::WaveformFormat::Json)
            .await,
        Error::NotFound { .. }
    );
}

/// A download recorded by one host is flushed to the store, counted once its day is closed,
/// and reported to the podcast's owner only.
pub async fn statistics(store: Arc<dyn ObjectStore>) {
    use podhost_core::stats::{Delivery, StatsQuery};
    let (host, clock) = test_host(store.clone());
    let (alice, show) = owner_with_show(&host).await;
    let bob = owner(&host, "bob").await;
    let bytes = fixtures::wav(90.0, 8000);
    let audio = upload(&host, &alice, "a.wav", bytes.clone()).await;
    let mut new = NewEpisode::titled("Pilot");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.create_episode(&alice, &show, new).await.unwrap();
    let size = bytes.len() as u64;
    for client in ["192.0.2.1", "192.0.2.2"] {
        host.record_download(Delivery {
            account: "alice".into(),
            blob: audio.blob.as_str().into(),
            client: client.parse().unwrap(),
            user_agent: "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X)".into(),
            range: 0..size,
            delivered: size,
            subscriber: None,
        });
    }
    assert!(host.flush_stats().await.unwrap() >= 2);
    clock.advance(SignedDuration::from_hours(48));
    let (second, _) = test_host(store);
    second.close_stats_days().await.unwrap();
    let today = podhost_core::Clock::now(&clock)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let query = StatsQuery {
        from: Some(
            today
                .yesterday()
                .unwrap()
                .yesterday()
                .unwrap()
                .yesterday()
                .unwrap(),
        ),
        to: Some(today),
        ..Default::default()
    };
    let report = second.download_stats(&alice, &query).await.unwrap();
    assert_eq!(report.total, 2, "{report:?}");
    let theirs = second.download_stats(&bob, &query).await.unwrap();
    assert_eq!(theirs.total, 0, "another account counts nothing of alice's");
}

/// A sender that records what it was asked to send and answers 204.
#[derive(Debug, Default)]
struct Recorder(std::sync::Mutex<Vec<podhost_core::webhooks::WebhookRequest>>);

#[async_trait::async_trait]
impl podhost_core::webhooks::WebhookSender for Recorder {
    async fn send(
        &self,
        request: podhost_core::webhooks::WebhookRequest,
    ) -> podhost_core::webhooks::SendOutcome {
        self.0.lock().unwrap().push(request);
        podhost_core::webhooks::SendOutcome::Answered {
            status: 204,
            excerpt: String::new(),
        }
    }
}

/// Renders an event's data as its subject's debug form.
#[derive(Debug)]
struct DebugRenderer;

impl podhost_core::webhooks::event::EventRenderer for DebugRenderer {
    fn render(
        &self,
        _account: &podhost_core::AccountId,
        subject: &podhost_core::webhooks::event::Subject,
    ) -> serde_json::Value {
        serde_json::json!({ "subject": format!("{subject:?}") })
    }
}

/// A change made on one host is delivered once, signed, by another host of the store; a second
/// run sends nothing again; the other account's subscription gets nothing of it.
pub async fn webhooks(store: Arc<dyn ObjectStore>) {
    use podhost_core::webhooks::subscription::NewWebhook;
    let (host, _) = test_host(store.clone());
    let (alice, show) = owner_with_show(&host).await;
    let bob = owner(&host, "bob").await;
    for who in [&alice, &bob] {
        host.create_webhook(
            who,
            NewWebhook {
                url: "http://127.0.0.1:9/hook".into(),
                events: vec![],
                description: None,
                secret: None,
            },
        )
        .await
        .unwrap();
    }
    let mut new = NewEpisode::titled("Pilot");
    new.fields.is_public = Some(true);
    host.create_episode(&alice, &show, new).await.unwrap();
    let (second, _) = test_host(store);
    let alice_there = second.owner(&"alice".parse().unwrap()).await.unwrap();
    let bob_there = second.owner(&"bob".parse().unwrap()).await.unwrap();
    let sender = Recorder::default();
    second
        .process_webhooks(&alice_there, &sender, &DebugRenderer)
        .await
        .unwrap();
    let sent = sender.0.lock().unwrap().clone();
    assert!(!sent.is_empty(), "the episode's events are delivered");
    for request in &sent {
        assert!(
            request
                .headers
                .iter()
                .any(|(name, value)| name == "webhook-signature" && value.starts_with("v1,")),
            "signed: {:?}",
            request.headers
        );
    }
    let first = sent.len();
    second
        .process_webhooks(&alice_there, &sender, &DebugRenderer)
        .await
        .unwrap();
    host.process_webhooks(&alice, &sender, &DebugRenderer)
        .await
        .unwrap();
    assert_eq!(sender.0.lock().unwrap().len(), first, "each event once");
    let bobs = Recorder::default();
    second
        .process_webhooks(&bob_there, &bobs, &DebugRenderer)
        .await
        .unwrap();
    assert!(
        bobs.0.lock().unwrap().is_empty(),
        "bob gets nothing of alice's"
    );
}

/// A private podcast has no public feed or files; its subscriber's feed lists the episode and
/// carries the subscriber's key; a revoked subscriber's feed is gone on another host; another
/// account can neither list nor revoke the subscribers.
pub async fn private_podcasts(store: Arc<dyn ObjectStore>) {
    use podhost_core::Private;
    let (host, _) = test_host(store.clone());
    let (alice, show) = owner_with_show(&host).await;
    let bob = owner(&host, "bob").await;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(1.0, 8000)).await;
    let patch = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    host.update_feed(&alice, &show, &patch).await.unwrap();
    let mut new = NewEpisode::titled("Members only");
    new.fields.media = Some(Some(audio.id));
    new.fields.is_public = Some(true);
    host.create_episode(&alice, &show, new).await.unwrap();
    assert_err!(host.public_feed(&show).await, Error::NotFound { .. });
    assert_err!(
        host.public_media("alice", audio.blob.as_str()).await,
        Error::NotFound { .. }
    );
    let subscriber = host.add_subscriber(&alice, &show, "Carol").await.unwrap();
    let (second, _) = test_host(store);
    let Private::Live(feed) = second.private_feed(&show, subscriber.key()).await.unwrap() else {
        panic!("the subscriber's feed is live");
    };
    let xml = String::from_utf8(feed.xml.to_vec()).unwrap();
    assert!(xml.contains("Members only"), "{xml}");
    assert!(xml.contains(subscriber.key()), "URLs carry the key: {xml}");
    assert_err!(
        second.list_subscribers(&bob, &show).await,
        Error::NotFound { .. }
    );
    assert_err!(
        second.remove_subscriber(&bob, &show, &subscriber.id).await,
        Error::NotFound { .. }
    );
    host.remove_subscriber(&alice, &show, &subscriber.id)
        .await
        .unwrap();
    assert!(matches!(
        second.private_feed(&show, subscriber.key()).await.unwrap(),
        Private::Gone
    ));
}
