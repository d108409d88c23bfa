//! What podcast apps fetch, without a token: feeds, files, chapters.

use podhost_core::FeedId;

use crate::routes::{Shape, Spec, declare::endpoints};

endpoints! {
    /// What podcast apps fetch, without a token: feeds, files, chapters.
    pub enum PublicEndpoint: Public, tag "public";

    /// the podcast's RSS feed (validators, 304, gzip)
    Rss { feed_id: FeedId } = GET "/feeds/{feed_id}/rss",
        Spec::open()
            .answers(200, "the feed", Shape::Document("application/rss+xml"))
            .errors(&[301, 304, 404, 410]);

    /// a file's bytes (ranges, validators; counted for statistics)
    Download { account: String, blob: String, name: String } = GET "/media/{account}/{blob}/{name}",
        Spec::open()
            .answers(200, "the file", Shape::Document("*/*"))
            .errors(&[206, 302, 304, 404, 416]);

    /// a subscriber's feed of a private podcast (blocked from directories)
    PrivateRss { feed_id: FeedId, key: String } = GET "/private/{feed_id}/{key}/rss",
        Spec::open()
            .answers(200, "the feed", Shape::Document("application/rss+xml"))
            .errors(&[304, 404, 410]);

    /// a file of a private podcast, through a subscriber's key (ranges, validators)
    PrivateDownload { feed_id: FeedId, key: String, blob: String, name: String } = GET "/private/{feed_id}/{key}/media/{blob}/{name}",
        Spec::open()
            .answers(200, "the file", Shape::Document("*/*"))
            .errors(&[206, 302, 304, 404, 410, 416]);

    /// a private podcast's file's chapters as JSON, through a subscriber's key (podcast:chapters)
    PrivateChapters { feed_id: FeedId, key: String, blob: String } = GET "/private/{feed_id}/{key}/chapters/{blob}.json",
        Spec::open()
            .answers(200, "the chapters", Shape::Document(podhost_core::publish::chapters::MIME))
            .errors(&[404, 410]);

    /// a video's HLS stream: its multivariant playlist (every rendition, the audio-only variant,
    /// the I-frame playlists)
    Stream { account: String, blob: String } = GET "/media/{account}/{blob}/hls/master.m3u8",
        Spec::open()
            .answers(200, "the playlist", Shape::Document("application/vnd.apple.mpegurl"))
            .errors(&[304, 404]);

    /// a file of one rendition of a video's HLS stream: `index.m3u8`, `iframes.m3u8`,
    /// `init.mp4` or a segment `{n:05}.m4s` (ranges, validators; segments immutable)
    StreamFile { account: String, blob: String, track: String, file: String } = GET "/media/{account}/{blob}/hls/{track}/{file}",
        Spec::open()
            .answers(200, "the playlist or segment", Shape::Document("*/*"))
            .errors(&[206, 302, 304, 404, 416]);

    /// a private podcast's video's HLS stream through a subscriber's key: its multivariant
    /// playlist (every URI in it relative, so under the key)
    PrivateStream { feed_id: FeedId, key: String, blob: String } = GET "/private/{feed_id}/{key}/media/{blob}/hls/master.m3u8",
        Spec::open()
            .answers(200, "the playlist", Shape::Document("application/vnd.apple.mpegurl"))
            .errors(&[304, 404, 410]);

    /// a file of one rendition of a private podcast's video's HLS stream, through a
    /// subscriber's key
    PrivateStreamFile { feed_id: FeedId, key: String, blob: String, track: String, file: String } = GET "/private/{feed_id}/{key}/media/{blob}/hls/{track}/{file}",
        Spec::open()
            .answers(200, "the playlist or segment", Shape::Document("*/*"))
            .errors(&[206, 304, 404, 410, 416]);

    /// a file's chapters as JSON (podcast:chapters)
    Chapters { account: String, blob: String } = GET "/chapters/{account}/{blob}.json",
        Spec::open()
            .answers(200, "the chapters", Shape::Document(podhost_core::publish::chapters::MIME))
            .errors(&[404]);
}
