//! Human-readable descriptions ("info" strings) in the spirit of file(1).

use super::facts::{AudioFacts, VideoFacts};

/// "44.1 kHz", "48 kHz", "22.05 kHz".
pub(crate) fn khz(rate: u32) -> String {
    let whole = rate / 1000;
    let frac = rate % 1000;
    if frac == 0 {
        return format!("{whole} kHz");
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{} kHz", digits.trim_end_matches('0'))
}

/// "Mono", "Stereo", "6 channels".
pub(crate) fn channels(n: u16) -> String {
    match n {
        1 => "Mono".to_owned(),
        2 => "Stereo".to_owned(),
        n => format!("{n} channels"),
    }
}

/// "128 kbps" (rounded to the nearest kbps).
pub(crate) fn kbps(bitrate: u32) -> String {
    format!("{} kbps", (u64::from(bitrate) + 500) / 1000)
}

/// Describes an audio stream after a format `label`. `bits` is the sample size of lossless and
/// PCM formats (shown instead of the bitrate); `vbr` marks a variable-bitrate MP3.
pub(crate) fn audio(label: &str, a: &AudioFacts, bits: Option<u32>, vbr: bool) -> String {
    let rate_part = match bits {
        Some(bits) => format!("{bits} bit"),
        None if vbr => format!("VBR {}", kbps(a.bitrate)),
        None => kbps(a.bitrate),
    };
    format!(
        "{label}, {rate_part}, {}, {}",
        khz(a.sample_rate),
        channels(a.channels)
    )
}

/// Describes a video stream after a format `label`: "MPEG-4 video, H.264, 1920 x 1080, 29.97 fps".
pub(crate) fn video(label: &str, v: &VideoFacts) -> String {
    let codec = match v.codec.as_str() {
        "h264" => "H.264",
        "hevc" => "HEVC",
        "vp8" => "VP8",
        "vp9" => "VP9",
        "av1" => "AV1",
        "mpeg4" => "MPEG-4 Part 2",
        "prores" => "ProRes",
        other => other,
    };
    let mut info = format!("{label}, {codec}, {} x {}", v.width, v.height);
    if v.frame_rate > 0.0 {
        info = format!("{info}, {} fps", v.frame_rate);
    }
    info
}

/// "PNG image, 1400 x 1400", and what breaks Apple's artwork rule, if anything:
/// "PNG image, 600 x 400 (as podcast artwork: not square, smaller than 1400 x 1400)".
pub(crate) fn image(label: &str, width: u32, height: u32) -> String {
    let check = super::ArtworkCheck::of(width, height);
    if check.problems.is_empty() {
        format!("{label}, {width} x {height}")
    } else {
        format!(
            "{label}, {width} x {height} (as podcast artwork: {})",
            check.problems.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(khz(44_100), "44.1 kHz");
        assert_eq!(khz(48_000), "48 kHz");
        assert_eq!(khz(22_050), "22.05 kHz");
        assert_eq!(khz(11_025), "11.025 kHz");
        assert_eq!(khz(0), "0 kHz");
        assert_eq!(channels(1), "Mono");
        assert_eq!(channels(6), "6 channels");
        assert_eq!(kbps(127_600), "128 kbps");
    }
}
