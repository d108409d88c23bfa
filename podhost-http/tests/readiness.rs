//! Nothing goes out broken without a word: a podcast's answer says what Apple Podcasts and
//! Spotify need that it lacks, an episode made public without audio says that apps will skip
//! it, and neither blocks the save. And a podcast's fediverse handle is one a fediverse server
//! can follow, whatever its id.

mod common;

use common::Fixture;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// The fields the warnings of an answer's `data` name.
fn warned(answer: &Value) -> Vec<String> {
    answer["data"]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings list in {answer}"))
        .iter()
        .map(|w| {
            let message = w["message"].as_str().unwrap();
            assert!(
                podhost_testkit::refusal::problems(message).is_empty(),
                "{message}"
            );
            w["field"].as_str().unwrap().to_string()
        })
        .collect()
}

#[tokio::test]
async fn a_podcast_says_what_the_apps_need_and_an_episode_without_audio_that_apps_skip_it() {
    let fx = Fixture::new().await;
    let alice = fx.alice.clone();
    // A podcast of an id and a title: saved, with what Apple and Spotify still need.
    let made = fx
        .call(
            Method::POST,
            "/api/feeds",
            &alice,
            Some(json!({"id": "show", "title": "The Show"})),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let fields = warned(&made.body);
    for field in [
        "logo",
        "itunes.category",
        "description",
        "itunes.author",
        "itunes.owner.email",
    ] {
        assert!(fields.contains(&field.to_string()), "{field}: {fields:?}");
    }
    // A cover too small for Apple is named with its size.
    let small = fx
        .upload("small.png", podhost_testkit::fixtures::png(600, 600))
        .await;
    let changed = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &alice,
            Some(json!({"logo": small})),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.body);
    let logo = changed.body["data"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["field"] == "logo")
        .unwrap_or_else(|| panic!("no cover warning: {}", changed.body));
    assert!(
        logo["message"].as_str().unwrap().contains("600 x 600 px"),
        "{logo}"
    );
    // Everything Apple asks for: no warning left.
    let cover = fx.upload_png("cover.png").await;
    let ready = fx
        .call(
            Method::PUT,
            "/api/feeds/show",
            &alice,
            Some(json!({
                "description": "Talk.", "language": "en", "logo": cover,
                "itunes": {"author": "Alice", "category": "Technology",
                           "owner": {"name": "Alice", "email": "alice@example.com"}}
            })),
        )
        .await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.body);
    assert_eq!(warned(&ready.body), Vec::<String>::new());

    // A draft without audio: nothing to say yet.
    let draft = fx
        .multipart("/api/feed/show/show", &alice, &[("title", "Soon")], &[])
        .await;
    assert_eq!(draft.status, StatusCode::CREATED, "{}", draft.body);
    assert_eq!(warned(&draft.body), Vec::<String>::new());
    let id = draft.body["data"]["id"].as_str().unwrap().to_string();
    // Made public without audio: saved (the spec allows it), and said.
    let public = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{id}"),
            &alice,
            Some(json!({"is_public": 1})),
        )
        .await;
    assert_eq!(public.status, StatusCode::OK, "{}", public.body);
    assert_eq!(public.body["data"]["attributes"]["is_public"], 1);
    assert_eq!(warned(&public.body), ["show_media"]);
    // The podcast names it.
    let podcast = fx.get("/api/feeds/show").await;
    assert_eq!(warned(&podcast.body), ["episodes"]);
    let message = podcast.body["data"]["warnings"][0]["message"]
        .as_str()
        .unwrap();
    assert!(message.contains(&id), "{message}");
    // The feed still carries it, without an enclosure.
    let rss_path = fx
        .host
        .urls()
        .rss(&"show".parse().unwrap())
        .replace(podhost_testkit::TEST_PUBLIC_URL, "");
    let rss = fx.public(Method::GET, &rss_path, &[]).await;
    assert_eq!(rss.status, StatusCode::OK, "{rss_path}");
    let xml = String::from_utf8_lossy(&rss.raw);
    assert!(
        xml.contains("<title>Soon</title>") && !xml.contains("<enclosure"),
        "{xml}"
    );
    // Audio given: nothing left to say, on the episode or the podcast.
    let audio = fx.upload_wav("a.wav").await;
    let heard = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{id}"),
            &alice,
            Some(json!({"show_media": audio})),
        )
        .await;
    assert_eq!(heard.status, StatusCode::OK, "{}", heard.body);
    assert_eq!(warned(&heard.body), Vec::<String>::new());
    let podcast = fx.get("/api/feeds/show").await;
    assert_eq!(warned(&podcast.body), Vec::<String>::new());
}

#[tokio::test]
async fn a_podcast_whose_id_no_server_follows_gets_a_handle_that_one_does() {
    let fx = Fixture::new().await;
    let made = fx
        .call(
            Method::POST,
            "/api/feeds",
            &fx.alice.clone(),
            Some(json!({"id": "Bad Id!", "title": "Bad"})),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    assert_eq!(
        made.body["data"]["id"], "Bad Id!",
        "the id keeps what the spec allows"
    );
    let handle = made.body["data"]["attributes"]["fediverse_handle"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(handle, "@bad-id--ijqwiicjmqqq@pod.test");
    // Mastodon's rule for a remote account's name.
    let name = handle.trim_start_matches('@').split('@').next().unwrap();
    let mastodon = regex::Regex::new(r"^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$").unwrap();
    assert!(mastodon.is_match(name), "{name}");
    // WebFinger finds it by that handle (in capitals too) and says the same subject.
    for asked in [name.to_string(), name.to_uppercase()] {
        let finger = fx
            .public(
                Method::GET,
                &format!("/.well-known/webfinger?resource=acct:{asked}@pod.test"),
                &[],
            )
            .await;
        assert_eq!(finger.status, StatusCode::OK, "{asked}: {}", finger.body);
        assert_eq!(finger.body["subject"], format!("acct:{name}@pod.test"));
        let actor = finger.body["links"][0]["href"]
            .as_str()
            .unwrap()
            .to_string();
        let path = actor.replace(podhost_testkit::TEST_PUBLIC_URL, "");
        let actor = fx
            .public(
                Method::GET,
                &path,
                &[("accept", "application/activity+json")],
            )
            .await;
        assert_eq!(actor.status, StatusCode::OK, "{path}");
        assert_eq!(actor.body["preferredUsername"], name);
    }
    // The id as it is names nothing on the fediverse.
    let raw = fx
        .public(
            Method::GET,
            "/.well-known/webfinger?resource=acct:Bad%20Id!@pod.test",
            &[],
        )
        .await;
    assert_eq!(raw.status, StatusCode::NOT_FOUND);
}
