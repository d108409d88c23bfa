//! The `probe` entry point: combines content detection, the upload-time frame scan, container
//! reading and image headers into [`MediaFacts`].

use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::runtime::Handle;

use super::bmff;
use super::container::{self, ContainerFacts, Demuxer, TrackAudio};
use super::describe;
use super::detect::{self, Container, Detected, ElementaryFormat, Route};
use super::facts::{AudioFacts, MediaFacts, MediaKind, VideoFacts};
use super::frame::{Layer, StreamKind, Version};
use super::image;
use super::riff;
use super::scan::ScanResult;
use super::sniff::Sniffed;
use super::store_source::StoreSource;
use super::video;

/// How many bytes of an image to fetch when its header does not fit in the sniffed head.
const IMAGE_HEADER_LIMIT: u64 = 1024 * 1024;

/// Probes the stored object (size `size`) with range reads, using what the sniffer learned.
///
/// Never fails and never panics: unreadable or unknown content yields kind
/// [`MediaKind::Other`], mime "application/octet-stream", info "data", and no audio or image
/// facts. A file that sniffs as audio but cannot be parsed still gets its mime and kind, with
/// `audio: None`.
///
/// Must be called within a Tokio runtime; container parsing runs on a blocking thread
/// (`spawn_blocking`) that performs its range reads through the runtime's handle.
pub async fn probe(
    store: Arc<dyn ObjectStore>,
    location: &Path,
    size: u64,
    sniffed: Sniffed,
    file_name: &str,
) -> MediaFacts {
    let tag_bytes = sniffed.tag_end();
    let mut facts = probe_facts(store, location, size, sniffed, file_name).await;
    if facts.audio.is_some() {
        facts.tag_bytes = tag_bytes;
    }
    facts
}

async fn probe_facts(
    store: Arc<dyn ObjectStore>,
    location: &Path,
    size: u64,
    sniffed: Sniffed,
    file_name: &str,
) -> MediaFacts {
    let detected = detect::detect(&sniffed, file_name);
    let reader = Reader {
        store,
        location: location.clone(),
        size,
        sniffed: &sniffed,
    };
    match detected.route {
        Route::Plain => plain(detected),
        Route::Image => reader.image(detected).await,
        Route::Elementary(format) => match sniffed.scan() {
            Some(scan) => from_scan(detected, scan),
            None => {
                let demuxer = match format {
                    ElementaryFormat::Mpeg => Demuxer::Mpa,
                    ElementaryFormat::Adts => Demuxer::Adts,
                };
                let read = reader
                    .blocking(move |s| container::read(demuxer, s))
                    .await
                    .flatten();
                let audio_bytes = read
                    .as_ref()
                    .map_or(0, |r| reader.audio_len().saturating_sub(r.data_start));
                from_container(detected, read, audio_bytes)
            }
        },
        Route::Container(Container::Matroska) => {
            let Some((video, read)) = reader.blocking(video::matroska).await.flatten() else {
                return plain(detected);
            };
            let audio_bytes = reader.audio_len();
            with_video(detected, video, |d| {
                from_container(d, Some(read), audio_bytes)
            })
        }
        Route::Container(container) => {
            if container == Container::Wav && !riff::wave_format_is_sane(sniffed.body_start()) {
                return plain(detected);
            }
            let demuxer = match container {
                Container::Flac => Demuxer::Flac,
                Container::Ogg => Demuxer::Ogg,
                Container::Wav => Demuxer::Wav,
                Container::Mp4 => Demuxer::Mp4,
                // Read by its own arm above.
                Container::Matroska => return plain(detected),
            };
            let read = reader
                .blocking(move |s| container::read(demuxer, s))
                .await
                .flatten();
            let mut audio_bytes = None;
            if container == Container::Mp4 && read.as_ref().is_some_and(|r| !r.has_video) {
                audio_bytes = reader.mp4_media_data().await;
            }
            let fallback = read
                .as_ref()
                .map_or(0, |r| reader.audio_len().saturating_sub(r.data_start));
            let audio_bytes = audio_bytes.unwrap_or(fallback);
            let mut video = None;
            if container == Container::Mp4 && detected.kind == MediaKind::Video {
                let len = reader.audio_len();
                video = reader
                    .blocking(move |mut s| video::mp4(&mut s, len))
                    .await
                    .flatten();
            }
            with_video(detected, video, |d| from_container(d, read, audio_bytes))
        }
    }
}

