//! What each kind of job does, its options, and reading its results back.

use super::super::Work;
use serde_json::Value;

use super::output::{Analysed, JobOutput};
use crate::host::{PodcastHost, file_tags};
use crate::{
    analysis::{self, SilenceOptions, SilenceReport, WaveformOptions},
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::{AccountId, MediaId},
    model::{Job, JobKind, Media, MetadataPatch},
    principal::Principal,
    tags::Chapter,
};

/// The stored outputs of the analysis jobs.
const WAVEFORM_JSON: &str = "waveform.json";
const WAVEFORM_DAT: &str = "waveform.dat";
const SILENCE_JSON: &str = "silence.json";
/// Bars of the waveform outline the episode page draws.
const OUTLINE_BARS: usize = 160;

/// A waveform in one of audiowaveform's two forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveformFormat {
    /// The JSON form (`version` 2).
    Json,
    /// The binary `.dat` form.
    Dat,
}

fn options_of(params: &Value) -> Result<&serde_json::Map<String, Value>> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    match params {
        Value::Null => Ok(EMPTY.get_or_init(Default::default)),
        Value::Object(map) => Ok(map),
        _ => Err(Error::invalid("body", "the options are a JSON object")),
    }
}

/// Reads a whole number option; `None` when absent or null.
fn number(
    map: &serde_json::Map<String, Value>,
    key: &str,
    errors: &mut FieldErrors,
) -> Option<f64> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => match s.trim().parse() {
            Ok(n) => Some(n),
            Err(_) => {
                errors.add(key, "must be a number");
                None
            }
        },
        Some(_) => {
            errors.add(key, "must be a number");
            None
        }
    }
}

fn whole(map: &serde_json::Map<String, Value>, key: &str, errors: &mut FieldErrors) -> Option<u32> {
    let n = number(map, key, errors)?;
    if n.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&n) {
        errors.add(key, "must be a positive whole number");
        return None;
    }
    Some(n as u32)
}

fn unknown_keys(map: &serde_json::Map<String, Value>, known: &[&str], errors: &mut FieldErrors) {
    for key in map.keys() {
        if !known.contains(&key.as_str()) {
            errors.add(key.clone(), "unknown option");
        }
    }
}

/// The waveform options of a job's parameters (`samples_per_pixel` or `pixels_per_second`,
/// `bits` 8|16).
pub(crate) fn waveform_options(params: &Value) -> Result<WaveformOptions> {
    let map = options_of(params)?;
    let mut errors = FieldErrors::default();
    unknown_keys(
        map,
        &["samples_per_pixel", "pixels_per_second", "bits"],
        &mut errors,
    );
    let options = WaveformOptions {
        samples_per_pixel: whole(map, "samples_per_pixel", &mut errors),
        pixels_per_second: whole(map, "pixels_per_second", &mut errors),
        bits: whole(map, "bits", &mut errors).map_or(8, |b| b.min(255) as u8),
    };
    errors.into_result()?;
    options.check().map_err(Error::Invalid)?;
    Ok(options)
}

/// The silence options of a job's parameters (`noise` in dB, `duration` in seconds).
pub(crate) fn silence_options(params: &Value) -> Result<SilenceOptions> {
    let map = options_of(params)?;
    let mut errors = FieldErrors::default();
    unknown_keys(map, &["noise", "duration"], &mut errors);
    let defaults = SilenceOptions::default();
    let options = SilenceOptions {
        noise_db: number(map, "noise", &mut errors).unwrap_or(defaults.noise_db),
        min_duration: number(map, "duration", &mut errors).unwrap_or(defaults.min_duration),
    };
    errors.into_result()?;
    options.check().map_err(Error::Invalid)?;
    Ok(options)
}

