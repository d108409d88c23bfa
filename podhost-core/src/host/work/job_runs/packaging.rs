//! The packaging job: a video made into its HLS ladder by ffmpeg, stored with its package
//! description under the job's results (see [`crate::hls`]).

use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectStoreExt, PutPayload};

use super::output::JobOutput;
use crate::hls::{self, Package, ladder, package::names};
use crate::host::PodcastHost;
use crate::{
    error::{Error, Result},
    ids::{AccountId, JobId},
    model::{Job, Media, StreamShape, Streamed},
    probe::MediaKind,
    store::layout,
};

/// Files of a package stored at once.
const PUTS_IN_FLIGHT: usize = 8;

/// Where file `file` of rendition `track` of job `job`'s package is stored.
pub(crate) fn file_path(
    account: &AccountId,
    job: &JobId,
    track: &str,
    file: &str,
) -> object_store::path::Path {
    layout::job_result(account, job, "hls")
        .join(track)
        .join(file)
}

/// Packages `media` (a video) for HLS.
pub(crate) async fn package(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    let video = match (media.kind(), media.facts.video.as_deref()) {
        (MediaKind::Video, Some(video)) => video.clone(),
        _ => {
            return Err(Error::invalid(
                "media",
                format!("{} is not a video file ({})", media.name, media.facts.mime),
            ));
        }
    };
    let has_audio = media.facts.audio.is_some();
    let dir = host.job_folder("hls", &job.id).await?;
    // Removed however the job ends: done, failed, or dropped (cancelled, its lease lost).
    let _folder = Removed(dir.clone());
    async {
        let source = source_file(host, account, media, &dir, "source").await?;
        let out = dir.join("out");
        let ffmpeg = host.config().jobs.ffmpeg.clone();
        let soundtrack_file = dir.join("soundtrack.m4a");
        let soundtrack_at = has_audio.then_some(soundtrack_file.as_path());
        // Every segment of every rendition starts on a key frame, at the same time in each:
        // the encoded renditions force theirs on the grid, so the top is copied only when the
        // source's own key frames are there too.
        let mut renditions = match ladder::copies_top(&video) && !keys_on_grid(host, &source).await
        {
            true => ladder::plan_encoded(&video),
            false => ladder::plan(&video),
        };
        let seconds = video.duration_ms as f64 / 1000.0;
        let tracks = loop {
            let args = hls::transcode::arguments(
                &source,
                &out,
                &renditions,
                soundtrack_at,
                ffmpeg.threads,
            );
            let mut reported = 0.0;
            ffmpeg
                .run(&args, |done| {
                    if seconds > 0.0 {
                        host.report_progress(&job.id, done / seconds);
                    }
                    if seconds > 0.0 && done - reported >= 30.0 {
                        reported = done;
                        tracing::info!(
                            progress = format!("{:.0} %", 100.0 * done / seconds),
                            "packaging"
                        );
                    }
                })
                .await
                .map_err(|e| Error::invalid("ffmpeg", e.to_string()))?;
            let tracks = read_tracks(&out, &renditions, has_audio).await?;
            let video_tracks: Vec<&hls::Track> = tracks
                .iter()
                .map(|w| &w.track)
                .filter(|t| t.height > 0)
                .collect();
            if renditions.iter().any(|r| r.copied)
                && !hls::copied_cut_alike(&video_tracks, video.frame_rate)
            {
                // The copy was cut elsewhere than the grid after all: encode the top too.
                tracing::warn!(
                    media = %media.id,
                    "the copied rendition's segments are off the key-frame grid; encoding it"
                );
                remove_output(&out, &soundtrack_file).await?;
                renditions = ladder::plan_encoded(&video);
                continue;
            }
            break tracks;
        };
        let package = store_package(host, account, &job.id, tracks, video.frame_rate).await?;
        let top = package
            .top()
            .ok_or_else(|| Error::invalid("ffmpeg", "the package has no video rendition"))?;
        let audio_rate = package
            .audio
            .as_ref()
            .map_or(0, hls::Track::average_bitrate);
        let soundtrack = match has_audio {
            true => Some(store_soundtrack(host, account, media, &soundtrack_file).await?),
            false => None,
        };
        let streamed = Box::new(Streamed {
            job: job.id.clone(),
            width: top.width,
            height: top.height,
            bitrate: top.average_bitrate() + audio_rate,
            length: top.bytes() + package.audio.as_ref().map_or(0, hls::Track::bytes),
            renditions: package
                .video
                .iter()
                .chain(package.audio.as_ref())
                .map(|t| t.name.clone())
                .collect(),
            soundtrack: None,
        });
        Ok(JobOutput::Hls {
            streamed,
            soundtrack,
        })
    }
    .await
}

