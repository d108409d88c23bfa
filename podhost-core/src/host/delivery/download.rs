//! A download, answered by one call: [`Delivery::download`] finds the file behind a public
//! or a subscriber's URL, decides what the listener gets (the stored file, the episode with
//! its ads, a transcript moved by them, or a redirect to the store) and hands back everything a
//! frontend needs to answer: validators, type, size, who may cache it, the bytes of any range
//! (counted for the statistics as they go out). Nothing on this path writes to the store but
//! the statistics.

use std::{
    ops::Range,
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use futures::{Stream, StreamExt, stream::BoxStream};
use jiff::Timestamp;

use crate::host::{Enclosure, Listener, PodcastHost, Private, RetimedText, StitchedEnclosure};
use crate::{error::Result, ids::FeedId, publish::PublicMedia, stats::Delivery};

/// The URL a download came to.
#[derive(Clone, Copy, Debug)]
pub enum DownloadUrl<'a> {
    /// `/media/{account}/{blob}/{name}`: a public file.
    Public {
        /// The account segment.
        account: &'a str,
        /// The blob segment.
        blob: &'a str,
    },
    /// `/private/{feed_id}/{key}/media/{blob}/{name}`: a private podcast's file through a
    /// subscriber's key.
    Subscriber {
        /// The private podcast.
        feed: &'a FeedId,
        /// The subscriber's key.
        key: &'a str,
        /// The blob segment.
        blob: &'a str,
    },
}

/// What to answer a download.
pub enum Download {
    /// The subscriber's key was revoked (410).
    Revoked,
    /// The store serves the file: a redirect to its presigned URL.
    Redirect(DownloadRedirect),
    /// Bytes to send.
    Answer(DownloadAnswer),
}

/// A download the store serves, at a presigned URL (public files only: a subscriber's would
/// open the file without their key for the URL's lifetime).
pub struct DownloadRedirect {
    /// The presigned URL.
    pub url: String,
    /// The file's size (to read a `Range` against).
    pub size: u64,
    pub(super) counting: Counting,
}

impl DownloadRedirect {
    /// Counts the download of `range` (the bytes asked for: podhost cannot see what the store
    /// sends).
    pub fn count(&self, range: Range<u64>) {
        if !self.counting.counted {
            return;
        }
        let mut delivery = self.counting.delivery(range);
        delivery.delivered = delivery.range.end - delivery.range.start;
        self.counting.host.analytics().record_download(delivery);
    }
}

/// A download podhost answers with bytes.
pub struct DownloadAnswer {
    pub(super) served: Served,
    pub(super) counting: Counting,
}

/// What a download sends.
pub(super) enum Served {
    /// The stored file, as it is.
    File(PublicMedia),
    /// The episode with the listener's ads.
    Stitched(Box<StitchedEnclosure>),
    /// The episode's transcript, its times moved by the listener's ads.
    Retimed(Box<RetimedText>),
    /// A playlist of a video's HLS package, rendered.
    Playlist(Box<Playlist>),
    /// A segment of a video's HLS package, as stored.
    Segment(PublicMedia),
}

/// A rendered playlist, with the video it plays.
pub(crate) struct Playlist {
    /// The video's stored file.
    pub(crate) media: PublicMedia,
    /// A strong validator: the package and the playlist.
    pub(crate) etag: String,
    /// The playlist.
    pub(crate) bytes: Bytes,
    /// Its type (a playlist's, or WebVTT for a subtitle segment).
    pub(crate) mime: &'static str,
    /// Whether it is the listener's own (with their ads): revalidated each time, kept by no
    /// shared cache.
    pub(crate) own: bool,
}

/// Who may keep an answer, and how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caching {
    /// It never changes (a stored file, a video's segment): kept a year.
    Immutable,
    /// It changes rarely, with a new package (a video's playlist): kept a minute.
    Short,
    /// The listener's own answer (with their ads): revalidated each time.
    Listener,
}

/// Who downloads what, for the statistics.
pub(super) struct Counting {
    pub(super) host: PodcastHost,
    pub(super) account: String,
    pub(super) blob: String,
    pub(super) subscriber: Option<String>,
    pub(super) listener: Listener,
    /// Whether its bytes are recorded for the statistics (of a video's HLS stream, only the
    /// audio segments are: every player fetches them, once).
    pub(super) counted: bool,
    /// For an audio segment of a video's HLS stream: where it is in the audio rendition.
    pub(super) stream: Option<StreamPlace>,
}