/// Checks a job's options before it is queued.
pub(crate) fn check_params(kind: JobKind, params: &Value) -> Result<()> {
    match kind {
        JobKind::Waveform => waveform_options(params).map(drop),
        JobKind::Silence => silence_options(params).map(drop),
        JobKind::Loudness => {
            let mut errors = FieldErrors::default();
            unknown_keys(options_of(params)?, &[], &mut errors);
            errors.into_result()
        }
        JobKind::Master => crate::master::MasterOptions::from_params(params, 2).map(drop),
        JobKind::WriteTags => Ok(()),
        JobKind::AdAudio => super::mastering::AdAudioParams::read(params).map(drop),
        JobKind::AdStream => serde_json::from_value::<crate::model::StreamShape>(params.clone())
            .map(drop)
            .map_err(|e| Error::invalid("params", format!("a stream shape: {e}"))),
        JobKind::Hls => {
            let mut errors = FieldErrors::default();
            unknown_keys(options_of(params)?, &[], &mut errors);
            errors.into_result()
        }
        JobKind::Import => {
            let params: ImportParams = serde_json::from_value(params.clone())
                .map_err(|e| Error::invalid("body", format!("import options: {e}")))?;
            let mut errors = FieldErrors::default();
            if let Err(why) = crate::webhooks::target::check_fetch_url(&params.url, true) {
                errors.add("url", why);
            }
            if let Some(id) = &params.feed_id
                && crate::ids::FeedId::new(id).is_err()
            {
                errors.add("feed_id", "1 to 100 characters, no /");
            }
            errors.into_result()
        }
    }
}

/// Does a job's work on the media record as it is when the job starts. Errors are the job's
/// failure reason.
pub(crate) async fn execute(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
) -> Result<JobOutput> {
    if job.kind == JobKind::Import {
        return import(host, account, job).await;
    }
    let catalog = host.catalog(account).await?;
    let media = match job.media {
        Some(id) => catalog.read(|state| state.media.get(&id).cloned()).await,
        None => None,
    }
    .ok_or_else(|| Error::invalid("media", "the media file was deleted"))?;
    match job.kind {
        JobKind::Waveform | JobKind::Silence | JobKind::Loudness => {
            analyse(host, account, job, &media).await
        }
        JobKind::WriteTags => write_tags(host, account, job, &media).await,
        JobKind::Master => super::mastering::master(host, account, job, &media).await,
        JobKind::AdAudio => super::mastering::ad_audio(host, account, job, &media).await,
        JobKind::Hls => super::packaging::package(host, account, job, &media).await,
        JobKind::AdStream => super::packaging::package_ad(host, account, job, &media).await,
        JobKind::Import => Err(Error::storage("an import job has no media file")),
    }
}

/// The options of an import job: `{url, feed_id?}`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ImportParams {
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) feed_id: Option<String>,
}

/// Imports a podcast for the account as its owner (the scope `feeds` was checked when the job
/// was asked for), through the deployment's fetcher.
async fn import(host: &PodcastHost, account: &AccountId, job: &Job) -> Result<JobOutput> {
    let params: ImportParams = serde_json::from_value(job.params.clone())
        .map_err(|e| Error::invalid("params", format!("unreadable import options: {e}")))?;
    let fetcher = host.config().fetcher.clone().ok_or_else(|| {
        Error::invalid(
            "url",
            "this server fetches nothing (HostConfig::fetcher is not set)",
        )
    })?;
    let owner = Principal::podhost(account.clone());
    let options = crate::import::ImportOptions {
        feed_id: params.feed_id,
        ..Default::default()
    };
    let report = host
        .podcasts()
        .import_feed(
            &owner,
            crate::import::ImportSource::Url(params.url),
            &options,
            fetcher.as_ref(),
            &crate::import::Quietly,
        )
        .await?;
    Ok(JobOutput::Import(report))
}

