//! `podhost stats` (downloads counted by a running server, read by the command line) and
//! `podhost webhook deliveries|redeliver|process` (events sent to a local subscriber).

mod common;

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use common::Cli;
use podhost_testkit::{WebhookReceiver, fixtures};
use serde_json::json;

#[test]
fn stats_report_downloads_counted_by_the_server() {
    let cli = Cli::new();
    // Behind a proxy it trusts, with the IP-to-country database scripts/test installs.
    let geoip = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../tests/geoip/node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
    );
    assert!(geoip.exists(), "scripts/test installs {}", geoip.display());
    let (mut server, address) = common::serve_at(
        cli.store_path(),
        &[],
        &["--geoip-db", geoip.to_str().unwrap(), "--trust-proxy"],
    );
    // The server made the account admin; the command line works on the same store.
    cli.ok(&[
        "feed", "create", "--user", "admin", "--id", "daily", "--title", "Daily",
    ]);
    let audio = cli.upload("admin", "one.wav", &fixtures::wav(2.0, 8000));
    let episode = cli.json(&[
        "episode",
        "create",
        "--user",
        "admin",
        "--feed",
        "daily",
        "--title",
        "One",
        "--media",
        &audio,
        "--publish",
    ]);
    let url = episode["attributes"]["enclosure_url"].as_str().unwrap();
    let path = &url[url.find("/media/").unwrap()..];

    // Before any download: the period, every day at zero.
    let empty = cli.json(&[
        "stats",
        "--user",
        "admin",
        "--from",
        "2024-01-01",
        "--to",
        "2024-01-03",
    ]);
    assert_eq!(
        empty,
        json!({"from": "2024-01-01", "to": "2024-01-03", "total": 0,
               "days": [{"date": "2024-01-01", "downloads": 0}, {"date": "2024-01-02", "downloads": 0}, {"date": "2024-01-03", "downloads": 0}],
               "feeds": [], "episodes": [], "apps": [],
               "hours": (0..24).map(|hour| json!({"hour": hour, "downloads": 0})).collect::<Vec<_>>(),
               "platforms": [],
               "countries": [],
               "method": {"guideline": "IAB Podcast Measurement Technical Guidelines v2.3", "window": "rolling 24 hours"},
               "subscribers": []})
    );

    // A podcast app downloads the whole file from the server (the server sees the new
    // episode within its refresh interval).
    let start = Instant::now();
    loop {
        let mut stream = TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {address}\r\nUser-Agent: AppleCoreMedia/1.0.0.20E247 (iPhone; U; CPU OS 16_4 like Mac OS X; en_us)\r\nX-Forwarded-For: 8.8.8.8\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        if answer.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{}",
            String::from_utf8_lossy(&answer)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The server stores its reports every few seconds.
    let start = Instant::now();
    let report = loop {
        let report = cli.json(&["stats", "--user", "admin"]);
        if report["total"] == 1 {
            break report;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "never counted: {report}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(
        report["feeds"],
        json!([{"feed_id": "daily", "downloads": 1}])
    );
    assert_eq!(
        report["episodes"],
        json!([{"feed_id": "daily", "show_id": "pod-1", "downloads": 1}])
    );
    assert_eq!(report["apps"][0]["downloads"], 1);
    // Counted under the listener's country, and so printed by `--by country`.
    assert_eq!(
        report["countries"],
        json!([{"country": "US", "downloads": 1}])
    );
    let by_country = cli.ok(&["stats", "--user", "admin", "--by", "country"]);
    let line = by_country
        .lines()
        .find(|l| l.starts_with("US"))
        .unwrap_or_else(|| panic!("{by_country}"));
    assert_eq!(line.split_whitespace().collect::<Vec<_>>(), ["US", "1"]);
    assert_eq!(report["days"].as_array().unwrap().len(), 30);
    let one = cli.json(&[
        "stats",
        "--user",
        "admin",
        "--feed",
        "daily",
        "--episode",
        "pod-1",
    ]);
    assert_eq!(one["total"], 1);

    let text = cli.ok(&["stats", "--user", "admin"]);
    assert!(text.starts_with("downloads from "), "{text}");
    assert!(text.contains("DAY         DOWNLOADS"), "{text}");
    assert!(text.contains("daily  pod-1    1"), "{text}");

    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["stats", "--user", "admin", "--feed", "nope"],
            3,
            "no feed nope for admin",
        ),
        (
            &["stats", "--user", "admin", "--from", "yesterday"],
            2,
            "--from takes a day",
        ),
        (
            &[
                "stats",
                "--user",
                "admin",
                "--from",
                "2024-02-01",
                "--to",
                "2024-01-01",
            ],
            2,
            "from",
        ),
        (
            &[
                "stats",
                "--user",
                "admin",
                "--from",
                "2020-01-01",
                "--to",
                "2024-01-01",
            ],
            2,
            "366",
        ),
        (
            &["stats", "--user", "admin", "--episode", "pod-1"],
            2,
            "--feed",
        ),
    ];
    for (args, exit, message) in cases {
        let (_, got) = cli.json_error(args, *exit);
        assert!(got.contains(message), "{args:?}: {got}");
    }
}

