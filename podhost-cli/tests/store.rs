//! `podhost store` and the store's format with the real binary (issue 48): a server refuses a
//! store of a newer format, naming the release it needs; `store status` lists the live
//! servers with their releases; `store upgrade` refuses, naming it, while a server of an older
//! release lives, and raises the format once none does; `/readyz` says the store's format.

mod common;

use std::path::Path;

use common::{Cli, Server};
use podhost_core::store_format::{FORMAT, RELEASE};
use serde_json::json;

/// The body of `GET path` from the server at `address` (a probe: JSON with a length).
fn get(address: &str, path: &str) -> String {
    let answer = common::http_get(address, path);
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default()
}

/// The status of `GET path` from the server at `address`.
fn http_status(address: &str, path: &str) -> u16 {
    let answer = common::http_get(address, path);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"))
}

/// Writes `value` at `key` of the local store.
fn put(cli: &Cli, key: &str, value: &serde_json::Value) {
    let path = Path::new(cli.store_path()).join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
}

#[test]
fn a_server_refuses_a_store_of_a_newer_format_naming_the_release_it_needs() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "alice"]);
    let newer = FORMAT + 1;
    put(
        &cli,
        &format!("store/format/{newer:06}.json"),
        &json!({"format": newer, "release": "9.1.0", "raised_at": "2026-06-01T00:00:00Z", "raised_by": "9.1.0"}),
    );
    for args in [
        &["serve", "--listen", "127.0.0.1:0"][..],
        &["store", "upgrade"][..],
    ] {
        let refused = cli.fails(args, 2);
        assert!(
            refused.contains(&format!("the store holds format {newer}"))
                && refused.contains("run podhost 9.1.0 or later"),
            "{args:?}: {refused}"
        );
    }
    assert!(
        !Path::new(cli.store_path()).join("servers").exists()
            || std::fs::read_dir(Path::new(cli.store_path()).join("servers"))
                .unwrap()
                .next()
                .is_none(),
        "the refused server left no record"
    );
}

#[test]
fn upgrade_waits_for_every_server_of_an_older_release_and_readyz_says_the_format() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "alice"]);
    // The store as release 0.1 left it: no format marker.
    std::fs::remove_dir_all(Path::new(cli.store_path()).join("store/format")).unwrap();
    assert_eq!(cli.json(&["store", "status"])["format"], 1);
    // A podcast made then has no fediverse actor's key.
    cli.ok(&[
        "feed", "create", "--user", "alice", "--id", "daily", "--title", "Daily",
    ]);

    let (server, address) = common::serve_at(cli.store_path(), &[], &[]);
    let _server = Server(server);
    // A server of the release before, as its record says, renewed a moment ago.
    let now = jiff::Timestamp::now();
    put(
        &cli,
        "servers/old.json",
        &json!({"owner": "old", "release": "0.1.9", "reads": 1, "host": "web-3", "pid": 4242,
                "listen": "10.0.0.3:8080", "started": now, "renewed": now}),
    );
    // The server writes its record as it starts serving.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        let status = cli.json(&["store", "status"]);
        if status["servers"].as_array().unwrap().len() == 2 {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "{status}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let servers = status["servers"].as_array().unwrap();
    let ours = servers.iter().find(|s| s["owner"] != "old").unwrap();
    assert_eq!(ours["release"], RELEASE);
    assert_eq!(ours["reads"], FORMAT);
    assert_eq!(ours["listen"], address.as_str());
    assert!(servers.iter().all(|s| s["live"] == true), "{status}");

    let ready: serde_json::Value = serde_json::from_str(&get(&address, "/readyz")).unwrap();
    assert_eq!(
        ready["store"],
        json!({"format": 1, "reads": FORMAT, "release": RELEASE})
    );

    let refused = cli.fails(&["store", "upgrade"], 4);
    assert!(
        refused.contains("podhost 0.1.9") && refused.contains("web-3 pid 4242"),
        "names the server that cannot read it: {refused}"
    );
    assert_eq!(cli.json(&["store", "status"])["format"], 1);

    // That server was upgraded (its record gone): the format is raised, and the running
    // server sees it within a renewal.
    std::fs::remove_file(Path::new(cli.store_path()).join("servers/old.json")).unwrap();
    assert_eq!(
        http_status(&address, "/ap/podcasts/daily"),
        404,
        "no actor yet"
    );
    let raised = cli.ok(&["store", "upgrade"]);
    assert!(
        raised.contains(&format!("raised the store from format 1 to {FORMAT}")),
        "{raised}"
    );
    // The podcast made at format 1 is followable at once: the upgrade made its key.
    assert!(
        raised.contains("1 podcast made before is a fediverse actor now"),
        "{raised}"
    );
    assert_eq!(http_status(&address, "/ap/podcasts/daily"), 200);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let ready: serde_json::Value = serde_json::from_str(&get(&address, "/readyz")).unwrap();
        if ready["store"]["format"] == FORMAT {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{ready}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let again = cli.json(&["store", "upgrade"]);
    assert_eq!(
        (again["format"].as_u64(), again["actors_made"].as_u64()),
        (Some(u64::from(FORMAT)), Some(0)),
        "{again}"
    );
}
