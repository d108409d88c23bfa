//! Writing the comment header of an Ogg Vorbis, Opus or Speex stream without holding the file
//! (lofty would read it all to write it).
//!
//! The header packets are read and the comment packet rebuilt (its items, and the pictures as
//! `METADATA_BLOCK_PICTURE` comments); the headers after the identification page are paginated
//! again, and every later page of the stream is copied with its sequence number moved and its
//! checksum recomputed, one page at a time. Pages of other streams (a chained file) are copied
//! as they are.

use std::io::{BufReader, Read, Write};
use std::path::Path;

use lofty::ogg::VorbisComments;

use super::comments::encode_comments;
use super::{contents::TagError, file::replace_file};

/// The codec of the stream, which decides the header packets and the comment's framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Codec {
    /// Three headers; the comment is `\x03vorbis`, the comments, a framing bit.
    Vorbis,
    /// Two headers; the comment is `OpusTags` and the comments.
    Opus,
    /// Two headers (plus the extra ones its identification header counts); the comment is the
    /// comments alone.
    Speex,
}

/// The page header's capture pattern.
const CAPTURE: &[u8; 4] = b"OggS";
/// Header type flag: the page starts with the rest of a packet.
const CONTINUED: u8 = 0x01;
/// Most lacing values in a page.
const MAX_SEGMENTS: usize = 255;
/// The Ogg checksum: CRC-32 with polynomial 0x04c11db7, no reflection, zero start and end.
const OGG_CRC: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
};

/// One page: its 27-byte header, lacing values and body.
struct Page {
    header: [u8; 27],
    lacing: Vec<u8>,
    body: Vec<u8>,
}

impl Page {
    fn serial(&self) -> u32 {
        u32::from_le_bytes([
            self.header[14],
            self.header[15],
            self.header[16],
            self.header[17],
        ])
    }

    fn sequence(&self) -> u32 {
        u32::from_le_bytes([
            self.header[18],
            self.header[19],
            self.header[20],
            self.header[21],
        ])
    }

    /// Sets the sequence number and recomputes the checksum.
    fn renumber(&mut self, sequence: u32) {
        self.header[18..22].copy_from_slice(&sequence.to_le_bytes());
        self.header[22..26].fill(0);
        let crc = crc::Crc::<u32>::new(&OGG_CRC);
        let mut digest = crc.digest();
        digest.update(&self.header);
        digest.update(&self.lacing);
        digest.update(&self.body);
        self.header[22..26].copy_from_slice(&digest.finalize().to_le_bytes());
    }

    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&self.header)?;
        out.write_all(&self.lacing)?;
        out.write_all(&self.body)
    }
}

fn read_page(reader: &mut impl Read) -> Result<Option<Page>, TagError> {
    let mut header = [0u8; 27];
    match reader.read_exact(&mut header) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    if &header[..4] != CAPTURE || header[4] != 0 {
        return Err(TagError::Corrupt("not an Ogg page".into()));
    }
    let mut lacing = vec![0u8; usize::from(header[26])];
    reader.read_exact(&mut lacing)?;
    let len: usize = lacing.iter().map(|&v| usize::from(v)).sum();
    let mut body = vec![0u8; len];
    reader
        .read_exact(&mut body)
        .map_err(|_| TagError::Corrupt("an Ogg page is truncated".into()))?;
    Ok(Some(Page {
        header,
        lacing,
        body,
    }))
}

/// The packets that end in `page`, appended to `partial` (the start of a packet carried over
/// from earlier pages). Returns the packets completed on this page.
fn packets_of(page: &Page, partial: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut done = Vec::new();
    let mut at = 0;
    for &value in &page.lacing {
        let n = usize::from(value);
        partial.extend_from_slice(&page.body[at..at + n]);
        at += n;
        if value < 255 {
            done.push(std::mem::take(partial));
        }
    }
    done
}

