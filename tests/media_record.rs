//! Property: no change to a media record is lost, whatever finishes when.
//!
//! Random sequences of operations on one media record — background jobs started and finished
//! at chosen moments (waveform, silence, tag writes), metadata writes (ad breaks, tags, both in
//! one request), renames, category changes, copies and deletes — are sent alternately through
//! two hosts on one store. Jobs are held at a [`Gate`] in the store after they read the record
//! and before they finish, so every other operation can land while a job runs. The oracle is a
//! sequential model: after each step and at the end, both hosts show the record, its copies and
//! every job as the model says. A job that wrote back the record it read when it began would
//! erase what landed meanwhile, and fail this.

use std::{sync::Arc, time::Duration};

use object_store::{ObjectStore, memory::InMemory};
use podhost_core::{
    Error, HostConfig, JobId, ManualClock, MediaId, MetadataPatch, PodcastHost, Principal,
    model::{AdBreak, JobKind, JobStatus, Media, MediaCopy, MediaPatch, NewMedia},
};
use podhost_testkit::{Call, FaultStore, Gate, body, fixtures};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Waveform,
    Silence,
    Tags,
}

const KINDS: [Kind; 3] = [Kind::Waveform, Kind::Silence, Kind::Tags];

#[derive(Clone, Debug)]
enum Op {
    /// Ask for a job of this kind (a tag write writes this title) and let it run up to its gate.
    Start(Kind, u8),
    /// Let the running job of this kind finish.
    Finish(Kind),
    /// `PUT metadata`: ad breaks, or a title (a tag-writing job), or both in one request.
    Metadata {
        midroll: Option<u8>,
        title: Option<u8>,
    },
    /// Rename the record.
    Rename,
    /// Move it to a category.
    Category(u8),
    /// Copy it.
    Copy,
    /// Delete it.
    Delete,
}

fn op() -> impl Strategy<Value = Op> {
    let kind = prop_oneof![Just(Kind::Waveform), Just(Kind::Silence), Just(Kind::Tags)];
    prop_oneof![
        5 => (kind.clone(), 0..4u8).prop_map(|(k, t)| Op::Start(k, t)),
        5 => kind.prop_map(Op::Finish),
        4 => (proptest::option::of(0..30u8), proptest::option::of(0..4u8))
            .prop_map(|(midroll, title)| Op::Metadata { midroll, title }),
        2 => Just(Op::Rename),
        2 => (0..3u8).prop_map(Op::Category),
        2 => Just(Op::Copy),
        1 => Just(Op::Delete),
    ]
}

/// What the record should look like.
#[derive(Clone, Debug, Default)]
struct Expected {
    deleted: bool,
    name: String,
    category: Option<String>,
    adbreak: Option<AdBreak>,
    waveform: Option<JobId>,
    silence: Option<JobId>,
    /// The analysis whose one decode stored the waveform and the silences at the defaults.
    defaults: Option<JobId>,
    /// The title tag in the file (written by the last tag write that succeeded).
    title: Option<String>,
    /// The blob after the last tag write that succeeded (or the upload's).
    blob: String,
}

/// A job the model knows of: its kind, and for a tag write the title it writes.
#[derive(Clone, Debug)]
struct Running {
    id: JobId,
    title: Option<String>,
    /// An analysis at the defaults started after another's decode stored them: the job whose
    /// files it points at (it decodes nothing, and passes no gate).
    reused: Option<JobId>,
}

struct World {
    hosts: [PodcastHost; 2],
    owners: [Principal; 2],
    gates: Vec<(Kind, Gate)>,
    kinds: AnalysisKinds,
    original: MediaId,
    expected: Expected,
    running: Vec<(Kind, Running)>,
    /// Every job and how it must end.
    ended: Vec<(JobId, JobStatus)>,
    /// Copies and what they must look like.
    copies: Vec<Copied>,
}

/// A copy: made with the original's bytes and results at the time, never changed since.
struct Copied {
    id: MediaId,
    name: String,
    blob: String,
    waveform: Option<JobId>,
    silence: Option<JobId>,
}

