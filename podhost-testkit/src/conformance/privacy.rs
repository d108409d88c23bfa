//! Private stays private, over random histories: public and private podcasts, episodes created,
//! moved, published, unpublished and deleted, files shared between them, subscribers added and
//! revoked, privacy switched, the podcaster's word on a file. After every step, on two hosts of
//! one store: no URL ever handed to a subscriber serves anything without a live key, and the
//! public path serves exactly what is public now.
//!
//! The oracle is a plain model of the history and the rule in docs/features.md ("Private
//! podcasts"), computed from what uses each file after each step: a file any private podcast
//! has used is private unless the podcaster opened it; a private file is served on the public
//! path only while a public podcast shows it (its artwork, or a file of a published episode).
//!
//! [`history`] is the strategy; [`check_history`] runs one history and names the first
//! violation; [`private_stays_private`] is the conformance case (histories sampled with a fixed
//! seed, each in an account of its own); the testkit's `tests/privacy.rs` runs it as a proptest
//! that shrinks a failing history.

use std::sync::Arc;

use jiff::SignedDuration;
use object_store::ObjectStore;
use podhost_core::{
    EpisodeId, Error, FeedId, PodcastHost, Principal, Private,
    model::{EpisodePatch, FeedPatch, Media, MediaPatch, NewEpisode, NewFeed},
    publish::PublicFeed,
};
use proptest::prelude::*;

use crate::{TEST_PUBLIC_URL, fixtures, setup, test_host};

/// Audio files a history shares between its episodes.
const AUDIO: usize = 2;
/// Images (artwork, episode covers) a history shares.
const IMAGES: usize = 2;

/// One step of a history. Indexes pick among what exists when the step runs (modulo its count);
/// a step with nothing to pick from does nothing.
#[derive(Clone, Debug)]
pub enum Step {
    /// A new podcast.
    NewFeed {
        /// Private from the start.
        private: bool,
    },
    /// A podcast turned private or public.
    Privacy {
        /// Which podcast.
        feed: usize,
        /// Private or public.
        private: bool,
    },
    /// A podcast's artwork set (an image) or removed.
    Artwork {
        /// Which podcast.
        feed: usize,
        /// Which image; none removes it.
        image: Option<usize>,
    },
    /// A new episode, published (its date an hour ago) or a draft.
    NewEpisode {
        /// In which podcast.
        feed: usize,
        /// Its audio.
        audio: Option<usize>,
        /// Its cover.
        cover: Option<usize>,
        /// Published or a draft.
        public: bool,
    },
    /// An episode given other files.
    Files {
        /// Which episode.
        episode: usize,
        /// Its audio.
        audio: Option<usize>,
        /// Its cover.
        cover: Option<usize>,
    },
    /// An episode published or unpublished.
    Publish {
        /// Which episode.
        episode: usize,
        /// Published or a draft.
        public: bool,
    },
    /// An episode moved to a podcast: copied there (a draft) and deleted where it was.
    Move {
        /// Which episode.
        episode: usize,
        /// To which podcast.
        feed: usize,
    },
    /// An episode deleted.
    DeleteEpisode {
        /// Which episode.
        episode: usize,
    },
    /// A podcast deleted.
    DeleteFeed {
        /// Which podcast.
        feed: usize,
    },
    /// A subscriber added to a podcast.
    Subscribe {
        /// Which podcast.
        feed: usize,
    },
    /// A subscriber revoked.
    Revoke {
        /// Which subscriber.
        subscriber: usize,
    },
    /// The podcaster's word on a file's public URL (`PUT /api/media/{id}` with `private`).
    Say {
        /// Which file: audio first, then images.
        file: usize,
        /// Private, or open to anyone.
        private: bool,
    },
}

