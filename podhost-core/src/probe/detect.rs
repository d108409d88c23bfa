//! Content-type detection from the sniffed bytes: MIME type, kind, canonical extension, and
//! which reader can learn more.

use super::facts::MediaKind;
use super::frame::{self, Layer, StreamKind};
use super::sniff::Sniffed;
use super::{extension::extension_of, text};

/// Container formats read through symphonia.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Container {
    /// FLAC.
    Flac,
    /// Ogg (Vorbis, Opus, FLAC, ...).
    Ogg,
    /// RIFF/RF64 WAVE.
    Wav,
    /// ISO base media (MP4, M4A, MOV, 3GP).
    Mp4,
    /// Matroska and WebM (read by the `matroska` crate, not symphonia).
    Matroska,
}

/// How to learn more about the content after detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// A bare MPEG audio or ADTS stream: facts from the frame scan, symphonia as a fallback.
    Elementary(ElementaryFormat),
    /// A container that symphonia reads.
    Container(Container),
    /// An image: pixel size from its header.
    Image,
    /// Nothing more to learn.
    Plain,
}

/// Bare elementary stream formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElementaryFormat {
    /// MPEG audio (layer I, II or III).
    Mpeg,
    /// ADTS AAC.
    Adts,
}

/// The outcome of content detection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Detected {
    /// MIME type.
    pub mime: String,
    /// Broad kind.
    pub kind: MediaKind,
    /// Canonical extension, without dot.
    pub extension: String,
    /// What to do next.
    pub route: Route,
    /// Human label used when nothing more specific is learned (e.g. "PDF document").
    pub label: String,
}

impl Detected {
    fn new(mime: &str, kind: MediaKind, extension: &str, route: Route, label: &str) -> Self {
        Detected {
            mime: mime.to_owned(),
            kind,
            extension: extension.to_owned(),
            route,
            label: label.to_owned(),
        }
    }

    /// Unknown content: octet-stream, with the file name's extension.
    pub(crate) fn unknown(file_name: &str) -> Self {
        Detected::new(
            "application/octet-stream",
            MediaKind::Other,
            &extension_of(file_name),
            Route::Plain,
            "data",
        )
    }
}

/// Detects the content type of a sniffed stream.
pub(crate) fn detect(sniffed: &Sniffed, file_name: &str) -> Detected {
    if sniffed.is_empty() {
        return Detected::unknown(file_name);
    }
    let body = sniffed.body_start();
    let has_tag = sniffed.tag_end() > 0;
    if let Some(d) = container(body) {
        return d;
    }
    if let Some(scan) = sniffed.scan() {
        return elementary(scan.stream.kind);
    }
    // Too short for the scanner to trust a sync: accept a header right at the start when an ID3
    // tag vouches for it, or when two consecutive frames agree.
    let remaining = sniffed.len() - sniffed.tag_end();
    if let Some(h) = frame::parse(body).filter(|_| has_tag || two_frames(body, remaining)) {
        return elementary(h.kind);
    }
    if has_tag {
        // An ID3v2 tag followed by nothing recognisable: claims to be MP3, cannot be parsed.
        return elementary(StreamKind::Mpeg {
            version: frame::Version::V1,
            layer: Layer::L3,
        });
    }
    if let Some(d) = by_infer(sniffed.head()) {
        return d;
    }
    if let Some(t) = text::detect(sniffed.head(), file_name) {
        return Detected::new(
            &t.mime,
            MediaKind::Document,
            &t.extension,
            Route::Plain,
            &t.label,
        );
    }
    Detected::unknown(file_name)
}

fn two_frames(body: &[u8], remaining: u64) -> bool {
    let Some(first) = frame::parse(body) else {
        return false;
    };
    if first.frame_len as u64 == remaining {
        return false;
    }
    body.get(first.frame_len..)
        .and_then(frame::parse)
        .is_some_and(|second| first.same_stream(&second))
}

