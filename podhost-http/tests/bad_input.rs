//! Bad input gets the right status and a JSON message, never a 500, and stores nothing.

mod common;

use bytes::Bytes;
use common::{Fixture, multipart_body};
use http::{Method, Request};
use http_body_util::Full;
use serde_json::json;

enum Case {
    Json(Method, &'static str, &'static str),
    Raw(Method, &'static str, &'static str, Vec<u8>),
    Form(
        &'static str,
        Vec<(&'static str, &'static str)>,
        Vec<(&'static str, &'static str, Vec<u8>)>,
    ),
}

fn wav() -> Vec<u8> {
    podhost_testkit::fixtures::wav(0.5, 8000)
}

#[tokio::test]
async fn bad_input_table() {
    // A form text field larger than the 64 KiB a field may have.
    let big_field: &'static str = Box::leak("d".repeat(70 << 10).into_boxed_str());
    use Case::*;
    let truncated = {
        let (_, body) = multipart_body(&[], &[("media", "a.wav", wav())]);
        body[..body.len() / 2].to_vec()
    };
    let (_, no_closing) = multipart_body(&[("title", "T")], &[]);
    let no_closing = no_closing[..no_closing.len() - 4].to_vec();
    let big = format!("{{\"title\":\"{}\"}}", "x".repeat(2 << 20));
    let cases: Vec<(&str, Case, u16, Option<&str>)> = vec![
        (
            "malformed JSON",
            Json(Method::POST, "/api/feeds", "{\"id\": "),
            400,
            None,
        ),
        (
            "JSON that is not an object",
            Json(Method::POST, "/api/feeds", "[1, 2]"),
            422,
            Some("body"),
        ),
        (
            "a number where a string goes",
            Json(Method::POST, "/api/feeds", "{\"id\":\"x\",\"title\":{}}"),
            422,
            Some("title"),
        ),
        (
            "an unknown field",
            Json(
                Method::POST,
                "/api/feeds",
                "{\"id\":\"x\",\"title\":\"X\",\"colour\":\"red\"}",
            ),
            422,
            Some("colour"),
        ),
        (
            "a missing id",
            Json(Method::POST, "/api/feeds", "{\"title\":\"X\"}"),
            422,
            Some("id"),
        ),
        (
            "a feed id with a slash",
            Json(
                Method::POST,
                "/api/feeds",
                "{\"id\":\"a/b\",\"title\":\"X\"}",
            ),
            422,
            Some("id"),
        ),
        (
            "a wrong boolean",
            Json(
                Method::PUT,
                "/api/feed/show/show/pod-1",
                "{\"is_public\":\"maybe\"}",
            ),
            422,
            Some("is_public"),
        ),
        (
            "a date that is no date",
            Json(
                Method::PUT,
                "/api/feed/show/show/pod-1",
                "{\"publishing_date\":\"2026-02-30\"}",
            ),
            422,
            Some("publishing_date"),
        ),
        (
            "an unknown episode type",
            Json(
                Method::PUT,
                "/api/feed/show/show/pod-1",
                "{\"itunes\":{\"episodeType\":\"pilot\"}}",
            ),
            422,
            Some("itunes.episodeType"),
        ),
        (
            "write_metadata of an episode without audio: refused, nothing changed",
            Json(
                Method::PUT,
                "/api/feed/show/show/pod-1",
                "{\"title\":\"changed\",\"write_metadata\":true}",
            ),
            422,
            Some("write_metadata"),
        ),
        (
            "a media id of nothing",
            Json(
                Method::PUT,
                "/api/feed/show/show/pod-1",
                "{\"show_media\":999}",
            ),
            422,
            Some("show_media"),
        ),
        (
            "page number 0",
            Json(Method::GET, "/api/feed/show/shows?page%5Bnumber%5D=0", ""),
            422,
            Some("page.number"),
        ),
        (
            "page size 501",
            Json(Method::GET, "/api/feed/show/shows?page%5Bsize%5D=501", ""),
            422,
            Some("page.size"),
        ),
        (
            "page size not a number",
            Json(Method::GET, "/api/media?page%5Bsize%5D=ten", ""),
            422,
            Some("page.size"),
        ),
        (
            "an unknown sort key",
            Json(Method::GET, "/api/media?sort_by=colour", ""),
            422,
            Some("sort_by"),
        ),
        (
            "an unknown query parameter",
            Json(Method::GET, "/api/feeds?colour=red", ""),
            422,
            Some("colour"),
        ),
        (
            "a non-numeric media id",
            Json(Method::GET, "/api/media/abc", ""),
            400,
            None,
        ),
        (
            "a media id beyond 2^53-1",
            Json(Method::GET, "/api/media/9007199254740992", ""),
            400,
            None,
        ),
        (
            "an episode id without pod-",
            Json(Method::GET, "/api/feed/show/show/17", ""),
            400,
            None,
        ),
        (
            "an unknown route",
            Json(Method::GET, "/api/nothing", ""),
            404,
            None,
        ),
        (
            "a wrong method",
            Json(Method::PATCH, "/api/feeds", ""),
            405,
            None,
        ),
        (
            "a JSON body over the limit",
            Raw(
                Method::POST,
                "/api/feeds",
                "application/json",
                big.into_bytes(),
            ),
            413,
            None,
        ),
        (
            "multipart without a boundary",
            Raw(
                Method::POST,
                "/api/media",
                "multipart/form-data",
                b"x".to_vec(),
            ),
            400,
            None,
        ),
        (
            "a JSON body for an upload",
            Raw(
                Method::POST,
                "/api/media",
                "application/json",
                b"{}".to_vec(),
            ),
            400,
            None,
        ),
        (
            "a truncated upload",
            Raw(
                Method::POST,
                "/api/media",
                "multipart/form-data; boundary=podhost-test-boundary-7d9f",
                truncated,
            ),
            400,
            None,
        ),
        (
            "a form with no end",
            Raw(
                Method::POST,
                "/api/feed/show/show",
                "multipart/form-data; boundary=podhost-test-boundary-7d9f",
                no_closing,
            ),
            400,
            None,
        ),
        (
            "a form text field over 64 KiB",
            Form(
                "/api/feed/show/show",
                vec![("title", "T"), ("description", big_field)],
                vec![("media", "a.wav", wav())],
            ),
            413,
            None,
        ),
        (
            "an upload without the file",
            Form("/api/media", vec![("title", "x")], vec![]),
            422,
            Some("media"),
        ),
        (
            "an episode without a title, with a file",
            Form(
                "/api/feed/show/show",
                vec![("author", "Me")],
                vec![("media", "a.wav", wav())],
            ),
            422,
            Some("title"),
        ),
        (
            "an episode with both a file and show_media",
            Form(
                "/api/feed/show/show",
                vec![("title", "T"), ("show_media", "1")],
                vec![("media", "a.wav", wav())],
            ),
            422,
            Some("media"),
        ),
        (
            "an episode into a feed that is not there",
            Form(
                "/api/feed/nope/show",
                vec![("title", "T")],
                vec![("media", "a.wav", wav())],
            ),
            404,
            None,
        ),
        (
            "write_metadata of a new episode without audio",
            Form(
                "/api/feed/show/show",
                vec![("title", "T"), ("write_metadata", "true")],
                vec![],
            ),
            422,
            Some("write_metadata"),
        ),
    ];
    let fx = Fixture::new().await;
    fx.upload_wav("kept.wav").await;
    fx.feed("show").await;
    fx.episode("show", &[("title", "kept")]).await;
    for (what, case, status, field) in cases {
        let answer = match case {
            Json(method, path, body) => {
                let mut request = Request::builder()
                    .method(method)
                    .uri(path)
                    .header("authorization", format!("Bearer {}", fx.alice));
                if !body.is_empty() {
                    request = request.header("content-type", "application/json");
                }
                fx.send(request.body(Full::new(Bytes::from(body))).unwrap())
                    .await
            }
            Raw(method, path, content_type, body) => {
                let request = Request::builder()
                    .method(method)
                    .uri(path)
                    .header("authorization", format!("Bearer {}", fx.alice))
                    .header("content-type", content_type)
                    .body(Full::new(Bytes::from(body)))
                    .unwrap();
                fx.send(request).await
            }
            Form(path, texts, files) => fx.multipart(path, &fx.alice, &texts, &files).await,
        };
        assert_eq!(answer.status.as_u16(), status, "{what}: {}", answer.body);
        assert!(
            answer.body["message"].is_string(),
            "{what}: a JSON message: {:?}",
            answer.raw
        );
        if let Some(field) = field {
            assert!(
                answer.body["errors"][field].is_array(),
                "{what}: errors name {field}: {}",
                answer.body
            );
        }
        // Nothing stored: one media file, one feed, one episode, as before.
        assert_eq!(fx.get("/api/media").await.body["count"], 1, "{what}: media");
        assert_eq!(
            fx.get("/api/feeds").await.body["data"]
                .as_array()
                .unwrap()
                .len(),
            1,
            "{what}: feeds"
        );
        let episodes = fx.get("/api/feed/show/shows").await;
        assert_eq!(
            episodes.body["data"].as_array().unwrap().len(),
            1,
            "{what}: episodes"
        );
        assert_eq!(
            episodes.body["data"][0]["attributes"]["title"],
            json!("kept")
        );
    }
    // Nor bytes: the files of refused requests were staged and are gone again (the core removes
    // what it staged; no handler cleans up), leaving kept.wav's blob alone.
    let blobs = || async {
        use futures::TryStreamExt;
        let prefix = object_store::path::Path::from("accounts/alice/blobs");
        let listed: Vec<_> = fx.store.list(Some(&prefix)).try_collect().await.unwrap();
        listed.len()
    };
    for _ in 0..200 {
        if blobs().await == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(blobs().await, 1, "only kept.wav's bytes are stored");
}

/// A body past a size limit is answered 413 naming what passed which limit, and where the
/// limits are written (docs/configuration.md, "Size limits").
#[tokio::test]
async fn a_413_names_the_field_and_the_limit_it_passed() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    // A 100 KB title in a form: the field and the 64 KiB of a multipart text field.
    let title = "t".repeat(100_000);
    let answer = fx
        .multipart("/api/feed/show/show", &fx.alice, &[("title", &title)], &[])
        .await;
    assert_eq!(answer.status.as_u16(), 413, "{}", answer.body);
    assert_eq!(
        answer.body["message"],
        "the field title is larger than the limit of 64 KiB for a multipart text field \
         (see docs/configuration.md)",
        "{}",
        answer.body
    );
    // A JSON body past 1 MiB: the JSON limit.
    let answer = fx
        .call(
            Method::POST,
            "/api/feeds",
            &fx.alice,
            Some(json!({"title": "x".repeat(2 << 20)})),
        )
        .await;
    assert_eq!(answer.status.as_u16(), 413, "{}", answer.body);
    assert_eq!(
        answer.body["message"],
        "the body is larger than the limit of 1 MiB for a JSON body (see docs/configuration.md)",
        "{}",
        answer.body
    );
}
