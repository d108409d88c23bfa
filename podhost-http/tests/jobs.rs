//! Background jobs through the API: waveform, silence and loudness asked for with 202, run by a
//! worker, read back (one decode for all three); refusals; a broken file fails cleanly; a job whose worker died is taken over.

mod common;

use std::time::Duration;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// A mono 16-bit WAV at 8 kHz: tones and silences, as given.
fn wav_with_pauses(parts: &[(f64, bool)]) -> Vec<u8> {
    podhost_testkit::fixtures::tone_and_silence(parts, 8000)
}

#[tokio::test]
async fn silence_and_waveform_as_jobs() {
    let fx = Fixture::new().await;
    // 3 s tone, 2.5 s silence, 3 s tone, 4 s silence to the end.
    let media = fx
        .upload(
            "talk.wav",
            wav_with_pauses(&[(3.0, true), (2.5, false), (3.0, true), (4.0, false)]),
        )
        .await;
    let asked = fx
        .call(
            Method::POST,
            &format!("/api/generate/silence/{media}"),
            &fx.alice,
            Some(json!({"noise": -50, "duration": 2})),
        )
        .await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
    let job = asked.body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(asked.body["data"]["status"], "queued");
    assert_eq!(asked.body["data"]["kind"], "silence");
    assert_eq!(asked.body["data"]["media_id"], media);
    assert_eq!(
        asked.headers["location"],
        format!("https://pod.test/api/jobs/{job}").as_str()
    );
    // Asking again while it waits gives the same job: never two for one file and kind.
    let again = fx
        .call(
            Method::POST,
            &format!("/api/generate/silence/{media}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(again.body["data"]["id"], job.as_str());
    // Nothing to read before the job ran.
    assert_eq!(
        fx.get(&format!("/api/media/{media}/silence")).await.status,
        StatusCode::NOT_FOUND
    );

    let _workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["attempts"], 1);
    assert_eq!(
        done["result"]["silence"],
        format!("https://pod.test/api/media/{media}/silence").as_str()
    );
    let report = fx.get(&format!("/api/media/{media}/silence")).await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.body);
    let silences = report.body["data"]["silences"].as_array().unwrap();
    let found: Vec<(f64, f64)> = silences
        .iter()
        .map(|s| (s["start"].as_f64().unwrap(), s["end"].as_f64().unwrap()))
        .collect();
    let truth = [(3.0, 5.5), (8.5, 12.5)];
    assert_eq!(found.len(), truth.len(), "{found:?}");
    for ((start, end), (s, e)) in found.iter().zip(truth) {
        assert!(
            (start - s).abs() < 0.01 && (end - e).abs() < 0.01,
            "{found:?}"
        );
    }

    let asked = fx
        .call(
            Method::POST,
            &format!("/api/generate/waveform/{media}"),
            &fx.alice,
            Some(json!({"samples_per_pixel": 800, "bits": 16})),
        )
        .await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
    let job = asked.body["data"]["id"].as_str().unwrap().to_string();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let waveform = fx.get(&format!("/api/media/{media}/waveform")).await;
    assert_eq!(waveform.status, StatusCode::OK);
    assert_eq!(waveform.body["version"], 2);
    assert_eq!(waveform.body["bits"], 16);
    assert_eq!(waveform.body["samples_per_pixel"], 800);
    assert_eq!(waveform.body["sample_rate"], 8000);
    // 12.5 s at 8 kHz in blocks of 800: 125 pixels, a min and a max each.
    assert_eq!(waveform.body["length"], 125);
    assert_eq!(waveform.body["data"].as_array().unwrap().len(), 250);
    let dat = fx
        .get(&format!("/api/media/{media}/waveform?format=dat"))
        .await;
    assert_eq!(dat.status, StatusCode::OK);
    assert_eq!(dat.headers["content-type"], "application/octet-stream");
    assert!(dat.raw.len() > 250 * 2, "{}", dat.raw.len());

    // The episode page draws the outline of the waveform.
    fx.feed("show").await;
    fx.episode(
        "show",
        &[
            ("title", "One"),
            ("is_public", "1"),
            ("publishing_date", "2025-01-01"),
            ("show_media", &media.to_string()),
        ],
    )
    .await;
    let page = fx.public(Method::GET, "/podcasts/show/pod-1", &[]).await;
    let html = String::from_utf8_lossy(&page.raw);
    let svg = &html[html.find("<svg class=\"waveform\"").expect("an outline")..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    // 125 points in 125 bars: the tones are tall, the silences flat.
    assert_eq!(svg.matches("<rect").count(), 125, "{svg}");
    assert!(
        svg.contains("height=\"24\"") && svg.contains("height=\"1\""),
        "{svg}"
    );
}

#[tokio::test]
async fn one_decode_measures_loudness_and_stores_all_three() {
    let fx = Fixture::new().await;
    // A 440 Hz tone at 8000 / 32768 of full scale, with pauses.
    let media = fx
        .upload(
            "talk.wav",
            wav_with_pauses(&[(3.0, true), (2.5, false), (3.0, true), (4.0, false)]),
        )
        .await;
    assert_eq!(
        fx.get(&format!("/api/media/{media}/loudness")).await.status,
        StatusCode::NOT_FOUND,
        "nothing before the job"
    );
    let asked = fx
        .call(
            Method::POST,
            &format!("/api/generate/loudness/{media}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
    assert_eq!(asked.body["data"]["kind"], "loudness");
    let job = asked.body["data"]["id"].as_str().unwrap().to_string();
    let workers = fx.start_workers();
    let done = fx.until_done(&job).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(
        done["result"]["loudness"],
        format!("https://pod.test/api/media/{media}/loudness").as_str()
    );
    let loudness = fx.get(&format!("/api/media/{media}/loudness")).await;
    assert_eq!(loudness.status, StatusCode::OK, "{}", loudness.body);
    let data = &loudness.body["data"];
    assert_eq!(
        data["sample_peak"], -12.25,
        "20 log10(8000 / 32768): {data}"
    );
    let true_peak = data["true_peak"].as_f64().unwrap();
    assert!((-12.25..-11.5).contains(&true_peak), "{data}");
    // A sine's mean square is half its peak's; the pauses are gated out.
    let integrated = data["integrated"].as_f64().unwrap();
    assert!((-16.5..-15.5).contains(&integrated), "{data}");
    assert!(data["range"].as_f64().unwrap() >= 0.0, "{data}");
    let metadata = fx.get(&format!("/api/media/{media}/metadata")).await;
    assert_eq!(metadata.body["data"]["loudness"], *data);

    // The same decode stored the waveform and the silences at their defaults: asked for now,
    // they succeed without decoding again (the file's bytes are gone from the store).
    drop(workers);
    let blobs: Vec<object_store::path::Path> = {
        use futures::TryStreamExt;
        fx.store
            .list(None)
            .try_filter(|m| std::future::ready(m.location.as_ref().contains("/blobs/")))
            .map_ok(|m| m.location)
            .try_collect()
            .await
            .unwrap()
    };
    assert!(!blobs.is_empty());
    for blob in &blobs {
        object_store::ObjectStoreExt::delete(&fx.store, blob)
            .await
            .unwrap();
    }
    let _workers = fx.start_workers();
    for kind in ["waveform", "silence", "loudness"] {
        let asked = fx
            .call(
                Method::POST,
                &format!("/api/generate/{kind}/{media}"),
                &fx.alice,
                None,
            )
            .await;
        assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
        let done = fx
            .until_done(asked.body["data"]["id"].as_str().unwrap())
            .await;
        assert_eq!(done["status"], "succeeded", "{kind}: {done}");
    }
    let silences = fx.get(&format!("/api/media/{media}/silence")).await;
    assert_eq!(
        silences.body["data"]["silences"].as_array().unwrap().len(),
        2
    );
    let waveform = fx.get(&format!("/api/media/{media}/waveform")).await;
    assert_eq!(waveform.body["samples_per_pixel"], 256);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_is_mastered_into_a_new_mp3_beside_it() {
    let fx = Fixture::new().await;
    let media = fx
        .upload("talk.wav", wav_with_pauses(&[(3.0, true), (1.0, false)]))
        .await;
    let master = format!("/api/generate/master/{media}");
    for body in [
        json!({"format": "ogg"}),
        json!({"target": -4}),
        json!({"bitrate": 1}),
    ] {
        let refused = fx
            .call(Method::POST, &master, &fx.alice, Some(body.clone()))
            .await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let asked = fx
        .call(
            Method::POST,
            &master,
            &fx.alice,
            Some(json!({"target": -18})),
        )
        .await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
    assert_eq!(asked.body["data"]["kind"], "master");
    let _workers = fx.start_workers();
    let done = fx
        .until_done(asked.body["data"]["id"].as_str().unwrap())
        .await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let made = done["result"]["media_id"].as_u64().unwrap();
    assert_ne!(made, media);
    assert_eq!(
        done["result"]["media"],
        format!("https://pod.test/api/media/{made}").as_str()
    );
    let file = fx.get(&format!("/api/media/{made}")).await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.body);
    assert_eq!(file.body["name"], "talk.mp3", "{}", file.body);
    assert_eq!(file.body["mime"], "audio/mpeg");
    let metadata = fx.get(&format!("/api/media/{made}/metadata")).await;
    assert_eq!(
        metadata.body["data"]["mime"], "audio/mpeg",
        "{}",
        metadata.body
    );
    let original = fx.get(&format!("/api/media/{media}/metadata")).await;
    assert_eq!(
        original.body["data"]["mime"], "audio/wav",
        "the original stays"
    );
}

#[tokio::test]
async fn refusals() {
    let fx = Fixture::new().await;
    let audio = fx.upload("talk.wav", wav_with_pauses(&[(1.0, true)])).await;
    let image = fx.upload_png("cover.png").await;
    let read_only = fx.token("media-read-only").await;
    let cases: Vec<(String, &str, Option<Value>, StatusCode)> = vec![
        (
            format!("/api/generate/silence/{image}"),
            &fx.alice,
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/generate/silence/{audio}"),
            &fx.mallory,
            None,
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/generate/silence/{audio}"),
            &read_only,
            None,
            StatusCode::FORBIDDEN,
        ),
        (
            format!("/api/generate/silence/{audio}"),
            &fx.alice,
            Some(json!({"noise": "loud"})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/generate/silence/{audio}"),
            &fx.alice,
            Some(json!({"volume": 3})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/generate/waveform/{audio}"),
            &fx.alice,
            Some(json!({"bits": 12})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/generate/waveform/{audio}"),
            &fx.alice,
            Some(json!({"samples_per_pixel": 256, "pixels_per_second": 10})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/generate/waveform/999".to_string(),
            &fx.alice,
            None,
            StatusCode::NOT_FOUND,
        ),
    ];
    for (path, token, body, expected) in cases {
        let answer = fx.call(Method::POST, &path, token, body.clone()).await;
        assert_eq!(answer.status, expected, "{path} {body:?}: {}", answer.body);
    }
    let cases = [
        ("/api/jobs/job_aaaaaaaaaaaaaaaaaaaa", StatusCode::NOT_FOUND),
        ("/api/jobs/nonsense", StatusCode::NOT_FOUND),
        (
            &*format!("/api/media/{audio}/waveform?format=png"),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ];
    for (path, expected) in cases {
        assert_eq!(fx.get(path).await.status, expected, "{path}");
    }
    // Another account's job does not exist for mallory.
    let asked = fx
        .call(
            Method::POST,
            &format!("/api/generate/silence/{audio}"),
            &fx.alice,
            None,
        )
        .await;
    let job = asked.body["data"]["id"].as_str().unwrap();
    let theirs = fx
        .call(Method::GET, &format!("/api/jobs/{job}"), &fx.mallory, None)
        .await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_broken_file_fails_its_job_and_harms_nothing() {
    let fx = Fixture::new().await;
    // A WAV whose data chunk promises a minute inside a RIFF chunk of a few bytes.
    let mut broken = wav_with_pauses(&[(0.01, true)]);
    broken[40..44].copy_from_slice(&(8000u32 * 2 * 60).to_le_bytes());
    broken.extend(std::iter::repeat_n(0x5a, 10));
    let inconsistent = fx.upload("broken.wav", broken).await;
    // An M4A whose audio data is noise after its first 4 KiB: the container is sound (the
    // upload is accepted as audio), the AAC frames are not.
    let mut m4a = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../podhost-core/tests/fixtures/aac_96k_mono.m4a"
    ))
    .unwrap();
    let mdat = m4a.windows(4).position(|w| w == b"mdat").unwrap();
    let moov = m4a.windows(4).position(|w| w == b"moov").unwrap();
    let mut x = 7u32;
    for b in &mut m4a[mdat + 4_096..moov - 4] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *b = (x >> 16) as u8;
    }
    let bad = fx.upload("damaged.m4a", m4a).await;
    let good = fx
        .upload("good.wav", wav_with_pauses(&[(1.0, true), (2.5, false)]))
        .await;
    let _workers = fx.start_workers();
    let ask = |media: u64| {
        let fx = &fx;
        async move {
            let answer = fx
                .call(
                    Method::POST,
                    &format!("/api/generate/waveform/{media}"),
                    &fx.alice,
                    None,
                )
                .await;
            assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
            answer.body["data"]["id"].as_str().unwrap().to_string()
        }
    };
    let (bad_job, inconsistent_job, good_job) =
        (ask(bad).await, ask(inconsistent).await, ask(good).await);
    let failed_saying = |done: &serde_json::Value, reason: &str| {
        assert_eq!(done["status"], "failed", "{done}");
        assert!(done["error"].as_str().unwrap().contains(reason), "{done}");
    };
    failed_saying(&fx.until_done(&bad_job).await, "corrupt audio data at ");
    // The WAV's data chunk claims more than its RIFF chunk holds: refused at its header.
    failed_saying(
        &fx.until_done(&inconsistent_job).await,
        "corrupt audio data at 0.000 s",
    );
    let good_done = fx.until_done(&good_job).await;
    assert_eq!(good_done["status"], "succeeded", "{good_done}");
    let png = fx.upload_png("cover.png").await;
    let refused = fx
        .call(
            Method::POST,
            &format!("/api/generate/waveform/{png}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// A worker that dies mid-job (its runtime is dropped, as a `kill -9` would) leaves the job
/// running under a lease; another process takes it over once the lease expires and finishes it.
#[test]
fn a_job_whose_worker_died_is_taken_over() {
    let first = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (fx, job, slow) = first.block_on(async {
        let fx = Fixture::new().await;
        let media = fx
            .upload("talk.wav", wav_with_pauses(&[(20.0, true), (3.0, false)]))
            .await;
        let asked = fx
            .call(
                Method::POST,
                &format!("/api/generate/silence/{media}"),
                &fx.alice,
                None,
            )
            .await;
        let job = asked.body["data"]["id"].as_str().unwrap().to_string();
        // The first process reads the store slowly, so it is surely mid-job when it dies.
        let slow = std::sync::Arc::new(podhost_testkit::FaultStore::new(fx.store.clone()));
        slow.set(podhost_testkit::Faults {
            delay: Some(Duration::from_millis(200)),
            ..Default::default()
        });
        let mut config = podhost_core::HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap();
        config.catalog.refresh_interval = Duration::ZERO;
        config.jobs.lease = Duration::from_secs(30);
        let dying = podhost_core::PodcastHost::with_clock(
            config,
            slow.clone(),
            std::sync::Arc::new(fx.clock.clone()),
        );
        tokio::spawn(async move { dying.work().run_jobs(std::future::pending()).await });
        let alice = fx
            .host
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        let id: podhost_core::JobId = job.parse().unwrap();
        for _ in 0..500 {
            let status = fx.host.work().get_job(&alice, &id).await.unwrap().status;
            if status == podhost_core::model::JobStatus::Running {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        (fx, job, slow)
    });
    // The first worker dies with its runtime, mid-job.
    first.shutdown_timeout(Duration::from_secs(5));
    drop(slow);
    let second = tokio::runtime::Runtime::new().unwrap();
    second.block_on(async {
        let running = fx.get(&format!("/api/jobs/{job}")).await;
        assert_eq!(
            running.body["data"]["status"], "running",
            "{}",
            running.body
        );
        let _workers = fx.start_workers();
        // The lease still holds: nobody takes the job over yet.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let still = fx.get(&format!("/api/jobs/{job}")).await;
        assert_eq!(still.body["data"]["attempts"], 1, "{}", still.body);
        // Past the lease, the second process takes it over and finishes it.
        fx.clock.advance(jiff::SignedDuration::from_secs(31));
        let done = fx.until_done(&job).await;
        assert_eq!(done["status"], "succeeded", "{done}");
        assert_eq!(done["attempts"], 2, "{done}");
    });
}

/// A process runs at most `JobsConfig::workers` jobs at once; the others wait their turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_the_configured_number_of_jobs_run_at_once() {
    let fx = Fixture::new().await;
    let mut media = Vec::new();
    for i in 0..4 {
        let audio = wav_with_pauses(&[(240.0, true), (3.0, false)]);
        media.push(fx.upload(&format!("long-{i}.wav"), audio).await);
    }
    let mut config = podhost_core::HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    config.catalog.refresh_interval = Duration::ZERO;
    config.jobs.workers = 1;
    let worker = podhost_core::PodcastHost::with_clock(
        config,
        fx.store.clone(),
        std::sync::Arc::new(fx.clock.clone()),
    );
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let mut jobs = Vec::new();
    for id in &media {
        let id = podhost_core::MediaId::new(*id).unwrap();
        let job = fx
            .host
            .work()
            .submit_job(
                &alice,
                id,
                podhost_core::model::JobKind::Silence,
                Value::Null,
            )
            .await
            .unwrap();
        jobs.push(job.id);
    }
    tokio::spawn(async move { worker.work().run_jobs(std::future::pending()).await });
    let mut most = 0;
    loop {
        let mut running = 0;
        let mut ended = 0;
        for id in &jobs {
            match fx.host.work().get_job(&alice, id).await.unwrap().status {
                podhost_core::model::JobStatus::Running => running += 1,
                s if s.is_final() => ended += 1,
                _ => {}
            }
        }
        most = most.max(running);
        if ended == jobs.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(most, 1, "jobs running at once");
}

/// The lost update, reproduced through the API: on a 2-minute WAV, a waveform and a silence job
/// asked for back to back both leave their results, and an ad break stored while the waveform
/// job runs is still there when it ends. (Each job used to write back the whole record it read
/// when it began, erasing what landed meanwhile.)
#[tokio::test]
async fn results_and_metadata_written_while_a_job_runs_are_all_kept() {
    use podhost_testkit::{Call, FaultStore};
    let store = FaultStore::new(std::sync::Arc::new(object_store::memory::InMemory::new()));
    let fx = Fixture::on_store(
        std::sync::Arc::new(store.clone()),
        podhost_http::HttpConfig::default(),
    )
    .await;
    let id = fx
        .upload("talk.wav", podhost_testkit::fixtures::wav(120.0, 8000))
        .await;
    let ask = |kind: &'static str| {
        let path = format!("/api/generate/{kind}/{id}");
        let fx = &fx;
        async move {
            let answer = fx.call(Method::POST, &path, &fx.alice, None).await;
            assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
            answer.body["data"]["id"].as_str().unwrap().to_string()
        }
    };
    let waveform = ask("waveform").await;
    // The waveform job is held after it read the record, just before it stores its result.
    let held = format!("/{waveform}/waveform.json");
    let gate = store.gate(move |call, path| call == Call::Put && path.as_ref().ends_with(&held));
    let _workers = fx.start_workers();
    let silence = ask("silence").await;
    gate.reached().await;
    assert_eq!(fx.until_done(&silence).await["status"], "succeeded");
    let adbreak = json!({"preroll": true, "postroll": false, "midrolls": [61.5]});
    let put = fx
        .call(
            Method::PUT,
            &format!("/api/media/{id}/metadata"),
            &fx.alice,
            Some(json!({ "adbreak": adbreak })),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.body);
    gate.open();
    assert_eq!(fx.until_done(&waveform).await["status"], "succeeded");
    for result in ["waveform", "silence"] {
        let answer = fx.get(&format!("/api/media/{id}/{result}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{result}: {}", answer.body);
    }
    let metadata = fx.get(&format!("/api/media/{id}/metadata")).await;
    assert_eq!(metadata.body["data"]["adbreak"], adbreak);
}
