//! Catalog and upload figures (not a timed test): run with
//! `cargo bench -p podhost-testkit --bench catalog` (add `-- --quick` for a smaller run).
//!
//! Prints: peak memory of a 2 GiB upload through the core; cold open time and objects read for
//! an account with 10,000 episodes (in memory, on a local folder, and on the S3 server of the
//! tests, `podhost_testkit::s3`: SeaweedFS, or moto with PODHOST_S3_SERVER=moto); bytes written per single-episode edit, snapshots and
//! segments included, for edits of recent episodes and for edits spread over every episode;
//! edits per second.

use std::{sync::Arc, time::Instant};

use bytes::Bytes;
use object_store::ObjectStore;
use podhost_core::{
    FeedId, HostConfig, PodcastHost,
    model::{EpisodePatch, NewEpisode, NewFeed, NewMedia},
};
use podhost_testkit::FaultStore;

fn host(store: Arc<dyn ObjectStore>) -> PodcastHost {
    PodcastHost::new(HostConfig::new("https://bench.test").unwrap(), store)
}

async fn upload_2gib(dir: &std::path::Path, gib: u64) {
    let opened = podhost_core::open_store(dir.to_str().unwrap()).unwrap();
    let mut config = HostConfig::new("https://bench.test").unwrap();
    config.max_upload_bytes = 4 << 30;
    let host = PodcastHost::new(config, opened.store);
    let who = podhost_testkit::setup::account(&host, "up").await;
    // 64 KiB chunks, each a fresh allocation like an HTTP body arriving (sharing one `Bytes`
    // would let buffers hold reference counts instead of copies and hide the real footprint).
    let pattern: Vec<u8> = (0..65_536u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let chunks = (gib << 30) / pattern.len() as u64;
    let body = futures::stream::iter(
        (0..chunks).map(move |_| Ok::<_, std::io::Error>(Bytes::from(pattern.clone()))),
    );
    podhost_testkit::memory::reset_peak();
    let idle = podhost_testkit::memory::resident_kib();
    let start = Instant::now();
    let media = host
        .podcasts()
        .upload_media(
            &who,
            NewMedia {
                name: "big.bin".into(),
                category: None,
            },
            body,
        )
        .await
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    let peak = podhost_testkit::memory::peak_kib();
    println!(
        "upload {} GiB through the core (local folder, fsync): {:.1} s, {:.0} MiB/s, peak RSS {} MiB above idle ({} MiB idle, {} MiB peak)",
        gib,
        secs,
        (media.size as f64 / (1 << 20) as f64) / secs,
        peak.saturating_sub(idle) / 1024,
        idle / 1024,
        peak / 1024
    );
}

async fn fresh_list(
    host: &PodcastHost,
    feed: &FeedId,
    query: &podhost_core::model::EpisodeListQuery,
) {
    let who = host.access().owner(&"big".parse().unwrap()).await.unwrap();
    let page = host
        .podcasts()
        .list_episodes(&who, feed, query)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 50);
}

