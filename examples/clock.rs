//! cargo run -p podhost-examples --example clock
//!
//! A `Clock` of the application's own. podhost reads the time only through its clock: what is
//! published, when a token or session expires, which statistics day a download falls on. This
//! one runs ahead of the system clock by an offset the application sets, the way a staging
//! deployment previews tomorrow's feed: an episode scheduled for tomorrow shows in its feed as
//! soon as the offset reaches it, and the same host's API says it is published.

use std::sync::{
    Arc,
    atomic::{AtomicI64, Ordering},
};

use jiff::{SignedDuration, Timestamp};
use podhost_core::{
    Clock, HostConfig, PodcastHost,
    model::{NewEpisode, NewFeed},
    publish::PublicFeed,
};

/// The system's time plus an offset (seconds) that can be changed while the host runs.
#[derive(Debug, Default)]
struct AheadClock {
    offset_seconds: AtomicI64,
}

impl AheadClock {
    fn set_ahead(&self, by: SignedDuration) {
        self.offset_seconds.store(by.as_secs(), Ordering::SeqCst);
    }
}

impl Clock for AheadClock {
    fn now(&self) -> Timestamp {
        let offset = SignedDuration::from_secs(self.offset_seconds.load(Ordering::SeqCst));
        Timestamp::now() + offset
    }
}

podhost_examples::main!(run);

async fn run() -> anyhow::Result<()> {
    let clock = Arc::new(AheadClock::default());
    let host = PodcastHost::with_clock(
        HostConfig::new("https://staging.pod.example")?,
        podhost_core::open_store("memory://")?.store,
        clock.clone(),
    );
    host.access().create_account("alice").await?;
    let alice = host.access().owner(&"alice".parse()?).await?;
    let feed = host
        .podcasts()
        .create_feed(&alice, NewFeed::titled("daily", "Daily"))
        .await?
        .feed
        .id;
    let mut tomorrow = NewEpisode::titled("Episode of tomorrow");
    tomorrow.fields.is_public = Some(true);
    tomorrow.fields.publish_at = Some(host.now() + SignedDuration::from_hours(24));
    let episode = host
        .podcasts()
        .create_episode(&alice, &feed, tomorrow)
        .await?
        .episode
        .id;

    let in_feed = |host: PodcastHost| async move {
        match host.delivery().public_feed(&"daily".parse()?).await? {
            PublicFeed::Live(rendered) => {
                anyhow::Ok(String::from_utf8_lossy(&rendered.xml).contains("Episode of tomorrow"))
            }
            _ => anyhow::bail!("the feed is live"),
        }
    };
    println!("today: in the feed? {}", in_feed(host.clone()).await?);
    anyhow::ensure!(!in_feed(host.clone()).await?);

    clock.set_ahead(SignedDuration::from_hours(25));
    let published = host
        .podcasts()
        .get_episode(&alice, &feed, episode)
        .await?
        .is_published;
    println!(
        "a day ahead: in the feed? {}; published? {published}",
        in_feed(host.clone()).await?
    );
    anyhow::ensure!(in_feed(host.clone()).await? && published);
    Ok(())
}
