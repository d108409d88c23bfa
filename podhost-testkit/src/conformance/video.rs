//! Video over HLS on any store: a short 1080p clip uploaded, packaged into its ladder by the
//! job workers (ffmpeg), reached by a private podcast's subscriber under their key, with a
//! listener's ads spliced in, and counted as a download with the ads' impressions.

use std::sync::Arc;

use futures::TryStreamExt;
use object_store::ObjectStore;
use podhost_core::{
    Download, DownloadUrl, Error, Listener, MediaId, Principal, StreamFile,
    model::{AdBreak, EpisodePatch, FeedPatch, JobStatus, MetadataPatch, NewEpisode},
};

use crate::setup::{account_with_podcast, campaign_everywhere, run_jobs, upload};
use crate::{fixtures, test_host};

use super::assert_err;

/// How long a video's or an ad's packaging may take (ffmpeg on a loaded machine, a real S3
/// server under the store).
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(300);

/// A 12-second 1080p clip is packaged into the five rungs (its H.264 top copied) and an audio
/// rendition; a private podcast's subscriber reads every playlist and file of it under their
/// key while its public URL serves nothing; a campaign's ad is packaged for the stream before
/// anyone asks and spliced into the listener's playlists; fetching the listener's audio
/// rendition counts one download and an impression.
pub async fn video_streams(store: Arc<dyn ObjectStore>) {
    let (host, _clock) = test_host(store);
    let _workers = run_jobs(&host);
    let (alice, show) = account_with_podcast(&host, "alice", "show").await;
    let clip = upload(&host, &alice, "clip.mp4", fixtures::video("1920x1080", 12)).await;
    let streamed = until_packaged(&host, &alice, clip.id).await;
    assert_eq!(
        streamed.renditions,
        ["1080p", "720p", "480p", "360p", "240p", "audio"],
        "the ladder of a 1080p source"
    );
    assert_eq!((streamed.width, streamed.height), (1920, 1080));

    // A private podcast's episode shows it; its subscriber's key reaches it, nothing else.
    let private = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    host.podcasts()
        .update_feed(&alice, &show, &private)
        .await
        .unwrap();
    let fields = EpisodePatch {
        title: Some("On camera".into()),
        is_public: Some(true),
        video: Some(Some(clip.id)),
        ..Default::default()
    };
    host.podcasts()
        .create_episode(&alice, &show, NewEpisode { guid: None, fields })
        .await
        .unwrap();
    let subscriber = host
        .delivery()
        .add_subscriber(&alice, &show, "Carol")
        .await
        .unwrap();
    let listener = Listener {
        address: "203.0.113.7".parse().unwrap(),
        user_agent: "AppleCoreMedia/1.0.0.21E236 (iPhone; U; CPU OS 17_4 like Mac OS X; en_us)"
            .into(),
    };
    let blob = clip.blob.as_str();
    let theirs = DownloadUrl::Subscriber {
        feed: &show,
        key: subscriber.key(),
        blob,
    };
    let public = DownloadUrl::Public {
        account: "alice",
        blob,
    };
    assert_err!(
        host.delivery()
            .stream(public, StreamFile::Multivariant, &listener)
            .await,
        Error::NotFound { .. }
    );
    let carol = Viewer {
        host: &host,
        url: theirs,
        listener: &listener,
    };

    // The multivariant playlist names every variant with what a player chooses by.
    let master = carol.text(StreamFile::Multivariant).await;
    let variants: Vec<&str> = master
        .lines()
        .filter(|l| l.starts_with("#EXT-X-STREAM-INF:"))
        .collect();
    assert_eq!(
        variants.len(),
        6,
        "five pictures and the sound alone: {master}"
    );
    for attribute in ["BANDWIDTH=", "AVERAGE-BANDWIDTH=", "CODECS="] {
        assert!(
            variants.iter().all(|v| v.contains(attribute)),
            "{attribute}: {master}"
        );
    }
    for size in ["1920x1080", "1280x720", "852x480", "640x360", "426x240"] {
        assert!(
            master.contains(&format!("RESOLUTION={size},FRAME-RATE=30.000")),
            "{size}: {master}"
        );
    }
    assert_eq!(
        master.matches("#EXT-X-I-FRAME-STREAM-INF:").count(),
        5,
        "{master}"
    );

    // Every rendition's playlist, init segment and media segments, as stored.
    let mut own = std::collections::HashMap::new();
    for track in &streamed.renditions {
        let list = carol.text(media_list(track)).await;
        assert!(list.ends_with("#EXT-X-ENDLIST\n"), "{track}: {list}");
        let seconds: f64 = list
            .lines()
            .filter_map(|l| l.strip_prefix("#EXTINF:"))
            .filter_map(|l| l.trim_end_matches(',').parse::<f64>().ok())
            .sum();
        assert!((seconds - 12.0).abs() < 0.1, "{track}: {seconds} s: {list}");
        let files = files_of(&list);
        // 6 s segments (the audio's AAC frames may leave a last one of a few milliseconds).
        assert!((2..=3).contains(&files.len()), "{track}: {list}");
        own.insert(track.clone(), files.len());
        for file in std::iter::once("init.mp4").chain(files) {
            let bytes = carol.bytes(StreamFile::Track { track, file }).await;
            // An init segment starts with its `ftyp`, a media segment with `styp` or `moof`.
            let kind = bytes.get(4..8).map(String::from_utf8_lossy);
            let want: &[&str] = match file {
                "init.mp4" => &["ftyp"],
                _ => &["styp", "moof"],
            };
            assert!(
                kind.as_deref().is_some_and(|k| want.contains(&k)),
                "{track}/{file}: {kind:?}"
            );
        }
    }

    // Breaks before the clip and at 6.4 s; a campaign everywhere with a 3 s audio ad. The ad is
    // packaged for this stream by the workers, then the listener's playlists splice it in.
    let breaks = MetadataPatch {
        adbreak: Some(Some(AdBreak {
            preroll: true,
            postroll: false,
            midrolls: vec![6.4],
        })),
        ..Default::default()
    };
    host.podcasts()
        .update_metadata(&alice, clip.id, breaks)
        .await
        .unwrap();
    let ad = upload(&host, &alice, "ad.wav", fixtures::wav(3.0, 16_000)).await;
    let campaign = campaign_everywhere(&host, &alice, ad.id).await;
    let started = std::time::Instant::now();
    let audio = loop {
        let list = carol.text(media_list("audio")).await;
        if list.matches("#EXT-X-DISCONTINUITY").count() == 3 {
            break list;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the ad was never spliced in: {list}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let files = files_of(&audio);
    let ads = files.iter().filter(|f| f.starts_with("ad-")).count();
    assert_eq!(
        (files.len(), ads),
        (own["audio"] + 2, 2),
        "the ad, 6 s, the ad, the rest: {audio}"
    );
    assert!(
        files[0].starts_with("ad-") && files[2].starts_with("ad-"),
        "{audio}"
    );
    let picture = carol.text(media_list("720p")).await;
    assert_eq!(
        picture.matches("#EXT-X-DISCONTINUITY").count(),
        3,
        "every rendition splices the same ads: {picture}"
    );

    // The listener plays the sound through, the ads included: one download, an impression.
    for file in std::iter::once("init.mp4").chain(files) {
        let bytes = carol
            .bytes(StreamFile::Track {
                track: "audio",
                file,
            })
            .await;
        assert!(!bytes.is_empty(), "audio/{file}");
    }
    host.analytics().flush_stats().await.unwrap();
    let impressions = host
        .ads()
        .get_campaign(&alice, &campaign.campaign.id)
        .await
        .unwrap()
        .impressions;
    assert_eq!(impressions, 1, "one listener heard the campaign's ad");
    let today = podhost_core::Clock::now(&_clock)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let query = podhost_core::stats::StatsQuery {
        from: Some(today),
        ..Default::default()
    };
    let report = host
        .analytics()
        .download_stats(&alice, &query)
        .await
        .unwrap();
    assert_eq!(report.total, 1, "{report:?}");
}

/// Waits until the video `id` is packaged; returns what its record says of the stream.
async fn until_packaged(
    host: &podhost_core::PodcastHost,
    who: &Principal,
    id: MediaId,
) -> podhost_core::model::Streamed {
    let started = std::time::Instant::now();
    loop {
        let media = host.podcasts().get_media(who, id).await.unwrap();
        if let Some(streamed) = media.results.hls {
            return *streamed;
        }
        let jobs = host.work().jobs_of_media(who, id).await.unwrap();
        if let Some(failed) = jobs.iter().find(|j| j.status == JobStatus::Failed) {
            panic!("a job failed: {failed:?}");
        }
        assert!(started.elapsed() < PATIENCE, "the video was not packaged");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A rendition's media playlist.
fn media_list(track: &str) -> StreamFile<'_> {
    StreamFile::Track {
        track,
        file: "index.m3u8",
    }
}

/// The files a playlist names, in order.
fn files_of(list: &str) -> Vec<&str> {
    list.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
}

/// A listener reaching a stream at one URL.
struct Viewer<'a> {
    host: &'a podhost_core::PodcastHost,
    url: DownloadUrl<'a>,
    listener: &'a Listener,
}

impl Viewer<'_> {
    /// The whole of `file`, as its answer's bytes (which counts what is counted).
    async fn bytes(&self, file: StreamFile<'_>) -> Vec<u8> {
        let answer = match self
            .host
            .delivery()
            .stream(self.url, file, self.listener)
            .await
        {
            Ok(Download::Answer(answer)) => answer,
            Ok(_) => panic!("{file:?}: a subscriber's stream file is answered with its bytes"),
            Err(e) => panic!("{file:?}: {e}"),
        };
        assert!(
            answer.private(),
            "{file:?}: a subscriber's answer is theirs"
        );
        let parts: Vec<bytes::Bytes> = answer
            .bytes(0..answer.size())
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        parts.concat()
    }

    /// A playlist, as text.
    async fn text(&self, file: StreamFile<'_>) -> String {
        String::from_utf8(self.bytes(file).await).expect("a playlist is text")
    }
}