fn elementary(kind: StreamKind) -> Detected {
    let route = |f| Route::Elementary(f);
    match kind {
        StreamKind::Adts => Detected::new(
            "audio/aac",
            MediaKind::Audio,
            "aac",
            route(ElementaryFormat::Adts),
            "ADTS AAC",
        ),
        StreamKind::Mpeg { layer, .. } => {
            let (ext, label) = match layer {
                Layer::L1 => ("mp1", "MPEG ADTS, layer I"),
                Layer::L2 => ("mp2", "MPEG ADTS, layer II"),
                Layer::L3 => ("mp3", "MPEG ADTS, layer III"),
            };
            Detected::new(
                "audio/mpeg",
                MediaKind::Audio,
                ext,
                route(ElementaryFormat::Mpeg),
                label,
            )
        }
    }
}

fn container(b: &[u8]) -> Option<Detected> {
    let audio = |mime: &str, ext: &str, c: Container, label: &str| {
        Some(Detected::new(
            mime,
            MediaKind::Audio,
            ext,
            Route::Container(c),
            label,
        ))
    };
    if b.starts_with(b"fLaC") {
        return audio("audio/flac", "flac", Container::Flac, "FLAC");
    }
    if b.starts_with(b"OggS") {
        return Some(ogg(b));
    }
    let riff_form = b.get(8..12);
    if (b.starts_with(b"RIFF") || b.starts_with(b"RF64")) && riff_form == Some(b"WAVE") {
        return audio("audio/wav", "wav", Container::Wav, "WAVE audio");
    }
    if b.starts_with(b"FORM") && matches!(riff_form, Some(b"AIFF") | Some(b"AIFC")) {
        return Some(Detected::new(
            "audio/aiff",
            MediaKind::Audio,
            "aiff",
            Route::Plain,
            "AIFF audio",
        ));
    }
    if b.get(4..8) == Some(b"ftyp") {
        return iso_bmff(b.get(8..12).unwrap_or_default());
    }
    if b.starts_with(b"\x1A\x45\xDF\xA3") {
        return Some(matroska(b));
    }
    None
}

fn ogg(b: &[u8]) -> Detected {
    // First page: 27-byte header, segment table, then the first packet (the codec header).
    let segments = usize::from(b.get(26).copied().unwrap_or(0));
    let packet = b.get(27 + segments..).unwrap_or_default();
    let route = Route::Container(Container::Ogg);
    if packet.starts_with(b"\x80theora") {
        Detected::new(
            "video/ogg",
            MediaKind::Video,
            "ogv",
            route,
            "Ogg Theora video",
        )
    } else if packet.starts_with(b"OpusHead") {
        Detected::new("audio/ogg", MediaKind::Audio, "opus", route, "Ogg Opus")
    } else if packet.starts_with(b"\x01vorbis") {
        Detected::new("audio/ogg", MediaKind::Audio, "ogg", route, "Ogg Vorbis")
    } else if packet.starts_with(b"\x7fFLAC") {
        Detected::new("audio/ogg", MediaKind::Audio, "oga", route, "Ogg FLAC")
    } else if packet.starts_with(b"Speex   ") {
        Detected::new("audio/ogg", MediaKind::Audio, "spx", route, "Ogg Speex")
    } else {
        Detected::new("audio/ogg", MediaKind::Audio, "ogg", route, "Ogg data")
    }
}

/// ISO base media by major brand. Generic brands start as video and are refined by their tracks
/// (an MP4 whose only track is audio is `audio/mp4`) once the container is read.
fn iso_bmff(brand: &[u8]) -> Option<Detected> {
    let route = Route::Container(Container::Mp4);
    let d = match brand {
        b"M4A " | b"M4P " | b"F4A " => {
            Detected::new("audio/mp4", MediaKind::Audio, "m4a", route, "MPEG-4 audio")
        }
        b"M4B " | b"F4B " => Detected::new(
            "audio/mp4",
            MediaKind::Audio,
            "m4b",
            route,
            "MPEG-4 audiobook",
        ),
        b"M4V " | b"M4VH" | b"M4VP" => Detected::new(
            "video/x-m4v",
            MediaKind::Video,
            "m4v",
            route,
            "MPEG-4 video",
        ),
        b"qt  " => Detected::new(
            "video/quicktime",
            MediaKind::Video,
            "mov",
            route,
            "QuickTime video",
        ),
        b"3gp4" | b"3gp5" | b"3gp6" | b"3gp7" | b"3gs7" | b"3ge6" | b"3ge7" | b"3gg6" => {
            Detected::new("video/3gpp", MediaKind::Video, "3gp", route, "3GPP video")
        }
        b"3g2a" | b"3g2b" | b"3g2c" => {
            Detected::new("video/3gpp2", MediaKind::Video, "3g2", route, "3GPP2 video")
        }
        // Still images in HEIF/AVIF wrappers, and anything else that infer knows better.
        b"avif" | b"avis" | b"heic" | b"heix" | b"hevc" | b"hevx" | b"mif1" | b"msf1" => {
            return None;
        }
        _ => Detected::new("video/mp4", MediaKind::Video, "mp4", route, "MPEG-4 video"),
    };
    Some(d)
}

