//! Podcasts and their episodes: feeds, episodes, lists, scheduled publishing.

use std::sync::Arc;

use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{
    Error, FeedId, MediaId,
    model::{
        EpisodeListQuery, EpisodePatch, EpisodeSort, FeedPatch, NewEpisode, NewFeed, PageRequest,
    },
};

use crate::{fixtures, test_host};

use super::assert_err;
use crate::setup::{account as owner, account_with_podcast, upload};

/// Feeds: created with a deployment-wide id, updated, listed, deleted with their episodes.
pub async fn feeds(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let alice = owner(&host, "alice").await;
    let bob = owner(&host, "bob").await;
    let created = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("My Show ☕", "My Show"))
        .await
        .unwrap();
    assert_eq!(created.feed.language, "en");
    assert_eq!(created.feed.podcast.medium, "podcast");
    assert_eq!(created.episode_count, 0);
    let guid = created.feed.podcast.guid;

    assert_err!(
        host.podcasts()
            .create_feed(&bob, NewFeed::titled("My Show ☕", "Mine"))
            .await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.podcasts()
            .create_feed(&alice, NewFeed::titled("My Show ☕", "Again"))
            .await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.podcasts()
            .create_feed(&alice, NewFeed::titled("a/b", "Slash"))
            .await,
        Error::Invalid(_)
    );
    assert_err!(
        host.podcasts()
            .create_feed(&alice, NewFeed::titled("untitled", " "))
            .await,
        Error::Invalid(_)
    );
    // A rejected request takes no id.
    host.podcasts()
        .create_feed(&bob, NewFeed::titled("untitled", "Bob's"))
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
        .podcasts()
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
    match host
        .podcasts()
        .update_feed(&alice, &created.feed.id, &bad)
        .await
    {
        Err(Error::Invalid(errors)) => {
            let fields: Vec<_> = errors.fields().keys().map(String::as_str).collect();
            assert_eq!(fields, ["itunes.owner.email", "language", "link"]);
        }
        other => panic!("expected invalid, got {other:?}"),
    }

    host.podcasts()
        .create_feed(&alice, NewFeed::titled("second", "Second"))
        .await
        .unwrap();
    let list = host
        .podcasts()
        .list_feeds(&alice, PageRequest::default())
        .await
        .unwrap();
    let ids: Vec<_> = list.items.iter().map(|f| f.feed.id.as_str()).collect();
    assert_eq!(ids, ["My Show ☕", "second"]);

    let ep = host
        .podcasts()
        .create_episode(&alice, &created.feed.id, NewEpisode::titled("One"))
        .await
        .unwrap();
    assert_eq!(
        host.podcasts()
            .get_feed(&alice, &created.feed.id)
            .await
            .unwrap()
            .episode_count,
        1
    );
    host.podcasts()
        .delete_feed(&alice, &created.feed.id)
        .await
        .unwrap();
    assert_err!(
        host.podcasts().get_feed(&alice, &created.feed.id).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.podcasts()
            .get_episode(&alice, &created.feed.id, ep.episode.id)
            .await,
        Error::NotFound { .. }
    );
    assert!(
        host.podcasts()
            .feed_deleted_at(&alice, &created.feed.id)
            .await
            .unwrap()
            .is_some()
    );
    assert_err!(
        host.podcasts()
            .create_feed(&alice, NewFeed::titled("My Show ☕", "Back"))
            .await,
        Error::Conflict { .. }
    );
}

