//! A real S3-compatible server for tests, one per test process, started on first use; each
//! test takes buckets of its own. By default a SeaweedFS cluster on loopback
//! ([`crate::seaweedfs`]: a master, two volume servers, a filer and an S3 gateway, replication
//! `001`), a distributed store in production use. `PODHOST_S3_SERVER=moto` runs moto's server
//! mode instead (PyPI `moto[server]`, a mock in one Python process), started through
//! `moto_server.py` so that it honours conditional writes (`If-None-Match: *`) as AWS S3 does
//! even when two writers race for one key (moto alone checks, then writes, with nothing held
//! between). `scripts/test` installs both in the workspace's `.venv`. Tests that need a server
//! say SKIPPED loudly when it is missing, or fail under `PODHOST_REQUIRE_EXTERNAL=1` (as
//! `scripts/test` runs).
//!
//! `PODHOST_S3_ENDPOINT` points the tests at another server instead (another S3-compatible
//! server under evaluation, a cluster script's), which must accept bucket creation by an
//! unsigned `PUT /{bucket}`.

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{
        Mutex, OnceLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use podhost_core::OpenedStore;

/// The S3 server of this test process.
#[derive(Debug)]
pub struct S3Server {
    endpoint: String,
    kind: Kind,
    /// What this process started, kept for as long as the server runs.
    _running: Option<Running>,
}

/// Which S3 server the tests run on: `PODHOST_S3_SERVER` (`seaweedfs`, the default, or
/// `moto`), or one at `PODHOST_S3_ENDPOINT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A SeaweedFS cluster ([`crate::seaweedfs`]).
    SeaweedFs,
    /// moto's server, a mock in one Python process.
    Moto,
    /// A server this process did not start.
    External,
}

#[derive(Debug)]
enum Running {
    /// The moto process. Its standard input is a pipe that closes when this process ends,
    /// however it ends, and the wrapper shell then stops moto.
    Moto(#[allow(dead_code)] Mutex<Child>),
    SeaweedFs(crate::seaweedfs::SeaweedCluster),
}

/// The region and credentials the tests sign with (moto accepts any).
pub const REGION: &str = "us-east-1";
const KEY_ID: &str = "podhost-test";
const SECRET: &str = "podhost-test-secret";

impl S3Server {
    /// The server this process shares, started on first use; or what is missing.
    pub fn shared() -> Result<&'static S3Server, String> {
        static SERVER: OnceLock<Result<S3Server, String>> = OnceLock::new();
        SERVER.get_or_init(start).as_ref().map_err(Clone::clone)
    }

    /// [`shared`](Self::shared), or `None` after saying loudly why `test` is skipped; a
    /// failure (panic) under `PODHOST_REQUIRE_EXTERNAL=1`.
    pub fn shared_or_skip(test: &str) -> Option<&'static S3Server> {
        crate::or_skip(test, "an S3 server (SeaweedFS or moto)", Self::shared())
    }

    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Which server this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// A SeaweedFS cluster of this test's own, for tests that kill its processes (the shared
    /// one serves every test of the process).
    pub fn own_seaweedfs() -> Result<S3Server, String> {
        let cluster = crate::seaweedfs::SeaweedCluster::start()?;
        Ok(S3Server {
            endpoint: cluster.endpoint(),
            kind: Kind::SeaweedFs,
            _running: Some(Running::SeaweedFs(cluster)),
        })
    }

    /// moto's server of this caller's own (through its atomic launcher).
    pub fn own_moto() -> Result<S3Server, String> {
        start_moto()
    }

    /// The SeaweedFS cluster behind this server, when this process started one.
    pub fn seaweedfs(&self) -> Option<&crate::seaweedfs::SeaweedCluster> {
        match &self._running {
            Some(Running::SeaweedFs(cluster)) => Some(cluster),
            _ => None,
        }
    }

    /// Creates a bucket no other test uses and returns its name.
    pub fn new_bucket(&self) -> String {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "podhost-{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            rand::random::<u32>()
        );
        let status = crate::loopback::http(&self.endpoint, "PUT", &format!("/{name}"))
            .unwrap_or_else(|e| panic!("creating bucket {name}: {e}"));
        assert!(
            (200..300).contains(&status),
            "creating bucket {name}: status {status}"
        );
        name
    }

    /// A store on a new bucket, opened as `podhost serve` opens `s3://bucket`, with presigned
    /// downloads.
    pub fn store(&self) -> OpenedStore {
        let bucket = self.new_bucket();
        self.open(&bucket)
    }

    /// The store of an existing `bucket`.
    pub fn open(&self, bucket: &str) -> OpenedStore {
        let builder = object_store::aws::AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_allow_http(true)
            .with_region(REGION)
            .with_access_key_id(KEY_ID)
            .with_secret_access_key(SECRET);
        podhost_core::open_s3_with(builder, bucket, "").expect("the S3 store opens")
    }

    /// The endpoint of a proxy in front of this server that drops `If-None-Match` from every
    /// request: an S3-compatible server that ignores conditional writes, which podhost must
    /// refuse to start on. It runs until this process ends.
    pub fn ignoring_conditional_writes(&self) -> String {
        let upstream: SocketAddr = self
            .endpoint
            .trim_start_matches("http://")
            .parse()
            .expect("a loopback endpoint");
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let endpoint = format!("http://{}", listener.local_addr().expect("an address"));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let _ = proxy_one(client, upstream);
                });
            }
        });
        endpoint
    }

    /// The environment a child process (`podhost`, the crash writer) opens `s3://bucket` with.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_REGION", REGION.into()),
            ("AWS_ACCESS_KEY_ID", KEY_ID.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
        ]
    }
}

