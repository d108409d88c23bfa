//! The real browser the page and site tests drive: the system's headless Chromium (Debian
//! `chromium`) through the Node scripts of the workspace's `tests/browser` (playwright-core and
//! the packages they load, installed by `npm ci` there). Tests that need them say SKIPPED loudly
//! when they are missing, or fail under `PODHOST_REQUIRE_EXTERNAL=1` (as `scripts/test` runs).

use std::path::{Path, PathBuf};

/// The browser binary and the folder of the Node scripts.
#[derive(Debug, Clone)]
pub struct BrowserTools {
    /// Chromium (`PODHOST_CHROMIUM`, default `/usr/bin/chromium`).
    pub chromium: PathBuf,
    /// `tests/browser` of the workspace, with its `node_modules`.
    pub scripts: PathBuf,
}

/// The workspace's root folder (this crate is one of its members).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the testkit is in the workspace")
        .to_path_buf()
}

/// Where tests keep what they make for people to look at (screenshots):
/// `target/artifacts/` of the workspace, or of `CARGO_TARGET_DIR`.
pub fn artifacts() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
        .join("artifacts")
}

/// Chromium, `node`, and the npm `packages` in `tests/browser/node_modules`; or what is missing.
pub fn find(packages: &[&str]) -> Result<BrowserTools, String> {
    let chromium = std::env::var_os("PODHOST_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !chromium.exists() {
        return Err(format!("no Chromium at {}", chromium.display()));
    }
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Err("no `node` on the PATH".into());
    }
    let scripts = workspace().join("tests/browser");
    for package in packages {
        let manifest = scripts
            .join("node_modules")
            .join(package)
            .join("package.json");
        if !manifest.exists() {
            return Err(format!(
                "no {package} in {}/node_modules (npm ci)",
                scripts.display()
            ));
        }
    }
    Ok(BrowserTools { chromium, scripts })
}

/// [`find`], or `None` after saying loudly why `test` is skipped; a failure (panic) under
/// `PODHOST_REQUIRE_EXTERNAL=1`.
pub fn find_or_skip(test: &str, packages: &[&str]) -> Option<BrowserTools> {
    crate::or_skip(test, "Chromium and Node packages", find(packages))
}
