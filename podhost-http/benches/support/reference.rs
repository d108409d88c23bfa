//! What the benchmarks measured against nginx share: podhost on a local folder behind a
//! loopback port, wrk's figures (requests and bytes per second, the 99th percentile of latency)
//! and nginx started as the static-serving reference (`shared/tools/nginx-static.sh`).

#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// The size of the ranges asked for: 1 MiB.
pub const RANGE_BYTES: u64 = 1 << 20;

/// What wrk measured.
pub struct Measured {
    /// Requests per second.
    pub rps: f64,
    /// Bytes per second.
    pub bytes_per_sec: f64,
    /// The 99th percentile of the request latency, in milliseconds.
    pub p99_ms: f64,
}

/// The number and its unit on wrk's line that starts with `label` (`Requests/sec:  1234.5`,
/// `99%  3.21ms`); 0 when there is none.
fn field<'a>(text: &'a str, label: &str) -> (f64, &'a str) {
    let value = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("0");
    let split = value
        .find(|c: char| c.is_alphabetic())
        .unwrap_or(value.len());
    let (n, unit) = value.split_at(split);
    (n.parse().unwrap_or(0.0), unit)
}

/// A rate of wrk's output (requests or bytes per second).
pub fn parse_rate(text: &str, label: &str) -> f64 {
    let (n, unit) = field(text, label);
    n * match unit {
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "k" => 1000.0,
        _ => 1.0,
    }
}

/// A latency percentile of wrk's `--latency` distribution (`99%  3.21ms`), in milliseconds.
fn latency_ms(text: &str, label: &str) -> f64 {
    let (n, unit) = field(text, label);
    n * match unit {
        "us" => 0.001,
        "s" => 1000.0,
        _ => 1.0,
    }
}

/// Runs wrk against `url` with `headers` (and a Lua script when given).
///
/// Runs wrk against `url` with `headers` (and a Lua script when given).
pub fn wrk(
    url: &str,
    load: (u32, u32),
    headers: &[String],
    script: Option<&std::path::Path>,
) -> Measured {
    wrk_for(url, load, headers, script, 8)
}

/// [`wrk`] for `seconds`.
pub fn wrk_for(
    url: &str,
    (threads, connections): (u32, u32),
    headers: &[String],
    script: Option<&std::path::Path>,
    seconds: u32,
) -> Measured {
    let mut command = Command::new("wrk");
    command.args([
        &format!("-t{threads}"),
        &format!("-c{connections}"),
        &format!("-d{seconds}s"),
        "--latency",
    ]);
    for header in headers {
        command.args(["-H", header]);
    }
    if let Some(script) = script {
        command.arg("-s").arg(script);
    }
    let out = command
        .arg(url)
        .output()
        .expect("wrk on the PATH (apt-get install wrk)");
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("Non-2xx or 3xx responses") {
        eprintln!("wrk saw errors for {url}:\n{text}");
    }
    Measured {
        rps: parse_rate(&text, "Requests/sec:"),
        bytes_per_sec: parse_rate(&text, "Transfer/sec:"),
        p99_ms: latency_ms(&text, "99%"),
    }
}

/// nginx serving `dir` on 127.0.0.1:`port` as the static reference.
pub fn start_nginx(dir: &std::path::Path, port: u16) -> Child {
    let script = std::env::var("NGINX_STATIC").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/tools/nginx-static.sh"
        )
        .into()
    });
    let mut child = Command::new("bash")
        .arg(&script)
        .arg(dir)
        .arg(port.to_string())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{script}: {e}"));
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("nginx did not start (apt-get install nginx-light)");
}

/// A host on a local-folder store in `dir` (fsync, as deployed), public at a loopback port,
/// and the listener of that port: the server a benchmark measures.
pub async fn host_on_folder(
    dir: &std::path::Path,
) -> (
    tokio::net::TcpListener,
    std::net::SocketAddr,
    podhost_core::PodcastHost,
) {
    let opened = podhost_core::open_store(dir.to_str().unwrap()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let host = podhost_core::PodcastHost::new(
        podhost_core::HostConfig::new(&format!("http://{addr}")).unwrap(),
        opened.store,
    );
    (listener, addr, host)
}

/// A response's head: its status and `Content-Length`.
fn head(reader: &mut BufReader<TcpStream>) -> (u16, u64) {
    let mut status = 0;
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            return (status, length);
        }
        if let Some(rest) = trimmed.strip_prefix("HTTP/1.1 ") {
            status = rest[..3].parse().unwrap_or(0);
        } else if let Some((k, v)) = trimmed.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
}

/// The time to the first body byte of `n` sequential random 1 MiB ranges of `path` (of
/// `len` bytes), asked with the header line `agent`, on one kept-alive connection to `addr`:
/// sorted.
pub fn first_bytes(addr: &str, path: &str, agent: &str, len: u64, n: usize) -> Vec<Duration> {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::with_capacity(256 << 10, stream);
    let mut seed = 42u64;
    let mut body = vec![0u8; 256 << 10];
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let start = (seed >> 16) % (len - RANGE_BYTES);
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{agent}\r\nRange: bytes={start}-{}\r\n\r\n",
            start + RANGE_BYTES - 1
        );
        let sent = Instant::now();
        writer.write_all(request.as_bytes()).unwrap();
        let (status, length) = head(&mut reader);
        assert_eq!(status, 206, "{path}");
        // The first body byte.
        reader.read_exact(&mut body[..1]).unwrap();
        times.push(sent.elapsed());
        let mut left = length - 1;
        while left > 0 {
            let take = left.min(body.len() as u64) as usize;
            reader.read_exact(&mut body[..take]).unwrap();
            left -= take as u64;
        }
    }
    times.sort();
    times
}

/// A wrk script asking random 1 MiB ranges of a file of `len` bytes.
pub fn ranges_script(len: u64) -> tempfile::NamedTempFile {
    let mut script = tempfile::NamedTempFile::new().unwrap();
    write!(
        script,
        "math.randomseed(42)\nrequest = function()\n  local s = math.random(0, {last})\n  return wrk.format(\"GET\", nil, {{[\"Range\"] = \"bytes=\" .. s .. \"-\" .. (s + {size})}})\nend\n",
        last = len - RANGE_BYTES,
        size = RANGE_BYTES - 1
    )
    .unwrap();
    script
}

/// The percentile `p` (0 to 1) of `sorted`, in milliseconds.
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}