/// moto's server, started by [`MOTO_SERVER`] so that its conditional writes are atomic.
const MOTO_SERVER: &str = include_str!("moto_server.py");

/// A Python that imports moto's server: `PODHOST_MOTO_PYTHON`, the workspace's `.venv/bin/python`,
/// or `python3` on the PATH.
fn moto_python() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PODHOST_MOTO_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let venv = crate::browser::workspace().join(".venv/bin/python");
    [venv, PathBuf::from("python3")].into_iter().find(|python| {
        Command::new(python)
            .args(["-c", "import moto.server, moto.s3.responses"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn start() -> Result<S3Server, String> {
    if let Ok(endpoint) = std::env::var("PODHOST_S3_ENDPOINT") {
        return Ok(S3Server {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            kind: Kind::External,
            _running: None,
        });
    }
    match std::env::var("PODHOST_S3_SERVER").as_deref() {
        Ok("moto") => start_moto(),
        Ok("seaweedfs") | Err(_) => {
            let cluster = crate::seaweedfs::SeaweedCluster::start()?;
            Ok(S3Server {
                endpoint: cluster.endpoint(),
                kind: Kind::SeaweedFs,
                _running: Some(Running::SeaweedFs(cluster)),
            })
        }
        Ok(other) => Err(format!(
            "PODHOST_S3_SERVER={other}: seaweedfs or moto, or PODHOST_S3_ENDPOINT"
        )),
    }
}

fn start_moto() -> Result<S3Server, String> {
    let python =
        moto_python().ok_or("no Python with moto[server] (PyPI) in .venv or on the PATH")?;
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    // `read` returns when this process's end of the pipe closes (at its exit, even by kill -9),
    // and the shell then stops moto: no server outlives the tests.
    let child = Command::new("sh")
        .arg("-c")
        .arg(r#""$0" -c "$1" -H 127.0.0.1 -p "$2" >/dev/null 2>&1 & moto=$!; read _; kill $moto"#)
        .arg(&python)
        .arg(MOTO_SERVER)
        .arg(port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start moto with {}: {e}", python.display()))?;
    let endpoint = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while crate::loopback::http(&endpoint, "GET", "/").is_err() {
        if Instant::now() > deadline {
            return Err(format!(
                "moto ({}) did not answer on port {port} within 30 s",
                python.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(S3Server {
        endpoint,
        kind: Kind::Moto,
        _running: Some(Running::Moto(Mutex::new(child))),
    })
}

/// Forwards one request without its `If-None-Match` header, asking the server to close the
/// connection after its answer (so each request passes through here), and the answer back.
fn proxy_one(mut client: TcpStream, upstream: SocketAddr) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let mut kept: Vec<&str> = head
        .split("\r\n")
        .filter(|line| {
            let name = line
                .split(':')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            !line.is_empty() && name != "if-none-match" && name != "connection"
        })
        .collect();
    kept.push("Connection: close");
    let mut server = TcpStream::connect(upstream)?;
    server.write_all(format!("{}\r\n\r\n", kept.join("\r\n")).as_bytes())?;
    let mut from_server = server.try_clone()?;
    let mut to_client = client.try_clone()?;
    let answer = std::thread::spawn(move || std::io::copy(&mut from_server, &mut to_client));
    let _ = std::io::copy(&mut client, &mut server);
    let _ = answer.join();
    Ok(())
}
