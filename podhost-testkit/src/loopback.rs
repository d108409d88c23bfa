//! One plain HTTP/1.1 request to a server on loopback, for the test servers' readiness probes
//! and bucket creation (no client library: the testkit's servers are started before any runtime).

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    time::Duration,
};

/// One plain HTTP/1.1 request without a body; its status.
pub(crate) fn http(endpoint: &str, method: &str, path: &str) -> Result<u16, String> {
    let addr: SocketAddr = endpoint
        .trim_start_matches("http://")
        .parse()
        .map_err(|e| format!("{endpoint}: {e}"))?;
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let head = String::from_utf8_lossy(&answer[..answer.len().min(64)]).to_string();
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no HTTP answer: {head:?}"))
}