/// Episodes: create, update (with and without a version), copy as a draft, delete.
pub async fn episodes(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let other = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("other", "Other"))
        .await
        .unwrap()
        .feed
        .id;
    let audio = upload(&host, &alice, "a.wav", fixtures::wav(1.0, 8000)).await;
    let cover = upload(&host, &alice, "c.png", fixtures::png(1400, 1400)).await;

    assert_err!(
        host.podcasts()
            .create_episode(&alice, &show, NewEpisode::default())
            .await,
        Error::Invalid(_)
    );
    let mut new = NewEpisode::titled("Pilot");
    new.guid = Some("https://old.host/ep/1".into());
    new.fields.media = Some(Some(audio.id));
    new.fields.itunes_logo = Some(Some(cover.id));
    new.fields.is_public = Some(true);
    new.fields.itunes_season = Some(Some(2));
    let created = host
        .podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
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
    match host
        .podcasts()
        .create_episode(&alice, &show, wrong_kind)
        .await
    {
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
        .podcasts()
        .update_episode(&alice, &show, ep.id, &patch)
        .await
        .unwrap();
    assert_eq!(updated.episode.title, "Pilot (remastered)");
    assert_eq!(updated.episode.guid, ep.guid, "the guid never changes");
    assert_eq!(updated.episode.version, ep.version + 1);
    assert_err!(
        host.podcasts()
            .update_episode(&alice, &show, ep.id, &patch)
            .await,
        Error::Conflict { .. }
    );

    let copy = host
        .podcasts()
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
    let same = host
        .podcasts()
        .copy_episode(&alice, &show, ep.id, None)
        .await
        .unwrap();
    assert_eq!(same.episode.feed, show);
    assert_err!(
        host.podcasts()
            .copy_episode(&alice, &show, ep.id, Some(&FeedId::new("nowhere").unwrap()))
            .await,
        Error::Invalid(_)
    );

    host.podcasts()
        .delete_episode(&alice, &show, ep.id)
        .await
        .unwrap();
    assert_err!(
        host.podcasts().get_episode(&alice, &show, ep.id).await,
        Error::NotFound { .. }
    );
    assert_err!(
        host.podcasts().delete_episode(&alice, &show, ep.id).await,
        Error::NotFound { .. }
    );
    // An episode is found only in its own feed.
    assert_err!(
        host.podcasts()
            .get_episode(&alice, &show, copy.episode.id)
            .await,
        Error::NotFound { .. }
    );
}

/// The episode list: default order newest first, sort keys, filter, paging.
pub async fn episode_list(store: Arc<dyn ObjectStore>) {
    let (host, clock) = test_host(store);
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let mut ids = Vec::new();
    for (i, title) in ["Alpha", "Beta", "Gamma", "Delta"].iter().enumerate() {
        let mut new = NewEpisode::titled(*title);
        new.fields.is_public = Some(i % 2 == 0);
        new.fields.description = Some(format!("notes about {}", title.to_lowercase()));
        ids.push(
            host.podcasts()
                .create_episode(&alice, &show, new)
                .await
                .unwrap()
                .episode
                .id,
        );
        clock.advance(SignedDuration::from_secs(3600));
    }
    // Touch Alpha last.
    host.podcasts()
        .update_episode(
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
            titles(
                host.podcasts()
                    .list_episodes(&alice, &show, &query)
                    .await
                    .unwrap()
            ),
            expected,
            "{query:?}"
        );
    }
    let mut paged = q(EpisodeSort::PublishDate, None, None);
    paged.page = PageRequest::new(Some(2), Some(3)).unwrap();
    let page = host
        .podcasts()
        .list_episodes(&alice, &show, &paged)
        .await
        .unwrap();
    assert_eq!((page.total, titles(page)), (4, vec!["Alpha".to_string()]));
    assert_err!(
        host.podcasts()
            .list_episodes(
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
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let mut new = NewEpisode::titled("Tomorrow");
    new.fields.is_public = Some(true);
    new.fields.publish_at = Some(host.now() + SignedDuration::from_hours(24));
    let ep = host
        .podcasts()
        .create_episode(&alice, &show, new)
        .await
        .unwrap();
    assert!(!ep.is_published, "scheduled, not yet published");
    clock.advance(SignedDuration::from_hours(23));
    assert!(
        !host
            .podcasts()
            .get_episode(&alice, &show, ep.episode.id)
            .await
            .unwrap()
            .is_published
    );
    clock.advance(SignedDuration::from_hours(1));
    assert!(
        host.podcasts()
            .get_episode(&alice, &show, ep.episode.id)
            .await
            .unwrap()
            .is_published
    );
    let mut draft = NewEpisode::titled("Draft");
    draft.fields.publish_at = Some(host.now() - SignedDuration::from_hours(1));
    assert!(
        !host
            .podcasts()
            .create_episode(&alice, &show, draft)
            .await
            .unwrap()
            .is_published,
        "a draft never is"
    );
}
