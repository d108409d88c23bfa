//! Finds the languages podhost speaks: one Fluent file a language in `locales/`, named by its
//! BCP 47 tag (`de.ftl`). Adding a language is adding its file; the list the core compiles in
//! (`$OUT_DIR/locales.rs`) is made from the folder, never written by hand.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("locales");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<(String, String)> = fs::read_dir(&dir)
        .expect("podhost-core/locales")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let tag = path
                .file_name()?
                .to_str()?
                .strip_suffix(".ftl")?
                .to_string();
            println!("cargo:rerun-if-changed={}", path.display());
            Some((tag, path.display().to_string()))
        })
        .collect();
    files.sort();
    let mut out = String::from(
        "/// Each language's tag and its messages (Fluent), in the order of the tags.\n\
         pub(super) const FILES: &[(&str, &str)] = &[\n",
    );
    for (tag, path) in files {
        out.push_str(&format!("    ({tag:?}, include_str!({path:?})),\n"));
    }
    out.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("locales.rs"),
        out,
    )
    .unwrap();
}