#[test]
fn webhook_deliveries_are_processed_listed_and_redelivered() {
    let cli = Cli::with_users(&["alice", "bob"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(WebhookReceiver::start());
    let url = receiver.url();
    let private = "--allow-private-webhooks";
    let added = cli.json(&[
        private,
        "webhook",
        "add",
        "--user",
        "alice",
        "--url",
        &url,
        "--events",
        "media.created",
        "--secret",
        &receiver.secret(),
    ]);
    let id = added["id"].as_str().unwrap().to_string();
    assert_eq!(added["secret"], receiver.secret().as_str());
    assert_eq!(added["events"], json!(["media.created"]));
    let listed = cli.json(&["webhook", "list", "--user", "alice"]);
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(listed[0].get("secret").is_none(), "never the secret");

    cli.upload("alice", "one.wav", &fixtures::wav(0.5, 8000));
    let pending = cli.json(&["webhook", "deliveries", "--user", "alice", &id]);
    assert_eq!(pending, json!([]), "nothing sent before processing");

    // Processing delivers the due event now: the media record as the API shows it.
    let run = cli.json(&[private, "webhook", "process", "--user", "alice"]);
    assert_eq!(
        run,
        json!({"attempted": 1, "delivered": 1, "failed": 0, "pending": 0})
    );
    // Sent before the command returned, signed with the subscription's secret.
    let received = receiver.received();
    assert_eq!(received.len(), 1);
    assert!(received[0].verified);
    assert_eq!(received[0].event_type, "media.created");
    assert_eq!(received[0].body["data"]["name"], "one.wav");

    let deliveries = cli.json(&["webhook", "deliveries", "--user", "alice", &id]);
    assert_eq!(deliveries.as_array().unwrap().len(), 1);
    let delivery = &deliveries[0];
    assert_eq!(delivery["type"], "media.created");
    assert_eq!(delivery["status"], "delivered");
    assert!(delivery["next_at"].is_null());
    assert_eq!(
        delivery["attempts"][0]["status"], 204,
        "the receiver's answer"
    );
    assert_eq!(delivery["attempts"][0]["manual"], false);
    let seq = delivery["seq"].to_string();
    let text = cli.ok(&["webhook", "deliveries", "--user", "alice", &id]);
    assert!(
        text.starts_with("SEQ") && text.contains("media.created  delivered"),
        "{text}"
    );

    // Sent again on demand: a manual attempt, recorded with the delivery.
    let again = cli.json(&[
        private,
        "webhook",
        "redeliver",
        "--user",
        "alice",
        &id,
        &seq,
    ]);
    assert_eq!(again["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(again["attempts"][1]["manual"], true);
    assert_eq!(again["attempts"][1]["status"], 204);
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert!(received[1].verified);
    assert_eq!(received[1].id, received[0].id, "the same event, sent again");

    let run = cli.json(&[private, "webhook", "process", "--user", "alice"]);
    assert_eq!(
        run,
        json!({"attempted": 0, "delivered": 0, "failed": 0, "pending": 0})
    );

    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["webhook", "deliveries", "--user", "alice", "wh_nope"],
            3,
            "no webhook wh_nope for alice: list them with `podhost webhook list --user alice`",
        ),
        (
            &["webhook", "deliveries", "--user", "bob", &id],
            3,
            "no webhook",
        ),
        (
            &["webhook", "redeliver", "--user", "alice", &id, "999"],
            3,
            "no event 999 for alice",
        ),
        (
            &["webhook", "redeliver", "--user", "alice", &id, "first"],
            2,
            "invalid value",
        ),
        (
            &["webhook", "remove", "--user", "bob", &id],
            3,
            "no webhook",
        ),
        (
            &["webhook", "add", "--user", "alice", "--url", &url],
            2,
            "url",
        ),
    ];
    for (args, exit, message) in cases {
        let (_, got) = cli.json_error(args, *exit);
        assert!(got.contains(message), "{args:?}: {got}");
    }
    let removed = cli.json(&["webhook", "remove", "--user", "alice", &id]);
    assert_eq!(removed, json!({"id": id, "removed": true}));
}
