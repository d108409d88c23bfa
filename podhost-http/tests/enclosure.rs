//! Downloads at the public media URL: ranges and conditional requests as a table of requests and
//! expected answers, checked against the uploaded bytes.

mod common;

use common::Fixture;
use http::{Method, StatusCode};

/// Request headers, the expected status, the expected bytes of the file, the `Content-Range`.
type Case<'a> = (
    Vec<(&'a str, &'a str)>,
    StatusCode,
    Option<std::ops::Range<usize>>,
    Option<String>,
);

#[tokio::test]
async fn ranges_and_validators() {
    let fx = Fixture::new().await;
    let original = podhost_testkit::fixtures::wav(1.0, 8000);
    let len = original.len();
    let uploaded = fx
        .multipart(
            "/api/media",
            &fx.alice,
            &[],
            &[("media", "talk.wav", original.clone())],
        )
        .await;
    let url = uploaded.body["url"].as_str().unwrap();
    let path = url.strip_prefix("https://pod.test").unwrap().to_string();
    let whole = fx
        .public(Method::GET, &path, &[("accept-encoding", "gzip")])
        .await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.raw.as_ref(), original.as_slice());
    assert_eq!(whole.headers["accept-ranges"], "bytes");
    assert_eq!(whole.headers["content-type"], "audio/wav");
    assert_eq!(whole.headers["content-length"], len.to_string().as_str());
    assert!(
        whole.headers.get("content-encoding").is_none(),
        "never compressed"
    );
    let etag = whole.headers["etag"].to_str().unwrap().to_string();
    let last_modified = whole.headers["last-modified"].to_str().unwrap().to_string();

    let tail = format!("bytes={}-", len);
    let cases: Vec<Case<'_>> = vec![
        (
            vec![("range", "bytes=0-1")],
            StatusCode::PARTIAL_CONTENT,
            Some(0..2),
            Some(format!("bytes 0-1/{len}")),
        ),
        (
            vec![("range", "bytes=100-")],
            StatusCode::PARTIAL_CONTENT,
            Some(100..len),
            Some(format!("bytes 100-{}/{len}", len - 1)),
        ),
        (
            vec![("range", "bytes=-500")],
            StatusCode::PARTIAL_CONTENT,
            Some(len - 500..len),
            Some(format!("bytes {}-{}/{len}", len - 500, len - 1)),
        ),
        (
            vec![("range", &tail)],
            StatusCode::RANGE_NOT_SATISFIABLE,
            None,
            Some(format!("bytes */{len}")),
        ),
        (
            vec![("range", "bytes=0-1,4-5")],
            StatusCode::OK,
            Some(0..len),
            None,
        ),
        (
            vec![("range", "bytes=10-19"), ("if-range", &etag)],
            StatusCode::PARTIAL_CONTENT,
            Some(10..20),
            Some(format!("bytes 10-19/{len}")),
        ),
        (
            vec![("range", "bytes=10-19"), ("if-range", &last_modified)],
            StatusCode::PARTIAL_CONTENT,
            Some(10..20),
            Some(format!("bytes 10-19/{len}")),
        ),
        (
            vec![("range", "bytes=10-19"), ("if-range", "\"another\"")],
            StatusCode::OK,
            Some(0..len),
            None,
        ),
        (
            vec![("if-none-match", &etag)],
            StatusCode::NOT_MODIFIED,
            None,
            None,
        ),
        (
            vec![("if-modified-since", &last_modified)],
            StatusCode::NOT_MODIFIED,
            None,
            None,
        ),
        (
            vec![("if-none-match", "\"another\"")],
            StatusCode::OK,
            Some(0..len),
            None,
        ),
    ];
    for (headers, status, bytes, content_range) in cases {
        let answer = fx.public(Method::GET, &path, &headers).await;
        assert_eq!(answer.status, status, "{headers:?}");
        match &bytes {
            Some(r) => assert_eq!(answer.raw.as_ref(), &original[r.clone()], "{headers:?}"),
            None => assert!(answer.raw.is_empty(), "{headers:?}"),
        }
        assert_eq!(
            answer
                .headers
                .get("content-range")
                .map(|v| v.to_str().unwrap().to_string()),
            content_range,
            "{headers:?}"
        );
        assert_eq!(answer.headers["etag"].to_str().unwrap(), etag);
    }

    let head = fx.public(Method::HEAD, &path, &[]).await;
    assert_eq!((head.status, head.raw.len()), (StatusCode::OK, 0));
    assert_eq!(head.headers["content-length"], len.to_string().as_str());
    assert_eq!(
        fx.public(Method::POST, &path, &[]).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    let unknown = path.replace(
        uploaded.body["url"]
            .as_str()
            .unwrap()
            .split('/')
            .nth(5)
            .unwrap(),
        "00000000-0000-0000-0000-000000000000",
    );
    assert_eq!(
        fx.public(Method::GET, &unknown, &[]).await.status,
        StatusCode::NOT_FOUND
    );
    let other_account = path.replacen("/media/alice/", "/media/mallory/", 1);
    assert_eq!(
        fx.public(Method::GET, &other_account, &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

/// A presigner that signs nothing: the URL shows what was asked.
#[derive(Debug)]
struct FakeS3;

#[async_trait::async_trait]
impl podhost_core::Presigner for FakeS3 {
    async fn presigned_get(
        &self,
        path: &object_store::path::Path,
        expires_in: std::time::Duration,
    ) -> podhost_core::Result<String> {
        Ok(format!(
            "https://bucket.s3.example/{path}?X-Amz-Expires={}",
            expires_in.as_secs()
        ))
    }
}

#[tokio::test]
async fn presigned_downloads_redirect_to_the_store() {
    use bytes::Bytes;
    use http_body_util::Full;
    let store = std::sync::Arc::new(object_store::memory::InMemory::new());
    let mut config = podhost_core::HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    config.presigned_downloads = Some(std::sync::Arc::new(FakeS3));
    let host = podhost_core::PodcastHost::new(config, store);
    let alice = podhost_testkit::setup::account(&host, "alice").await;
    let media = podhost_testkit::setup::upload(
        &host,
        &alice,
        "talk.wav",
        podhost_testkit::fixtures::wav(1.0, 8000),
    )
    .await;
    let url = host.podcasts().media_url(alice.account(), &media);
    let path = url.strip_prefix(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    for method in [Method::GET, Method::HEAD] {
        let request = http::Request::builder()
            .method(method.clone())
            .uri(path)
            .header("range", "bytes=100-")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let answer = api.handle(request).await;
        assert_eq!(answer.status(), StatusCode::FOUND, "{method}");
        let location = answer.headers()["location"].to_str().unwrap();
        assert_eq!(
            location,
            format!(
                "https://bucket.s3.example/accounts/alice/blobs/{}?X-Amz-Expires=3600",
                media.blob.as_str()
            )
        );
        assert_eq!(answer.headers()["cache-control"], "private, max-age=60");
    }
}

/// On a real S3-compatible server (the tests' SeaweedFS cluster): a download answers a redirect to a presigned URL of
/// the server, and that URL serves the file's bytes, ranges included.
#[tokio::test]
async fn presigned_downloads_are_served_by_the_s3_server() {
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    let Some(server) = podhost_testkit::s3::S3Server::shared_or_skip(
        "presigned_downloads_are_served_by_the_s3_server",
    ) else {
        return;
    };
    let opened = server.store();
    let mut config = podhost_core::HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    config.presigned_downloads = opened.presigner.clone();
    let host = podhost_core::PodcastHost::new(config, opened.store);
    let alice = podhost_testkit::setup::account(&host, "alice").await;
    let bytes = podhost_testkit::fixtures::noise_wav(300_000);
    let media = podhost_testkit::setup::upload(&host, &alice, "talk.wav", bytes.clone()).await;
    let url = host.podcasts().media_url(alice.account(), &media);
    let path = url.strip_prefix(podhost_testkit::TEST_PUBLIC_URL).unwrap();
    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    let request = http::Request::builder()
        .uri(path)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let answer = api.handle(request).await;
    assert_eq!(answer.status(), StatusCode::FOUND);
    let location = answer.headers()["location"].to_str().unwrap().to_string();
    assert!(location.starts_with(server.endpoint()), "{location}");
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    // (range asked, status, bytes expected)
    let cases = [
        (None, StatusCode::OK, &bytes[..]),
        (
            Some("bytes=1000-1999"),
            StatusCode::PARTIAL_CONTENT,
            &bytes[1000..2000],
        ),
    ];
    for (range, status, want) in cases {
        let mut request = http::Request::builder().uri(&location);
        if let Some(range) = range {
            request = request.header("range", range);
        }
        let got = client
            .request(request.body(Full::new(Bytes::new())).unwrap())
            .await
            .unwrap();
        assert_eq!(got.status(), status, "{range:?}");
        let body = got.into_body().collect().await.unwrap().to_bytes();
        assert!(body == want, "{range:?}: {} bytes", body.len());
    }
}

/// A local-folder store reads files in chunks of its own: ranges across chunk boundaries come
/// back byte for byte.
#[tokio::test]
async fn ranges_from_a_local_folder() {
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    let dir = tempfile::tempdir().unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    let host = podhost_core::PodcastHost::new(
        podhost_core::HostConfig::new(podhost_testkit::TEST_PUBLIC_URL).unwrap(),
        opened.store,
    );
    let alice = podhost_testkit::setup::account(&host, "alice").await;
    // 40 s at 8 kHz: 640,044 bytes, two and a half of the 256 KiB read chunks.
    let original = podhost_testkit::fixtures::wav(40.0, 8000);
    let media = podhost_testkit::setup::upload(&host, &alice, "talk.wav", original.clone()).await;
    let url = host.podcasts().media_url(alice.account(), &media);
    let path = url
        .strip_prefix(podhost_testkit::TEST_PUBLIC_URL)
        .unwrap()
        .to_string();
    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    let len = original.len();
    let cases = [
        (None, 0..len),
        (Some("bytes=262143-262145".to_string()), 262_143..262_146),
        (Some("bytes=100-600000".to_string()), 100..600_001),
        (Some("bytes=-500".to_string()), len - 500..len),
        (Some(format!("bytes={}-", len - 1)), len - 1..len),
    ];
    for (range, expected) in cases {
        let mut request = http::Request::builder().uri(path.as_str());
        if let Some(range) = &range {
            request = request.header("range", range.as_str());
        }
        let answer = api
            .handle(request.body(Full::new(Bytes::new())).unwrap())
            .await;
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body.as_ref(), &original[expected], "{range:?}");
    }
}

/// Downloads over a real socket, where the server sends a local-folder file's mapped windows
/// from the file itself (`sendfile(2)` on Linux): ranges within a window, across windows (2 MiB
/// each) and the whole file, one after another on one keep-alive connection, come back byte for
/// byte, each after its own head.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ranges_over_a_socket_come_from_the_file_byte_for_byte() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let host =
        podhost_core::PodcastHost::new(podhost_core::HostConfig::new(&base).unwrap(), opened.store);
    let alice = podhost_testkit::setup::account(&host, "alice").await;
    // 5 MB: three windows of the mapping.
    let original = podhost_testkit::fixtures::wav(312.5, 8000);
    let media = podhost_testkit::setup::upload(&host, &alice, "talk.wav", original.clone()).await;
    let url = host.podcasts().media_url(alice.account(), &media);
    let path = url.strip_prefix(&base).unwrap().to_string();
    let api = podhost_http::Api::new(host, podhost_http::HttpConfig::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(podhost_http::serve(listener, api, async {
        let _ = stopped.await;
    }));

    let len = original.len();
    let window = 2 << 20;
    let cases = [
        (Some(format!("bytes=10-{}", 1 << 20)), 10..(1 << 20) + 1),
        (
            Some(format!("bytes={}-{}", window - 5, window + 5)),
            window - 5..window + 6,
        ),
        (
            Some(format!("bytes={}-", 2 * window - 1)),
            2 * window - 1..len,
        ),
        (None, 0..len),
    ];
    let stream = tokio::net::TcpStream::connect(base.trim_start_matches("http://"))
        .await
        .unwrap();
    let mut stream = BufReader::new(stream);
    for (range, expected) in cases {
        let range_line = range
            .as_ref()
            .map_or(String::new(), |r| format!("Range: {r}\r\n"));
        let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\n{range_line}\r\n");
        stream
            .get_mut()
            .write_all(request.as_bytes())
            .await
            .unwrap();
        let mut length = None;
        loop {
            let mut line = String::new();
            stream.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = Some(v.trim().parse::<usize>().unwrap());
            }
        }
        let mut body = vec![0; length.expect("a Content-Length")];
        stream.read_exact(&mut body).await.unwrap();
        assert!(
            body == original[expected.clone()],
            "{range:?}: {} bytes",
            body.len()
        );
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