/// Writes the patched tags into a copy of the file and stores it as a new blob, which the
/// finishing commit swaps in (a new download URL); the old blob stays until nothing uses it
/// (then `sweep` removes it).
async fn write_tags(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    use object_store::ObjectStoreExt;
    let patch: MetadataPatch = serde_json::from_value(job.params.clone())
        .map_err(|e| Error::invalid("params", format!("unreadable tag changes: {e}")))?;
    let current = file_tags::read_file_tags(host.store(), account, media)
        .await
        .map_err(|e| Error::invalid("media", e.to_string()))?;
    let mut tags = patch.apply(current);
    if let Some(image) = patch.image {
        tags.cover = match image {
            None => None,
            Some(image) => {
                let catalog = host.catalog(account).await?;
                let picture = catalog
                    .read(|state| state.media.get(&image).cloned())
                    .await
                    .ok_or_else(|| Error::invalid("image", format!("no media file {image}")))?;
                let bytes = host
                    .store()
                    .get(&crate::store::layout::blob(account, &picture.blob))
                    .await?
                    .bytes()
                    .await?;
                Some(crate::tags::Cover {
                    mime: picture.facts.mime.clone(),
                    bytes,
                })
            }
        };
    }
    // A private working copy in the scratch folder: tag writers rewrite files in place.
    let dir = host.job_folder("tags", &job.id).await?;
    let work = dir.join("file");
    let copied = host.copy_to_file(account, media, &work).await;
    let result = async {
        copied.map_err(|e| Error::storage(format!("copying the file to write its tags: {e}")))?;
        let mime = media.facts.mime.clone();
        let duration = media.facts.audio.as_ref().map(|a| a.duration_ms);
        let path = work.clone();
        let wanted = tags.clone();
        // Written, then read back: the chapters published are the file's (with the end times
        // the writer derived), and a write that did not take is a failure, not a success.
        let (written, file, len) = tokio::task::spawn_blocking(move || {
            crate::tags::write_tags(&path, &mime, &wanted, duration)?;
            let mut file = std::fs::File::open(&path)?;
            let written = crate::tags::read_tags(&mut file, &mime)?;
            let len = file.metadata()?.len();
            Ok::<_, crate::tags::TagError>((written, file, len))
        })
        .await
        .map_err(|e| Error::storage(format!("the tag writer stopped: {e}")))?
        .map_err(|e| match e {
            crate::tags::TagError::Io(e) => Error::storage(format!("writing tags: {e}")),
            e => Error::invalid("tags", e.to_string()),
        })?;
        let body = crate::store::local::file_chunks(file, 0..len);
        let chapters = published_chapters(&tags.chapters, written.chapters)?;
        let (blob, size, facts) = host.store_blob(account, &media.name, body).await?;
        Ok(JobOutput::Tags {
            from: media.blob.clone(),
            blob,
            size,
            facts,
            chapters,
        })
    }
    .await;
    let _ = tokio::fs::remove_dir_all(&dir).await;
    result
}

/// An analysis job: one decode computes the waveform, the silences (the job's kind at its
/// options, the other at the defaults) and the loudness. A job at the default options whose
/// results a former decode already stored reads them instead.
async fn analyse(
    host: &PodcastHost,
    account: &AccountId,
    job: &Job,
    media: &Media,
) -> Result<JobOutput> {
    let (waveform, silence) = match job.kind {
        JobKind::Waveform => (waveform_options(&job.params)?, SilenceOptions::default()),
        JobKind::Silence => (WaveformOptions::default(), silence_options(&job.params)?),
        _ => (WaveformOptions::default(), SilenceOptions::default()),
    };
    let defaults = waveform == WaveformOptions::default() && silence == SilenceOptions::default();
    if defaults
        && let (Some(files), Some(loudness)) = (
            &media.results.defaults,
            media.results.loudness.as_deref().copied(),
        )
    {
        // The outline is read again only for a waveform job whose kind points elsewhere now.
        let outline =
            if job.kind == JobKind::Waveform && media.results.waveform.as_ref() != Some(files) {
                let json = host.read_result(account, files, WAVEFORM_JSON).await?;
                serde_json::from_slice(&json)
                    .ok()
                    .and_then(|json| analysis::Waveform::from_json(&json).ok())
                    .map(|w| w.outline(OUTLINE_BARS))
                    .ok_or_else(|| Error::storage("a stored waveform is unreadable"))?
            } else {
                media.results.outline.clone()
            };
        return Ok(JobOutput::Analysis(Analysed {
            kind: job.kind,
            files: files.clone(),
            outline,
            defaults,
            loudness,
        }));
    }
    let source = super::decoding::source(host, account, media);
    let mime = media.facts.mime.clone();
    let analysis = tokio::task::spawn_blocking(move || {
        analysis::analyze(source, Some(&mime), Some(&waveform), Some(&silence), true)
    })
    .await
    .map_err(|e| Error::storage(format!("the analysis stopped: {e}")))?
    .map_err(super::decoding::decode_error)?;
    let incomplete = || Error::storage("the analysis gave an incomplete result");
    let waveform = analysis.waveform.ok_or_else(incomplete)?;
    let silence = analysis.silence.ok_or_else(incomplete)?;
    let json_error = |e: serde_json::Error| Error::storage(e.to_string());
    let files = [
        (
            WAVEFORM_JSON,
            serde_json::to_vec(&waveform.to_json()).map_err(json_error)?,
        ),
        (WAVEFORM_DAT, waveform.to_dat()),
        (
            SILENCE_JSON,
            serde_json::to_vec(&silence).map_err(json_error)?,
        ),
    ];
    // The job's own kind is stored last, just before the finishing commit.
    let own = |file: &str| match job.kind {
        JobKind::Waveform => file != SILENCE_JSON,
        _ => file == SILENCE_JSON,
    };
    let (last, first): (Vec<_>, Vec<_>) = files.into_iter().partition(|(file, _)| own(file));
    for (file, bytes) in first.into_iter().chain(last) {
        host.put_result(account, &job.id, file, bytes).await?;
    }
    Ok(JobOutput::Analysis(Analysed {
        kind: job.kind,
        files: job.id.clone(),
        outline: waveform.outline(OUTLINE_BARS),
        defaults,
        loudness: analysis.loudness.ok_or_else(incomplete)?,
    }))
}

