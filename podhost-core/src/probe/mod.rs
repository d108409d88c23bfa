//! Media probing: what an uploaded file is (MIME type, kind, extension) and its technical facts
//! (audio codec, exact duration, bitrate, sample rate, channels; video codec, size, frame rate;
//! image size), learned from its content rather than its name.
//!
//! Probing happens in two steps:
//!
//! 1. While the upload streams into storage, every chunk goes through a [`Sniffer`]. It keeps
//!    the first 64 KiB and, for bare MPEG audio (MP3) and ADTS AAC, counts every frame in one
//!    constant-memory pass. That count is what makes MP3 durations exact: a VBR MP3 without a
//!    Xing/Info header has no length anywhere but in its frames.
//! 2. After the upload, [`probe()`] combines the [`Sniffed`] result with range reads of the
//!    stored object: containers (MP4/M4A, Ogg, FLAC, WAV) are read by symphonia's demuxers
//!    through a buffered, seekable adapter over the object store, and image sizes come from
//!    their headers.
//!
//! ```no_run
//! # async fn demo(store: std::sync::Arc<dyn object_store::ObjectStore>, chunks: Vec<Vec<u8>>) {
//! use podhost_core::probe::{probe, Sniffer};
//! let location = object_store::path::Path::from("episodes/1.mp3");
//! let mut sniffer = Sniffer::new();
//! for chunk in &chunks {
//!     sniffer.update(chunk);
//!     // ... and write the chunk to storage
//! }
//! let sniffed = sniffer.finish();
//! let size = sniffed.len();
//! let facts = probe(store, &location, size, sniffed, "episode-1.mp3").await;
//! println!("{} {:?}", facts.mime, facts.audio.map(|a| a.duration_ms));
//! # }
//! ```

pub(crate) mod aac_profile;
pub(crate) mod bmff;
mod container;
mod describe;
mod detect;
mod extension;
mod facts;
pub(crate) mod frame;
pub(crate) mod id3;
mod image;
mod inspect;
mod magic;
mod riff;
mod scan;
mod sniff;
pub(crate) mod store_source;
mod text;
mod video;

mod artwork;
pub use artwork::ArtworkCheck;
pub use facts::{AudioFacts, ImageFacts, MediaFacts, MediaKind, VideoFacts};
pub use inspect::probe;
pub use sniff::{Sniffed, Sniffer};
