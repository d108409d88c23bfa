//! A demo podcast with every field podhost models filled (`podhost demo`): a newcomer sees a
//! complete feed and page at once, and the tests check that very feed with real parsers. Its
//! audio (tones between pauses) and artwork are made here, so nothing is fetched.

use bytes::Bytes;
use serde_json::{Map, Value, json};

use crate::{
    PodcastHost,
    error::{Error, Result},
    ids::FeedId,
    model::{EpisodePatch, EpisodeType, FeedPatch, Funding, NewEpisode, NewFeed, NewMedia},
    principal::Principal,
};

/// What [`PodcastHost::create_demo`] made.
#[derive(Debug, Clone)]
pub struct Demo {
    /// The podcast.
    pub feed: FeedId,
    /// Its episodes, by title.
    pub episodes: Vec<String>,
}

/// The demo's channel tags (every Podcasting 2.0 channel tag podhost models).
pub fn channel_tags() -> Map<String, Value> {
    object(json!({
        "person": [
            {"name": "Alice Host", "role": "host", "group": "cast", "img": "https://example.com/alice.jpg", "href": "https://example.com/alice"},
            {"name": "Bob Producer", "role": "producer", "group": "creative direction"}
        ],
        "location": {"name": "Austin, TX", "geo": "geo:30.2672,-97.7431", "osm": "R113314"},
        "trailer": [{"title": "Season 1 trailer", "pubdate": "Thu, 01 Jan 2026 12:00:00 +0000", "url": "https://example.com/trailer.mp3", "length": 12345, "type": "audio/mpeg", "season": 1}],
        "license": {"name": "cc-by-4.0"},
        "block": [{"blocked": false, "id": "spotify"}],
        "txt": [{"text": "podhost-demo-verification", "purpose": "verify"}],
        "podroll": [{"feedGuid": "917393e3-1b1e-5cef-ace4-edaa54e1f810", "feedUrl": "https://example.com/friends/feed.xml"}],
        "updateFrequency": {"text": "Weekly", "rrule": "FREQ=WEEKLY", "complete": false},
        "value": {"type": "lightning", "method": "keysend", "suggested": "0.00000005000",
                  "recipients": [{"name": "Alice", "type": "node", "address": "02d5c1bf8b940dc9cadca86d1b0a3c37fbe39cee4c7e839e33bef9174531d27f52", "split": 95},
                                 {"name": "Podcastindex.org", "type": "node", "address": "03ae9f91a0cb8ff43840e3c322c4c61f019d8c1c3cea15a25cfc425ac605e61a4a", "split": 5, "fee": true}]},
        "liveItem": [{"status": "pending", "start": "2027-01-01T16:00:00Z", "end": "2027-01-01T17:00:00Z", "title": "Live Q&A", "guid": "podhost-demo-live-1",
                      "url": "https://example.com/live/stream.mp3", "type": "audio/mpeg",
                      "contentLink": [{"href": "https://example.com/live", "text": "Watch the stream"}],
                      "chat": {"server": "irc.zeronode.net", "protocol": "irc", "space": "#podhost-demo"},
                      "liveValue": {"uri": "https://example.com/live/value", "protocol": "socket.io"}}],
        "chat": {"server": "irc.zeronode.net", "protocol": "irc", "accountId": "@podhost", "space": "#podhost-demo"},
        "publisher": {"feedGuid": "003af0a0-6a45-55cf-b765-68e3d349551a", "feedUrl": "https://example.com/publisher/feed.xml", "medium": "publisher"},
        "image": [{"href": "https://example.com/banner.jpg", "alt": "The demo's banner", "aspectRatio": "3/1", "width": 3000, "purpose": "banner"}],
        "id": [{"platform": "podcastindex", "id": "920666", "url": "https://podcastindex.org/podcast/920666"}],
        "social": [{"platform": "activitypub", "url": "https://podcastindex.social/@podhost", "podcastAccountId": "@podhost@podcastindex.social", "priority": 1,
                    "socialSignUp": [{"homeUrl": "https://podcastindex.social", "signUpUrl": "https://podcastindex.social/auth/sign_up", "priority": 1}]}],
        "recommendations": [{"url": "https://example.com/recommendations.json", "type": "application/json", "language": "en", "text": "What we listen to"}]
    }))
}

