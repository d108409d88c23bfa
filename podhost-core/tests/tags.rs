//! Tag writing checked by three readers: `read_tags` itself, ffprobe, and mutagen (PyPI, in
//! `.venv`, through `tests/tags/mutagen_dump.py`). The audio files are made by ffmpeg in the test.
//!
//! When ffmpeg/ffprobe or the venv's mutagen is missing, the tests that need them print
//! `SKIPPED` and pass, unless `PODHOST_REQUIRE_EXTERNAL=1` (set by `scripts/test`, which
//! installs them), where they fail.
//!
//! What each reader does on its own, and the tests allow for:
//! - ffprobe gives every chapter an end: the CHAP end time for ID3; for Vorbis comments (which
//!   store none) the next chapter's start, the last one ending at the duration. It shows the
//!   chapter title but not the CHAP `WXXX` link; a Vorbis `CHAPTERnnnURL` comment appears
//!   among the format tags. The year is the `date` tag. The cover is an attached-picture
//!   stream.
//! - mutagen gives ID3 frames by id (`TDRC` is the year as text) and CHAP/CTOC frames with their
//!   sub-frames; Vorbis comments as raw keys (lowercased here); MP4 atoms by name.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/ffmpeg.rs"]
mod ffmpeg_tools;

use bytes::Bytes;
use ffmpeg_tools::ffmpeg;
use podhost_core::tags::{Chapter, Cover, TagError, Tags, can_write, read_tags, write_tags};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The repository root (the venv and the mutagen script live there).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn require_external() -> bool {
    std::env::var("PODHOST_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1")
}

fn skip(what: &str) {
    assert!(
        !require_external(),
        "{what} is missing and PODHOST_REQUIRE_EXTERNAL=1"
    );
    // Straight to stderr, past the test harness's capture: a skip must be seen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "\n!!!!!!!!\nSKIPPED: tag tests: {what} is missing; run scripts/test, which installs \
         them\n!!!!!!!!\n"
    );
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn have_ffmpeg() -> bool {
    if runs("ffmpeg", "-version") && runs("ffprobe", "-version") {
        return true;
    }
    skip("ffmpeg/ffprobe");
    false
}

fn python() -> PathBuf {
    repo().join(".venv/bin/python")
}

