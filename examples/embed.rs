//! cargo run -p podhost-examples --example embed
//!
//! Embeds podhost in an application: opens a store, creates an account with a token, uploads an
//! episode's audio, creates a feed and a scheduled episode, and lists them as a REST client of
//! the token would see them.

use podhost_core::{
    HostConfig, PodcastHost, Scopes,
    model::{EpisodeListQuery, EpisodePatch, NewEpisode, NewFeed, NewMedia},
};

podhost_examples::main!(run);

async fn run() -> anyhow::Result<()> {
    // memory:// keeps the example self-contained; use a folder or s3://bucket/prefix for real.
    let opened = podhost_core::open_store("memory://")?;
    let host = PodcastHost::new(HostConfig::new("https://pod.example.com")?, opened.store);

    host.access().create_account("alice").await?;
    let owner = host.access().owner(&"alice".parse()?).await?;
    let token = host
        .access()
        .create_token(&owner, "example", Scopes::parse_list("media,feeds,shows")?)
        .await?;
    // What an HTTP frontend does with the bearer secret of each request:
    let alice = host.access().authenticate(&token.secret).await?;

    let audio = host
        .podcasts()
        .upload_media(
            &alice,
            NewMedia {
                name: "pilot.wav".into(),
                category: None,
            },
            podhost_testkit::body(podhost_testkit::fixtures::wav(3.0, 16_000), 64 * 1024),
        )
        .await?;
    println!(
        "uploaded {} ({}, {} bytes): {}",
        audio.name,
        audio.facts.info,
        audio.size,
        host.podcasts().media_url(alice.account(), &audio)
    );

    let feed = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("daily", "Daily"))
        .await?
        .feed;
    let fields = EpisodePatch {
        title: Some("Pilot".into()),
        media: Some(Some(audio.id)),
        is_public: Some(true),
        publish_at: Some(host.now() + jiff::SignedDuration::from_hours(1)),
        ..Default::default()
    };
    let episode = host
        .podcasts()
        .create_episode(&alice, &feed.id, NewEpisode { guid: None, fields })
        .await?;
    println!(
        "created {} in {}: published now? {} (scheduled for {})",
        episode.episode.id, feed.id, episode.is_published, episode.episode.publish_at
    );

    for view in host
        .podcasts()
        .list_episodes(&alice, &feed.id, &EpisodeListQuery::default())
        .await?
        .items
    {
        println!(
            "- {} {:?} {}",
            view.episode.id,
            view.episode.title,
            host.urls().episode_page(&feed.id, view.episode.id)
        );
    }
    Ok(())
}