/// The demo's item tags for episode `n` (every Podcasting 2.0 item tag podhost models).
pub fn item_tags(n: u32) -> Map<String, Value> {
    object(json!({
        "transcripts": [
            {"url": format!("https://example.com/episode-{n}.vtt"), "type": "text/vtt", "language": "en", "rel": "captions"},
            {"url": format!("https://example.com/episode-{n}.json"), "type": "application/json", "language": "en"}
        ],
        "soundbite": [{"startTime": 1.0, "duration": 3.0, "text": format!("The best part of episode {n}")}],
        "person": [{"name": "Carol Guest", "role": "guest", "href": "https://example.com/carol"}],
        "location": {"name": "Berlin", "geo": "geo:52.52,13.405"},
        "season": {"number": 1, "name": "Beginnings"},
        "episode": {"number": n, "display": format!("Ch. {n}")},
        "license": {"name": "cc-by-sa-4.0", "url": "https://creativecommons.org/licenses/by-sa/4.0/"},
        "alternateEnclosure": [{"type": "audio/opus", "length": 32400, "bitrate": 96000.0, "title": "Opus", "default": false,
                                "source": [{"uri": format!("https://example.com/episode-{n}.opus")}, {"uri": "ipfs://QmdwGqd3d2gFPGeJNLLCshdiPert45fMu84552Y4XHTy4y"}],
                                "integrity": {"type": "sri", "value": "sha384-ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo"}}],
        "value": {"type": "lightning", "method": "keysend",
                  "recipients": [{"name": "Alice", "type": "node", "address": "02d5c1bf8b940dc9cadca86d1b0a3c37fbe39cee4c7e839e33bef9174531d27f52", "split": 100}],
                  "timeSplits": [{"startTime": 2, "duration": 4, "remotePercentage": 95,
                                  "remoteItem": {"feedGuid": "a94f5cc9-8c58-55fc-91fe-a324087a655b", "itemGuid": "https://podcastindex.org/podcast/4148683#1"}}]},
        "socialInteract": [{"uri": format!("https://podcastindex.social/@podhost/{n}"), "protocol": "activitypub", "accountId": "@podhost", "priority": 1}],
        "txt": [{"text": format!("demo episode {n}")}],
        "chat": {"server": "irc.zeronode.net", "protocol": "irc", "space": format!("#episode-{n}")},
        "image": [{"href": format!("https://example.com/episode-{n}-social.jpg"), "purpose": "social", "width": 1200}],
        "recommendations": [{"url": format!("https://example.com/episode-{n}-recommendations.json"), "type": "application/json"}]
    }))
}

/// `n` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `seconds` of a tone at `hz` with a second of silence in the middle, mastered as a podcast
/// app expects it: MP3, mono at 44.1 kHz and 64 kbit/s, at -19 LUFS; and, in a build with the
/// `opus` feature, the same as Opus (its alternate enclosure).
fn tone(seconds: u32, hz: f32) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    use crate::analysis::Tap;
    use crate::master::{Master, MasterOptions};
    const RATE: u32 = 44_100;
    let total = seconds * RATE;
    let quiet = (total / 2)..(total / 2 + RATE);
    let samples: Vec<f32> = (0..total)
        .map(|i| {
            if quiet.contains(&i) {
                0.0
            } else {
                (i as f32 / RATE as f32 * hz * std::f32::consts::TAU).sin() * 0.25
            }
        })
        .collect();
    let mut meter = crate::analysis::LoudnessMeter::new(1, RATE).map_err(Error::storage)?;
    meter.push(&[&samples]);
    let params = match crate::master::Format::from_name("opus") {
        Ok(_) => serde_json::json!({"alternates": ["opus"]}),
        Err(_) => serde_json::Value::Null,
    };
    let options = MasterOptions::from_params(&params, 1)?;
    let mut master = Master::new(options, Master::gain_for(&options, &meter.finish()), 1);
    master.frames(&[&samples], RATE);
    let made = master.finish().map_err(|e| Error::storage(e.to_string()))?;
    let mut files = made.files.into_iter().map(|(_, bytes)| bytes);
    let mp3 = files.next().unwrap_or_default();
    Ok((mp3, files.next()))
}

/// Square artwork of Apple's smallest size (1,400 px), a two-colour gradient, as PNG.
fn artwork() -> Result<Vec<u8>> {
    const SIDE: u32 = 1400;
    let mut pixels = Vec::with_capacity((SIDE * SIDE * 3) as usize);
    for y in 0..SIDE {
        for x in 0..SIDE {
            pixels.extend_from_slice(&[(x * 255 / SIDE) as u8, 0x38, (y * 255 / SIDE) as u8]);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIDE, SIDE);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| Error::storage(e.to_string()))?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| Error::storage(e.to_string()))?;
    writer.finish().map_err(|e| Error::storage(e.to_string()))?;
    Ok(out)
}

