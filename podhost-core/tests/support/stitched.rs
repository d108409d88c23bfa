//! What the stitching tests share: the stitched answer read back from its pieces, a command's
//! output, and the venv's mutagen.

use std::path::Path;
use std::process::Command;

use podhost_core::model::BlobKey;
use podhost_core::stitch::{Arrangement, Piece};

/// The venv's python when it has mutagen (scripts/test installs it).
pub fn mutagen() -> Option<std::path::PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import mutagen"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var_os("PODHOST_REQUIRE_EXTERNAL").is_some() {
        panic!("mutagen is not in .venv; run scripts/test, which installs it");
    }
    ok.then_some(python)
}

/// What `command` printed, once it succeeded.
pub fn stdout(command: &mut Command) -> Vec<u8> {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The whole answer, read piece by piece from the files.
pub fn answer(arrangement: &Arrangement, files: &[(&BlobKey, &[u8])]) -> Vec<u8> {
    arrangement
        .slices(0..arrangement.len())
        .flat_map(|(piece, range)| match piece {
            Piece::Blob { blob, .. } => {
                let bytes = files.iter().find(|(b, _)| *b == blob).unwrap().1;
                bytes[range.start as usize..range.end as usize].to_vec()
            }
            Piece::Bytes(bytes) => bytes[range.start as usize..range.end as usize].to_vec(),
        })
        .collect()
}