fn have_mutagen() -> bool {
    let ok = Command::new(python())
        .args(["-c", "import mutagen"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip("mutagen in .venv");
    }
    ok
}

/// The audio of a file as ffmpeg decodes it (PCM), with any decoding error as a failure.
fn decoded(path: &Path) -> String {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-xerror", "-i"])
        .arg(path)
        .args(["-map", "0:a", "-f", "s16le", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "ffmpeg decoding {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.len() > 100_000, "{} bytes", out.stdout.len());
    sha256(&out.stdout)
}

/// A 2-second sine in `dir/name`, encoded with `codec`.
fn make_audio(dir: &Path, name: &str, codec: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["-f", "lavfi", "-i", "sine=frequency=440:duration=2"];
    args.extend_from_slice(codec);
    args.push(path.to_str().unwrap());
    ffmpeg(&args);
    path
}

/// A PNG cover made by ffmpeg.
fn make_png(dir: &Path, size: &str) -> Bytes {
    let path = dir.join(format!("cover-{size}.png"));
    let source = format!("testsrc=size={size}:rate=1");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &source,
        "-frames:v",
        "1",
        path.to_str().unwrap(),
    ]);
    Bytes::from(std::fs::read(path).unwrap())
}

fn ffprobe(path: &Path) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-print_format", "json"])
        .args(["-show_format", "-show_chapters", "-show_streams"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(
        out.status.success(),
        "ffprobe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn mutagen(path: &Path) -> Value {
    let out = Command::new(python())
        .arg(repo().join("tests/tags/mutagen_dump.py"))
        .arg(path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "mutagen: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The tags every format test writes: non-ASCII text, three chapters (one with a link, the last
/// without an end) and a PNG cover.
fn sample(cover: Bytes) -> Tags {
    Tags {
        title: Some("Épisode 42 — “Tags” ✓".into()),
        artist: Some("Ada Lovelace & Friends".into()),
        album: Some("The Podhost Show".into()),
        year: Some(2024),
        comment: Some("Show notes: https://example.com/42".into()),
        chapters: vec![
            Chapter {
                start_ms: 0,
                end_ms: Some(500),
                title: "Intro".into(),
                url: Some("https://example.com/intro".into()),
            },
            Chapter {
                start_ms: 500,
                end_ms: Some(1250),
                title: "Nouvelles ✓".into(),
                url: None,
            },
            Chapter {
                start_ms: 1250,
                end_ms: None,
                title: "Outro".into(),
                url: None,
            },
        ],
        cover: Some(Cover {
            mime: "image/png".into(),
            bytes: cover,
        }),
    }
}

const DURATION_MS: u64 = 2000;

fn read_file(path: &Path, mime: &str) -> Result<Tags, TagError> {
    let mut file = std::fs::File::open(path).unwrap();
    read_tags(&mut file, mime)
}

/// What `read_tags` gives back: the same, with the ends the format stores (and no links in MP4,
/// whose `chpl` has none).
fn expected(written: &Tags, id3_ends: bool, links: bool) -> Tags {
    let mut tags = written.clone();
    for (i, chapter) in tags.chapters.iter_mut().enumerate() {
        if !links {
            chapter.url = None;
        }
        chapter.end_ms = if id3_ends {
            Some(match i {
                2 => DURATION_MS,
                _ => chapter.end_ms.unwrap(),
            })
        } else {
            None
        };
    }
    tags
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// The tags ffprobe shows for the file: the format's and the audio stream's (where ffmpeg puts
/// Ogg comments), keys lowercased.
fn probe_tags(probe: &Value) -> serde_json::Map<String, Value> {
    let streams = probe["streams"].as_array().cloned().unwrap_or_default();
    let audio = streams.iter().filter(|s| s["codec_type"] == "audio");
    std::iter::once(&probe["format"])
        .chain(audio)
        .filter_map(|v| v["tags"].as_object())
        .flat_map(|tags| tags.iter())
        .map(|(k, v)| (k.to_lowercase(), v.clone()))
        .collect()
}

fn tag<'a>(tags: &'a serde_json::Map<String, Value>, key: &str) -> &'a str {
    text(
        tags.get(key)
            .unwrap_or_else(|| panic!("no {key} in {tags:?}")),
    )
}

/// ffprobe's view: the tags (unless `text_tags` is false: ffmpeg 5.1's WAV demuxer reads the
/// chapters and picture of an `id3 ` chunk but not its text frames), chapters, the picture.
fn check_ffprobe(path: &Path, tags: &Tags, text_tags: bool) {
    let probe = ffprobe(path);
    if text_tags {
        let found = probe_tags(&probe);
        assert_eq!(tag(&found, "title"), tags.title.as_deref().unwrap());
        assert_eq!(tag(&found, "artist"), tags.artist.as_deref().unwrap());
        assert_eq!(tag(&found, "album"), tags.album.as_deref().unwrap());
        assert_eq!(tag(&found, "date"), "2024");
        assert_eq!(tag(&found, "comment"), tags.comment.as_deref().unwrap());
    }

    let got = probe["chapters"].as_array().cloned().unwrap_or_default();
    {
        let starts: Vec<f64> = got
            .iter()
            .map(|c| text(&c["start_time"]).parse().unwrap())
            .collect();
        let ends: Vec<f64> = got
            .iter()
            .map(|c| text(&c["end_time"]).parse().unwrap())
            .collect();
        let titles: Vec<&str> = got.iter().map(|c| text(&c["tags"]["title"])).collect();
        assert_eq!(starts, [0.0, 0.5, 1.25], "{probe}");
        assert_eq!(&ends[..2], [0.5, 1.25], "{probe}");
        // The last end: the CHAP end (the duration given) or, for Vorbis and MP4, the stream's
        // length.
        assert!((ends[2] - 2.0).abs() < 0.1, "{probe}");
        assert_eq!(titles, ["Intro", "Nouvelles ✓", "Outro"]);
    }

    let pictures: Vec<&Value> = probe["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["disposition"]["attached_pic"] == 1)
        .collect();
    assert_eq!(pictures.len(), 1, "{probe}");
    assert_eq!(pictures[0]["codec_name"], "png");
    assert_eq!(pictures[0]["width"], 64);
    assert_eq!(pictures[0]["height"], 48);
}

fn mutagen_picture(dump: &Value, cover: &Cover) {
    let pictures = dump["pictures"].as_array().unwrap();
    assert_eq!(pictures.len(), 1, "{dump}");
    assert_eq!(pictures[0]["mime"], "image/png");
    assert_eq!(pictures[0]["type"], 3, "front cover");
    assert_eq!(text(&pictures[0]["sha256"]), sha256(&cover.bytes));
}

fn values<'a>(dump: &'a Value, key: &str) -> Vec<&'a str> {
    dump["tags"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {dump}"))
        .iter()
        .map(text)
        .collect()
}

fn check_mutagen_id3(path: &Path, tags: &Tags) {
    let dump = mutagen(path);
    assert_eq!(values(&dump, "TIT2"), [tags.title.as_deref().unwrap()]);
    assert_eq!(values(&dump, "TPE1"), [tags.artist.as_deref().unwrap()]);
    assert_eq!(values(&dump, "TALB"), [tags.album.as_deref().unwrap()]);
    assert_eq!(values(&dump, "TDRC"), ["2024"]);
    assert_eq!(values(&dump, "COMM"), [tags.comment.as_deref().unwrap()]);
    let chapters = dump["chapters"].as_array().unwrap();
    let got: Vec<(u64, u64, &str, Option<&str>)> = chapters
        .iter()
        .map(|c| {
            (
                c["start_ms"].as_u64().unwrap(),
                c["end_ms"].as_u64().unwrap(),
                text(&c["title"]),
                c["url"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (0, 500, "Intro", Some("https://example.com/intro")),
            (500, 1250, "Nouvelles ✓", None),
            (1250, DURATION_MS, "Outro", None),
        ]
    );
    let ids: Vec<&Value> = chapters.iter().map(|c| &c["id"]).collect();
    let tocs = dump["tocs"].as_array().unwrap();
    assert_eq!(tocs.len(), 1, "{dump}");
    assert_eq!(tocs[0]["top_level"], true);
    assert_eq!(tocs[0]["ordered"], true);
    let children: Vec<&Value> = tocs[0]["children"].as_array().unwrap().iter().collect();
    assert_eq!(children, ids);
    mutagen_picture(&dump, tags.cover.as_ref().unwrap());
}

fn check_mutagen_vorbis(path: &Path, tags: &Tags) {
    let dump = mutagen(path);
    assert_eq!(values(&dump, "title"), [tags.title.as_deref().unwrap()]);
    assert_eq!(values(&dump, "artist"), [tags.artist.as_deref().unwrap()]);
    assert_eq!(values(&dump, "album"), [tags.album.as_deref().unwrap()]);
    assert_eq!(values(&dump, "date"), ["2024"]);
    assert_eq!(values(&dump, "comment"), [tags.comment.as_deref().unwrap()]);
    assert_eq!(values(&dump, "chapter001"), ["00:00:00.000"]);
    assert_eq!(values(&dump, "chapter001name"), ["Intro"]);
    assert_eq!(
        values(&dump, "chapter001url"),
        ["https://example.com/intro"]
    );
    assert_eq!(values(&dump, "chapter002"), ["00:00:00.500"]);
    assert_eq!(values(&dump, "chapter002name"), ["Nouvelles ✓"]);
    assert_eq!(values(&dump, "chapter003"), ["00:00:01.250"]);
    assert_eq!(values(&dump, "chapter003name"), ["Outro"]);
    assert!(dump["tags"].get("chapter002url").is_none());
    assert!(dump["tags"].get("chapter004").is_none());
    mutagen_picture(&dump, tags.cover.as_ref().unwrap());
}

fn check_mutagen_mp4(path: &Path, tags: &Tags) {
    let dump = mutagen(path);
    assert_eq!(values(&dump, "©nam"), [tags.title.as_deref().unwrap()]);
    assert_eq!(values(&dump, "©ART"), [tags.artist.as_deref().unwrap()]);
    assert_eq!(values(&dump, "©alb"), [tags.album.as_deref().unwrap()]);
    assert_eq!(values(&dump, "©day"), ["2024"]);
    assert_eq!(values(&dump, "©cmt"), [tags.comment.as_deref().unwrap()]);
    let chapters: Vec<(i64, &str)> = dump["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["start_ms"].as_i64().unwrap(), text(&c["title"])))
        .collect();
    let want: Vec<(i64, &str)> = tags
        .chapters
        .iter()
        .map(|c| (i64::try_from(c.start_ms).unwrap(), c.title.as_str()))
        .collect();
    assert_eq!(chapters, want, "{dump}");
    let pictures = dump["pictures"].as_array().unwrap();
    assert_eq!(pictures.len(), 1, "{dump}");
    assert_eq!(pictures[0]["mime"], "image/png");
    assert_eq!(
        text(&pictures[0]["sha256"]),
        sha256(&tags.cover.as_ref().unwrap().bytes)
    );
}

#[derive(Clone, Copy)]
enum Reader {
    Id3,
    Vorbis,
    Mp4,
}

/// Writes the sample tags into a fresh file and checks them with the three readers, then
/// writes a smaller set and checks that the removed fields are gone and the others kept.
fn round_trip(name: &str, codec: &[&str], mime: &str, reader: Reader) {
    if !have_ffmpeg() || !have_mutagen() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = make_audio(dir.path(), name, codec);
    assert_eq!(read_file(&path, mime).unwrap(), Tags::default(), "untagged");

    let audio = decoded(&path);
    let tags = sample(make_png(dir.path(), "64x48"));
    write_tags(&path, mime, &tags, Some(DURATION_MS)).unwrap();

    let id3_ends = matches!(reader, Reader::Id3);
    let links = !matches!(reader, Reader::Mp4);
    assert_eq!(
        read_file(&path, mime).unwrap(),
        expected(&tags, id3_ends, links)
    );
    check_ffprobe(&path, &tags, !mime.contains("wav"));
    match reader {
        Reader::Id3 => check_mutagen_id3(&path, &tags),
        Reader::Vorbis => check_mutagen_vorbis(&path, &tags),
        Reader::Mp4 => check_mutagen_mp4(&path, &tags),
    }
    // The audio is intact: ffmpeg decodes the same samples, without an error.
    assert_eq!(decoded(&path), audio, "the audio changed");

    // A second write with only a title removes everything else podhost manages.
    let fewer = Tags {
        title: Some("Second".into()),
        ..Tags::default()
    };
    write_tags(&path, mime, &fewer, Some(DURATION_MS)).unwrap();
    assert_eq!(read_file(&path, mime).unwrap(), fewer);
    let probe = ffprobe(&path);
    let found = probe_tags(&probe);
    if !mime.contains("wav") {
        assert_eq!(tag(&found, "title"), "Second");
    }
    for gone in ["artist", "album", "date", "comment", "chapter001url"] {
        assert!(!found.contains_key(gone), "{gone} left in {probe}");
    }
    assert!(probe["chapters"].as_array().unwrap().is_empty(), "{probe}");
    let pictures = probe["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["disposition"]["attached_pic"] == 1)
        .count();
    assert_eq!(pictures, 0, "{probe}");
    let dump = mutagen(&path);
    assert!(dump["pictures"].as_array().unwrap().is_empty(), "{dump}");
    assert!(dump["chapters"].as_array().unwrap().is_empty(), "{dump}");
    assert_eq!(decoded(&path), audio, "the audio changed");
}

#[test]
fn mp3_id3v24_with_chap_ctoc() {
    round_trip("a.mp3", &["-c:a", "libmp3lame"], "audio/mpeg", Reader::Id3);
}

#[test]
fn m4a_ilst_and_nero_chapters() {
    round_trip("a.m4a", &["-c:a", "aac"], "audio/mp4", Reader::Mp4);
}

/// `moov` before the audio (what podcasts publish, so that playback starts at once): the
/// growing `moov` moves the audio, and every chunk offset with it.
#[test]
fn m4a_faststart_chunk_offsets_follow_the_audio() {
    round_trip(
        "fast.m4a",
        &["-c:a", "aac", "-movflags", "+faststart"],
        "audio/mp4",
        Reader::Mp4,
    );
}

/// The chapters are also a QuickTime chapter track (what Apple's players read), as ffmpeg writes
/// them for `.m4a`: with the `chpl` box hidden, ffprobe still finds every chapter there. A
/// rewrite replaces the track and its samples instead of adding more.
#[test]
fn m4a_chapter_track_for_apple_players() {
    if !have_ffmpeg() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // ffmpeg's own chapters (a chapter track inside the audio's mdat, and chpl), replaced.
    let ffmetadata = dir.path().join("chapters.txt");
    std::fs::write(
        &ffmetadata,
        ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=Old\n",
    )
    .unwrap();
    let with_chapters = [
        "-i",
        ffmetadata.to_str().unwrap(),
        "-map_chapters",
        "1",
        "-c:a",
        "aac",
    ];
    let cases: [(&str, &[&str]); 3] = [
        ("t.m4a", &["-c:a", "aac"]),
        ("tf.m4a", &["-c:a", "aac", "-movflags", "+faststart"]),
        ("ff.m4a", &with_chapters),
    ];
    for (name, codec) in cases {
        let path = make_audio(dir.path(), name, codec);
        let before = std::fs::read(&path).unwrap();
        let tracks_before = before
            .windows(15)
            .filter(|w| w == b"SubtitleHandler")
            .count();
        assert_eq!(tracks_before, usize::from(name == "ff.m4a"), "{name}");
        let audio = decoded(&path);
        let tags = sample(make_png(dir.path(), "64x48"));
        write_tags(&path, "audio/mp4", &tags, Some(DURATION_MS)).unwrap();
        let once = std::fs::metadata(&path).unwrap().len();
        write_tags(&path, "audio/mp4", &tags, Some(DURATION_MS)).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            once,
            "{name}: rewritten in place of"
        );
        let mut renamed = tags.clone();
        renamed.chapters[1].title = "Renamed".into();
        write_tags(&path, "audio/mp4", &renamed, Some(DURATION_MS)).unwrap();
        assert_eq!(decoded(&path), audio, "{name}: the audio changed");

        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.windows(4).filter(|w| w == b"chpl").count(), 1);
        assert_eq!(
            bytes
                .windows(15)
                .filter(|w| w == b"SubtitleHandler")
                .count(),
            1,
            "{name}: one chapter track"
        );
        let at = bytes.windows(4).position(|w| w == b"chpl").unwrap();
        bytes[at..at + 4].copy_from_slice(b"free");
        let hidden = dir.path().join(format!("hidden-{name}"));
        std::fs::write(&hidden, &bytes).unwrap();
        let probe = ffprobe(&hidden);
        let chapters = probe["chapters"].as_array().unwrap();
        let got: Vec<(String, &str)> = chapters
            .iter()
            .map(|c| {
                (
                    text(&c["start_time"]).to_string(),
                    text(&c["tags"]["title"]),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("0.000000".to_string(), "Intro"),
                ("0.500000".to_string(), "Renamed"),
                ("1.250000".to_string(), "Outro"),
            ],
            "{name}: {probe}"
        );

        // No chapters: the track goes too.
        write_tags(&path, "audio/mp4", &Tags::default(), Some(DURATION_MS)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(4).any(|w| w == b"chap"),
            "{name}: tref.chap left"
        );
        assert!(
            !bytes.windows(15).any(|w| w == b"SubtitleHandler"),
            "{name}"
        );
        assert_eq!(decoded(&path), audio, "{name}: the audio changed");
    }
}

#[test]
fn ogg_vorbis_comments() {
    round_trip("a.ogg", &["-c:a", "libvorbis"], "audio/ogg", Reader::Vorbis);
}

#[test]
fn ogg_opus_comments() {
    round_trip("a.opus", &["-c:a", "libopus"], "audio/ogg", Reader::Vorbis);
}

#[test]
fn flac_comments_and_picture_block() {
    round_trip("a.flac", &["-c:a", "flac"], "audio/flac", Reader::Vorbis);
}

#[test]
fn wav_id3_chunk() {
    round_trip("a.wav", &["-c:a", "pcm_s16le"], "audio/wav", Reader::Id3);
}

/// Fields podhost does not manage survive a write (ffmpeg's encoder tag, a genre, a back cover).
#[test]
fn other_fields_are_kept() {
    if !have_ffmpeg() || !have_mutagen() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tags = sample(make_png(dir.path(), "64x48"));
    // (file, codec, MIME type, the title, genre and encoder keys as mutagen names them)
    let vorbis = ["title", "genre", "encoder"];
    let cases: [(&str, &str, &str, [&str; 3]); 5] = [
        ("g.flac", "flac", "audio/flac", vorbis),
        ("g.ogg", "libvorbis", "audio/ogg", vorbis),
        ("g.opus", "libopus", "audio/ogg", vorbis),
        (
            "g.mp3",
            "libmp3lame",
            "audio/mpeg",
            ["TIT2", "TCON", "TSSE"],
        ),
        (
            "g.m4a",
            "aac",
            "audio/mp4",
            ["\u{a9}nam", "\u{a9}gen", "\u{a9}too"],
        ),
    ];
    for (name, codec, mime, [title, genre, encoder]) in cases {
        let path = make_audio(
            dir.path(),
            name,
            &["-metadata", "genre=Podcast", "-c:a", codec],
        );
        write_tags(&path, mime, &tags, Some(DURATION_MS)).unwrap();
        // Twice: a rewrite keeps them too.
        write_tags(&path, mime, &tags, Some(DURATION_MS)).unwrap();
        let dump = mutagen(&path);
        assert_eq!(values(&dump, genre), ["Podcast"], "{name}: {dump}");
        assert!(
            values(&dump, encoder)[0].starts_with("Lav"),
            "{name}: {dump}"
        );
        assert_eq!(
            values(&dump, title),
            [tags.title.as_deref().unwrap()],
            "{name}: {dump}"
        );
    }
}

#[test]
fn chapters_need_order_and_valid_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.mp3");
    std::fs::write(&path, [0u8; 16]).unwrap();
    let chapter = |start_ms, end_ms| Chapter {
        start_ms,
        end_ms,
        title: "c".into(),
        url: None,
    };
    let cases = [
        vec![chapter(1000, None), chapter(500, None)],
        vec![chapter(1000, Some(999))],
        vec![chapter(u64::from(u32::MAX) + 1, None)],
    ];
    for chapters in cases {
        let tags = Tags {
            chapters: chapters.clone(),
            ..Tags::default()
        };
        let err = write_tags(&path, "audio/mpeg", &tags, None).unwrap_err();
        assert!(matches!(err, TagError::Invalid(_)), "{chapters:?}: {err}");
    }
    for bad in [
        Tags {
            year: Some(10_000),
            ..Tags::default()
        },
        Tags {
            title: Some("a\0b".into()),
            ..Tags::default()
        },
        Tags {
            cover: Some(Cover::default()),
            ..Tags::default()
        },
    ] {
        let err = write_tags(&path, "audio/mpeg", &bad, None).unwrap_err();
        assert!(matches!(err, TagError::Invalid(_)), "{bad:?}: {err}");
    }
    // Nothing was written.
    assert_eq!(std::fs::read(&path).unwrap(), [0u8; 16]);
}

/// Without an end or a duration, ID3 chapters end where the next one starts, the last at its
/// own start.
#[test]
fn id3_chapter_ends_without_duration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.mp3");
    // Four MPEG-1 layer III frame headers' worth of silence is not needed: ID3 goes in front of
    // any bytes.
    std::fs::write(&path, [0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0]).unwrap();
    let chapter = |start_ms| Chapter {
        start_ms,
        end_ms: None,
        title: format!("at {start_ms}"),
        url: None,
    };
    let tags = Tags {
        chapters: vec![chapter(0), chapter(700)],
        ..Tags::default()
    };
    write_tags(&path, "audio/mpeg", &tags, None).unwrap();
    let read = read_file(&path, "audio/mpeg").unwrap();
    let ends: Vec<Option<u64>> = read.chapters.iter().map(|c| c.end_ms).collect();
    assert_eq!(ends, [Some(700), Some(700)]);
    assert!(
        std::fs::read(&path)
            .unwrap()
            .ends_with(&[0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0])
    );
}

#[test]
fn unsupported_formats_are_refused() {
    for mime in [
        "video/webm",
        "audio/webm",
        "image/png",
        "application/octet-stream",
        "",
    ] {
        assert!(!can_write(mime), "{mime}");
        let err = read_tags(&mut std::io::Cursor::new(vec![0u8; 64]), mime).unwrap_err();
        assert!(
            matches!(err, TagError::Unsupported(ref m) if m == mime),
            "{mime}: {err}"
        );
        let err = write_tags(Path::new("/nonexistent"), mime, &Tags::default(), None).unwrap_err();
        assert!(matches!(err, TagError::Unsupported(_)), "{mime}: {err}");
    }
    for mime in [
        "audio/mpeg",
        "audio/MPEG; charset=x",
        "audio/mp4",
        "audio/x-m4a",
        "audio/aac",
        "audio/ogg",
        "audio/flac",
        "audio/wav",
        "audio/aiff",
    ] {
        assert!(can_write(mime), "{mime}");
    }
}

/// Hostile and damaged content gives a `TagError` (or, for bytes that hold no tag, empty tags),
/// never a panic.
#[test]
fn corrupt_data_is_an_error() {
    // An ID3 version that does not exist.
    let mut id3 = b"ID3\x09\x00\x00\x00\x00\x10\x00".to_vec();
    id3.extend_from_slice(b"TIT2\x00\x00\x00\x04\x00\x00\x03abc");
    let mut mp4 = b"\x00\x00\x00\x10ftypM4A \x00\x00\x00\x00".to_vec();
    mp4.extend_from_slice(b"\x00\x00\x00\x20moov\x00\x00\x7f\x00udta");
    let cases: [(&str, Vec<u8>); 7] = [
        ("audio/mpeg", id3),
        ("audio/mpeg", b"ID3\x04\x00\x00\x7f\x7f\x7f\x7f".to_vec()),
        ("audio/mp4", mp4),
        ("audio/flac", b"fLaC\x00\x00\x00\x22\x01\x02".to_vec()),
        ("audio/ogg", b"OggS\x00\x02\x00\x00\x00\x00garbage".to_vec()),
        // An id3 chunk holding an ID3 tag of a version that does not exist.
        (
            "audio/wav",
            b"RIFF\x1e\x00\x00\x00WAVEid3 \x0e\x00\x00\x00ID3\x09\x00\x00\x00\x00\x00\x04abcd"
                .to_vec(),
        ),
        ("audio/ogg", Vec::new()),
    ];
    for (mime, bytes) in cases {
        let result = read_tags(&mut std::io::Cursor::new(bytes.clone()), mime);
        assert!(result.is_err(), "{mime} {bytes:?}: {result:?}");
    }
}

/// Random damage to real tagged files: reading never panics (the guard would turn a panic into
/// `Corrupt`, but the parsers should not get there either: a panic message fails this test).
#[test]
fn damaged_tagged_files_never_panic() {
    if !have_ffmpeg() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cover = make_png(dir.path(), "64x48");
    let formats: [(&str, &[&str], &str); 4] = [
        ("d.mp3", &["-c:a", "libmp3lame"], "audio/mpeg"),
        ("d.m4a", &["-c:a", "aac"], "audio/mp4"),
        ("d.ogg", &["-c:a", "libvorbis"], "audio/ogg"),
        ("d.flac", &["-c:a", "flac"], "audio/flac"),
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Panics of this thread (inside read_tags) are counted; other tests' go to the usual hook.
    let previous = std::sync::Arc::new(std::panic::take_hook());
    let panicked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (flag, others, me) = (
        panicked.clone(),
        previous.clone(),
        std::thread::current().id(),
    );
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            eprintln!("panic inside read_tags: {info}");
        } else {
            others(info);
        }
    }));
    for (name, codec, mime) in formats {
        let path = make_audio(dir.path(), name, codec);
        write_tags(&path, mime, &sample(cover.clone()), Some(DURATION_MS)).unwrap();
        let clean = std::fs::read(&path).unwrap();
        let span = clean.len().min(8192) as u64;
        for _ in 0..300 {
            let mut bytes = clean.clone();
            for _ in 0..1 + next() % 8 {
                let at = (next() % span) as usize;
                bytes[at] = next() as u8;
            }
            if next() % 4 == 0 {
                bytes.truncate((next() % span) as usize);
            }
            let _ = read_tags(&mut std::io::Cursor::new(bytes), mime);
        }
    }
    std::panic::set_hook(Box::new(move |info| previous(info)));
    assert!(
        !panicked.load(std::sync::atomic::Ordering::SeqCst),
        "a tag parser panicked"
    );
}