/// A history of 1 to `max` steps, podcasts and episodes made more often than removed.
pub fn history(max: usize) -> impl Strategy<Value = Vec<Step>> {
    let index = 0..8usize;
    let audio = proptest::option::of(0..AUDIO);
    let image = proptest::option::of(0..IMAGES);
    let step = prop_oneof![
        3 => any::<bool>().prop_map(|private| Step::NewFeed { private }),
        2 => (index.clone(), any::<bool>()).prop_map(|(feed, private)| Step::Privacy { feed, private }),
        1 => (index.clone(), image.clone()).prop_map(|(feed, image)| Step::Artwork { feed, image }),
        4 => (index.clone(), audio.clone(), image.clone(), any::<bool>()).prop_map(
            |(feed, audio, cover, public)| Step::NewEpisode { feed, audio, cover, public }
        ),
        2 => (index.clone(), audio, image).prop_map(|(episode, audio, cover)| Step::Files {
            episode,
            audio,
            cover
        }),
        2 => (index.clone(), any::<bool>()).prop_map(|(episode, public)| Step::Publish { episode, public }),
        1 => (index.clone(), index.clone()).prop_map(|(episode, feed)| Step::Move { episode, feed }),
        1 => index.clone().prop_map(|episode| Step::DeleteEpisode { episode }),
        1 => index.clone().prop_map(|feed| Step::DeleteFeed { feed }),
        2 => index.clone().prop_map(|feed| Step::Subscribe { feed }),
        1 => index.clone().prop_map(|subscriber| Step::Revoke { subscriber }),
        1 => (0..AUDIO + IMAGES, any::<bool>()).prop_map(|(file, private)| Step::Say { file, private }),
    ];
    proptest::collection::vec(step, 1..=max)
}

/// A podcast of the model.
struct ModelFeed {
    id: FeedId,
    private: bool,
    artwork: Option<usize>,
    deleted: bool,
}

/// An episode of the model.
struct ModelEpisode {
    feed: usize,
    id: EpisodeId,
    audio: Option<usize>,
    cover: Option<usize>,
    public: bool,
    deleted: bool,
}

/// A file of the model: what happened to it that the rule reads.
struct ModelFile {
    media: Media,
    /// Some private podcast used it at the end of some step.
    used_privately: bool,
    /// The podcaster's last word: private (`true`) or open.
    said: Option<bool>,
}

/// A subscriber of the model, and every URL their feeds ever carried.
struct ModelSubscriber {
    feed: usize,
    id: podhost_core::SubscriberId,
    key: String,
    revoked: bool,
    handed: Vec<String>,
}

/// The history so far, as a podcaster would describe it.
struct Model {
    account: String,
    feeds: Vec<ModelFeed>,
    episodes: Vec<ModelEpisode>,
    files: Vec<ModelFile>,
    subscribers: Vec<ModelSubscriber>,
}

/// The live one of `items` that `index` picks, by position among the live ones.
fn pick<T>(items: &[T], live: impl Fn(&T) -> bool, index: usize) -> Option<usize> {
    let live: Vec<usize> = (0..items.len()).filter(|&i| live(&items[i])).collect();
    (!live.is_empty()).then(|| live[index % live.len()])
}

impl Model {
    fn feed(&self, index: usize) -> Option<usize> {
        pick(&self.feeds, |f| !f.deleted, index)
    }

    fn episode(&self, index: usize) -> Option<usize> {
        pick(&self.episodes, |e| !e.deleted, index)
    }

    fn live_episodes(&self) -> impl Iterator<Item = &ModelEpisode> {
        self.episodes.iter().filter(|e| !e.deleted)
    }

    /// The files episode `e` uses, as indexes of `files`.
    fn files_of(e: &ModelEpisode) -> impl Iterator<Item = usize> {
        e.audio.into_iter().chain(e.cover.map(|c| AUDIO + c))
    }

    /// Whether podcast `f` uses file `file` now.
    fn feed_uses(&self, f: usize, file: usize) -> bool {
        self.feeds[f].artwork.map(|a| AUDIO + a) == Some(file)
            || self
                .live_episodes()
                .any(|e| e.feed == f && Self::files_of(e).any(|x| x == file))
    }

    /// Whether a public podcast shows `file` now: its artwork, or a file of a published episode.
    fn shown_publicly(&self, file: usize) -> bool {
        let public = |f: usize| !self.feeds[f].deleted && !self.feeds[f].private;
        let artwork = (0..self.feeds.len())
            .any(|f| public(f) && self.feeds[f].artwork.map(|a| AUDIO + a) == Some(file));
        artwork
            || self
                .live_episodes()
                .any(|e| e.public && public(e.feed) && Self::files_of(e).any(|x| x == file))
    }

    /// The rule: whether `file`'s public URL serves it now.
    fn public_now(&self, file: usize) -> bool {
        match self.files[file].said {
            Some(false) => true,
            Some(true) => self.shown_publicly(file),
            None => !self.files[file].used_privately || self.shown_publicly(file),
        }
    }