/// Matroska/WebM, guessed from the head: a TrackType element of 1 (video) anywhere means video.
/// The tracks are then read from the file's headers (`video::matroska`).
fn matroska(b: &[u8]) -> Detected {
    let webm = b.windows(4).take(64).any(|w| w == b"webm");
    // TrackType element id 0x83, 1-byte size (0x81), value 1 = video, 2 = audio.
    let video = b.windows(3).any(|w| w == [0x83, 0x81, 0x01]);
    let audio = b.windows(3).any(|w| w == [0x83, 0x81, 0x02]);
    match (webm, audio && !video) {
        (true, true) => Detected::new(
            "audio/webm",
            MediaKind::Audio,
            "weba",
            Route::Container(Container::Matroska),
            "WebM audio",
        ),
        (true, false) => Detected::new(
            "video/webm",
            MediaKind::Video,
            "webm",
            Route::Container(Container::Matroska),
            "WebM video",
        ),
        (false, true) => Detected::new(
            "audio/x-matroska",
            MediaKind::Audio,
            "mka",
            Route::Container(Container::Matroska),
            "Matroska audio",
        ),
        (false, false) => Detected::new(
            "video/x-matroska",
            MediaKind::Video,
            "mkv",
            Route::Container(Container::Matroska),
            "Matroska video",
        ),
    }
}

fn by_infer(head: &[u8]) -> Option<Detected> {
    use infer::MatcherType as M;
    let t = infer::get(head)?;
    let mime = match t.mime_type() {
        // The bare sync-word checks of infer are weak; our scanner already had its say.
        "audio/mpeg" | "audio/aac" => return None,
        "audio/x-wav" => "audio/wav",
        "audio/x-flac" => "audio/flac",
        "audio/x-aiff" => "audio/aiff",
        "audio/m4a" => "audio/mp4",
        other => other,
    };
    let ext = t.extension();
    let (kind, route) = match t.matcher_type() {
        M::Image => (MediaKind::Image, Route::Image),
        M::Video => (MediaKind::Video, Route::Plain),
        M::Audio => (MediaKind::Audio, Route::Plain),
        M::Doc | M::Book | M::Text => (MediaKind::Document, Route::Plain),
        _ if matches!(
            mime,
            "application/pdf" | "application/rtf" | "application/postscript"
        ) =>
        {
            (MediaKind::Document, Route::Plain)
        }
        _ => (MediaKind::Other, Route::Plain),
    };
    let label = label_for(mime, ext, kind);
    Some(Detected::new(mime, kind, ext, route, &label))
}

fn label_for(mime: &str, ext: &str, kind: MediaKind) -> String {
    let name = match mime {
        "image/png" => "PNG",
        "image/jpeg" => "JPEG",
        "image/gif" => "GIF",
        "image/webp" => "WebP",
        "image/bmp" => "BMP",
        "image/tiff" => "TIFF",
        "image/avif" => "AVIF",
        "image/heif" => "HEIF",
        "image/jxl" => "JPEG XL",
        "image/vnd.microsoft.icon" => "ICO",
        "application/pdf" => "PDF",
        "application/epub+zip" => "EPUB",
        "text/html" => "HTML",
        "text/xml" => "XML",
        _ => "",
    };
    let name = if name.is_empty() {
        ext.to_ascii_uppercase()
    } else {
        name.to_owned()
    };
    match kind {
        MediaKind::Image => format!("{name} image"),
        MediaKind::Document => format!("{name} document"),
        MediaKind::Video => format!("{name} video"),
        MediaKind::Audio => format!("{name} audio"),
        MediaKind::Other => format!("{name} data"),
    }
}
