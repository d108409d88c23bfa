//! TEMPORARY stand-in with the interface of the probe module; replaced by the real one.
#![allow(missing_docs, dead_code)]

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaKind {
    Audio,
    Video,
    Image,
    Document,
    Other,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AudioFacts {
    pub codec: String,
    pub duration_ms: u64,
    pub bitrate: u32,
    pub sample_rate: u32,
    pub channels: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImageFacts {
    pub width: u32,
    pub height: u32,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MediaFacts {
    pub mime: String,
    pub kind: MediaKind,
    pub extension: String,
    pub info: String,
    pub audio: Option<AudioFacts>,
    pub image: Option<ImageFacts>,
}

#[derive(Default)]
pub struct Sniffer {
    head: Vec<u8>,
    len: u64,
}
impl Sniffer {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn update(&mut self, chunk: &[u8]) {
        self.len += chunk.len() as u64;
        let n = (65536 - self.head.len()).min(chunk.len());
        self.head.extend_from_slice(&chunk[..n]);
    }
    pub fn finish(self) -> Sniffed {
        Sniffed {
            head: self.head,
            len: self.len,
        }
    }
}
pub struct Sniffed {
    head: Vec<u8>,
    len: u64,
}
impl Sniffed {
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn head(&self) -> &[u8] {
        &self.head
    }
}

pub async fn probe(
    _store: std::sync::Arc<dyn object_store::ObjectStore>,
    _location: &object_store::path::Path,
    _size: u64,
    sniffed: Sniffed,
    file_name: &str,
) -> MediaFacts {
    let audio = sniffed.head.starts_with(b"ID3");
    MediaFacts {
        mime: if audio {
            "audio/mpeg".into()
        } else {
            "application/octet-stream".into()
        },
        kind: if audio {
            MediaKind::Audio
        } else {
            MediaKind::Other
        },
        extension: file_name.rsplit('.').next().unwrap_or("").to_lowercase(),
        info: "data".into(),
        audio: None,
        image: None,
    }
}
