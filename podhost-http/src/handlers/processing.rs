//! Processing endpoints: `POST /api/generate/{waveform,silence,loudness}/{id}` (answered 202 with
//! the job), and the additions `GET /api/jobs/{id}` and `GET /api/media/{id}/{waveform,silence,loudness}`.

use crate::headers::SetHeader;
use http::{StatusCode, header};
use podhost_core::{JobId, MediaId, WaveformFormat, model::JobKind};

use super::answers::{Answer, data, job_accepted};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::processing::ProcessingEndpoint,
    wire,
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: ProcessingEndpoint,
    call: Call<B>,
) -> Answer {
    use ProcessingEndpoint as E;
    match endpoint {
        E::GenerateWaveform { id } => generate(api, call, id, JobKind::Waveform).await,
        E::GenerateSilence { id } => generate(api, call, id, JobKind::Silence).await,
        E::GenerateLoudness { id } => generate(api, call, id, JobKind::Loudness).await,
        E::GenerateMaster { id } => generate(api, call, id, JobKind::Master).await,
        E::GenerateHls { id } => generate(api, call, id, JobKind::Hls).await,
        E::GetJob { job_id } => get(api, call, job_id).await,
        E::CancelJob { job_id } => {
            let job = api.host.work().cancel_job(&call.who, &job_id).await?;
            data(StatusCode::OK, wire::job(&api.host, &job))
        }
        E::GetWaveform { id } => waveform(api, call, id).await,
        E::GetSilence { id } => silence(api, call, id).await,
        E::GetLoudness { id } => loudness(api, call, id).await,
    }
}

/// `POST /api/generate/{waveform,silence,loudness,master}/{id}`: the options in an optional JSON
/// body (loudness takes none).
pub(super) async fn generate<B: RequestBody>(
    api: &Api,
    call: Call<B>,
    media: MediaId,
    kind: JobKind,
) -> Answer {
    let limit = api.config.max_json_bytes;
    // The options' shape is the wire's; their meaning (ranges, one or the other) the core's.
    let (who, options) = match kind {
        JobKind::Silence => {
            let (who, options) = call.read::<wire::jobs::SilenceOptions>(limit).await?;
            (who, serde_json::to_value(options))
        }
        JobKind::Loudness | JobKind::Hls => (call.who, Ok(serde_json::Value::Null)),
        JobKind::Master => {
            let (who, options) = call.read::<wire::jobs::MasterOptions>(limit).await?;
            (who, serde_json::to_value(options))
        }
        _ => {
            let (who, options) = call.read::<wire::jobs::WaveformOptions>(limit).await?;
            (who, serde_json::to_value(options))
        }
    };
    let params = options.unwrap_or(serde_json::Value::Null);
    let job = api
        .host
        .work()
        .submit_job(&who, media, kind, params)
        .await?;
    job_accepted(api, &job)
}

/// `GET /api/jobs/{id}`
pub(super) async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: JobId) -> Answer {
    let job = api.host.work().get_job(&call.who, &id).await?;
    data(StatusCode::OK, wire::job(&api.host, &job))
}

/// `GET /api/media/{id}/waveform[?format=json|dat]`: audiowaveform's own form, not wrapped, so
/// that peaks.js can load the URL directly.
pub(super) async fn waveform<B: RequestBody>(api: &Api, call: Call<B>, media: MediaId) -> Answer {
    let format = match call.param("format") {
        None | Some("json") => WaveformFormat::Json,
        Some("dat") => WaveformFormat::Dat,
        Some(_) => {
            let mut errors = podhost_core::FieldErrors::default();
            errors.add("format", "json or dat");
            return Err(podhost_core::Error::Invalid(errors).into());
        }
    };
    let bytes = api.host.work().waveform(&call.who, media, format).await?;
    let mut answer = response::json_bytes(StatusCode::OK, bytes);
    if format == WaveformFormat::Dat {
        answer
            .headers_mut()
            .put(header::CONTENT_TYPE, "application/octet-stream");
    }
    Ok(answer)
}

/// `GET /api/media/{id}/silence`
pub(super) async fn silence<B: RequestBody>(api: &Api, call: Call<B>, media: MediaId) -> Answer {
    let report = api.host.work().silence(&call.who, media).await?;
    data(StatusCode::OK, wire::silence_report(&report))
}

/// `GET /api/media/{id}/loudness`
pub(super) async fn loudness<B: RequestBody>(api: &Api, call: Call<B>, media: MediaId) -> Answer {
    let loudness = api.host.work().loudness(&call.who, media).await?;
    data(StatusCode::OK, wire::jobs::loudness(&loudness))
}
