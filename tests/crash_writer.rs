//! The child of the crash test: writes as fast as it can to a store and prints `ACK ...` for
//! every write the core acknowledged, until it is killed.
//!
//! Usage: `podhost-crash-writer STORE_DIR WRITER_NAME [episodes-with-files]`; the last mode
//! creates only episodes whose audio and cover are uploaded with them.

use std::io::Write;

use podhost_core::{
    EpisodeFiles, Error, FeedId, HostConfig, PodcastHost, UploadTarget,
    model::{EpisodePatch, NewEpisode, NewFeed, NewMedia},
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (dir, writer) = (
        args.next().expect("STORE_DIR"),
        args.next().expect("WRITER_NAME"),
    );
    let with_files = args.next().as_deref() == Some("episodes-with-files");
    let opened = podhost_core::open_store(&dir)?;
    let mut config = HostConfig::new("https://crash.test")?;
    // Snapshot often, so that kills also land in the middle of snapshot writes.
    config.catalog.snapshot_every = 16;
    config.catalog.segment_every = 4;
    let host = PodcastHost::new(config, opened.store);
    match host.access().create_account("crash").await {
        Ok(_) | Err(Error::Conflict { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let owner = host.access().owner(&"crash".parse()?).await?;
    let feed = FeedId::new("crash")?;
    let new_feed = NewFeed::titled("crash", "Crash");
    match host.podcasts().create_feed(&owner, new_feed).await {
        Ok(_) | Err(Error::Conflict { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "READY")?;
    stdout.flush()?;
    for i in 0u64.. {
        if with_files {
            let title = format!("{writer}-{i}");
            let target = UploadTarget::Episode(feed.clone());
            let audio = podhost_testkit::fixtures::wav(0.5, 8000);
            let media = host
                .podcasts()
                .stage_upload(
                    &owner,
                    target.clone(),
                    &format!("{title}.wav"),
                    podhost_testkit::body(audio, 1000),
                )
                .await?;
            let cover = podhost_testkit::fixtures::png(64, 64);
            let cover = host
                .podcasts()
                .stage_upload(
                    &owner,
                    target,
                    &format!("{title}.png"),
                    podhost_testkit::body(cover, 1000),
                )
                .await?;
            let files = EpisodeFiles {
                media: Some(media),
                cover: Some(cover),
                transcript: None,
            };
            let new = NewEpisode::titled(title.clone());
            let view = host
                .podcasts()
                .create_episode_with_files(&owner, &feed, new, files)
                .await?;
            let media = view.media.expect("the uploaded audio");
            writeln!(
                stdout,
                "ACK withfiles {} {} {title}",
                view.episode.id, media.id
            )?;
            stdout.flush()?;
            continue;
        }
        if i % 7 == 3 {
            let name = format!("{writer}-{i}.wav");
            let bytes = podhost_testkit::fixtures::wav(0.25, 8000);
            let len = bytes.len();
            let media = host
                .podcasts()
                .upload_media(
                    &owner,
                    NewMedia {
                        name: name.clone(),
                        category: None,
                    },
                    podhost_testkit::body(bytes, 1000),
                )
                .await?;
            writeln!(stdout, "ACK media {} {} {len}", media.id, media.name)?;
        } else {
            let title = format!("{writer}-{i}");
            let new = NewEpisode::titled(title.clone());
            let episode = host
                .podcasts()
                .create_episode(&owner, &feed, new)
                .await?
                .episode;
            writeln!(stdout, "ACK episode {} {title}", episode.id)?;
            if i % 5 == 0 {
                let patch = EpisodePatch {
                    subtitle: Some(format!("edited {i}")),
                    ..Default::default()
                };
                let edited = host
                    .podcasts()
                    .update_episode(&owner, &feed, episode.id, &patch)
                    .await?
                    .episode;
                writeln!(stdout, "ACK edit {} {}", edited.id, edited.version)?;
            }
        }
        stdout.flush()?;
    }
    Ok(())
}