/// Replaces the comment header of the Ogg file at `path` by `comments`.
pub(super) fn write(path: &Path, codec: Codec, comments: &VorbisComments) -> Result<(), TagError> {
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::with_capacity(64 << 10, file);
    let first =
        read_page(&mut reader)?.ok_or_else(|| TagError::Corrupt("an empty Ogg file".into()))?;
    let serial = first.serial();
    let mut partial = Vec::new();
    let mut headers = packets_of(&first, &mut partial);
    if headers.len() != 1 || !partial.is_empty() {
        return Err(TagError::Corrupt(
            "the first Ogg page does not hold exactly the identification header".into(),
        ));
    }
    let wanted = match codec {
        Codec::Vorbis => 3,
        Codec::Opus => 2,
        // Speex's identification header counts its extra headers at byte 76.
        Codec::Speex => {
            2 + headers[0]
                .get(76..80)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        }
    };
    if wanted > 16 {
        return Err(TagError::Corrupt(
            "an implausible number of Ogg headers".into(),
        ));
    }
    // The header pages after the first: their packets, and the last page's sequence number.
    let mut last_header_sequence = first.sequence();
    while headers.len() < wanted {
        let page = read_page(&mut reader)?
            .ok_or_else(|| TagError::Corrupt("the Ogg headers end early".into()))?;
        if page.serial() != serial {
            return Err(TagError::Unsupported(
                "tags of multiplexed Ogg streams".into(),
            ));
        }
        last_header_sequence = page.sequence();
        headers.extend(packets_of(&page, &mut partial));
    }
    if headers.len() != wanted || !partial.is_empty() {
        return Err(TagError::Unsupported(
            "Ogg files whose audio starts on the last header page".into(),
        ));
    }
    headers[1] = comment_packet(codec, comments)?;

    let mut new_pages = paginate(&headers[1..], &first)?;
    replace_file(path, |out| {
        first.write_to(out)?;
        let mut sequence = first.sequence();
        for page in &mut new_pages {
            sequence = sequence.wrapping_add(1);
            page.renumber(sequence);
            page.write_to(out)?;
        }
        let shift = sequence.wrapping_sub(last_header_sequence);
        while let Some(mut page) = read_page(&mut reader)? {
            if page.serial() == serial && shift != 0 {
                page.renumber(page.sequence().wrapping_add(shift));
            }
            page.write_to(out)?;
        }
        Ok(())
    })
}

/// Pages holding `packets` in order, the last page ending with the last packet; headers are
/// filled in from `template` (serial, version), sequence numbers and checksums by the caller.
fn paginate(packets: &[Vec<u8>], template: &Page) -> Result<Vec<Page>, TagError> {
    let mut pages = Vec::new();
    let mut lacing = Vec::new();
    let mut body = Vec::new();
    let mut continued = false;
    let flush = |lacing: &mut Vec<u8>, body: &mut Vec<u8>, continued: bool| {
        let mut header = template.header;
        header[5] = if continued { CONTINUED } else { 0 };
        header[6..14].fill(0);
        header[26] = u8::try_from(lacing.len()).unwrap_or(u8::MAX);
        Page {
            header,
            lacing: std::mem::take(lacing),
            body: std::mem::take(body),
        }
    };
    for packet in packets {
        let mut values = vec![255u8; packet.len() / 255];
        values.push(u8::try_from(packet.len() % 255).unwrap_or(0));
        let mut at = 0;
        for (k, value) in values.into_iter().enumerate() {
            if lacing.len() == MAX_SEGMENTS {
                pages.push(flush(&mut lacing, &mut body, continued));
                // The next page starts inside this packet unless this is its first value.
                continued = k > 0;
            }
            lacing.push(value);
            body.extend_from_slice(&packet[at..at + usize::from(value)]);
            at += usize::from(value);
        }
    }
    if !lacing.is_empty() {
        pages.push(flush(&mut lacing, &mut body, continued));
    }
    Ok(pages)
}