fn host(
    store: Arc<dyn ObjectStore>,
    clock: &ManualClock,
    scratch: &std::path::Path,
) -> PodcastHost {
    let mut config = HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    config.catalog.refresh_interval = Duration::ZERO;
    config.jobs.workers = 8;
    config.jobs.poll = Duration::from_millis(10);
    config.scratch_dir = Some(scratch.to_path_buf());
    PodcastHost::with_clock(config, store, Arc::new(clock.clone()))
}

fn midroll(n: u8) -> AdBreak {
    AdBreak {
        preroll: false,
        postroll: n % 2 == 0,
        midrolls: vec![f64::from(n)],
    }
}

/// The kind of each analysis job started, by id: every analysis stores all three results, its
/// own kind's file last, so a gate holds that file of its kind's jobs only. While an analysis
/// is being asked for, its kind stands under [`SUBMITTING`]: a worker may reach the gate before
/// the answer gives the job's id, and the one job not known by id is the one being asked for.
type AnalysisKinds = Arc<std::sync::Mutex<std::collections::HashMap<String, Kind>>>;

/// The key of [`AnalysisKinds`] for the analysis being asked for (no job id looks like it).
const SUBMITTING: &str = "submitting";

fn gate_of(kind: Kind, store: &FaultStore, kinds: &AnalysisKinds) -> Gate {
    let own = move |kinds: &AnalysisKinds, file: &str, path: &object_store::path::Path| {
        let mut parts = path.as_ref().rsplit('/');
        parts.next() == Some(file)
            && parts.next().is_some_and(|job| {
                let kinds = kinds.lock().unwrap();
                kinds.get(job).or_else(|| kinds.get(SUBMITTING)) == Some(&kind)
            })
    };
    let kinds = kinds.clone();
    match kind {
        // An analysis stores its own result file just before its finishing commit.
        Kind::Waveform => {
            store.gate(move |call, path| call == Call::Put && own(&kinds, "waveform.json", path))
        }
        Kind::Silence => {
            store.gate(move |call, path| call == Call::Put && own(&kinds, "silence.json", path))
        }
        // A tag write stores the rewritten file as a new blob just before its finishing commit.
        Kind::Tags => {
            store.gate(|call, path| call == Call::PutMultipart && path.as_ref().contains("/blobs/"))
        }
    }
}

impl World {
    fn gate(&self, kind: Kind) -> &Gate {
        &self.gates.iter().find(|(k, _)| *k == kind).unwrap().1
    }