/// Whether `source`'s key frames start every segment of the grid (read by ffmpeg without
/// decoding, [`hls::transcode::KeyFrames`]); not when ffmpeg cannot list them.
async fn keys_on_grid(host: &PodcastHost, source: &std::path::Path) -> bool {
    let ffmpeg = host.config().jobs.ffmpeg.clone();
    let mut frames = hls::transcode::KeyFrames::default();
    let listed = ffmpeg
        .lines(&hls::transcode::key_frame_arguments(source), |line| {
            frames.line(line)
        })
        .await;
    match listed {
        Ok(()) => frames.on_grid(),
        Err(e) => {
            tracing::warn!(error = %e, "the source's key frames could not be listed; encoding every rendition");
            false
        }
    }
}

/// Removes what an ffmpeg run wrote (the renditions in `out`, the soundtrack), before another.
async fn remove_output(out: &std::path::Path, soundtrack: &std::path::Path) -> Result<()> {
    match tokio::fs::remove_dir_all(out).await {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::storage(format!("removing ffmpeg's output: {e}"))),
    }
    match tokio::fs::remove_file(soundtrack).await {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::storage(format!("removing the soundtrack: {e}"))),
    }
}

/// Reads back what ffmpeg wrote into `out`: the video renditions `renditions`, and the audio
/// rendition when `has_audio`.
async fn read_tracks(
    out: &std::path::Path,
    renditions: &[ladder::VideoRendition],
    has_audio: bool,
) -> Result<Vec<hls::Written>> {
    let out = out.to_path_buf();
    let renditions = renditions.to_vec();
    tokio::task::spawn_blocking(move || {
        let mut written = Vec::new();
        for r in &renditions {
            written.push(hls::read_output(
                &out,
                &r.name,
                (r.width, r.height),
                r.copied,
            )?);
        }
        if has_audio {
            written.push(hls::read_output(&out, "audio", (0, 0), false)?);
        }
        Ok::<_, String>(written)
    })
    .await
    .map_err(|e| Error::storage(format!("reading ffmpeg's output stopped: {e}")))?
    .map_err(|e| Error::invalid("ffmpeg", e))
}

/// Stores every file of `tracks` (what ffmpeg wrote) under job `job`'s results and the
/// package's description beside them; the package.
async fn store_package(
    host: &PodcastHost,
    account: &AccountId,
    job: &JobId,
    tracks: Vec<hls::Written>,
    frame_rate: f64,
) -> Result<Package> {
    // Every file stored, several at a time: each write waits on its own flush to the disk (or
    // its round trip to S3), which one after another would add minutes to a long video.
    let mut files = Vec::new();
    for written in &tracks {
        let name = &written.track.name;
        files.push((
            file_path(account, job, name, names::INIT),
            written.init.clone(),
        ));
        for (n, file) in written.segments.iter().enumerate() {
            files.push((
                file_path(account, job, name, &names::segment(n)),
                file.clone(),
            ));
        }
    }
    let puts = files.into_iter().map(|(to, from)| {
        let host = host.clone();
        async move { put_file(&host, &to, &from).await }
    });
    futures::stream::iter(puts)
        .buffer_unordered(PUTS_IN_FLIGHT)
        .try_collect::<()>()
        .await?;
    let mut video_tracks = Vec::new();
    let mut audio = None;
    for written in tracks {
        match written.track.height {
            0 => audio = Some(written.track),
            _ => video_tracks.push(written.track),
        }
    }
    let durations: Vec<f64> = video_tracks
        .iter()
        .chain(audio.as_ref())
        .flat_map(|t| t.segments.iter().map(|s| s.duration))
        .collect();
    let package = Package {
        target_duration: hls::playlist::target_duration(&durations),
        video: video_tracks,
        audio,
        frame_rate,
    };
    let json = serde_json::to_vec(&package).map_err(|e| Error::storage(e.to_string()))?;
    host.put_result(account, job, names::MANIFEST, json).await?;
    Ok(package)
}