    /// Records which files private podcasts use after a step.
    fn note_private_uses(&mut self) {
        for file in 0..self.files.len() {
            let used = (0..self.feeds.len()).any(|f| {
                !self.feeds[f].deleted && self.feeds[f].private && self.feed_uses(f, file)
            });
            self.files[file].used_privately |= used;
        }
    }

    /// The file behind a blob.
    fn file_of_blob(&self, blob: &str) -> Option<usize> {
        self.files
            .iter()
            .position(|f| f.media.blob.as_str() == blob)
    }
}

/// A step's effect on the store, through the core as any frontend calls it.
async fn run_step(host: &PodcastHost, who: &Principal, m: &mut Model, step: &Step) {
    let now = host.now();
    let media = |m: &Model, file: Option<usize>| file.map(|f| m.files[f].media.id);
    match *step {
        Step::NewFeed { private } => {
            let id = format!("{}-f{}", m.account, m.feeds.len());
            let mut new = NewFeed::titled(id.as_str(), id.as_str());
            new.fields.private = Some(private);
            let feed = host
                .podcasts()
                .create_feed(who, new)
                .await
                .expect("podcast created");
            m.feeds.push(ModelFeed {
                id: feed.feed.id,
                private,
                artwork: None,
                deleted: false,
            });
        }
        Step::Privacy { feed, private } => {
            let Some(f) = m.feed(feed) else { return };
            let patch = FeedPatch {
                private: Some(private),
                ..Default::default()
            };
            host.podcasts()
                .update_feed(who, &m.feeds[f].id, &patch)
                .await
                .expect("privacy switched");
            m.feeds[f].private = private;
        }
        Step::Artwork { feed, image } => {
            let Some(f) = m.feed(feed) else { return };
            let patch = FeedPatch {
                logo: Some(media(m, image.map(|i| AUDIO + i))),
                ..Default::default()
            };
            host.podcasts()
                .update_feed(who, &m.feeds[f].id, &patch)
                .await
                .expect("artwork set");
            m.feeds[f].artwork = image;
        }
        Step::NewEpisode {
            feed,
            audio,
            cover,
            public,
        } => {
            let Some(f) = m.feed(feed) else { return };
            let mut new = NewEpisode::titled(format!("Episode {}", m.episodes.len()));
            new.fields.media = Some(media(m, audio));
            new.fields.itunes_logo = Some(media(m, cover.map(|c| AUDIO + c)));
            new.fields.is_public = Some(public);
            new.fields.publish_at = Some(now - SignedDuration::from_hours(1));
            let made = host
                .podcasts()
                .create_episode(who, &m.feeds[f].id, new)
                .await
                .expect("episode created");
            m.episodes.push(ModelEpisode {
                feed: f,
                id: made.episode.id,
                audio,
                cover,
                public,
                deleted: false,
            });
        }
        Step::Files {
            episode,
            audio,
            cover,
        } => {
            let Some(e) = m.episode(episode) else { return };
            let patch = EpisodePatch {
                media: Some(media(m, audio)),
                itunes_logo: Some(media(m, cover.map(|c| AUDIO + c))),
                ..Default::default()
            };
            let feed = &m.feeds[m.episodes[e].feed].id;
            host.podcasts()
                .update_episode(who, feed, m.episodes[e].id, &patch)
                .await
                .expect("files changed");
            m.episodes[e].audio = audio;
            m.episodes[e].cover = cover;
        }
        Step::Publish { episode, public } => {
            let Some(e) = m.episode(episode) else { return };
            let patch = EpisodePatch {
                is_public: Some(public),
                ..Default::default()
            };
            let feed = &m.feeds[m.episodes[e].feed].id;
            host.podcasts()
                .update_episode(who, feed, m.episodes[e].id, &patch)
                .await
                .expect("publication changed");
            m.episodes[e].public = public;
        }
        Step::Move { episode, feed } => {
            let (Some(e), Some(to)) = (m.episode(episode), m.feed(feed)) else {
                return;
            };
            let from = &m.feeds[m.episodes[e].feed].id;
            let copy = host
                .podcasts()
                .copy_episode(who, from, m.episodes[e].id, Some(&m.feeds[to].id))
                .await
                .expect("episode copied");
            host.podcasts()
                .delete_episode(who, from, m.episodes[e].id)
                .await
                .expect("original deleted");
            m.episodes[e].deleted = true;
            let (audio, cover) = (m.episodes[e].audio, m.episodes[e].cover);
            m.episodes.push(ModelEpisode {
                feed: to,
                id: copy.episode.id,
                audio,
                cover,
                public: false,
                deleted: false,
            });
        }
        Step::DeleteEpisode { episode } => {
            let Some(e) = m.episode(episode) else { return };
            let feed = &m.feeds[m.episodes[e].feed].id;
            host.podcasts()
                .delete_episode(who, feed, m.episodes[e].id)
                .await
                .expect("episode deleted");
            m.episodes[e].deleted = true;
        }
        Step::DeleteFeed { feed } => {
            let Some(f) = m.feed(feed) else { return };
            host.podcasts()
                .delete_feed(who, &m.feeds[f].id)
                .await
                .expect("podcast deleted");
            m.feeds[f].deleted = true;
            for e in m.episodes.iter_mut().filter(|e| e.feed == f) {
                e.deleted = true;
            }
        }
        Step::Subscribe { feed } => {
            let Some(f) = m.feed(feed) else { return };
            let s = host
                .delivery()
                .add_subscriber(who, &m.feeds[f].id, "listener")
                .await
                .expect("subscriber added");
            m.subscribers.push(ModelSubscriber {
                feed: f,
                id: s.id.clone(),
                key: s.key().to_string(),
                revoked: false,
                handed: vec![host.delivery().subscriber_feed_url(&s)],
            });
        }
        Step::Revoke { subscriber } => {
            let Some(s) = pick(&m.subscribers, |s| !s.revoked, subscriber) else {
                return;
            };
            let sub = &m.subscribers[s];
            host.delivery()
                .remove_subscriber(who, &m.feeds[sub.feed].id, &sub.id)
                .await
                .expect("subscriber revoked");
            m.subscribers[s].revoked = true;
        }
        Step::Say { file, private } => {
            let patch = MediaPatch {
                private: Some(private),
                ..Default::default()
            };
            host.podcasts()
                .update_media(who, m.files[file].media.id, patch)
                .await
                .expect("the podcaster's word taken");
            m.files[file].said = Some(private);
        }
    }
    m.note_private_uses();
}

