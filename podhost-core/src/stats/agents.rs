//! Who is downloading: a `User-Agent` classified by the OPAWG podcast user-agent lists
//! (`podhost-core/data/opawg`, MIT licensed), in the order they prescribe: bots, apps, libraries,
//! browsers, the first matching entry of the first matching list wins. The device a download
//! played on (the platform) comes from the OPAWG devices list the same way.

use std::sync::OnceLock;

use regex::RegexSet;
use serde::Deserialize;

/// What a `User-Agent` is, by the OPAWG lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agent {
    /// A crawler or other robot: its downloads are not counted.
    Bot(String),
    /// A podcast app, a library or a browser, by its list name.
    Client(String),
    /// Nothing in the lists matched (or there was no `User-Agent`).
    Unknown,
}

impl Agent {
    /// The name statistics show for the app (`Unknown` when nothing matched).
    pub fn app(&self) -> &str {
        match self {
            Agent::Bot(name) | Agent::Client(name) => name,
            Agent::Unknown => "Unknown",
        }
    }
}

/// The lists, in matching order, with whether a match is a bot.
const LISTS: [(&str, bool); 4] = [
    (include_str!("../../data/opawg/bots.json"), true),
    (include_str!("../../data/opawg/apps.json"), false),
    (include_str!("../../data/opawg/libraries.json"), false),
    (include_str!("../../data/opawg/browsers.json"), false),
];

#[derive(Deserialize)]
struct List {
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    pattern: String,
    #[cfg_attr(not(test), allow(dead_code))]
    #[serde(default)]
    examples: Vec<String>,
}

struct Classifier {
    /// Every pattern of every list, in matching order.
    set: RegexSet,
    /// For each pattern: its name and whether it is a bot.
    names: Vec<(String, bool)>,
}

fn classifier() -> &'static Classifier {
    static CLASSIFIER: OnceLock<Classifier> = OnceLock::new();
    CLASSIFIER.get_or_init(|| {
        let mut patterns = Vec::new();
        let mut names = Vec::new();
        for (json, bot) in LISTS {
            // The lists are compiled into the binary and checked by the tests below.
            let list: List = serde_json::from_str(json).expect("embedded OPAWG list parses");
            for entry in list.entries {
                patterns.push(entry.pattern);
                names.push((entry.name, bot));
            }
        }
        let set = RegexSet::new(&patterns).expect("embedded OPAWG patterns compile");
        Classifier { set, names }
    })
}

/// Classifies a `User-Agent` header value.
pub fn classify(user_agent: &str) -> Agent {
    let user_agent = user_agent.trim();
    if user_agent.is_empty() {
        return Agent::Unknown;
    }
    let classifier = classifier();
    match classifier.set.matches(user_agent).iter().next() {
        Some(index) => {
            let (name, bot) = &classifier.names[index];
            if *bot {
                Agent::Bot(name.clone())
            } else {
                Agent::Client(name.clone())
            }
        }
        None => Agent::Unknown,
    }
}

/// The OPAWG devices list, for [`platform`].
const DEVICES: &str = include_str!("../../data/opawg/devices.json");

/// The device (platform) a `User-Agent` names by the OPAWG devices list, e.g. `Apple iPhone`,
/// `Apple Watch`, `Amazon Echo`; `Unknown` when none matches.
pub fn platform(user_agent: &str) -> &'static str {
    static DEVICE_SET: OnceLock<(RegexSet, Vec<String>)> = OnceLock::new();
    let (set, names) = DEVICE_SET.get_or_init(|| {
        let list: List = serde_json::from_str(DEVICES).expect("embedded OPAWG devices parse");
        let (patterns, names): (Vec<String>, Vec<String>) = list
            .entries
            .into_iter()
            .map(|e| (e.pattern, e.name))
            .unzip();
        let set = RegexSet::new(&patterns).expect("embedded OPAWG device patterns compile");
        (set, names)
    });
    match set.matches(user_agent.trim()).iter().next() {
        Some(index) => &names[index],
        None => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms() {
        for (ua, device) in [
            (
                "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X; en_us)",
                "Apple iPhone",
            ),
            (
                "AppleCoreMedia/1.0.0.20K71 (Apple TV; U; CPU OS 16_1 like Mac OS X; en_au)",
                "Apple TV",
            ),
            ("Spotify/8.8.0 Android/33 (SM-G991B)", "Android"),
            ("curl/8.5.0", "Unknown"),
            ("", "Unknown"),
        ] {
            assert!(platform(ua).contains(device), "{ua}: {}", platform(ua));
        }
        let list: List = serde_json::from_str(DEVICES).unwrap();
        for entry in list.entries {
            for example in entry.examples {
                assert_ne!(platform(&example), "Unknown", "{example}");
            }
        }
    }

    #[test]
    fn known_agents() {
        let cases = [
            (
                "Podcasts/1410.53 CFNetwork/1111 Darwin/19.0.0 (x86_64)",
                Agent::Client("Apple Podcasts".into()),
            ),
            (
                "Spotify/8.8.0 iOS/16.4 (iPhone15,2)",
                Agent::Client("Spotify".into()),
            ),
            (
                "Overcast/3.0 (+http://overcast.fm/; iOS podcast app)",
                Agent::Client("Overcast".into()),
            ),
            (
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                Agent::Bot("Googlebot".into()),
            ),
            ("curl/8.5.0", Agent::Bot("curl".into())),
            ("", Agent::Unknown),
            ("something nobody knows/1.0", Agent::Unknown),
        ];
        for (ua, expected) in cases {
            let got = classify(ua);
            match (&got, &expected) {
                // Names are the lists' own; check the kind and that the name mentions the app.
                (Agent::Client(g), Agent::Client(e)) | (Agent::Bot(g), Agent::Bot(e)) => {
                    assert!(
                        g.contains(e.as_str()),
                        "{ua}: {got:?}, expected {expected:?}"
                    )
                }
                _ => assert_eq!(got, expected, "{ua}"),
            }
        }
    }

    /// Every example in the lists classifies as its own entry or, where an earlier entry also
    /// matches (the lists allow overlaps; first match wins), as something of the same kind.
    #[test]
    fn every_example_of_the_lists_is_recognised() {
        let mut checked = 0;
        for (json, bot) in LISTS {
            let list: List = serde_json::from_str(json).unwrap();
            for entry in list.entries {
                for example in entry.examples {
                    let got = classify(&example);
                    if bot {
                        assert!(matches!(got, Agent::Bot(_)), "{example:?}: {got:?}");
                    } else {
                        assert!(
                            !matches!(got, Agent::Unknown),
                            "{example:?} of {}: unknown",
                            entry.name
                        );
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} examples");
    }
}
