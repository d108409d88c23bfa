//! A video on the public pages: the `<video>` of an episode's page and of its embedded player,
//! which starts at the rung of the HLS ladder that fits the box it is shown in.
//!
//! A browser's own HLS player starts at the first variant of the multivariant playlist
//! (Safari) or at the one of the least bandwidth (Chromium), so the pages' `<video>` plays
//! `master.m3u8?from={rung}`: the renditions from the rung that fits up, that rung first
//! ([`crate::hls::playlist::multivariant_from`]). The uploaded file follows it, for a browser
//! that plays no HLS (Firefox). The element's `width` and `height` are the rung's picture, so
//! the pages' style (`width: 100%; height: auto`) gives it the video's aspect before it loads.

use crate::{ids::AccountId, model::Media, urls::Urls};

/// The width of the episode page's card, inside its padding, in CSS pixels (`.wrap`'s 50rem
/// less its padding and the card's).
pub(crate) const CARD_WIDTH: u32 = 712;

/// The box of the embedded player's video, in CSS pixels: its 600 px less the padding, and
/// `player.css`'s `max-height` of 14rem.
pub(crate) const PLAYER_BOX: (u32, u32) = (572, 224);

/// What a page's `<video>` plays and how large it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PageVideo {
    /// The HLS stream from the rung that fits (none before the video is packaged).
    pub stream: Option<String>,
    /// The uploaded file.
    pub file: String,
    /// The uploaded file's media type.
    pub mime: String,
    /// The picture's width: the rung's, else the file's.
    pub width: u32,
    /// The picture's height.
    pub height: u32,
}

/// The `<video>` of `video` shown in a box of `fit` (width, height) CSS pixels: the smallest
/// rung of its ladder at least as wide as the picture is shown (the box's width, or less when
/// the box's height bounds it), else the top.
pub(crate) fn page_video(
    urls: &Urls,
    account: &AccountId,
    video: &Media,
    fit: (u32, u32),
) -> PageVideo {
    let file = urls.media(account, video);
    let mime = video.facts.mime.clone();
    let facts = video.facts.video.as_deref();
    let (source_width, source_height) = facts.map_or((16, 9), |v| (v.width, v.height));
    let unpackaged = |file, mime| PageVideo {
        stream: None,
        file,
        mime,
        width: source_width,
        height: source_height,
    };
    let Some(streamed) = video.results.hls.as_deref() else {
        return unpackaged(file, mime);
    };
    let (top_width, top_height) = (streamed.width.max(2), streamed.height.max(2));
    // Renditions are top first, `{height}p`, then `audio`.
    let rungs: Vec<(&str, u32, u32)> = streamed
        .renditions
        .iter()
        .filter_map(|name| {
            let height: u32 = name.strip_suffix('p')?.parse().ok()?;
            let width = match height == top_height {
                true => top_width,
                false => {
                    (u64::from(top_width) * u64::from(height) / u64::from(top_height)) as u32 / 2
                        * 2
                }
            };
            Some((name.as_str(), width, height))
        })
        .collect();
    let shown = u64::from(fit.0)
        .min(u64::from(fit.1) * u64::from(top_width) / u64::from(top_height))
        as u32;
    let chosen = rungs
        .iter()
        .rev()
        .find(|(_, width, _)| *width >= shown)
        .or(rungs.first());
    match chosen {
        Some(&(name, width, height)) => PageVideo {
            stream: Some(format!("{}?from={name}", urls.stream(account, video))),
            file,
            mime,
            width,
            height,
        },
        None => unpackaged(file, mime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn video(id: u64) -> Media {
        let audio = crate::probe::AudioFacts {
            codec: "aac".into(),
            duration_ms: 20_000,
            bitrate: 128_000,
            sample_rate: 48_000,
            channels: 2,
            profile: Some("LC".into()),
        };
        Media::audio_for_test(id, "v.mp4", "video/mp4", audio)
    }

    fn shown(media: &Media, fit: (u32, u32)) -> PageVideo {
        page_video(
            &Urls::new("https://pod.example"),
            &"alice".parse().unwrap(),
            media,
            fit,
        )
    }

    fn rung_of(top: (u32, u32), names: &[&str], fit: (u32, u32)) -> (Option<String>, u32, u32) {
        let mut media = video(1);
        media.results.hls = Some(Box::new(crate::model::Streamed {
            job: "job_abcdefghij0123456789".parse().unwrap(),
            width: top.0,
            height: top.1,
            bitrate: 0,
            length: 0,
            renditions: names.iter().map(|n| n.to_string()).collect(),
            soundtrack: None,
        }));
        let shown = shown(&media, fit);
        let from = shown
            .stream
            .map(|s| s.split("?from=").nth(1).unwrap().to_string());
        (from, shown.width, shown.height)
    }

    #[test]
    fn the_video_starts_at_the_smallest_rung_as_wide_as_its_box() {
        let ladder = ["1080p", "720p", "480p", "360p", "240p", "audio"];
        let unbounded = (CARD_WIDTH, u32::MAX);
        // The page's card, 712 px: 480p (852 px), not the lowest.
        assert_eq!(
            rung_of((1920, 1080), &ladder, unbounded),
            (Some("480p".into()), 852, 480)
        );
        // The player's box, 572 × 224: the picture is 398 px wide, so 240p (426 px).
        assert_eq!(
            rung_of((1920, 1080), &ladder, PLAYER_BOX),
            (Some("240p".into()), 426, 240)
        );
        // A source narrower than the box: its top.
        assert_eq!(
            rung_of((640, 360), &["360p", "240p", "audio"], unbounded),
            (Some("360p".into()), 640, 360)
        );
        // An upright video: no rung is as wide as the card, so its top.
        assert_eq!(
            rung_of((606, 1080), &["1080p", "720p", "audio"], unbounded),
            (Some("1080p".into()), 606, 1080)
        );
        // Not packaged yet: the file alone.
        assert_eq!(shown(&video(2), unbounded).stream, None);
    }
}
