//! A small disk of a test's own: a tmpfs mounted on a temporary folder, which the test fills
//! and empties, so a local-folder store on it meets a full disk (ENOSPC) as a deployment does.
//! Mounting needs root (CAP_SYS_ADMIN), as `scripts/test` runs.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::Command,
};

/// A tmpfs of a fixed size, unmounted when dropped.
#[derive(Debug)]
pub struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// A new tmpfs of `bytes`, or why there is none (not root, no `mount`).
    pub fn mount(bytes: u64) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !mounted.status.success() {
            return Err(format!(
                "cannot mount a tmpfs (root is needed): {}",
                String::from_utf8_lossy(&mounted.stderr).trim()
            ));
        }
        Ok(SmallDisk { dir })
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn filler(&self) -> PathBuf {
        self.path().join("filler")
    }

    /// Takes every byte left with a file of its own: from now on a write that needs a new
    /// block fails with ENOSPC.
    pub fn fill(&self) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.filler())
            .expect("the filler opens");
        let block = vec![0u8; 64 << 10];
        // Large writes, then single bytes, until the disk refuses.
        for size in [block.len(), 1] {
            while file.write_all(&block[..size]).is_ok() {}
        }
    }

    /// Gives the space taken by [`fill`](Self::fill) back.
    pub fn free(&self) {
        std::fs::remove_file(self.filler()).expect("the filler is removed");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}
