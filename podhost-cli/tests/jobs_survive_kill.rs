//! A background job survives a `kill -9` of the server running it: the restarted server takes
//! it over once the dead one's lease expired, and finishes it.

mod common;

use std::{
    process::Child,
    time::{Duration, Instant},
};

use podhost_core::{HostConfig, PodcastHost, model::JobKind, model::JobStatus};

fn serve(store: &str) -> Child {
    common::serve(store, &[], &["--job-lease-seconds", "2"])
}

#[test]
fn a_job_survives_kill_9_of_its_server() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap().to_string();
    let mut first = serve(&store);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // This test process is one more process on the store: it asks for the job and watches it.
    let opened = podhost_core::open_store(&store).unwrap();
    let mut config = HostConfig::new("http://127.0.0.1:8080").unwrap();
    config.catalog.refresh_interval = Duration::ZERO;
    let host = PodcastHost::new(config, opened.store);
    let (admin, job) = runtime.block_on(async {
        let admin = host
            .access()
            .owner(&"admin".parse().unwrap())
            .await
            .unwrap();
        // An hour of 8 kHz audio: long enough to be mid-job at the kill.
        let audio =
            podhost_testkit::fixtures::tone_and_silence(&[(1800.0, true), (1800.0, false)], 8000);
        let media = podhost_testkit::setup::upload(&host, &admin, "long.wav", audio).await;
        let job = host
            .work()
            .submit_job(&admin, media.id, JobKind::Silence, serde_json::Value::Null)
            .await
            .unwrap();
        (admin, job.id)
    });
    let status = |host: &PodcastHost| {
        runtime.block_on(async { host.work().get_job(&admin, &job).await.unwrap() })
    };
    let start = Instant::now();
    while status(&host).status != JobStatus::Running {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the job never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let killed = status(&host);
    assert_eq!(killed.status, JobStatus::Running, "{killed:?}");
    assert_eq!(killed.attempts, 1);

    let mut second = serve(&store);
    let start = Instant::now();
    let done = loop {
        let job = status(&host);
        if job.status.is_final() {
            break job;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "not taken over: {job:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    second.kill().unwrap();
    second.wait().unwrap();
    assert_eq!(done.status, JobStatus::Succeeded, "{done:?}");
    assert_eq!(done.attempts, 2, "{done:?}");
    let report = runtime.block_on(host.work().silence(&admin, done.media.unwrap()));
    let report = report.unwrap();
    assert_eq!(report.silences.len(), 1, "{report:?}");
    assert!(
        (report.silences[0].start - 1800.0).abs() < 0.01,
        "{report:?}"
    );
}
