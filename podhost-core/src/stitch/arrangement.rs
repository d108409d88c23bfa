//! A stitched answer as the pieces it is made of, in order: any byte range of it maps to ranges
//! of stored blobs and of a few small bytes made for it (a tag, the seams), so the answer is
//! never stored whole and a range costs a binary search.

use std::ops::Range;

use bytes::Bytes;

use crate::model::BlobKey;

/// Where the bytes of one piece of a stitched answer come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A byte range of a stored blob (an episode between two breaks, an ad).
    Blob {
        /// The blob.
        blob: BlobKey,
        /// Its bytes taken.
        range: Range<u64>,
    },
    /// Bytes made for this answer (an ID3 tag, the frames of a seam).
    Bytes(Bytes),
}

impl Piece {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Piece::Blob { range, .. } => range.end.saturating_sub(range.start),
            Piece::Bytes(bytes) => bytes.len() as u64,
        }
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The pieces of a stitched answer, in order, with where each starts in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrangement {
    pieces: Vec<Piece>,
    /// Where each piece starts in the answer.
    starts: Vec<u64>,
    len: u64,
}

impl Arrangement {
    /// The answer made of `pieces` in order (empty pieces dropped).
    pub fn new(pieces: impl IntoIterator<Item = Piece>) -> Self {
        let mut arrangement = Arrangement::default();
        for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
            arrangement.starts.push(arrangement.len);
            arrangement.len += piece.len();
            arrangement.pieces.push(piece);
        }
        arrangement
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its pieces, in order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The pieces that make bytes `range` of the answer (clamped to its length), each with the
    /// range of its own bytes taken, in order.
    pub fn slices(&self, range: Range<u64>) -> impl Iterator<Item = (&Piece, Range<u64>)> + '_ {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        // The last piece that starts at or before `start`.
        let first = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        self.pieces[first.min(self.pieces.len())..]
            .iter()
            .zip(&self.starts[first.min(self.starts.len())..])
            .take_while(move |(_, at)| **at < end)
            .filter_map(move |(piece, &at)| {
                let from = start.max(at) - at;
                let to = end.min(at + piece.len()) - at;
                (from < to).then(|| {
                    let within = match piece {
                        Piece::Blob { range, .. } => range.start + from..range.start + to,
                        Piece::Bytes(_) => from..to,
                    };
                    (piece, within)
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The stored blobs of a test: blob `i` holds bytes `i, i, i, ...` offset by their
    /// position, so every byte says where it came from.
    fn blob_byte(blob: &str, at: u64) -> u8 {
        (blob.len() as u64 * 31 + at * 7) as u8
    }

    fn read(piece: &Piece, range: Range<u64>) -> Vec<u8> {
        match piece {
            Piece::Blob { blob, .. } => range.map(|at| blob_byte(blob.as_str(), at)).collect(),
            Piece::Bytes(bytes) => bytes[range.start as usize..range.end as usize].to_vec(),
        }
    }

    fn answer(arrangement: &Arrangement, range: Range<u64>) -> Vec<u8> {
        arrangement
            .slices(range)
            .flat_map(|(piece, within)| read(piece, within))
            .collect()
    }

    fn pieces() -> impl Strategy<Value = Vec<Piece>> {
        let piece = prop_oneof![
            (1usize..6, 0u64..5000, 0u64..3000).prop_map(|(name, start, len)| Piece::Blob {
                blob: BlobKey("b".repeat(name)),
                range: start..start + len,
            }),
            proptest::collection::vec(any::<u8>(), 0..200)
                .prop_map(|bytes| Piece::Bytes(Bytes::from(bytes))),
        ];
        proptest::collection::vec(piece, 0..12)
    }

    proptest! {
        /// Every range of the stitched answer equals the same bytes of the whole answer, and the
        /// whole answer is the pieces in order.
        #[test]
        fn every_range_is_the_same_bytes_of_the_whole(
            pieces in pieces(),
            ranges in proptest::collection::vec((0u64..40_000, 0u64..40_000), 1..8),
        ) {
            let arrangement = Arrangement::new(pieces.clone());
            let whole = answer(&arrangement, 0..u64::MAX);
            let parts: Vec<u8> = pieces
                .iter()
                .flat_map(|p| {
                    let all = match p {
                        Piece::Blob { range, .. } => range.clone(),
                        Piece::Bytes(b) => 0..b.len() as u64,
                    };
                    read(p, all)
                })
                .collect();
            prop_assert_eq!(&whole, &parts);
            prop_assert_eq!(whole.len() as u64, arrangement.len());
            for (a, b) in ranges {
                let (start, end) = (a.min(b), a.max(b));
                let got = answer(&arrangement, start..end);
                let s = (start as usize).min(whole.len());
                let e = (end as usize).min(whole.len());
                prop_assert_eq!(&got[..], &whole[s..e.max(s)]);
            }
        }
    }

    #[test]
    fn a_range_reads_only_the_pieces_it_covers() {
        let arrangement = Arrangement::new([
            Piece::Bytes(Bytes::from_static(b"tag")),
            Piece::Blob {
                blob: BlobKey("episode".into()),
                range: 100..200,
            },
            Piece::Bytes(Bytes::new()),
            Piece::Blob {
                blob: BlobKey("ad".into()),
                range: 0..50,
            },
        ]);
        assert_eq!(arrangement.len(), 153);
        assert_eq!(arrangement.pieces().len(), 3, "the empty piece is dropped");
        let slices: Vec<_> = arrangement.slices(50..120).map(|(_, r)| r).collect();
        assert_eq!(slices, [147..200, 0..17]);
        assert_eq!(arrangement.slices(153..160).count(), 0);
    }
}
