//! What the benchmarks of the shipped binary share: a store with the accounts they serve (made
//! in-process, as an import would make them, before the server starts), and `podhost serve`
//! itself, the release binary as its own process with its default logging (to a file), metrics
//! and download counting.

#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use podhost_core::{
    PodcastHost, Scopes,
    model::{EpisodePatch, NewEpisode, NewFeed, NewMedia},
};

/// The size of the enclosure the delivery benchmark downloads.
pub const ENCLOSURE_BYTES: usize = 100 << 20;

/// An account of the store: its name, a token with every scope, its measured podcast and that
/// podcast's newest episode's enclosure path (the 100 MiB file).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Account {
    pub name: String,
    pub token: String,
    pub feed: String,
    pub enclosure: String,
}

/// Notes of a typical length.
const NOTES: &str = "<p>Show notes of a typical length, with <a href=\"https://example.com\">a link</a> or two and a few sentences about the guests and what they talk about.</p>";

/// A podcast of `episodes` published episodes of `who`, each with an audio file of its own; the
/// newest one's is `enclosure`, when given. Returns the enclosure's public path.
async fn podcast(
    host: &PodcastHost,
    who: &podhost_core::Principal,
    id: &str,
    episodes: usize,
    enclosure: Option<Vec<u8>>,
) -> String {
    let feed = host
        .podcasts()
        .create_feed(who, NewFeed::titled(id, format!("The podcast {id}")))
        .await
        .unwrap()
        .feed
        .id;
    let small = podhost_testkit::fixtures::wav(0.05, 8000);
    let mut path = String::new();
    for n in 0..episodes {
        let last = n + 1 == episodes;
        let bytes = match (&enclosure, last) {
            (Some(big), true) => big.clone(),
            _ => small.clone(),
        };
        let media = host
            .podcasts()
            .upload_media(
                who,
                NewMedia {
                    name: format!("{id}-{n}.wav"),
                    category: None,
                },
                podhost_testkit::body(bytes, 1 << 20),
            )
            .await
            .unwrap();
        let fields = EpisodePatch {
            title: Some(format!("Episode {n}: a title of ordinary length")),
            description: Some(NOTES.into()),
            is_public: Some(true),
            publish_at: Some(
                jiff::Timestamp::now() - jiff::SignedDuration::from_hours((episodes - n) as i64),
            ),
            media: Some(Some(media.id)),
            ..Default::default()
        };
        host.podcasts()
            .create_episode(who, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
        if last {
            let url = host.podcasts().media_url(who.account(), &media);
            path = url
                .split_once("/media/")
                .map(|(_, p)| format!("/media/{p}"))
                .unwrap();
        }
    }
    path
}

/// An account of `podcasts` (id, episodes), the first one measured.
async fn account(host: &PodcastHost, name: &str, podcasts: &[(&str, usize)]) -> Account {
    let who = podhost_testkit::setup::account(host, name).await;
    let token = host
        .access()
        .create_token(&who, "bench", Scopes::all())
        .await
        .unwrap()
        .secret;
    let big = podhost_testkit::fixtures::noise_wav(ENCLOSURE_BYTES);
    let mut enclosure = String::new();
    for (n, (id, episodes)) in podcasts.iter().enumerate() {
        let file = (n == 0).then(|| big.clone());
        let path = podcast(host, &who, id, *episodes, file).await;
        if n == 0 {
            enclosure = path;
        }
    }
    Account {
        name: name.into(),
        token,
        feed: podcasts[0].0.into(),
        enclosure,
    }
}

/// Makes the store in `dir`: `small` (a podcast of 50 episodes: a page of 50 is all of it) and
/// `large` (podcasts of 10,000 and 1,000 episodes), every episode with a file of its own, the
/// measured podcasts' newest episode with the 100 MiB enclosure. Returns (small, large). A store
/// made before in `dir` (by a run with `BENCH_STORE=dir`) is used as it is.
pub fn make_store(dir: &Path) -> (Account, Account) {
    let made = dir.join("bench-accounts.json");
    if let Ok(bytes) = std::fs::read(&made) {
        let [small, large]: [Account; 2] = serde_json::from_slice(&bytes).unwrap();
        eprintln!("the store in {} as made before", dir.display());
        return (small, large);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let opened = podhost_core::open_store(dir.to_str().unwrap()).unwrap();
        let host = PodcastHost::new(
            podhost_core::HostConfig::new("http://127.0.0.1").unwrap(),
            opened.store,
        );
        let started = Instant::now();
        let small = account(&host, "small", &[("small-show", 50)]).await;
        let large = account(
            &host,
            "large",
            &[("large-show", 10_000), ("large-side", 1_000)],
        )
        .await;
        eprintln!("store made in {:.0} s", started.elapsed().as_secs_f64());
        std::fs::write(&made, serde_json::to_vec(&[&small, &large]).unwrap()).unwrap();
        (small, large)
    })
}