impl PodcastHost {
    /// Makes a demo podcast `feed` for the caller (scopes media, feeds and shows): every field
    /// podhost models filled, Podcasting 2.0 tags included, artwork and `episodes` published
    /// episodes with generated audio. `Conflict` when the id is taken.
    pub async fn create_demo(&self, who: &Principal, feed: &str, episodes: u32) -> Result<Demo> {
        let upload = |name: &str, bytes: Vec<u8>| {
            let new = NewMedia {
                name: name.to_string(),
                category: Some("demo".into()),
            };
            let body = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(bytes))]);
            self.podcasts().upload_media(who, new, body)
        };
        let cover = upload("podhost-demo-cover.png", artwork()?).await?;
        let fields = FeedPatch {
            title: Some("The podhost Demo".into()),
            description: Some(
                "<p>A demo podcast made by <b>podhost demo</b>: every field podhost models, \
                 <a href=\"https://podcastindex.org/namespace/1.0\">Podcasting 2.0</a> tags \
                 included.</p>"
                    .into(),
            ),
            language: Some("en".into()),
            copyright: Some("© 2026 podhost".into()),
            link: Some("https://example.com/".into()),
            logo: Some(Some(cover.id)),
            itunes_subtitle: Some("Everything a feed can say".into()),
            itunes_summary: Some("Every field of a podcast and its episodes, filled.".into()),
            itunes_author: Some("Alice Host".into()),
            itunes_category: Some("Technology".into()),
            itunes_explicit: Some(false),
            itunes_owner_name: Some("Alice Host".into()),
            itunes_owner_email: Some("alice@example.com".into()),
            googleplay_author: Some("Alice Host".into()),
            googleplay_description: Some("A demo podcast made by podhost.".into()),
            podcast_locked: Some(true),
            podcast_funding: Some(vec![Funding {
                url: "https://example.com/support".into(),
                text: "Support the show".into(),
            }]),
            podcast_medium: Some("podcast".into()),
            podcast_tags: channel_tags(),
            ..Default::default()
        };
        let view = self
            .podcasts()
            .create_feed(
                who,
                NewFeed {
                    id: feed.to_string(),
                    fields,
                },
            )
            .await?;
        let feed = view.feed.id;
        let now = self.now();
        let mut titles = Vec::new();
        for n in 1..=episodes.max(1) {
            // The audio, staged with its chapters (published as podcast:chapters) and committed
            // with the episode.
            let (mp3, opus) = tone(6 + n, 220.0 * n as f32)?;
            let mut tags = item_tags(n);
            if let Some(opus) = opus {
                // The Opus encoding as the alternate enclosure: type, length, URL and
                // integrity come from the file.
                let opus = upload(&format!("podhost-demo-{n}.opus"), opus).await?;
                tags.insert(
                    "alternateEnclosure".into(),
                    json!([{"media": opus.id, "type": "audio/opus", "title": "Opus", "codecs": "opus", "default": false,
                            "source": [{"uri": "ipfs://QmdwGqd3d2gFPGeJNLLCshdiPert45fMu84552Y4XHTy4y"}]}]),
                );
            }
            let body = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(mp3))]);
            let mut audio = self
                .podcasts()
                .stage_upload(
                    who,
                    crate::UploadTarget::Episode(feed.clone()),
                    &format!("podhost-demo-{n}.mp3"),
                    body,
                )
                .await?;
            audio.set_chapters(vec![
                crate::tags::Chapter {
                    start_ms: 0,
                    end_ms: None,
                    title: "The first tone".into(),
                    url: None,
                },
                crate::tags::Chapter {
                    start_ms: u64::from(6 + n) * 500 + 1_000,
                    end_ms: None,
                    title: "The second tone".into(),
                    url: Some("https://example.com/tones".into()),
                },
            ]);
            let title = format!("Episode {n}: a tone of {} Hz", 220 * n);
            let episode = NewEpisode {
                guid: Some(format!("podhost-demo-{feed}-{n}")),
                fields: EpisodePatch {
                    title: Some(title.clone()),
                    subtitle: Some(format!("The {} demo episode", ordinal(n))),
                    description: Some(format!(
                        "<p>Episode {n} of the demo: a tone, a pause, a tone.</p><ul><li>Chapters and ad breaks can be added with <code>podhost metadata set</code>.</li></ul>"
                    )),
                    author: Some("Alice Host".into()),
                    link: Some(format!("https://example.com/episodes/{n}")),
                    is_public: Some(true),
                    publish_at: Some(
                        now - jiff::SignedDuration::from_hours(24 * i64::from(episodes + 1 - n)),
                    ),
                    itunes_title: Some(format!("A tone of {} Hz", 220 * n)),
                    itunes_summary: Some(format!("Episode {n} of the podhost demo.")),
                    itunes_author: Some("Alice Host".into()),
                    itunes_episode: Some(Some(n)),
                    itunes_season: Some(Some(1)),
                    itunes_episode_type: Some(EpisodeType::Full),
                    itunes_explicit: Some(Some(false)),
                    podcast_tags: tags,
                    ..Default::default()
                },
            };
            let files = crate::EpisodeFiles {
                media: Some(audio),
                cover: None,
                transcript: None,
            };
            self.podcasts()
                .create_episode_with_files(who, &feed, episode, files)
                .await?;
            titles.push(title);
        }
        Ok(Demo {
            feed,
            episodes: titles,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinals_read_as_english() {
        let cases = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (10, "10th"),
            (11, "11th"),
            (12, "12th"),
            (13, "13th"),
            (21, "21st"),
            (22, "22nd"),
            (23, "23rd"),
            (101, "101st"),
            (111, "111th"),
            (112, "112th"),
        ];
        for (n, expected) in cases {
            assert_eq!(super::ordinal(n), expected, "{n}");
        }
    }
}