impl PodcastHost {
    /// What `pick` finds in the record of one of the caller's media files; `NotFound` when
    /// it finds nothing.
    async fn media_result<T>(
        &self,
        who: &Principal,
        media: MediaId,
        pick: impl Fn(&Media) -> Option<T>,
    ) -> Result<T> {
        who.authorize(Action::ReadMedia)?;
        let catalog = self.catalog(who.account()).await?;
        let file = catalog
            .read(|state| state.media.get(&media).cloned())
            .await
            .ok_or_else(|| Error::not_found("media", media))?;
        pick(&file).ok_or_else(|| Error::not_found("result", media))
    }
}

impl Work<'_> {
    /// The latest waveform of one of the caller's media files, in audiowaveform's JSON or `.dat`
    /// form (scope `media` or `media-read-only`). `NotFound` until a waveform job succeeded.
    pub async fn waveform(
        self,
        who: &Principal,
        media: MediaId,
        format: WaveformFormat,
    ) -> Result<bytes::Bytes> {
        let job = self
            .host
            .media_result(who, media, |m| m.results.waveform.clone())
            .await?;
        let file = match format {
            WaveformFormat::Json => WAVEFORM_JSON,
            WaveformFormat::Dat => WAVEFORM_DAT,
        };
        self.host.read_result(who.account(), &job, file).await
    }

    /// The latest silence report of one of the caller's media files (scope `media` or
    /// `media-read-only`). `NotFound` until a silence job succeeded.
    pub async fn silence(self, who: &Principal, media: MediaId) -> Result<SilenceReport> {
        let job = self
            .host
            .media_result(who, media, |m| m.results.silence.clone())
            .await?;
        let bytes = self
            .host
            .read_result(who.account(), &job, SILENCE_JSON)
            .await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::storage(format!("a stored silence report is unreadable: {e}")))
    }

    /// The loudness of one of the caller's media files (scope `media` or `media-read-only`).
    /// `NotFound` until an analysis job (waveform, silence or loudness) succeeded.
    pub async fn loudness(self, who: &Principal, media: MediaId) -> Result<analysis::Loudness> {
        self.host
            .media_result(who, media, |m| m.results.loudness.as_deref().copied())
            .await
    }
}

/// The chapters published for a file: as read back from it, with what its format cannot hold
/// (MP4 and Vorbis store no end, MP4 no link) taken from what was asked for.
fn published_chapters(wanted: &[Chapter], written: Vec<Chapter>) -> Result<Vec<Chapter>> {
    if written.len() != wanted.len()
        || written
            .iter()
            .zip(wanted)
            .any(|(w, asked)| w.start_ms != asked.start_ms || w.title != asked.title)
    {
        return Err(Error::storage(
            "the chapters read back from the written file differ from those written",
        ));
    }
    Ok(written
        .into_iter()
        .zip(wanted)
        .map(|(w, asked)| Chapter {
            end_ms: w.end_ms.or(asked.end_ms),
            url: w.url.or_else(|| asked.url.clone()),
            ..w
        })
        .collect())
}
