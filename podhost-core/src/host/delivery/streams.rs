//! A video's HLS stream, answered by one call: [`Delivery::stream`] finds the video behind a
//! public or a subscriber's URL (`…/media/{blob}/hls/…`), reads its package (kept in memory:
//! it never changes), and answers a playlist rendered from it or a segment as stored. Nothing
//! here writes to the store.

use bytes::Bytes;

use super::download::{
    Counting, Download, DownloadAnswer, DownloadRedirect, DownloadUrl, Playlist, Served,
    StreamPlace,
};
use crate::hls::{package::names, playlist};
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
        let served = match file {
            StreamFile::Multivariant => playlist_of(
                video,
                &streamed.job,
                "master",
                playlist::multivariant(&package),
            ),
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
    }))
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