    fn running(&self, kind: Kind) -> Option<&Running> {
        self.running
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, r)| r)
    }

    async fn job_status(&self, id: &JobId) -> JobStatus {
        self.hosts[0]
            .work()
            .get_job(&self.owners[0], id)
            .await
            .unwrap()
            .status
    }

    /// Waits until a job is held at its gate (it has read the record) or has ended.
    async fn until_held(&self, kind: Kind, id: &JobId) {
        for _ in 0..2000 {
            if self.gate(kind).is_holding() || self.job_status(id).await.is_final() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("job {id} neither reached its gate nor ended");
    }

    async fn until_ended(&self, id: &JobId) -> podhost_core::model::Job {
        for _ in 0..4000 {
            let job = self.hosts[0]
                .work()
                .get_job(&self.owners[0], id)
                .await
                .unwrap();
            if job.status.is_final() {
                return job;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("job {id} did not end");
    }

    /// A job started: the model takes it as running (or refused, or the one already running).
    fn started(&mut self, kind: Kind, job: &podhost_core::model::Job, title: Option<String>) {
        match self.running(kind) {
            Some(running) => assert_eq!(running.id, job.id, "the same analysis is one job"),
            None => {
                if kind != Kind::Tags {
                    self.kinds
                        .lock()
                        .unwrap()
                        .insert(job.id.as_str().to_string(), kind);
                }
                let reused = match kind {
                    Kind::Tags => None,
                    _ => self.expected.defaults.clone(),
                };
                self.running.push((
                    kind,
                    Running {
                        id: job.id.clone(),
                        title,
                        reused,
                    },
                ))
            }
        }
    }

    async fn finish(&mut self, kind: Kind) {
        let Some(index) = self.running.iter().position(|(k, _)| *k == kind) else {
            return;
        };
        let (_, running) = self.running.remove(index);
        let gate = self.gate(kind).clone();
        gate.open();
        let job = self.until_ended(&running.id).await;
        gate.close();
        let e = &mut self.expected;
        let status = if e.deleted {
            assert_eq!(
                job.error.as_deref(),
                Some(format!("media {} was deleted while the job ran", self.original).as_str()),
                "{job:?}"
            );
            JobStatus::Failed
        } else {
            // An analysis points its kind at its files, fills the other kind when empty, and
            // (all at the defaults here) offers its files to later ones.
            let files = running.reused.clone().unwrap_or_else(|| running.id.clone());
            match kind {
                Kind::Waveform => {
                    e.waveform = Some(files.clone());
                    e.silence.get_or_insert(files.clone());
                    e.defaults = Some(files);
                }
                Kind::Silence => {
                    e.silence = Some(files.clone());
                    e.waveform.get_or_insert(files.clone());
                    e.defaults = Some(files);
                }
                Kind::Tags => {
                    e.title.clone_from(&running.title);
                    let now = self.hosts[0]
                        .podcasts()
                        .get_media(&self.owners[0], self.original)
                        .await
                        .unwrap();
                    assert_ne!(now.blob.as_str(), e.blob, "a tag write stores a new file");
                    e.blob = now.blob.as_str().to_string();
                }
            }
            JobStatus::Succeeded
        };
        assert_eq!(job.status, status, "{job:?}");
        self.ended.push((running.id, status));
    }

    async fn apply(&mut self, step: usize, op: &Op) {
        let (host, who) = (&self.hosts[step % 2], &self.owners[step % 2]);
        let id = self.original;
        let gone = self.expected.deleted;
        match op {
            Op::Start(kind, title) => {
                if *kind != Kind::Tags {
                    self.kinds
                        .lock()
                        .unwrap()
                        .insert(SUBMITTING.to_string(), *kind);
                }
                let answer = match kind {
                    Kind::Waveform => host
                        .work()
                        .submit_job(who, id, JobKind::Waveform, serde_json::Value::Null)
                        .await
                        .map(|job| (job, None)),
                    Kind::Silence => host
                        .work()
                        .submit_job(who, id, JobKind::Silence, serde_json::Value::Null)
                        .await
                        .map(|job| (job, None)),
                    Kind::Tags => {
                        let title = format!("title {title}");
                        let patch = MetadataPatch {
                            title: Some(Some(title.clone())),
                            ..Default::default()
                        };
                        host.podcasts()
                            .update_metadata(who, id, patch)
                            .await
                            .map(|(_, job)| (job.expect("a tag write"), Some(title)))
                    }
                };
                if let Ok((job, _)) = &answer
                    && *kind != Kind::Tags
                    && self.running(*kind).is_none()
                {
                    // Known by its id from here on.
                    let mut kinds = self.kinds.lock().unwrap();
                    kinds.insert(job.id.as_str().to_string(), *kind);
                }
                self.kinds.lock().unwrap().remove(SUBMITTING);
                self.after_start(*kind, answer).await;
            }
            Op::Finish(kind) => self.finish(*kind).await,
            Op::Metadata { midroll: m, title } => {
                let title = title.map(|t| format!("title {t}"));
                let patch = MetadataPatch {
                    adbreak: m.map(|n| Some(midroll(n))),
                    title: title.clone().map(Some),
                    ..Default::default()
                };
                let answer = host.podcasts().update_metadata(who, id, patch).await;
                let tags_running = self.running(Kind::Tags).is_some();
                match (&answer, gone, title.is_some() && tags_running) {
                    (Err(Error::NotFound { .. }), true, _) => {}
                    (Err(Error::Conflict { .. }), false, true) => {} // nothing changed
                    (Ok((_, job)), false, false) => {
                        if let Some(n) = m {
                            self.expected.adbreak = Some(midroll(*n));
                        }
                        assert_eq!(job.is_some(), title.is_some());
                        if let Some(job) = job.clone() {
                            self.after_start(Kind::Tags, Ok((job, title))).await;
                        }
                    }
                    _ => panic!("metadata {op:?}: {answer:?}"),
                }
            }
            Op::Rename => {
                let name = format!("renamed-{step}.wav");
                let patch = MediaPatch {
                    name: Some(name.clone()),
                    ..Default::default()
                };
                match (host.podcasts().update_media(who, id, patch).await, gone) {
                    (Ok(media), false) => {
                        assert_eq!(media.name, name);
                        self.expected.name = name;
                    }
                    (Err(Error::NotFound { .. }), true) => {}
                    (other, _) => panic!("rename: {other:?}"),
                }
            }
            Op::Category(c) => {
                let category = format!("cat-{c}");
                let patch = MediaPatch {
                    category: Some(Some(category.clone())),
                    ..Default::default()
                };
                match (host.podcasts().update_media(who, id, patch).await, gone) {
                    (Ok(_), false) => self.expected.category = Some(category),
                    (Err(Error::NotFound { .. }), true) => {}
                    (other, _) => panic!("category: {other:?}"),
                }
            }
            Op::Copy => {
                let copy = MediaCopy {
                    label: format!("copy-{step}.wav"),
                    category: "copies".into(),
                };
                match (host.podcasts().copy_media(who, id, copy).await, gone) {
                    (Ok(media), false) => self.copies.push(Copied {
                        id: media.id,
                        name: format!("copy-{step}.wav"),
                        blob: self.expected.blob.clone(),
                        waveform: self.expected.waveform.clone(),
                        silence: self.expected.silence.clone(),
                    }),
                    (Err(Error::NotFound { .. }), true) => {}
                    (other, _) => panic!("copy: {other:?}"),
                }
            }
            Op::Delete => match (host.podcasts().delete_media(who, id).await, gone) {
                (Ok(()), false) => self.expected.deleted = true,
                (Err(Error::NotFound { .. }), true) => {}
                (other, _) => panic!("delete: {other:?}"),
            },
        }
    }

    async fn after_start(
        &mut self,
        kind: Kind,
        answer: Result<(podhost_core::model::Job, Option<String>), Error>,
    ) {
        let gone = self.expected.deleted;
        let tags_running = kind == Kind::Tags && self.running(Kind::Tags).is_some();
        match (answer, gone, tags_running) {
            (Ok((job, title)), false, false) => {
                self.started(kind, &job, title);
                self.until_held(kind, &job.id).await;
                // One that reads a former decode's files ends at once.
                if self.running(kind).is_some_and(|r| r.reused.is_some()) {
                    self.finish(kind).await;
                }
            }
            (Err(Error::NotFound { .. }), true, _) => {}
            (Err(Error::Conflict { .. }), false, true) => {}
            (other, _, _) => panic!("start {kind:?}: {other:?}"),
        }
    }

    /// Both hosts show what the model says.
    async fn check(&self) {
        for (host, who) in self.hosts.iter().zip(&self.owners) {
            let e = &self.expected;
            match host.podcasts().get_media(who, self.original).await {
                Err(Error::NotFound { .. }) => assert!(e.deleted, "the record is gone"),
                Err(other) => panic!("{other:?}"),
                Ok(media) => {
                    assert!(!e.deleted, "deleted, yet {media:?}");
                    assert_eq!(media.name, e.name, "name");
                    assert_eq!(media.category, e.category, "category");
                    assert_eq!(media.adbreak, e.adbreak, "adbreak");
                    assert_eq!(media.results.waveform, e.waveform, "waveform result");
                    assert_eq!(media.results.silence, e.silence, "silence result");
                    assert_eq!(media.blob.as_str(), e.blob, "blob");
                }
            }
            for c in &self.copies {
                let copy: Media = host.podcasts().get_media(who, c.id).await.unwrap();
                assert_eq!(copy.name, c.name);
                assert_eq!(copy.category.as_deref(), Some("copies"));
                assert_eq!(copy.blob.as_str(), c.blob);
                assert_eq!(copy.results.waveform, c.waveform);
                assert_eq!(copy.results.silence, c.silence);
                assert_eq!(copy.adbreak, None);
            }
            for (id, status) in &self.ended {
                assert_eq!(
                    host.work().get_job(who, id).await.unwrap().status,
                    *status,
                    "{id}"
                );
            }
        }
    }
}

async fn run(ops: Vec<Op>) {
    let scratch = tempfile::tempdir().unwrap();
    let store = FaultStore::new(Arc::new(InMemory::new()));
    let shared: Arc<dyn ObjectStore> = Arc::new(store.clone());
    let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().unwrap());
    let hosts = [
        host(shared.clone(), &clock, scratch.path()),
        host(shared.clone(), &clock, scratch.path()),
    ];
    hosts[0].access().create_account("alice").await.unwrap();
    let owners = [
        hosts[0]
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap(),
        hosts[1]
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap(),
    ];
    let new = NewMedia {
        name: "talk.wav".into(),
        category: None,
    };
    let media = hosts[0]
        .podcasts()
        .upload_media(&owners[0], new, body(fixtures::wav(0.5, 8000), 4096))
        .await
        .unwrap();
    // The gates go up after the upload, which stored its blob through the store too.
    let kinds = AnalysisKinds::default();
    let gates = KINDS
        .iter()
        .map(|k| (*k, gate_of(*k, &store, &kinds)))
        .collect();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let workers: Vec<_> = hosts
        .iter()
        .map(|host| {
            let host = host.clone();
            let mut stopped = stopped.clone();
            tokio::spawn(async move {
                host.work()
                    .run_jobs(async move {
                        let _ = stopped.wait_for(|s| *s).await;
                    })
                    .await
            })
        })
        .collect();
    let mut world = World {
        hosts,
        owners,
        gates,
        kinds,
        original: media.id,
        expected: Expected {
            name: media.name.clone(),
            blob: media.blob.as_str().to_string(),
            ..Default::default()
        },
        running: Vec::new(),
        ended: Vec::new(),
        copies: Vec::new(),
    };
    for (step, op) in ops.iter().enumerate() {
        world.apply(step, op).await;
        world.check().await;
    }
    for kind in KINDS {
        world.finish(kind).await;
    }
    world.check().await;
    // The file carries the title of the last tag write that succeeded.
    if !world.expected.deleted {
        let metadata = world.hosts[1]
            .podcasts()
            .media_metadata(&world.owners[1], world.original)
            .await
            .unwrap();
        let title = metadata.tags.and_then(|t| t.title);
        assert_eq!(title, world.expected.title, "the title tag in the file");
    }
    let _ = stop.send(true);
    for worker in workers {
        worker.await.unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_change_to_a_media_record_is_lost(ops in proptest::collection::vec(op(), 1..24)) {
        run_blocking(ops);
    }
}

/// Runs a sequence on a runtime of its own (proptest's cases are synchronous).
fn run_blocking(ops: Vec<Op>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(ops));
}

/// The reproduction of the lost update, written out: a waveform and a silence job read the
/// record, an ad break is stored, a rename and a category change land, then both jobs finish.
#[test]
fn jobs_finishing_late_keep_what_landed_meanwhile() {
    use Kind::*;
    let ops = vec![
        Op::Start(Waveform, 0),
        Op::Start(Silence, 0),
        Op::Metadata {
            midroll: Some(7),
            title: None,
        },
        Op::Rename,
        Op::Category(1),
        Op::Finish(Silence),
        Op::Start(Tags, 1),
        Op::Finish(Waveform),
        Op::Metadata {
            midroll: Some(9),
            title: Some(2),
        },
        Op::Finish(Tags),
        Op::Start(Waveform, 0),
        Op::Copy,
        Op::Finish(Waveform),
    ];
    run_blocking(ops);
}