/// The store's folder: `BENCH_STORE` (made once, kept for later runs), else a new folder in
/// `BENCH_DIR` (or here), removed at the end. Returns the folder and what keeps it alive.
pub fn store_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("BENCH_STORE") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        return (dir, None);
    }
    let base = std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into());
    let temp = tempfile::tempdir_in(base).unwrap();
    let dir = temp.path().join("store");
    std::fs::create_dir_all(&dir).unwrap();
    (dir, Some(temp))
}

/// The release binary `podhost serve`, running.
pub struct Shipped {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Where its stderr (its log) goes.
    pub log: PathBuf,
}

impl Shipped {
    /// Starts `podhost --store DIR serve` on a free port with `args` and `env`, its log to a
    /// file beside the store; returns once `/readyz` answers 200.
    pub fn start(store: &Path, args: &[&str], env: &[(&str, &str)]) -> Shipped {
        Self::start_binary(Path::new(env!("CARGO_BIN_EXE_podhost")), store, args, env)
    }

    /// As [`start`](Self::start), with another build of `podhost` (a release before, for a
    /// comparison in the same run).
    pub fn start_binary(
        binary: &Path,
        store: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Shipped {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let base = format!("http://127.0.0.1:{port}");
        let log = store.with_extension(format!("{port}.log"));
        let child = Command::new(binary)
            .args([
                "--store",
                store.to_str().unwrap(),
                "--public-url",
                &base,
                "serve",
            ])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let shipped = Shipped { child, base, log };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            if shipped.status("/readyz", &[]) == "200" {
                return shipped;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "podhost serve did not get ready: see {}",
            shipped.log.display()
        );
    }

    /// What curl prints for `path` with `headers`, asked with `args`.
    fn curl(&self, args: &[&str], path: &str, headers: &[&str]) -> Vec<u8> {
        let mut command = Command::new("curl");
        command.arg("-s").args(args);
        for h in headers {
            command.args(["-H", h]);
        }
        command
            .arg(format!("{}{path}", self.base))
            .output()
            .unwrap()
            .stdout
    }

    /// The status curl gets for `path` with `headers`.
    pub fn status(&self, path: &str, headers: &[&str]) -> String {
        let out = self.curl(&["-o", "/dev/null", "-w", "%{http_code}"], path, headers);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The JSON answer to `path` asked with bearer `token` and curl's `args`.
    pub fn api(&self, token: &str, args: &[&str], path: &str) -> serde_json::Value {
        let auth = format!("Authorization: Bearer {token}");
        let out = self.curl(args, path, &[&auth]);
        serde_json::from_slice(&out)
            .unwrap_or_else(|_| panic!("{path}: {}", String::from_utf8_lossy(&out)))
    }

    /// The body curl gets for `path` with `headers`.
    pub fn body(&self, path: &str, headers: &[&str]) -> Vec<u8> {
        self.curl(&[], path, headers)
    }

    /// A header of the answer to `path`.
    pub fn header(&self, path: &str, headers: &[&str], name: &str) -> String {
        let out = self.curl(&["-o", "/dev/null", "-D", "-"], path, headers);
        String::from_utf8_lossy(&out)
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
            })
            .unwrap_or_default()
    }

    /// Waits (at most a minute) until the server is idle: under 2 % of a core for a second
    /// (what it does after a start, reading the directory and repairing the work index, is
    /// not what a case measures).
    pub fn wait_idle(&self) {
        let stat = format!("/proc/{}/stat", self.child.id());
        let busy = || cpu_seconds(&stat);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            let before = busy();
            std::thread::sleep(Duration::from_secs(1));
            // Clock ticks of 10 ms: at most 2 in a second.
            if busy() - before <= 0.02 + 1e-9 {
                return;
            }
        }
    }

    /// The server's peak resident memory so far, in MiB.
    pub fn peak_mib(&self) -> u64 {
        self.status_kib("VmHWM:") / 1024
    }

    /// CPU time the server has used, with that of its children it has waited for (ffmpeg),
    /// in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.child.id()))
    }

    /// The server's resident memory now, in KiB.
    pub fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS:")
    }

    /// A figure in KiB of the server's `/proc/PID/status`.
    fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    }

    /// The bytes of log the server wrote.
    pub fn logged_bytes(&self) -> u64 {
        std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0)
    }
}

/// The CPU time in a `/proc/PID/stat` file: the process's own (user and system) and that of the
/// children it has waited for, in seconds (clock ticks of 10 ms).
pub fn cpu_seconds(stat: &str) -> f64 {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // utime, stime, cutime, cstime: the 14th to 17th fields, after the command's parenthesis.
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .filter_map(|f| f.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    fields.get(10..14).map_or(0, |f| f.iter().sum::<u64>()) as f64 / 100.0
}

impl Drop for Shipped {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
