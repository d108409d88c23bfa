//! The mastering job: the file's loudness (stored, or measured by a decode of its own), then one
//! decode through gain, limiter and encoder; the new file carries the original's tags,
//! chapters and cover, and is stored as a new media file beside it.

use super::decoding::{decode_error, source};
use super::output::{JobOutput, MasteredFile};
use crate::host::{PodcastHost, file_tags};
use crate::{
    analysis,
    error::{Error, Result},
    ids::AccountId,
    master::{self, Format, Master, MasterError, MasterOptions, PassesError},
    model::{AdCodec, AdShape, Job, Media},
    tags::Tags,
};

/// The file's name with the format's extension in place of its own.
pub(super) fn mastered_name(name: &str, extension: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    format!("{stem}.{extension}")
}

pub(crate) async fn master(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    let channels = media.facts.audio.as_ref().map_or(2, |a| a.channels);
    let options = MasterOptions::from_params(&job.params, channels)?;
    let encoded = encode(host, account, media, options, channels, None, 0).await?;
    // The original's tags, chapters and cover, written into each new file in a scratch folder.
    let mut tags = file_tags::read_file_tags(host.store(), account, media)
        .await
        .unwrap_or_else(|_| Tags::default());
    if tags.chapters.is_empty() {
        tags.chapters.clone_from(&media.chapters);
    }
    let dir = host.job_folder("master", &job.id).await?;
    let mut files = Vec::new();
    let mut result = Ok(());
    for (format, bytes) in encoded {
        match store_file(host, account, media, &dir, format, &bytes, &tags).await {
            Ok(file) => files.push(file),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let _ = tokio::fs::remove_dir_all(&dir).await;
    if let Err(e) = result {
        for file in &files {
            let path = crate::store::layout::blob(account, &file.blob);
            let _ = crate::store::delete_quietly(host.store(), &path).await;
        }
        return Err(e);
    }
    Ok(JobOutput::Mastered { files })
}

/// The loudness of `media`: stored, or measured by a decode of its own.
async fn loudness_of(
    host: &PodcastHost,
    account: &AccountId,
    media: &Media,
) -> Result<analysis::Loudness> {
    if let Some(loudness) = media.results.loudness.as_deref().copied() {
        return Ok(loudness);
    }
    let (source, mime) = (source(host, account, media), media.facts.mime.clone());
    tokio::task::spawn_blocking(move || analysis::analyze(source, Some(&mime), None, None, true))
        .await
        .map_err(|e| Error::storage(format!("the analysis stopped: {e}")))?
        .map_err(decode_error)?
        .loudness
        .ok_or_else(|| Error::storage("the analysis measured no loudness"))
}

/// `media` mastered with `options` to `channels` channels (at sample rate `rate` when given,
/// and `tail_ms` of silence after it), in passes ([`master::in_passes`]): the first encodes;
/// when limiting cost it the target, passes that only measure find the gain, and one more
/// encodes.
async fn encode(
    host: &PodcastHost,
    account: &AccountId,
    media: &Media,
    options: MasterOptions,
    channels: u16,
    rate: Option<u32>,
    tail_ms: u32,
) -> Result<Vec<(Format, Vec<u8>)>> {
    let loudness = loudness_of(host, account, media).await?;
    let (host, account, media) = (host.clone(), account.clone(), media.clone());
    let ffmpeg = host.config().jobs.ffmpeg.clone();
    let made = tokio::task::spawn_blocking(move || {
        let master = |gain| {
            let master =
                Master::new(options, gain, usize::from(channels)).with_ffmpeg(ffmpeg.clone());
            match rate {
                Some(rate) => master.encoding_at(rate),
                None => master,
            }
        };
        let decode = |master: &mut Master| {
            let mime = Some(media.facts.mime.as_str());
            analysis::analyze_with(source(&host, &account, &media), mime, false, master)?;
            master.pad(tail_ms);
            Ok(())
        };
        master::in_passes(&options, &loudness, master, decode).map_err(|e| match e {
            PassesError::Decode(e) => decode_error(e),
            PassesError::Master(MasterError::Unsupported(why)) => Error::invalid("media", why),
            PassesError::Master(e) => Error::storage(e.to_string()),
        })
    })
    .await
    .map_err(|e| Error::storage(format!("mastering stopped: {e}")))??;
    Ok(made.0.files)
}

/// The parameters of an ad's encoding job: the shape to encode to.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct AdAudioParams {
    pub(crate) shape: AdShape,
}

impl AdAudioParams {
    /// The parameters of a job's `params`.
    pub(crate) fn read(params: &serde_json::Value) -> Result<AdAudioParams> {
        serde_json::from_value(params.clone())
            .map_err(|e| Error::invalid("params", format!("an ad encoding's shape: {e}")))
    }

    /// As a job's `params`.
    pub(crate) fn value(shape: AdShape) -> serde_json::Value {
        serde_json::to_value(AdAudioParams { shape }).unwrap_or_default()
    }
}

/// The ad `media` encoded to the job's shape (MP3, or AAC-LC in M4A by ffmpeg, at the episode's
/// rate, channels and bitrate, mastered to its loudness), stored as a blob without tags: its
/// frames go between an episode's, whose own tag (or `moov`) leads the answer.
pub(crate) async fn ad_audio(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    let shape = AdAudioParams::read(&job.params)?.shape;
    let options = MasterOptions {
        target: shape.lufs().clamp(
            *crate::master::TARGETS.start(),
            *crate::master::TARGETS.end(),
        ),
        true_peak: -1.0,
        format: match shape.codec {
            AdCodec::Mp3 => Format::Mp3,
            AdCodec::Aac => Format::Aac,
        },
        bitrate: shape.bitrate,
        alternate: None,
    };
    // Ended by 150 ms of silence (a frame at least, at any MP3 rate, and an AAC frame of 1,024
    // samples down to 8 kHz): the carrier of an MP3 seam after the ad takes the place of its
    // last frame, and the first AAC frame after it overlaps its last; either then holds none
    // of the ad.
    let tail_ms = 150;
    let rate = Some(shape.rate);
    let encoded = encode(host, account, media, options, shape.channels, rate, tail_ms).await?;
    let (_, bytes) = encoded
        .into_iter()
        .next()
        .ok_or_else(|| Error::storage("the ad's encoding made no file"))?;
    let name = mastered_name(&media.name, options.format.extension());
    let body =
        futures::stream::iter([Ok::<_, std::convert::Infallible>(bytes::Bytes::from(bytes))]);
    let (blob, size, _) = host.store_blob(account, &name, body).await?;
    Ok(JobOutput::AdAudio { shape, blob, size })
}

/// One encoding of the mastered audio, with the original's tags written into it, stored as a
/// blob.
async fn store_file(
    host: &PodcastHost,
    account: &AccountId,
    media: &Media,
    dir: &std::path::Path,
    format: Format,
    encoded: &[u8],
    tags: &Tags,
) -> Result<MasteredFile> {
    let name = mastered_name(&media.name, format.extension());
    let path = dir.join(format.extension());
    tokio::fs::write(&path, encoded)
        .await
        .map_err(|e| Error::storage(format!("writing the mastered file: {e}")))?;
    let duration = media.facts.audio.as_ref().map(|a| a.duration_ms);
    let (written, tags) = (path.clone(), tags.clone());
    let file = tokio::task::spawn_blocking(move || {
        crate::tags::write_tags(&written, format.mime(), &tags, duration)?;
        let file = std::fs::File::open(&written)?;
        let len = file.metadata()?.len();
        Ok::<_, crate::tags::TagError>((file, len))
    })
    .await
    .map_err(|e| Error::storage(format!("the tag writer stopped: {e}")))?
    .map_err(|e| Error::storage(format!("writing the tags of the mastered file: {e}")))?;
    let body = crate::store::local::file_chunks(file.0, 0..file.1);
    let (blob, size, facts) = host.store_blob(account, &name, body).await?;
    let chapters = crate::tags::read_tags(
        &mut std::fs::File::open(&path)
            .map_err(|e| Error::storage(format!("reading the mastered file: {e}")))?,
        format.mime(),
    )
    .map(|t| t.chapters)
    .unwrap_or_default();
    Ok(MasteredFile {
        format,
        name,
        blob,
        size,
        facts,
        chapters,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_mastered_file_is_named_after_the_original() {
        for (name, want) in [
            ("episode.wav", "episode.mp3"),
            ("episode.final.flac", "episode.final.mp3"),
            ("episode", "episode.mp3"),
            ("episode.mp3", "episode.mp3"),
        ] {
            assert_eq!(super::mastered_name(name, "mp3"), want);
        }
    }
}