async fn episodes_bench(store: Arc<dyn ObjectStore>, label: &str, episodes: usize, s3: bool) {
    let plain = store.clone();
    let counting = FaultStore::new(store);
    let store: Arc<dyn ObjectStore> = Arc::new(counting.clone());
    let host = host(store.clone());
    let who = podhost_testkit::setup::account(&host, "big").await;
    let feed = FeedId::new("big").unwrap();
    host.podcasts()
        .create_feed(&who, NewFeed::titled("big", "Big"))
        .await
        .unwrap();
    let start = Instant::now();
    let mut ids = Vec::with_capacity(episodes);
    for i in 0..episodes {
        let fields = EpisodePatch {
            title: Some(format!("Episode {i}: a title of ordinary length")),
            description: Some("<p>Show notes of a typical length, with a link or two and a few sentences about the guests and topics of this episode.</p>".repeat(3)),
            is_public: Some(true),
            ..Default::default()
        };
        ids.push(
            host.podcasts()
                .create_episode(&who, &feed, NewEpisode { guid: None, fields })
                .await
                .unwrap()
                .episode
                .id,
        );
    }
    let create_secs = start.elapsed().as_secs_f64();
    println!(
        "[{label}] created {episodes} episodes in {create_secs:.1} s ({:.0} creates/s)",
        episodes as f64 / create_secs
    );

    // Bytes per single-episode edit: the log entry, plus the segment and snapshot shares
    // amortised (over two snapshot intervals, the background compaction waited for).
    counting.reset_counts();
    let patch = EpisodePatch {
        subtitle: Some("edited".into()),
        ..Default::default()
    };
    host.podcasts()
        .update_episode(&who, &feed, ids[episodes / 2], &patch)
        .await
        .unwrap();
    let one = counting.counts();
    println!(
        "[{label}] one edit of a {episodes}-episode feed wrote {} bytes in {} put(s)",
        one.bytes_put, one.puts,
    );
    let account: podhost_core::AccountId = "big".parse().unwrap();
    host.settle(&account).await.unwrap();
    let edits = 2 * podhost_core::CatalogConfig::default().snapshot_every as usize;
    // Edit i goes to episode pick(i).
    type Pick<'a> = Box<dyn Fn(usize) -> usize + 'a>;
    let patterns: [(&str, Pick<'_>); 2] = [
        (
            "the 64 newest episodes",
            Box::new(|i| ids.len() - 1 - i % 64),
        ),
        (
            "episodes spread over all",
            Box::new(|i| i * 7919 % ids.len()),
        ),
    ];
    for (pattern, pick) in patterns {
        counting.reset_counts();
        let start = Instant::now();
        for i in 0..edits {
            let patch = EpisodePatch {
                subtitle: Some(format!("edit {i}")),
                ..Default::default()
            };
            host.podcasts()
                .update_episode(&who, &feed, ids[pick(i)], &patch)
                .await
                .unwrap();
        }
        let edit_secs = start.elapsed().as_secs_f64();
        host.settle(&account).await.unwrap();
        let many = counting.counts();
        println!(
            "[{label}] {edits} edits of {pattern}: {:.0} bytes/edit amortised, segments and snapshots included ({} puts); {:.0} edits/s",
            many.bytes_put as f64 / edits as f64,
            many.puts,
            edits as f64 / edit_secs
        );
    }

    // The worst case for opening: the longest tail after the newest snapshot (one entry short
    // of the next snapshot), read from segments and the log.
    let every = podhost_core::CatalogConfig::default().snapshot_every;
    let tail = host.open_stats(&account).await.unwrap().entries_replayed;
    for i in tail..every - 1 {
        let patch = EpisodePatch {
            subtitle: Some(format!("tail {i}")),
            ..Default::default()
        };
        host.podcasts()
            .update_episode(&who, &feed, ids[i as usize % ids.len()], &patch)
            .await
            .unwrap();
    }
    host.settle(&account).await.unwrap();
    if s3 {
        s3_cold_open(&plain, episodes).await;
    }

    // Cold open: a new host, first read.
    counting.reset_counts();
    let fresh = self::host(store);
    let start = Instant::now();
    let stats = fresh.open_stats(&"big".parse().unwrap()).await.unwrap();
    let open_secs = start.elapsed().as_secs_f64();
    let c = counting.counts();
    println!(
        "[{label}] cold open of {episodes} episodes: {:.0} ms, {} objects read ({} gets, {} lists; snapshot at entry {}, {} entries replayed)",
        open_secs * 1000.0,
        c.gets + c.lists,
        c.gets,
        c.lists,
        stats.snapshot_seq,
        stats.entries_replayed
    );

    // A page of 50 of the episode list, at random pages: the core's share of a cold list.
    let start = Instant::now();
    let rounds = 2_000;
    for i in 0..rounds {
        let query = podhost_core::model::EpisodeListQuery {
            page: podhost_core::model::PageRequest::new(
                Some(1 + (i * 37 % (episodes / 50)) as i64),
                Some(50),
            )
            .unwrap(),
            ..Default::default()
        };
        fresh_list(&fresh, &feed, &query).await;
    }
    println!(
        "[{label}] list_episodes, pages of 50 of {episodes}: {:.1} µs per page",
        start.elapsed().as_secs_f64() * 1e6 / rounds as f64
    );

    // The feed of the whole podcast rendered cold: a host that has not rendered it yet (its
    // account already open), then the same after an edit (a new version: no cached bytes).
    let start = Instant::now();
    let rendered = match fresh.delivery().public_feed(&feed).await.unwrap() {
        podhost_core::publish::PublicFeed::Live(r) => r,
        _ => panic!("the feed is live"),
    };
    let first_ms = start.elapsed().as_secs_f64() * 1000.0;
    let fresh_who = fresh.access().owner(&"big".parse().unwrap()).await.unwrap();
    let patch = EpisodePatch {
        subtitle: Some("one more edit".into()),
        ..Default::default()
    };
    fresh
        .podcasts()
        .update_episode(&fresh_who, &feed, ids[0], &patch)
        .await
        .unwrap();
    let start = Instant::now();
    fresh.delivery().public_feed(&feed).await.unwrap();
    let again_ms = start.elapsed().as_secs_f64() * 1000.0;
    println!(
        "[{label}] feed of {episodes} episodes rendered cold: {first_ms:.0} ms ({} bytes of RSS); after an edit: {again_ms:.0} ms",
        rendered.xml.len()
    );
}

/// The account the memory run left, copied object by object to a bucket of the S3 server the
/// tests use (`podhost_testkit::s3`), then opened cold from there.
async fn s3_cold_open(memory: &Arc<dyn ObjectStore>, episodes: usize) {
    use futures::{StreamExt, TryStreamExt};
    use object_store::ObjectStoreExt;
    let server = match podhost_testkit::s3::S3Server::shared() {
        Ok(server) => server,
        Err(why) => {
            println!(
                "[s3] SKIPPED, no S3 server: {why} (scripts/test installs SeaweedFS and moto into .venv)"
            );
            return;
        }
    };
    let s3 = server.store().store;
    let start = Instant::now();
    let objects: Vec<_> = memory.list(None).try_collect().await.unwrap();
    let copied = objects.len();
    futures::stream::iter(objects)
        .map(|meta| {
            let (memory, s3) = (memory.clone(), s3.clone());
            async move {
                let bytes = memory.get(&meta.location).await?.bytes().await?;
                s3.put(&meta.location, bytes.into()).await.map(drop)
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
    println!(
        "[s3] copied the {episodes}-episode account ({copied} objects) to the S3 server in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // The first open also connects to the server; the second reuses the connections.
    for round in ["first", "second"] {
        let counting = FaultStore::new(s3.clone());
        let fresh = host(Arc::new(counting.clone()));
        let start = Instant::now();
        let stats = fresh.open_stats(&"big".parse().unwrap()).await.unwrap();
        let c = counting.counts();
        println!(
            "[s3] cold open of {episodes} episodes from the S3 server ({round}): {:.0} ms, {} objects read ({} gets, {} lists; snapshot at entry {}, {} segments, {} entries replayed)",
            start.elapsed().as_secs_f64() * 1000.0,
            c.gets + c.lists,
            c.gets,
            c.lists,
            stats.snapshot_seq,
            stats.segments_read,
            stats.entries_replayed
        );
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir_in(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()))
            .unwrap();
        // `--memory`: only the 10,000-episode figures in memory (for profiling them).
        let memory_only = std::env::args().any(|a| a == "--memory");
        if !memory_only && !std::env::args().any(|a| a == "--s3") {
            upload_2gib(&dir.path().join("upload"), if quick { 1 } else { 2 }).await;
        }
        let episodes = if quick { 2_000 } else { 10_000 };
        let memory: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        // `--s3`: only the figures in memory and on the S3 server.
        let s3_only = std::env::args().any(|a| a == "--s3");
        episodes_bench(memory, "memory", episodes, !memory_only).await;
        if memory_only || s3_only {
            return;
        }
        let local = podhost_core::open_store(dir.path().join("local").to_str().unwrap())
            .unwrap()
            .store;
        episodes_bench(local, "local folder, fsync", episodes, false).await;
    });
}
