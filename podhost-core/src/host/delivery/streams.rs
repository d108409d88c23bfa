//! A video's HLS stream, answered by one call: [`Delivery::stream`] finds the video behind a
//! public or a subscriber's URL (`…/media/{blob}/hls/…`), reads its package (kept in memory:
//! it never changes), and answers a playlist rendered from it or a segment as stored. Nothing
//! here writes to the store.

use bytes::Bytes;

use super::download::{
    Counting, Download, DownloadAnswer, DownloadRedirect, DownloadUrl, Playlist, Served,
    StreamPlace,
};
use std::sync::Arc;

use crate::hls::{Package, package::names, playlist, subtitles};
use crate::host::{Listener, Private};
use crate::{
    error::{Error, Result},
    ids::AccountId,
    model::Media,
    publish::PublicMedia,
};

/// A file of a video's HLS stream: the multivariant playlist, or a rendition's file.
#[derive(Clone, Copy, Debug)]
pub enum StreamFile<'a> {
    /// `hls/master.m3u8`.
    Multivariant,
    /// `hls/{track}/{file}`: `index.m3u8`, `iframes.m3u8`, `init.mp4` or `{n:05}.m4s`.
    Track {
        /// The rendition (`720p`, `audio`).
        track: &'a str,
        /// The file.
        file: &'a str,
    },
}

impl super::Delivery<'_> {
    /// What to answer `listener`'s request for `file` of the HLS stream of the video at `url`:
    /// 404 when the video is not served there or is not packaged (yet), 410 for a revoked
    /// subscriber. Public segments are redirected to the store when downloads are presigned.
    pub async fn stream(
        self,
        url: DownloadUrl<'_>,
        file: StreamFile<'_>,
        listener: &Listener,
    ) -> Result<Download> {
        let (account, media, subscriber) = match url {
            DownloadUrl::Public { account, blob } => {
                let (account, media) = self.host.public_file(account, blob).await?;
                (account, media, None)
            }
            DownloadUrl::Subscriber { feed, key, blob } => {
                match self.host.subscriber_file(feed, key, blob).await? {
                    Private::Live((account, media)) => {
                        (account, media, key.get(..20).map(str::to_string))
                    }
                    Private::Gone => return Ok(Download::Revoked),
                }
            }
        };
        let streamed = media
            .results
            .hls
            .as_ref()
            .ok_or_else(|| Error::not_found("stream", media.blob.as_str()))?;
        let package = self.host.hls_package(&account, &streamed.job).await?;
        let video = crate::host::rendering::public_media_of(&account, &media);
        let not_found = || Error::not_found("stream file", media.blob.as_str());
        let transcript = self.host.stream_transcript(&account, &media).await?;
        let served = match file {
            StreamFile::Multivariant => {
                let language = transcript.as_ref().map(|t| t.language.as_str());
                // The transcript is part of what the playlist says: a new one is a new ETag.
                let which = match &transcript {
                    Some(t) => format!("master-{}", t.media.blob.as_str()),
                    None => "master".to_string(),
                };
                playlist_of(
                    video,
                    &streamed.job,
                    &which,
                    playlist::multivariant(&package, language),
                )
            }
            StreamFile::Track { track, file } if track == subtitles::TRACK => {
                let transcript = transcript.ok_or_else(not_found)?;
                let seconds = package
                    .audio
                    .as_ref()
                    .or(package.top())
                    .map_or(0.0, crate::hls::Track::duration);
                let grid = subtitles::grid(seconds, package.target_duration);
                let which = format!("subs-{}-{file}", transcript.media.blob.as_str());
                let text = match file {
                    names::MEDIA => subtitles::playlist(&grid, package.target_duration),
                    file => {
                        let n = subtitles::file_number(file)
                            .filter(|n| *n < grid.len())
                            .ok_or_else(not_found)?;
                        let bytes = self.host.read_blob(&account, &transcript.media).await?;
                        let cues = subtitles::cues(&transcript.media.facts.mime, &bytes)
                            .ok_or_else(not_found)?;
                        subtitles::segment(&cues, n, package.target_duration)
                    }
                };
                let mut served = playlist_of(video, &streamed.job, &which, text);
                if let (Served::Playlist(list), false) = (&mut served, file == names::MEDIA) {
                    list.mime = "text/vtt; charset=utf-8";
                }
                served
            }
            StreamFile::Track { track, file } => {
                let found = package.track(track).ok_or_else(not_found)?;
                let is_video = found.height > 0;
                match file {
                    names::MEDIA => playlist_of(
                        video,
                        &streamed.job,
                        track,
                        playlist::media(&package, found),
                    ),
                    names::IFRAMES if is_video => playlist_of(
                        video,
                        &streamed.job,
                        &format!("{track}-i"),
                        playlist::iframes(&package, found),
                    ),
                    names::INIT => Served::Segment(segment_of(
                        &account,
                        &media,
                        track,
                        names::INIT,
                        found.init_size,
                        is_video,
                    )),
                    file => {
                        let n = names::segment_number(file).ok_or_else(not_found)?;
                        let size = found.segments.get(n).ok_or_else(not_found)?.size;
                        Served::Segment(segment_of(&account, &media, track, file, size, is_video))
                    }
                }
            }
        };
        // The audio rendition's segments count (see `StreamPlace`).
        let stream = match (file, package.audio.as_ref()) {
            (StreamFile::Track { track, file }, Some(audio)) if audio.is_named(track) => {
                names::segment_number(file).map(|n| StreamPlace {
                    offset: audio.segments[..n.min(audio.segments.len())]
                        .iter()
                        .map(|s| s.size)
                        .sum(),
                    len: audio.segments.iter().map(|s| s.size).sum(),
                    duration_ms: (audio.duration() * 1000.0) as u64,
                })
            }
            _ => None,
        };
        let counting = Counting {
            host: self.host.clone(),
            account: account.as_str().to_string(),
            blob: media.blob.as_str().to_string(),
            subscriber,
            listener: listener.clone(),
            counted: stream.is_some(),
            stream,
        };
        if let Served::Segment(segment) = &served
            && counting.subscriber.is_none()
            && let Some(url) = self.host.delivery().media_redirect(segment).await?
        {
            return Ok(Download::Redirect(DownloadRedirect {
                url,
                size: segment.size,
                counting,
            }));
        }
        Ok(Download::Answer(DownloadAnswer { served, counting }))
    }
}