/// The facts `facts` makes of `detected`, with the video's: described after the format's label,
/// before the audio's description.
fn with_video(
    mut detected: Detected,
    video: Option<VideoFacts>,
    facts: impl FnOnce(Detected) -> MediaFacts,
) -> MediaFacts {
    if let Some(v) = &video {
        detected.label = describe::video(&detected.label, v);
    }
    let mut facts = facts(detected);
    if facts.kind == MediaKind::Video {
        facts.video = video.map(Box::new);
    }
    facts
}

/// Access to the stored object.
struct Reader<'a> {
    store: Arc<dyn ObjectStore>,
    location: Path,
    size: u64,
    sniffed: &'a Sniffed,
}

impl Reader<'_> {
    /// Offset of the media after any leading ID3v2 tag.
    fn base(&self) -> u64 {
        self.sniffed.tag_end().min(self.size)
    }

    /// Bytes after the leading tag.
    fn audio_len(&self) -> u64 {
        self.size - self.base()
    }

    /// Runs `read` on a blocking thread over the stored object (after any leading tag).
    async fn blocking<T: Send + 'static>(
        &self,
        read: impl FnOnce(StoreSource) -> T + Send + 'static,
    ) -> Option<T> {
        let handle = Handle::try_current().ok()?;
        let source = StoreSource::new(
            Arc::clone(&self.store),
            self.location.clone(),
            handle,
            self.size,
            self.base(),
            Bytes::copy_from_slice(self.sniffed.head()),
        );
        tokio::task::spawn_blocking(move || read(source)).await.ok()
    }

    async fn mp4_media_data(&self) -> Option<u64> {
        let head = self.sniffed.head();
        bmff::media_data_len(
            self.store.as_ref(),
            &self.location,
            head,
            self.base(),
            self.size,
        )
        .await
    }

    async fn image(&self, detected: Detected) -> MediaFacts {
        let mut dims = image::dimensions(self.sniffed.head());
        let head_len = self.sniffed.head().len() as u64;
        if dims.is_none() && self.size > head_len {
            let end = self.size.min(IMAGE_HEADER_LIMIT);
            if let Ok(bytes) = self.store.get_range(&self.location, 0..end).await {
                dims = image::dimensions(&bytes);
            }
        }
        let mut facts = plain(detected);
        if let Some(d) = dims {
            facts.info = describe::image(&facts.info, d.width, d.height);
            facts.image = Some(d);
        }
        facts
    }
}

fn plain(d: Detected) -> MediaFacts {
    MediaFacts {
        mime: d.mime,
        kind: d.kind,
        extension: d.extension,
        info: d.label,
        audio: None,
        image: None,
        video: None,
        tag_bytes: 0,
        sha384: None,
    }
}

fn from_scan(detected: Detected, scan: &ScanResult) -> MediaFacts {
    let (codec, label) = match scan.stream.kind {
        StreamKind::Adts => ("aac", "ADTS AAC".to_owned()),
        StreamKind::Mpeg { version, layer } => {
            let (codec, layer_name) = match layer {
                Layer::L1 => ("mp1", "I"),
                Layer::L2 => ("mp2", "II"),
                Layer::L3 => ("mp3", "III"),
            };
            let version = match version {
                Version::V1 => "",
                Version::V2 => ", v2",
                Version::V25 => ", v2.5",
            };
            (codec, format!("MPEG ADTS, layer {layer_name}{version}"))
        }
    };
    let audio = AudioFacts {
        codec: codec.to_owned(),
        duration_ms: scan.duration_ms(),
        bitrate: scan.bitrate(),
        sample_rate: scan.stream.sample_rate,
        channels: scan.stream.channels,
        profile: None,
    };
    let vbr = matches!(scan.stream.kind, StreamKind::Mpeg { .. }) && !scan.is_cbr();
    let mut facts = plain(detected);
    facts.info = describe::audio(&label, &audio, None, vbr);
    facts.audio = Some(audio);
    facts
}

