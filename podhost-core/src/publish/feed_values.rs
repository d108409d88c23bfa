//! Values as feeds write them: dates in RFC 2822, enclosure types as apps know them, yes and no.

use jiff::Timestamp;

/// RFC 2822 date, as RSS 2.0 wants it.
pub(crate) fn rfc2822(t: Timestamp) -> String {
    t.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string()
}

/// The MIME type of an enclosure as podcast apps know it: Apple Podcasts (and badpod, and
/// most apps after them) take MPEG-4 audio as `audio/x-m4a`, not the registered `audio/mp4`.
pub(crate) fn enclosure_type(mime: &str) -> &str {
    match mime {
        "audio/mp4" => "audio/x-m4a",
        other => other,
    }
}

pub(crate) fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