fn playlist_of(video: PublicMedia, job: &crate::ids::JobId, which: &str, text: String) -> Served {
    Served::Playlist(Box::new(Playlist {
        etag: format!("{job}-{which}"),
        media: video,
        bytes: Bytes::from(text),
        mime: playlist::MIME,
    }))
}

/// The transcript a stream's subtitles are made from, and their language.
struct StreamTranscript {
    media: Media,
    language: String,
}

impl crate::host::PodcastHost {
    /// The package of a video packaged by job `job` (its `hls.json`), kept in memory once read.
    async fn hls_package(
        &self,
        account: &AccountId,
        job: &crate::ids::JobId,
    ) -> Result<Arc<Package>> {
        let key = format!("{account}/{job}");
        let packages = &self.inner.delivery.packages;
        if let Some(found) = packages.get(&key) {
            return Ok(found);
        }
        let bytes = self.read_result(account, job, names::MANIFEST).await?;
        let package: Package = serde_json::from_slice(&bytes)
            .map_err(|e| Error::storage(format!("the package of job {job}: {e}")))?;
        let package = Arc::new(package);
        packages.insert(key, package.clone());
        Ok(package)
    }

    /// The timed transcript of the episode that shows `video` (the one its downloads count
    /// for), with its podcast's language; `None` when it has none.
    async fn stream_transcript(
        &self,
        account: &AccountId,
        video: &Media,
    ) -> Result<Option<StreamTranscript>> {
        let Some(catalog) = self.existing_catalog(account).await? else {
            return Ok(None);
        };
        let now = self.now();
        Ok(catalog
            .read(|state| {
                let (feed, episode) = state.heard_or_seen(video.id, now)?;
                let media = state.media.get(&episode.transcript?)?;
                subtitles::cues_possible(&media.facts.mime).then(|| StreamTranscript {
                    media: media.clone(),
                    language: state
                        .feeds
                        .get(feed)
                        .map(|e| e.feed.language.clone())
                        .filter(|l| !l.is_empty())
                        .unwrap_or_else(|| "und".to_string()),
                })
            })
            .await)
    }

    /// The bytes of a (small) media file.
    async fn read_blob(&self, account: &AccountId, media: &Media) -> Result<Bytes> {
        use object_store::ObjectStoreExt;
        let got = self
            .store()
            .get(&crate::store::layout::blob(account, &media.blob))
            .await?;
        Ok(got.bytes().await?)
    }
}

/// A stored file of the package: validated by the job and its name (a package never changes).
fn segment_of(
    account: &AccountId,
    media: &Media,
    track: &str,
    file: &str,
    size: u64,
    video: bool,
) -> PublicMedia {
    let job = &media
        .results
        .hls
        .as_ref()
        .expect("segment_of: packaged")
        .job;
    PublicMedia {
        size,
        mime: if video { "video/mp4" } else { "audio/mp4" }.to_string(),
        etag: format!("{job}-{track}-{file}"),
        last_modified: media.created,
        location: crate::host::work::job_runs::packaging::file_path(account, job, track, file),
    }
}