/// Where an audio segment of a video's HLS stream is in its audio rendition: a stream is
/// counted as the file its audio rendition would be (IAB: a minute of it delivered to one
/// listener, once in 24 hours, with the progressive downloads of the same episode).
pub(super) struct StreamPlace {
    /// Bytes of the rendition's segments before this one.
    pub(super) offset: u64,
    /// Bytes of all its segments.
    pub(super) len: u64,
    /// Its duration in milliseconds.
    pub(super) duration_ms: u64,
    /// The listener's ads in it, where their segments' bytes are.
    pub(super) ads: Vec<crate::model::AdSpan>,
}

impl Counting {
    fn delivery(&self, range: Range<u64>) -> Delivery {
        let (range, stitched) = match &self.stream {
            None => (range, None),
            Some(place) => (
                range.start + place.offset..range.end + place.offset,
                Some(crate::stats::StitchedDelivery {
                    len: place.len,
                    tag_bytes: 0,
                    duration_ms: place.duration_ms,
                    ads: place.ads.clone(),
                }),
            ),
        };
        Delivery {
            subscriber: self.subscriber.clone(),
            account: self.account.clone(),
            blob: self.blob.clone(),
            client: self.listener.address,
            user_agent: self.listener.user_agent.clone(),
            range,
            delivered: 0,
            stitched,
        }
    }
}

impl DownloadAnswer {
    /// Its length in bytes.
    pub fn size(&self) -> u64 {
        match &self.served {
            Served::File(media) => media.size,
            Served::Stitched(answer) => answer.len(),
            Served::Retimed(text) => text.bytes.len() as u64,
            Served::Playlist(list) => list.bytes.len() as u64,
            Served::Segment(segment) => segment.size,
        }
    }

    /// Its strong validator (unquoted).
    pub fn etag(&self) -> &str {
        match &self.served {
            Served::File(media) => &media.etag,
            Served::Stitched(answer) => &answer.etag,
            Served::Retimed(text) => &text.etag,
            Served::Playlist(list) => &list.etag,
            Served::Segment(segment) => &segment.etag,
        }
    }

    /// When the stored file was written; `None` for a listener's own answer (a date cannot
    /// tell arrangements apart: it is validated by its ETag alone).
    pub fn last_modified(&self) -> Option<Timestamp> {
        match &self.served {
            Served::File(media) | Served::Segment(media) => Some(media.last_modified),
            _ => None,
        }
    }

    /// Its MIME type (the stored file's).
    pub fn mime(&self) -> &str {
        match &self.served {
            Served::Playlist(list) => list.mime,
            Served::Segment(segment) => &segment.mime,
            _ => &self.media().mime,
        }
    }

    /// Whether it is the stored file or a video's segment, which never change (a listener's
    /// answer changes with the campaigns, a playlist with a new package).
    pub fn immutable(&self) -> bool {
        self.caching() == Caching::Immutable
    }

    /// Who may keep it and how long (see [`private`](Self::private) for whether a shared cache
    /// may).
    pub fn caching(&self) -> Caching {
        match &self.served {
            Served::File(_) | Served::Segment(_) => Caching::Immutable,
            Served::Playlist(list) if list.own => Caching::Listener,
            Served::Playlist(_) => Caching::Short,
            Served::Stitched(_) | Served::Retimed(_) => Caching::Listener,
        }
    }

    /// Whether only the client that asked may keep it: a subscriber's download, or a
    /// listener's own answer (with their ads).
    pub fn private(&self) -> bool {
        self.counting.subscriber.is_some() || self.caching() == Caching::Listener
    }

    /// The stored file behind it.
    pub fn media(&self) -> &PublicMedia {
        match &self.served {
            Served::File(media) | Served::Segment(media) => media,
            Served::Stitched(answer) => &answer.media,
            Served::Retimed(text) => &text.media,
            Served::Playlist(list) => &list.media,
        }
    }

