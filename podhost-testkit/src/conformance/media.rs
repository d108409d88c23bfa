//! Media files: uploads, lists, and uploads that fail.

use std::sync::Arc;

use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{
    Error, PodcastHost,
    model::{
        MediaCopy, MediaListQuery, MediaSort, NewEpisode, NewFeed, NewMedia, PageRequest, SortDir,
    },
};

use crate::{body, fixtures, test_host};

use super::assert_err;
use crate::setup::{account as owner, upload};

/// Media: upload detects and probes, names are cleaned and unique, copy, delete, in-use.
pub async fn media(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let wav = fixtures::wav(2.0, 8000);
    let size = wav.len() as u64;
    let audio = upload(&host, &alice, "../talk.wav", wav.clone()).await;
    assert_eq!(audio.name, "talk.wav");
    // Its owner reads its bytes back as they were uploaded.
    let (record, bytes) = host
        .podcasts()
        .download_media(&alice, audio.id)
        .await
        .unwrap();
    assert_eq!(record, audio);
    let bytes: Vec<bytes::Bytes> = futures::TryStreamExt::try_collect(bytes).await.unwrap();
    assert_eq!(bytes.concat(), wav);
    // A job run in this process, with no worker loop, ends with its result stored.
    let job = host
        .work()
        .submit_job(
            &alice,
            audio.id,
            podhost_core::model::JobKind::Waveform,
            serde_json::Value::Null,
        )
        .await
        .unwrap();
    let ended = host.work().run_job(&alice, &job.id).await.unwrap();
    assert_eq!(
        ended.status,
        podhost_core::model::JobStatus::Succeeded,
        "{ended:?}"
    );
    host.work()
        .waveform(&alice, audio.id, podhost_core::WaveformFormat::Json)
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
        .podcasts()
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
    assert_eq!(
        host.podcasts().get_media(&alice, copy.id).await.unwrap(),
        copy
    );

    // In use: 409 naming the user.
    let feed = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed;
    let mut new = NewEpisode::titled("One");
    new.fields.media = Some(Some(audio.id));
    let episode = host
        .podcasts()
        .create_episode(&alice, &feed.id, new)
        .await
        .unwrap();
    match host.podcasts().delete_media(&alice, audio.id).await {
        Err(Error::Conflict { message }) => assert!(
            message.contains(&episode.episode.id.to_string()),
            "{message}"
        ),
        other => panic!("expected a conflict, got {other:?}"),
    }
    // The copy shares the blob: deleting it keeps the original readable.
    host.podcasts().delete_media(&alice, copy.id).await.unwrap();
    assert_err!(
        host.podcasts().get_media(&alice, copy.id).await,
        Error::NotFound { .. }
    );
    use object_store::ObjectStoreExt;
    let blob =
        object_store::path::Path::from_iter(["accounts", "alice", "blobs", audio.blob.as_str()]);
    assert!(
        host.store().head(&blob).await.is_ok(),
        "a shared blob stays"
    );
    host.podcasts()
        .delete_episode(&alice, &feed.id, episode.episode.id)
        .await
        .unwrap();
    host.podcasts()
        .delete_media(&alice, audio.id)
        .await
        .unwrap();
    assert!(
        host.store().head(&blob).await.is_err(),
        "the last user's delete removes the blob"
    );
    assert_err!(
        host.podcasts().delete_media(&alice, audio.id).await,
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
            names(host.podcasts().list_media(&alice, &q).await.unwrap()),
            expected,
            "{q:?}"
        );
    }
    let mut paged = query(MediaSort::Name, SortDir::Asc, None, false);
    paged.page = PageRequest::new(Some(2), Some(3)).unwrap();
    let page = host.podcasts().list_media(&alice, &paged).await.unwrap();
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
        host.podcasts()
            .upload_media(
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
            .podcasts()
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
        host.podcasts()
            .list_media(&alice, &MediaListQuery::default())
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
