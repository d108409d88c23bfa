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

use crate::hls::{
    Package, chapter_data as chapters,
    package::names,
    playlist,
    splice::{self, AudioSegment, Insert},
    subtitles,
};
use crate::host::{Listener, Private};
use crate::{
    error::{Error, Result},
    ids::{AccountId, JobId},
    model::{AdSpan, Media},
    publish::PublicMedia,
};

/// A file of a video's HLS stream: the multivariant playlist, or a rendition's file.
#[derive(Clone, Copy, Debug)]
pub enum StreamFile<'a> {
    /// `hls/master.m3u8`.
    Multivariant,
    /// `hls/master.m3u8?from={rendition}`: the multivariant playlist of a web page's
    /// `<video>`, the video renditions from `rendition` up, it first
    /// ([`playlist::multivariant_from`]).
    MultivariantFrom(&'a str),
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
        let job = &streamed.job;
        let package = self.host.hls_package(&account, job).await?;
        let video = crate::host::rendering::public_media_of(&account, &media);
        let not_found = || Error::not_found("stream file", media.blob.as_str());
        // The listener's ads (the multivariant playlist is everyone's).
        // A video rendition's own init and segments are everyone's: no listener's ads needed.
        let own_picture = |track: &str, file: &str| {
            !package.audio.as_ref().is_some_and(|a| a.is_named(track))
                && (file == names::INIT || names::segment_number(file).is_some())
        };
        let spliced = match file {
            StreamFile::Multivariant | StreamFile::MultivariantFrom(_) => Spliced::default(),
            StreamFile::Track { track, file } if own_picture(track, file) => Spliced::default(),
            StreamFile::Track { .. } => self.spliced(&account, &media, &package, listener).await?,
        };
        let inserts = spliced.inserts.as_slice();
        let listed = |which: &str, text: String| {
            let etag = match &spliced.key {
                Some(key) => format!("{job}-{which}-{key}"),
                None => format!("{job}-{which}"),
            };
            playlist_of(video.clone(), etag, text, spliced.key.is_some())
        };
        let shown = match file {
            StreamFile::Track { track, .. }
                if track != subtitles::TRACK && track != chapters::TRACK =>
            {
                Shown::default()
            }
            _ => self.host.stream_shown(&account, &media).await?,
        };
        let transcript = shown.transcript;
        let served = match file {
            StreamFile::Multivariant | StreamFile::MultivariantFrom(_) => {
                let language = transcript.as_ref().map(|t| t.language.as_str());
                // The transcript and the chapters are part of what the playlist says: new ones
                // make a new ETag.
                let mut which = match &transcript {
                    Some(t) => format!("master-{}", t.media.blob.as_str()),
                    None => "master".to_string(),
                };
                if let Some(digest) = &shown.chapters_digest {
                    which = format!("{which}-{digest}");
                }
                let chapters = shown.chapters_digest.is_some();
                let text = match file {
                    StreamFile::MultivariantFrom(from) => {
                        which = format!("{which}-from-{from}");
                        playlist::multivariant_from(&package, from, language, chapters)
                            .ok_or_else(not_found)?
                    }
                    _ => playlist::multivariant(&package, language, chapters),
                };
                listed(&which, text)
            }
            StreamFile::Track { track, file } if track == chapters::TRACK => {
                let digest = shown
                    .chapters_digest
                    .as_ref()
                    .filter(|_| file == chapters::FILE);
                let digest = digest.ok_or_else(not_found)?;
                let reference: Vec<f64> = package
                    .top()
                    .or(package.audio.as_ref())
                    .map(|t| t.segments.iter().map(|s| s.duration).collect())
                    .unwrap_or_default();
                let total_ms = (reference.iter().sum::<f64>() * 1000.0) as u64;
                let text = chapters::json(&shown.chapters, &shown.language, total_ms, |ms| {
                    splice::retime(&reference, inserts, ms)
                });
                let mut served = listed(&format!("chapters-{digest}"), text);
                if let Served::Playlist(list) = &mut served {
                    list.mime = "application/json";
                }
                served
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
                let text = match (file, names::ad_parts(file)) {
                    (names::MEDIA, _) => {
                        subtitles::playlist(&grid, package.target_duration, inserts)
                    }
                    (_, Some((name, inner))) => {
                        let ad = self.ad_package(&account, inserts, name).await?;
                        let durations = subtitles::ad_durations(&ad);
                        subtitles::file_number(inner)
                            .filter(|n| *n < durations.len())
                            .ok_or_else(not_found)?;
                        subtitles::EMPTY_SEGMENT.to_string()
                    }
                    (file, None) => {
                        let n = subtitles::file_number(file)
                            .filter(|n| *n < grid.len())
                            .ok_or_else(not_found)?;
                        let bytes = self.host.read_blob(&account, &transcript.media).await?;
                        let cues = subtitles::cues(&transcript.media.facts.mime, &bytes)
                            .ok_or_else(not_found)?;
                        subtitles::segment(&cues, n, package.target_duration)
                    }
                };
                let mut served = match file {
                    names::MEDIA => listed(&which, text),
                    // A segment is everyone's, whoever's playlist named it.
                    _ => playlist_of(video.clone(), format!("{job}-{which}"), text, false),
                };
                if let (Served::Playlist(list), false) = (&mut served, file == names::MEDIA) {
                    list.mime = "text/vtt; charset=utf-8";
                }
                served
            }
            StreamFile::Track { track, file } => {
                let found = package.track(track).ok_or_else(not_found)?;
                let is_video = found.height > 0;
                match (file, names::ad_parts(file)) {
                    (names::MEDIA, _) => listed(track, playlist::media(&package, found, inserts)),
                    (names::IFRAMES, _) if is_video => listed(
                        &format!("{track}-i"),
                        playlist::iframes(&package, found, inserts),
                    ),
                    (names::INIT, _) => Served::Segment(segment_of(
                        &account,
                        &media,
                        job,
                        track,
                        names::INIT,
                        found.init_size,
                        is_video,
                    )),
                    (_, Some((name, inner))) => {
                        let ad = self.ad_package(&account, inserts, name).await?;
                        let ad_job = name.parse::<JobId>().map_err(|_| not_found())?;
                        let ad_track = ad.package.track(track).ok_or_else(not_found)?;
                        let size = match inner {
                            names::INIT => ad_track.init_size,
                            inner => {
                                let n = names::segment_number(inner).ok_or_else(not_found)?;
                                ad_track.segments.get(n).ok_or_else(not_found)?.size
                            }
                        };
                        Served::Segment(segment_of(
                            &account, &media, &ad_job, track, inner, size, is_video,
                        ))
                    }
                    (file, None) => {
                        let n = names::segment_number(file).ok_or_else(not_found)?;
                        let size = found.segments.get(n).ok_or_else(not_found)?.size;
                        Served::Segment(segment_of(
                            &account, &media, job, track, file, size, is_video,
                        ))
                    }
                }
            }
        };
        // The audio rendition's segments count (see `StreamPlace`), the ads' with them.
        let stream = match (file, package.audio.as_ref()) {
            (StreamFile::Track { track, file }, Some(audio)) if audio.is_named(track) => {
                let segment = match names::ad_parts(file) {
                    Some((name, inner)) => {
                        names::segment_number(inner).map(|n| AudioSegment::Ad(name, n))
                    }
                    None => names::segment_number(file).map(AudioSegment::Own),
                };
                segment.and_then(|segment| {
                    let line = splice::audio_line(audio, inserts, segment);
                    Some(StreamPlace {
                        offset: line.offset?,
                        len: line.len,
                        duration_ms: line.duration_ms,
                        ads: line
                            .ads
                            .into_iter()
                            .map(|(i, bytes)| AdSpan {
                                campaign: spliced.campaigns[i].clone(),
                                bytes,
                            })
                            .collect(),
                    })
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

    /// The ads `listener` sees in the stream of `video` (packaged as `package`): each chosen
    /// ad's package, at the boundary of the top rendition nearest its break (so every rendition
    /// splices it at the same moment). An ad whose package lacks a rendition is left out.
    async fn spliced(
        &self,
        account: &AccountId,
        video: &Media,
        package: &Package,
        listener: &Listener,
    ) -> Result<Spliced> {
        let Some(choice) = self
            .host
            .ads()
            .stream_choice(account, video.blob.as_str(), listener)
            .await?
        else {
            return Ok(Spliced::default());
        };
        let reference: Vec<f64> = package
            .top()
            .or(package.audio.as_ref())
            .map(|t| t.segments.iter().map(|s| s.duration).collect())
            .unwrap_or_default();
        let mut spliced = Spliced {
            key: Some(choice.key),
            ..Spliced::default()
        };
        for ad in choice.ads {
            let insert = Insert {
                at: splice::snap(&reference, ad.at),
                name: ad.job.to_string(),
                package: self.host.hls_package(account, &ad.job).await?,
            };
            if insert.fits(package) {
                spliced.inserts.push(insert);
                spliced.campaigns.push(ad.campaign);
            }
        }
        if spliced.inserts.is_empty() {
            return Ok(Spliced::default());
        }
        Ok(spliced)
    }

    /// The package of the ad named `name` in a listener's playlist: one of `inserts`, or
    /// another ad of the account packaged for streams (a playlist fetched before the day
    /// turned names yesterday's ads).
    async fn ad_package(
        &self,
        account: &AccountId,
        inserts: &[Insert],
        name: &str,
    ) -> Result<Insert> {
        if let Some(found) = inserts.iter().find(|i| i.name == name) {
            return Ok(found.clone());
        }
        let not_found = || Error::not_found("stream file", name);
        let job = name.parse::<JobId>().map_err(|_| not_found())?;
        if !self.host.ads().is_stream_ad(account, &job).await? {
            return Err(not_found());
        }
        Ok(Insert {
            at: 0.0,
            name: name.to_string(),
            package: self.host.hls_package(account, &job).await?,
        })
    }
}

/// The listener's ads in a stream: none, or the inserts with their campaigns and a key naming
/// them.
#[derive(Default)]
struct Spliced {
    key: Option<String>,
    inserts: Vec<Insert>,
    campaigns: Vec<crate::ids::CampaignId>,
}

fn playlist_of(video: PublicMedia, etag: String, text: String, own: bool) -> Served {
    Served::Playlist(Box::new(Playlist {
        etag,
        media: video,
        bytes: Bytes::from(text),
        mime: playlist::MIME,
        own,
    }))
}

/// The transcript a stream's subtitles are made from, and their language.
struct StreamTranscript {
    media: Media,
    language: String,
}

/// What the episode showing a video adds to its stream: its timed transcript (the subtitles)
/// and its audio's chapters, in its podcast's language.
#[derive(Default)]
struct Shown {
    transcript: Option<StreamTranscript>,
    chapters: Vec<crate::tags::Chapter>,
    /// Names the chapters as they are (none without chapters): part of the playlists' ETags.
    chapters_digest: Option<String>,
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

    /// What the episode that shows `video` (the one its downloads count for) adds to its
    /// stream: its timed transcript and its audio's (else the video's) chapters.
    async fn stream_shown(&self, account: &AccountId, video: &Media) -> Result<Shown> {
        let Some(catalog) = self.existing_catalog(account).await? else {
            return Ok(Shown::default());
        };
        let now = self.now();
        Ok(catalog
            .read(|state| {
                let Some((feed, episode)) = state.heard_or_seen(video.id, now) else {
                    return Shown::default();
                };
                let language = state
                    .feeds
                    .get(feed)
                    .map(|e| e.feed.language.clone())
                    .filter(|l| !l.is_empty())
                    .unwrap_or_else(|| "und".to_string());
                let transcript = episode
                    .transcript
                    .and_then(|t| state.media.get(&t))
                    .filter(|m| subtitles::cues_possible(&m.facts.mime))
                    .map(|m| StreamTranscript {
                        media: m.clone(),
                        language: language.clone(),
                    });
                let chapters = episode
                    .media
                    .and_then(|m| state.media.get(&m))
                    .map(|m| m.chapters.clone())
                    .filter(|c| !c.is_empty())
                    .unwrap_or_else(|| video.chapters.clone());
                let chapters_digest = (!chapters.is_empty()).then(|| {
                    let named: Vec<String> = chapters
                        .iter()
                        .map(|c| format!("{}:{:?}:{}", c.start_ms, c.end_ms, c.title))
                        .chain([language.clone()])
                        .collect();
                    let parts: Vec<&[u8]> = named.iter().map(|n| n.as_bytes()).collect();
                    hex::encode(&crate::stats::parts_digest(b"chapters", &parts)[..6])
                });
                Shown {
                    transcript,
                    chapters,
                    chapters_digest,
                    language,
                }
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

/// A stored file of job `job`'s package (the video's, or an ad's): validated by the job and
/// its name (a package never changes).
fn segment_of(
    account: &AccountId,
    media: &Media,
    job: &JobId,
    track: &str,
    file: &str,
    size: u64,
    video: bool,
) -> PublicMedia {
    PublicMedia {
        size,
        mime: if video { "video/mp4" } else { "audio/mp4" }.to_string(),
        etag: format!("{job}-{track}-{file}"),
        last_modified: media.created,
        location: crate::host::work::job_runs::packaging::file_path(account, job, track, file),
    }
}