/// Packages ad `media` (a video, or audio shown over the cover its shape names) like the
/// streams of the job's shape, so its segments splice between theirs.
pub(crate) async fn package_ad(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    let shape: StreamShape = serde_json::from_value(job.params.clone())
        .map_err(|e| Error::invalid("params", format!("unreadable stream shape: {e}")))?;
    let seconds = match (media.facts.video.as_deref(), media.facts.audio.as_ref()) {
        (Some(video), _) if media.kind() == MediaKind::Video => video.duration_ms,
        (_, Some(audio)) => audio.duration_ms,
        _ => {
            return Err(Error::invalid(
                "media",
                format!(
                    "{} is not an audio or video file ({})",
                    media.name, media.facts.mime
                ),
            ));
        }
    } as f64
        / 1000.0;
    let renditions = ladder::for_ad(&shape);
    let dir = host.job_folder("hls", &job.id).await?;
    let _folder = Removed(dir.clone());
    let source = source_file(host, account, media, &dir, "source").await?;
    let cover = match (media.kind(), shape.cover) {
        (MediaKind::Video, _) | (_, None) => None,
        (_, Some(cover)) => {
            let catalog = host.catalog(account).await?;
            let image = catalog.read(|state| state.media.get(&cover).cloned()).await;
            match image {
                Some(image) => Some(source_file(host, account, &image, &dir, "cover").await?),
                None => None,
            }
        }
    };
    let picture = match (media.kind(), &cover) {
        (MediaKind::Video, _) => hls::transcode::AdPicture::Video,
        (_, Some(path)) => hls::transcode::AdPicture::Still(path),
        (_, None) => hls::transcode::AdPicture::Black,
    };
    let out = dir.join("out");
    let ffmpeg = host.config().jobs.ffmpeg.clone();
    let ad = hls::transcode::AdSource {
        file: &source,
        picture,
        sound: media.facts.audio.is_some(),
        seconds,
    };
    let args =
        hls::transcode::ad_arguments(&ad, &out, &renditions, shape.frame_rate(), ffmpeg.threads);
    ffmpeg
        .run(&args, |done| {
            if seconds > 0.0 {
                host.report_progress(&job.id, done / seconds);
            }
        })
        .await
        .map_err(|e| Error::invalid("ffmpeg", e.to_string()))?;
    let tracks = read_tracks(&out, &renditions, true).await?;
    store_package(host, account, &job.id, tracks, shape.frame_rate()).await?;
    Ok(JobOutput::AdStream { shape })
}

/// A job's working folder, removed when dropped.
struct Removed(std::path::PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let dir = std::mem::take(&mut self.0);
        let remove = move || {
            let _ = std::fs::remove_dir_all(dir);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(remove)),
            Err(_) => remove(),
        }
    }
}

/// `media` as a file ffmpeg can read: the stored file itself in a local-folder store, else a
/// copy named `name` in the job's folder `dir`.
async fn source_file(
    host: &PodcastHost,
    account: &AccountId,
    media: &Media,
    dir: &std::path::Path,
    name: &str,
) -> Result<std::path::PathBuf> {
    let location = layout::blob(account, &media.blob);
    if let Some(root) = &host.config().local_root {
        let path = root.join(location.as_ref());
        if tokio::fs::metadata(&path).await.is_ok() {
            return Ok(path);
        }
    }
    let path = dir.join(name);
    host.copy_to_file(account, media, &path)
        .await
        .map_err(|e| Error::storage(format!("copying {} to package it: {e}", media.name)))?;
    Ok(path)
}

/// The soundtrack ffmpeg wrote, stored as a blob to be a new audio file named after the video.
async fn store_soundtrack(
    host: &PodcastHost,
    account: &AccountId,
    video: &Media,
    file: &std::path::Path,
) -> Result<super::output::MadeFile> {
    let opened = std::fs::File::open(file)
        .map_err(|e| Error::invalid("ffmpeg", format!("ffmpeg wrote no soundtrack: {e}")))?;
    let len = opened
        .metadata()
        .map_err(|e| Error::storage(format!("the soundtrack: {e}")))?
        .len();
    let name = super::mastering::mastered_name(&video.name, "m4a");
    let body = crate::store::local::file_chunks(opened, 0..len);
    let (blob, size, facts) = host.store_blob(account, &name, body).await?;
    Ok(super::output::MadeFile {
        name,
        blob,
        size,
        facts,
    })
}

async fn put_file(
    host: &PodcastHost,
    to: &object_store::path::Path,
    from: &std::path::Path,
) -> Result<()> {
    let bytes = tokio::fs::read(from)
        .await
        .map_err(|e| Error::storage(format!("reading {}: {e}", from.display())))?;
    host.store().put(to, PutPayload::from(bytes)).await?;
    Ok(())
}