/// The comment packet of `codec` for `comments` (pictures as `METADATA_BLOCK_PICTURE`).
fn comment_packet(codec: Codec, comments: &VorbisComments) -> Result<Vec<u8>, TagError> {
    let mut out = match codec {
        Codec::Vorbis => b"\x03vorbis".to_vec(),
        Codec::Opus => b"OpusTags".to_vec(),
        Codec::Speex => Vec::new(),
    };
    out.extend_from_slice(&encode_comments(comments, true)?);
    if codec == Codec::Vorbis {
        out.push(1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> Page {
        let mut header = [0u8; 27];
        header[..4].copy_from_slice(CAPTURE);
        header[14..18].copy_from_slice(&7u32.to_le_bytes());
        Page {
            header,
            lacing: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Packets back from pages, as a reader assembles them.
    fn reassemble(pages: &[Page]) -> Vec<Vec<u8>> {
        let mut partial = Vec::new();
        let mut out = Vec::new();
        for (i, page) in pages.iter().enumerate() {
            assert_eq!(
                page.header[5] & CONTINUED != 0,
                !partial.is_empty(),
                "page {i}"
            );
            out.extend(packets_of(page, &mut partial));
        }
        assert!(partial.is_empty(), "the last page ends the last packet");
        out
    }

    #[test]
    fn packets_of_any_size_paginate_and_reassemble() {
        for sizes in [
            vec![0, 1],
            vec![254, 255, 256],
            vec![255 * 255, 3],
            vec![255 * 255 - 1, 10],
            vec![255 * 255 + 1, 255 * 300],
            vec![100_000, 4_000],
        ] {
            let packets: Vec<Vec<u8>> = sizes
                .iter()
                .enumerate()
                .map(|(i, &n)| (0..n).map(|j| (i * 31 + j) as u8).collect())
                .collect();
            let pages = paginate(&packets, &template()).unwrap();
            assert!(pages.iter().all(|p| p.lacing.len() <= MAX_SEGMENTS));
            assert_eq!(reassemble(&pages), packets, "{sizes:?}");
        }
    }

    /// Pages of one stream holding `packets`, as an encoder lays them out: the first packet
    /// alone on a page, the headers up to `headers` on the next pages, then the audio.
    fn stream(packets: &[Vec<u8>], headers: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut sequence = 0;
        for group in [&packets[..1], &packets[1..headers], &packets[headers..]] {
            for mut page in paginate(group, &template()).unwrap() {
                if sequence == 0 {
                    page.header[5] |= 0x02;
                }
                page.renumber(sequence);
                sequence += 1;
                page.write_to(&mut out).unwrap();
            }
        }
        out
    }

    /// Every page of `bytes`: checksum checked, sequence numbers counted, packets reassembled.
    fn read_stream(bytes: &[u8]) -> Vec<Vec<u8>> {
        let crc = crc::Crc::<u32>::new(&OGG_CRC);
        let mut reader = bytes;
        let mut partial = Vec::new();
        let mut packets = Vec::new();
        let mut expected_sequence = 0;
        while let Some(page) = read_page(&mut reader).unwrap() {
            let mut zeroed = page.header;
            zeroed[22..26].fill(0);
            let mut digest = crc.digest();
            digest.update(&zeroed);
            digest.update(&page.lacing);
            digest.update(&page.body);
            assert_eq!(
                digest.finalize().to_le_bytes(),
                page.header[22..26],
                "checksum of page {expected_sequence}"
            );
            assert_eq!(page.sequence(), expected_sequence);
            expected_sequence += 1;
            packets.extend(packets_of(&page, &mut partial));
        }
        packets
    }

    #[test]
    fn a_new_comment_moves_the_audio_pages_and_keeps_them_valid() {
        use lofty::ogg::OggPictureStorage;
        use lofty::picture::{MimeType, Picture, PictureType};
        let audio: Vec<Vec<u8>> = (0..300).map(|i| vec![i as u8; 700 + i]).collect();
        let mut packets = vec![
            b"\x01vorbis-id".to_vec(),
            b"\x03vorbis\0\0\0\0\0\0\0\0\x01".to_vec(),
        ];
        packets.push(vec![5; 4000]);
        packets.extend(audio.iter().cloned());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ogg");
        std::fs::write(&path, stream(&packets, 3)).unwrap();

        // A large picture: the new comment spans pages, so every audio page moves.
        let mut comments = VorbisComments::default();
        comments.push("TITLE".into(), "Épisode".into());
        comments
            .insert_picture(
                Picture::unchecked(vec![9; 200_000])
                    .pic_type(PictureType::CoverFront)
                    .mime_type(MimeType::Png)
                    .build(),
                None,
            )
            .unwrap();
        write(&path, Codec::Vorbis, &comments).unwrap();
        let got = read_stream(&std::fs::read(&path).unwrap());
        assert_eq!(got.len(), packets.len());
        assert_eq!(got[0], packets[0], "identification header kept");
        assert_eq!(got[1], comment_packet(Codec::Vorbis, &comments).unwrap());
        assert_eq!(got[2], packets[2], "setup header kept");
        assert_eq!(&got[3..], &audio[..], "audio kept");

        // And back to a small comment: the audio pages move the other way.
        write(&path, Codec::Vorbis, &VorbisComments::default()).unwrap();
        let got = read_stream(&std::fs::read(&path).unwrap());
        assert_eq!(&got[3..], &audio[..]);
    }

    #[test]
    fn streams_that_cannot_be_rewritten_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ogg");
        let comments = VorbisComments::default();
        // Audio on the last header page.
        let packets = [b"id".to_vec(), b"comment".to_vec(), b"audio".to_vec()];
        let mut page = paginate(&packets[1..], &template()).unwrap().remove(0);
        page.renumber(1);
        let mut bytes = stream(&packets[..1], 1);
        page.write_to(&mut bytes).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            write(&path, Codec::Opus, &comments),
            Err(TagError::Unsupported(_))
        ));
        // Truncated, and not Ogg at all.
        for bad in [&bytes[..bytes.len() - 3], b"RIFF....WAVE".as_slice(), b""] {
            std::fs::write(&path, bad).unwrap();
            assert!(matches!(
                write(&path, Codec::Vorbis, &comments),
                Err(TagError::Corrupt(_))
            ));
        }
    }

    #[test]
    fn the_checksum_is_ogg_s() {
        // The algorithm's check value: CRC of "123456789".
        let crc = crc::Crc::<u32>::new(&OGG_CRC);
        assert_eq!(crc.checksum(b"123456789"), OGG_CRC.check);
    }
}