    /// The ads in it, with where their bytes are (empty for the stored file).
    pub fn ads(&self) -> &[crate::model::AdSpan] {
        match &self.served {
            Served::Stitched(answer) => &answer.ads,
            _ => &[],
        }
    }

    /// The bytes of `range`, counted as they go out: the download is recorded (by IAB's rules,
    /// see [`crate::stats`]) when the stream ends or is dropped, with the bytes it yielded.
    pub async fn bytes(&self, range: Range<u64>) -> Result<BoxStream<'static, Result<Bytes>>> {
        let host = &self.counting.host;
        let stream = match &self.served {
            Served::File(media) | Served::Segment(media) => {
                host.delivery().media_bytes(media, range.clone()).await?
            }
            Served::Playlist(list) => {
                let part = list.bytes.slice(range.start as usize..range.end as usize);
                futures::stream::once(async move { Ok(part) }).boxed()
            }
            Served::Stitched(answer) => host.ads().stitched_bytes(answer, range.clone()),
            Served::Retimed(text) => {
                let part = text.bytes.slice(range.start as usize..range.end as usize);
                futures::stream::once(async move { Ok(part) }).boxed()
            }
        };
        if !self.counting.counted {
            return Ok(stream);
        }
        let mut delivery = self.counting.delivery(range);
        if let Served::Stitched(answer) = &self.served {
            delivery.stitched = Some(answer.delivery());
        }
        Ok(Counted {
            inner: stream,
            host: host.clone(),
            delivery: Some(delivery),
        }
        .boxed())
    }
}

impl super::Delivery<'_> {
    /// What to answer `listener`'s download at `url`: one call finds the file (404 when it is
    /// not served there: a private file on the public path, a deleted one), checks the
    /// subscriber's key, and decides between the stored file (redirected to the store when
    /// downloads are presigned), the episode with the listener's ads, and a transcript moved by
    /// them.
    pub async fn download(self, url: DownloadUrl<'_>, listener: &Listener) -> Result<Download> {
        let (account, blob, media, subscriber) = match url {
            DownloadUrl::Public { account, blob } => {
                let (id, media) = self.host.public_file(account, blob).await?;
                let media = crate::host::rendering::public_media_of(&id, &media);
                (id, blob, media, None)
            }
            DownloadUrl::Subscriber { feed, key, blob } => {
                match self.host.delivery().private_media(feed, key, blob).await? {
                    Private::Live((id, media)) => {
                        // The key begins with the subscriber's id (`sub_` and 16 characters).
                        (id, blob, media, key.get(..20).map(str::to_string))
                    }
                    Private::Gone => return Ok(Download::Revoked),
                }
            }
        };
        let counting = Counting {
            host: self.host.clone(),
            account: account.as_str().to_string(),
            blob: blob.to_string(),
            subscriber,
            listener: listener.clone(),
            counted: true,
            stream: None,
        };
        let served = match self
            .host
            .ads()
            .enclosure_for(&account, media, listener)
            .await?
        {
            Enclosure::File(media) if counting.subscriber.is_none() => {
                match self.host.delivery().media_redirect(&media).await? {
                    Some(url) => {
                        return Ok(Download::Redirect(DownloadRedirect {
                            url,
                            size: media.size,
                            counting,
                        }));
                    }
                    None => Served::File(media),
                }
            }
            Enclosure::File(media) => Served::File(media),
            Enclosure::Stitched(answer) => Served::Stitched(answer),
            Enclosure::Retimed(text) => Served::Retimed(text),
        };
        Ok(Download::Answer(DownloadAnswer { served, counting }))
    }
}

/// A download's body that counts what it yields and records the delivery when dropped.
struct Counted {
    inner: BoxStream<'static, Result<Bytes>>,
    host: PodcastHost,
    delivery: Option<Delivery>,
}

impl Stream for Counted {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.inner.poll_next_unpin(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &polled
            && let Some(delivery) = self.delivery.as_mut()
        {
            // Counted when handed to the frontend: the bytes a client cut off mid-chunk are
            // not known, at most one chunk (a few KiB to 256 KiB) too many.
            delivery.delivered += chunk.len() as u64;
        }
        polled
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some(delivery) = self.delivery.take() {
            self.host.analytics().record_download(delivery);
        }
    }
}