/// Every URL of the deployment in `xml`.
fn deployment_urls(xml: &str) -> Vec<String> {
    xml.match_indices(TEST_PUBLIC_URL)
        .map(|(at, _)| {
            let rest = &xml[at..];
            let end = rest.find(['"', '<']).unwrap_or(rest.len());
            rest[..end].replace("&amp;", "&")
        })
        .collect()
}

/// What the model says of every URL, checked on one host; the first violation, named.
async fn check(host: &PodcastHost, m: &mut Model, on: &str) -> Result<(), String> {
    // The public path serves exactly what is public now.
    for (file, f) in m.files.iter().enumerate() {
        let served = host
            .delivery()
            .public_media(&m.account, f.media.blob.as_str())
            .await
            .is_ok();
        if served != m.public_now(file) {
            return Err(format!(
                "{on}: the public URL of file {file} serves: {served}, public now: {}",
                m.public_now(file)
            ));
        }
    }
    // A public podcast's feed links only what the public path serves; a private one has none.
    for f in m.feeds.iter().filter(|f| !f.deleted) {
        match (host.delivery().public_feed(&f.id).await, f.private) {
            (Ok(PublicFeed::Live(feed)), false) => {
                let xml = String::from_utf8_lossy(&feed.xml).into_owned();
                for url in deployment_urls(&xml) {
                    let Some(blob) = url
                        .split("/media/")
                        .nth(1)
                        .and_then(|p| p.split('/').nth(1))
                    else {
                        continue;
                    };
                    if host
                        .delivery()
                        .public_media(&m.account, blob)
                        .await
                        .is_err()
                    {
                        return Err(format!(
                            "{on}: the public feed {} links {url}, not served",
                            f.id
                        ));
                    }
                }
            }
            (Err(Error::NotFound { .. }), true) => {}
            (other, private) => {
                return Err(format!(
                    "{on}: the public feed of {} (private: {private}) answered {:?}",
                    f.id,
                    other.map(|_| "a feed")
                ));
            }
        }
    }
    // Each subscriber's feed: live with a live key, every link under their key; gone after.
    for s in 0..m.subscribers.len() {
        let sub = &m.subscribers[s];
        let feed = &m.feeds[sub.feed];
        let live = !sub.revoked && !feed.deleted;
        let prefix = format!("{}/private/{}/{}/", TEST_PUBLIC_URL, feed.id, sub.key);
        match (host.delivery().private_feed(&feed.id, &sub.key).await, live) {
            (Ok(Private::Live(rendered)), true) => {
                let xml = String::from_utf8_lossy(&rendered.xml).into_owned();
                for url in deployment_urls(&xml) {
                    if !url.starts_with(&prefix) {
                        return Err(format!("{on}: a subscriber's feed carries {url}"));
                    }
                    if !m.subscribers[s].handed.contains(&url) {
                        m.subscribers[s].handed.push(url);
                    }
                }
            }
            (Ok(Private::Gone), false) => {}
            (other, live) => {
                return Err(format!(
                    "{on}: subscriber {s}'s feed (live: {live}) answered {:?}",
                    other.map(|p| matches!(p, Private::Live(_)))
                ));
            }
        }
    }
    // Every file URL ever handed to a subscriber: served only with a live key, and only what
    // the podcast uses now.
    for sub in &m.subscribers {
        let feed = &m.feeds[sub.feed];
        let live = !sub.revoked && !feed.deleted;
        for url in &sub.handed {
            let Some(rest) = url.split("/media/").nth(1) else {
                continue;
            };
            let blob = rest.split('/').next().unwrap_or_default();
            let file = m
                .file_of_blob(blob)
                .ok_or(format!("{on}: {url} names no file"))?;
            let answer = host
                .delivery()
                .private_media(&feed.id, &sub.key, blob)
                .await;
            let served = matches!(answer, Ok(Private::Live(_)));
            let expected = live && m.feed_uses(sub.feed, file);
            if served != expected {
                return Err(format!(
                    "{on}: {url} serves: {served}, expected {expected} (key live: {live})"
                ));
            }
            if !live && !matches!(answer, Ok(Private::Gone)) {
                return Err(format!("{on}: {url} with a dead key is not gone"));
            }
        }
    }
    Ok(())
}

