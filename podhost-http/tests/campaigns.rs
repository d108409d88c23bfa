//! Ad campaigns through the API: created, read, listed, paused and resumed, deleted; every rule
//! refused with 422 naming its field; the scopes `ads` and `ads-read-only`; an ad file in use.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

async fn create(fx: &Fixture, body: Value) -> common::Answer {
    fx.call(Method::POST, "/api/campaigns", &fx.alice, Some(body))
        .await
}

#[tokio::test]
async fn a_campaign_is_created_read_paused_and_deleted() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let ad = fx.upload_wav("ad.wav").await;
    let made = create(
        &fx,
        json!({"name": "Spring sale", "media_id": ad, "positions": ["midroll", "preroll", "midroll"],
               "feeds": ["show"], "impressions_goal": 1000}),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let campaign = &made.body["data"];
    let id = campaign["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("cmp_"), "{id}");
    assert_eq!(
        made.headers["location"],
        format!("https://pod.test/api/campaigns/{id}").as_str()
    );
    assert_eq!(
        campaign,
        &json!({"id": id, "name": "Spring sale", "media_id": ad,
                "positions": ["preroll", "midroll"], "feeds": ["show"], "starts": null,
                "ends": null, "impressions_goal": 1000, "impressions": 0, "status": "active"})
    );
    let got = fx.get(&format!("/api/campaigns/{id}")).await;
    assert_eq!(&got.body["data"], campaign);
    let list = fx.get("/api/campaigns").await;
    assert_eq!(list.body["data"], json!([campaign]));

    let path = format!("/api/campaigns/{id}");
    let paused = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"status": "paused"})),
        )
        .await;
    assert_eq!(paused.body["data"]["status"], "paused", "{}", paused.body);
    let resumed = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"status": "active"})),
        )
        .await;
    assert_eq!(resumed.body["data"]["status"], "active");
    // Dates make it scheduled, or ended.
    let later = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"starts": "2999-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(later.body["data"]["status"], "scheduled", "{}", later.body);
    let over = fx
        .call(
            Method::PUT,
            &path,
            &fx.alice,
            Some(json!({"starts": null, "ends": "2001-01-01T00:00:00Z", "feeds": []})),
        )
        .await;
    assert_eq!(over.body["data"]["status"], "ended", "{}", over.body);
    assert_eq!(
        over.body["data"]["feeds"],
        json!([]),
        "empty: every podcast"
    );

    // The ad file is in use while the campaign is.
    let in_use = fx
        .call(Method::DELETE, &format!("/api/media/{ad}"), &fx.alice, None)
        .await;
    assert_eq!(in_use.status, StatusCode::CONFLICT, "{}", in_use.body);
    assert!(in_use.body.to_string().contains(&id), "{}", in_use.body);

    let deleted = fx.call(Method::DELETE, &path, &fx.alice, None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(fx.get(&path).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        fx.call(Method::DELETE, &format!("/api/media/{ad}"), &fx.alice, None)
            .await
            .status,
        StatusCode::NO_CONTENT
    );
}

#[tokio::test]
async fn every_rule_is_refused_with_its_field() {
    let fx = Fixture::new().await;
    fx.feed("show").await;
    let ad = fx.upload_wav("ad.wav").await;
    let image = fx.upload_png("cover.png").await;
    let ok = json!({"name": "Ad", "media_id": ad, "positions": ["preroll"]});
    let with = |change: Value| {
        let mut body = ok.clone();
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (body, field) in [
        (with(json!({"name": " "})), "name"),
        (with(json!({"media_id": 999})), "media_id"),
        (with(json!({"media_id": image})), "media_id"),
        (with(json!({"positions": []})), "positions"),
        (with(json!({"positions": ["sideroll"]})), "positions"),
        (with(json!({"feeds": ["nope"]})), "feeds"),
        (
            with(json!({"starts": "2026-05-01T00:00:00Z", "ends": "2026-04-01T00:00:00Z"})),
            "ends",
        ),
        (with(json!({"starts": "tomorrow"})), "starts"),
        (with(json!({"impressions_goal": 0})), "impressions_goal"),
    ] {
        let refused = create(&fx, body.clone()).await;
        assert_eq!(
            refused.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            refused.body
        );
        assert!(
            refused.body.to_string().contains(field),
            "{body}: {}",
            refused.body
        );
    }
    let made = create(&fx, ok.clone()).await;
    let path = format!(
        "/api/campaigns/{}",
        made.body["data"]["id"].as_str().unwrap()
    );
    for (body, field) in [
        (json!({"status": "ended"}), "status"),
        (json!({"status": "scheduled"}), "status"),
        (json!({"positions": []}), "positions"),
        (json!({"media_id": image}), "media_id"),
    ] {
        let refused = fx
            .call(Method::PUT, &path, &fx.alice, Some(body.clone()))
            .await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(
            refused.body.to_string().contains(field),
            "{body}: {}",
            refused.body
        );
    }
    // Refused changes changed nothing.
    assert_eq!(
        fx.get(&path).await.body["data"]["positions"],
        json!(["preroll"])
    );
    assert_eq!(
        fx.get("/api/campaigns/cmp_0000000000000000").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn ads_read_only_reads_and_ads_writes() {
    let fx = Fixture::new().await;
    let ad = fx.upload_wav("ad.wav").await;
    let made = create(
        &fx,
        json!({"name": "Ad", "media_id": ad, "positions": ["postroll"]}),
    )
    .await;
    let path = format!(
        "/api/campaigns/{}",
        made.body["data"]["id"].as_str().unwrap()
    );
    let reader = fx.token("ads-read-only").await;
    let media = fx.token("media,feeds,shows").await;
    assert_eq!(
        fx.call(Method::GET, &path, &reader, None).await.status,
        StatusCode::OK
    );
    assert_eq!(
        fx.call(
            Method::PUT,
            &path,
            &reader,
            Some(json!({"status": "paused"}))
        )
        .await
        .status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        fx.call(Method::GET, "/api/campaigns", &media, None)
            .await
            .status,
        StatusCode::FORBIDDEN
    );
}