/// Facts from a container read; `audio_bytes` is the size of the coded audio (or the best
/// estimate of it) for the average bitrate.
fn from_container(
    mut detected: Detected,
    read: Option<ContainerFacts>,
    audio_bytes: u64,
) -> MediaFacts {
    let Some(read) = read else {
        return plain(detected);
    };
    // An MP4/3GP/MOV without a video track is audio.
    if detected.route == Route::Container(Container::Mp4)
        && detected.kind == MediaKind::Video
        && !read.has_video
        && read.audio.is_some()
    {
        let (mime, ext) = match detected.mime.as_str() {
            "video/3gpp" => ("audio/3gpp", "3gp"),
            "video/3gpp2" => ("audio/3gpp2", "3g2"),
            _ => ("audio/mp4", "m4a"),
        };
        detected.mime = mime.to_owned();
        detected.extension = ext.to_owned();
        detected.kind = MediaKind::Audio;
        detected.label = "MPEG-4 audio".to_owned();
    }
    let video = detected.kind == MediaKind::Video;
    let route = detected.route;
    let mut facts = plain(detected);
    let Some(track) = read.audio else {
        return facts;
    };
    let Some(duration_ms) = track.duration_ms else {
        return facts;
    };
    let bitrate = match track.pcm_bitrate {
        Some(rate) => rate,
        // The file's size says nothing about the audio's share of a video.
        None if video => 0,
        None => average_bitrate(audio_bytes, duration_ms),
    };
    let audio = AudioFacts {
        codec: track.codec.clone(),
        duration_ms,
        bitrate,
        sample_rate: track.sample_rate,
        channels: track.channels,
        profile: track.profile.map(str::to_owned),
    };
    facts.info = container_info(&facts.info, route, &track, &audio, video);
    facts.audio = Some(audio);
    facts
}

fn average_bitrate(bytes: u64, duration_ms: u64) -> u32 {
    if duration_ms == 0 {
        return 0;
    }
    let bits = u128::from(bytes) * 8 * 1000;
    let ms = u128::from(duration_ms);
    u32::try_from((bits + ms / 2) / ms).unwrap_or(u32::MAX)
}

fn container_info(
    label: &str,
    route: Route,
    track: &TrackAudio,
    audio: &AudioFacts,
    video: bool,
) -> String {
    let codec = codec_label(&track.codec);
    if video {
        let mut info = format!("{label}, {codec} audio");
        if audio.bitrate > 0 {
            info = format!("{info}, {}", describe::kbps(audio.bitrate));
        }
        return format!(
            "{info}, {}, {}",
            describe::khz(audio.sample_rate),
            describe::channels(audio.channels)
        );
    }
    let audio_label = match route {
        Route::Container(Container::Flac) => "FLAC".to_owned(),
        Route::Container(Container::Wav) if track.pcm_bitrate.is_some() => "WAVE PCM".to_owned(),
        Route::Container(Container::Wav) => format!("WAVE {codec}"),
        Route::Container(Container::Mp4) => format!("MPEG-4 {codec}"),
        Route::Container(Container::Ogg) => format!("Ogg {codec}"),
        Route::Elementary(ElementaryFormat::Adts) => "ADTS AAC".to_owned(),
        _ => label.to_owned(),
    };
    describe::audio(&audio_label, audio, track.bits_per_sample, false)
}

fn codec_label(codec: &str) -> String {
    match codec {
        "aac" | "alac" | "flac" | "mp3" | "mp2" | "mp1" => codec.to_ascii_uppercase(),
        "vorbis" => "Vorbis".to_owned(),
        "opus" => "Opus".to_owned(),
        "speex" => "Speex".to_owned(),
        other => other.to_owned(),
    }
}
