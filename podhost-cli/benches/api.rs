//! REST API figures of the shipped binary (not a timed test): run with
//! `BENCH_DIR=/tmp cargo bench -p podhost-cli --bench api`. Needs `wrk` and `curl`.
//!
//! What a user runs: `podhost serve`, the release binary as its own process, with its default
//! logging (an access line a request, to a file) and metrics, on a local folder (fsync), with
//! `--rate-limit 4000000000` (a benchmark is not a client to limit). The same requests on the
//! large account (podcasts of 10,000 and 1,000 episodes, a file each) and on the small one (a
//! podcast of 50 episodes: a page of 50 is the same page), wrk -t2 -c32 -d8s on loopback, in
//! three rounds of large then small; the large account's figure as a share of the small one's,
//! the round of the median share reported. With `BENCH_BEFORE=PATH` (another build of `podhost`,
//! e.g. a release before), that build also serves the same store, and each row of the large
//! account is measured on both in alternating rounds: the same run's ratio of this build to it.

#[path = "../../podhost-http/benches/support/reference.rs"]
mod reference;
#[path = "support/shipped.rs"]
mod shipped;

use reference::wrk;
use shipped::Shipped;

fn main() {
    let (store, _kept) = shipped::store_dir();
    let (small, large) = shipped::make_store(&store);
    let server = Shipped::start(&store, &["--rate-limit", "4000000000"], &[]);
    let load = (2, 32);
    println!(
        "podhost serve (release binary, default logging to a file, metrics), wrk -t{} -c{} -d8s on loopback, 2 cores shared",
        load.0, load.1
    );
    println!("| request | large account | small account | large/small | p99 large / small |");
    println!("|---|---|---|---|---|");
    let newest = |account: &shipped::Account| {
        let page = server.body(
            &format!("/api/feed/{}/shows?page%5Bsize%5D=1", account.feed),
            &[&format!("Authorization: Bearer {}", account.token)],
        );
        let page: serde_json::Value = serde_json::from_slice(&page).unwrap();
        page["data"][0]["id"].as_str().unwrap().to_string()
    };
    let (large_newest, small_newest) = (newest(&large), newest(&small));
    let table = [
        (
            "page of 50 episodes (warm: the same page)",
            format!("/api/feed/{}/shows?page%5Bsize%5D=50", large.feed),
            format!("/api/feed/{}/shows?page%5Bsize%5D=50", small.feed),
        ),
        (
            "one episode",
            format!("/api/feed/{}/show/{large_newest}", large.feed),
            format!("/api/feed/{}/show/{small_newest}", small.feed),
        ),
        (
            "one podcast",
            format!("/api/feeds/{}", large.feed),
            format!("/api/feeds/{}", small.feed),
        ),
        (
            "page of 50 files",
            "/api/media?page%5Bsize%5D=50".into(),
            "/api/media?page%5Bsize%5D=50".into(),
        ),
    ];
    for (label, ours, theirs) in &table {
        server.wait_idle();
        // Three rounds, large then small in turn; the round of the median ratio.
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let l = wrk(
                    &format!("{}{ours}", server.base),
                    load,
                    &[format!("Authorization: Bearer {}", large.token)],
                    None,
                );
                let s = wrk(
                    &format!("{}{theirs}", server.base),
                    load,
                    &[format!("Authorization: Bearer {}", small.token)],
                    None,
                );
                (l, s)
            })
            .collect();
        let (l, s) = median_round(runs);
        compared(label, &l, &s);
    }
    // Random pages of the large podcast: most answers put together afresh.
    let scratch = tempfile::tempdir().unwrap();
    let pages = scratch.path().join("pages.lua");
    std::fs::write(
        &pages,
        format!(
            "math.randomseed(7)\nrequest = function()\n  return wrk.format(\"GET\", \"/api/feed/{}/shows?page%5Bsize%5D=50&page%5Bnumber%5D=\" .. math.random(1, 200))\nend\n",
            large.feed
        ),
    )
    .unwrap();
    let random = wrk(
        &format!("{}/", server.base),
        load,
        &[format!("Authorization: Bearer {}", large.token)],
        Some(&pages),
    );
    println!(
        "| random pages of 50 of the 10,000 | {:.0} req/s | | | {:.2} ms |",
        random.rps, random.p99_ms
    );
    println!("\npeak memory of the server: {} MiB", server.peak_mib());

    if let Some(before) = std::env::var_os("BENCH_BEFORE") {
        let old = Shipped::start_binary(
            std::path::Path::new(&before),
            &store,
            &["--rate-limit", "4000000000"],
            &[],
        );
        println!(
            "\nthis build and BENCH_BEFORE ({}) on the same store, the large account, in alternating rounds, the round of the median ratio:",
            std::path::Path::new(&before).display()
        );
        println!("| request | this build | before | ratio | p99 this / before |");
        println!("|---|---|---|---|---|");
        for (label, ours, _) in &table {
            server.wait_idle();
            old.wait_idle();
            let headers = [format!("Authorization: Bearer {}", large.token)];
            let runs: Vec<_> = (0..3)
                .map(|_| {
                    let this = wrk(&format!("{}{ours}", server.base), load, &headers, None);
                    let then = wrk(&format!("{}{ours}", old.base), load, &headers, None);
                    (this, then)
                })
                .collect();
            let (this, then) = median_round(runs);
            compared(label, &this, &then);
        }
    }
}

/// A table's row: `label`, the two figures, their ratio, their p99s.
fn compared(label: &str, a: &reference::Measured, b: &reference::Measured) {
    println!(
        "| {label} | {:.0} req/s | {:.0} req/s | {:.2}× | {:.2} ms / {:.2} ms |",
        a.rps,
        b.rps,
        a.rps / b.rps.max(1.0),
        a.p99_ms,
        b.p99_ms
    );
}

/// Of rounds measuring two things in turn, the one whose ratio of the first to the second is
/// the median.
fn median_round(
    mut runs: Vec<(reference::Measured, reference::Measured)>,
) -> (reference::Measured, reference::Measured) {
    runs.sort_by(|a, b| (a.0.rps / a.1.rps.max(1.0)).total_cmp(&(b.0.rps / b.1.rps.max(1.0))));
    runs.swap_remove(runs.len() / 2)
}
