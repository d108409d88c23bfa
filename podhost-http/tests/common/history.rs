//! A podcaster's month of statistics, made through the public download URLs with a set clock:
//! two podcasts, three episodes published a week apart, listeners in several countries (behind
//! a trusted proxy, looked up in the test command's IP-to-country database), apps, devices and
//! hours of the day. What the statistics pages and their browser check draw.

use http::StatusCode;
use jiff::{SignedDuration, Timestamp};
use podhost_http::HttpConfig;

use super::Fixture;

/// The first day of the history.
pub const FIRST: &str = "2026-03-01";
/// The last day of the history (the clock is left on its evening).
pub const LAST: &str = "2026-03-20";
/// The podcasts: id and title.
pub const TITLES: [(&str, &str); 2] = [("show", "The Show"), ("other", "Another Show")];
/// The password `alice` signs in to the site with.
pub const PASSWORD: &str = "correct horse battery staple";

/// Listeners' addresses: two in the US, one each in the Netherlands and Japan, one that no
/// country has (documentation range: `ZZ`).
const ADDRESSES: [&str; 5] = [
    "8.8.8.8",
    "8.8.4.4",
    "193.0.6.139",
    "133.1.1.1",
    "192.0.2.1",
];
/// Listeners' apps.
const AGENTS: [&str; 4] = [
    "Podcasts/1410.53 CFNetwork/1111 Darwin/19.0.0 (x86_64)",
    "Spotify/8.7.10 iOS/15.3.1 (iPhone13,2)",
    "Overcast/3.0 (+http://overcast.fm/; iOS podcast app)",
    "AntennaPod/2.7.1",
];

/// What the history made.
pub struct History {
    /// The fixture (trusting `X-Forwarded-For`, with the country database), clock on the
    /// evening of [`LAST`], alice's password set.
    pub fx: Fixture,
    /// The three episodes of `show`, oldest first: id and title.
    pub episodes: Vec<(String, String)>,
    /// The public download path of each of them, in the same order.
    pub downloads: Vec<String>,
}

/// The IP-to-country database scripts/test installs (tests/geoip, from npm).
pub fn countries() -> podhost_core::stats::geo::Countries {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../tests/geoip/node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
    );
    podhost_core::stats::geo::Countries::open(&path)
        .unwrap_or_else(|e| panic!("{e}: scripts/test installs it (cd tests/geoip && npm ci)"))
}

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

/// A fixture that trusts `X-Forwarded-For` (a proxy's) and places listeners in countries.
pub async fn behind_a_proxy_with_countries() -> Fixture {
    let mut host_config = podhost_testkit::test_config();
    host_config.countries = Some(countries());
    Fixture::on_store_with(
        std::sync::Arc::new(object_store::memory::InMemory::new()),
        HttpConfig {
            trust_forwarded_for: true,
            ..HttpConfig::default()
        },
        host_config,
    )
    .await
}

/// Makes the history.
pub async fn history() -> History {
    let fx = behind_a_proxy_with_countries().await;
    fx.host
        .access()
        .set_password(&"alice".parse().unwrap(), Some(PASSWORD))
        .await
        .unwrap();
    let first = at(&format!("{FIRST}T05:00:00Z"));
    fx.clock.set(first);
    let owner = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    for (id, title) in TITLES {
        fx.titled_feed(id, title).await;
    }
    // An episode of its own file (downloads are told apart by their file).
    let publish = |feed: &'static str, title: &'static str, when: Timestamp, seconds: f64| {
        let (fx, owner) = (&fx, owner.clone());
        async move {
            let media = fx
                .upload(
                    &format!("{title}.wav"),
                    podhost_testkit::fixtures::wav(seconds, 8000),
                )
                .await;
            let media = podhost_core::MediaId::new(media).unwrap();
            let mut new = podhost_core::model::NewEpisode::titled(title);
            new.fields.is_public = Some(true);
            new.fields.publish_at = Some(when);
            new.fields.media = Some(Some(media));
            let view = fx
                .host
                .podcasts()
                .create_episode(&owner, &feed.parse().unwrap(), new)
                .await
                .unwrap();
            let media = fx.host.podcasts().get_media(&owner, media).await.unwrap();
            let url = fx.host.urls().media(owner.account(), &media);
            let path = url[url.find("/media/").unwrap()..].to_string();
            (view.episode.id.to_string(), title.to_string(), path)
        }
    };
    let week = SignedDuration::from_hours(24 * 7);
    // Episode n comes out at 06:00 of day 1 + 7n.
    let out = |n: i32| first + SignedDuration::from_hours(1) + week * n;
    let published = [
        publish("show", "Getting started", out(0), 4.0).await,
        publish("show", "The second week", out(1), 4.5).await,
        publish("show", "Three's a crowd", out(2), 5.0).await,
    ];
    let other = publish("other", "Elsewhere", first, 3.0).await;
    // Each day, each published episode is heard by a few listeners, fewer as it ages; the
    // other podcast by one. Hours and listeners vary with the day.
    for day in 0..20i64 {
        let morning = first + SignedDuration::from_hours(24 * day);
        for (n, (_, _, path)) in published.iter().enumerate() {
            let out = out(n as i32);
            if morning + SignedDuration::from_hours(14) < out {
                continue;
            }
            let age = morning.duration_since(out).as_hours().max(0) / 24;
            let listeners = (6 - age.min(5)) as usize + (day as usize % 2);
            for l in 0..listeners {
                let hour = 6 + ((day as usize * 5 + l * 3 + n) % 17) as i64;
                fx.clock.set(morning + SignedDuration::from_hours(hour - 5));
                let ip = ADDRESSES[(l + n) % ADDRESSES.len()];
                let agent = AGENTS[(l / ADDRESSES.len() + day as usize) % AGENTS.len()];
                let status =
                    super::download(&fx.api, path, http::Method::GET, ip, agent, &[]).await;
                assert_eq!(status, StatusCode::OK, "{path}");
            }
        }
        fx.clock.set(morning + SignedDuration::from_hours(15));
        let status = super::download(
            &fx.api,
            &other.2,
            http::Method::GET,
            ADDRESSES[day as usize % 3],
            AGENTS[0],
            &[],
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    fx.clock.set(at(&format!("{LAST}T21:00:00Z")));
    History {
        fx,
        downloads: published.iter().map(|(_, _, path)| path.clone()).collect(),
        episodes: published
            .into_iter()
            .map(|(id, title, _)| (id, title))
            .collect(),
    }
}
