//! A tagged file rewritten safely: the new file beside the old, made durable, renamed over it.

use std::path::Path;

use super::contents::TagError;

/// Writes a new file next to `path` through `write` (with a 64 KiB buffer), makes it durable and
/// renames it over `path`; on failure the new file is removed and `path` is untouched.
pub(super) fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), TagError>,
) -> Result<(), TagError> {
    let tmp = path.with_extension("podhost-tmp");
    let result = (|| {
        let mut out = std::io::BufWriter::with_capacity(64 << 10, std::fs::File::create(&tmp)?);
        write(&mut out)?;
        out.into_inner()
            .map_err(|e| TagError::Io(e.into_error()))?
            .sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