/// Runs `steps` in a new account `account` of `host`, checking after every step on `host` and
/// on `other` (another host of the same store). `Err` names the first violation.
pub async fn check_history(
    host: &PodcastHost,
    other: &PodcastHost,
    account: &str,
    steps: &[Step],
) -> Result<(), String> {
    let who = setup::account(host, account).await;
    let mut files = Vec::new();
    for n in 0..AUDIO {
        let bytes = fixtures::wav(0.5 + n as f64 / 4.0, 8000);
        files.push(setup::upload(host, &who, &format!("audio{n}.wav"), bytes).await);
    }
    for n in 0..IMAGES {
        let bytes = fixtures::png(64 + n as u32, 64);
        files.push(setup::upload(host, &who, &format!("image{n}.png"), bytes).await);
    }
    let mut m = Model {
        account: account.to_string(),
        feeds: Vec::new(),
        episodes: Vec::new(),
        files: files
            .into_iter()
            .map(|media| ModelFile {
                media,
                used_privately: false,
                said: None,
            })
            .collect(),
        subscribers: Vec::new(),
    };
    for (n, step) in steps.iter().enumerate() {
        run_step(host, &who, &mut m, step).await;
        for (h, name) in [(host, "the writing host"), (other, "another host")] {
            let on = format!("after step {n} ({step:?}), on {name}");
            check(h, &mut m, &on).await?;
        }
    }
    Ok(())
}

/// The conformance case: 12 histories of up to 24 steps, sampled with a fixed seed, each in
/// an account of its own, written by one host and checked on it and on a second.
pub async fn private_stays_private(store: Arc<dyn ObjectStore>) {
    use proptest::strategy::ValueTree;
    let (host, _) = test_host(store.clone());
    let (other, _) = test_host(store);
    // Sampled before the first await: a strategy is not `Send`.
    let histories: Vec<Vec<Step>> = {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = history(24);
        (0..12)
            .map(|_| strategy.new_tree(&mut runner).expect("a history").current())
            .collect()
    };
    for (case, steps) in histories.into_iter().enumerate() {
        let account = format!("privacy{case}");
        if let Err(violation) = check_history(&host, &other, &account, &steps).await {
            panic!("{violation}\nthe history: {steps:#?}");
        }
    }
}
