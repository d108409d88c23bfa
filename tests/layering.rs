//! The layering of the workspace, read from the source:
//! - the core knows no transport: podhost-core depends on neither hyper, clap nor tower;
//! - each crate's files import one another in one direction: no import circle; nor do the
//!   services of the core's host (the folders of `host/`);
//! - no source file outside tests is longer than [`MAX_LINES`];
//! - no two modules of the core share a name.
//!
//! Imports are read from the text: `use` trees and paths written in code that start with
//! `crate::`, `super::`, `self::` or a child module's name, each resolved to the file that
//! defines the item (through a module's `pub use` re-exports). A module declaring its children
//! (`mod x;`) and handing their items on (`pub use x::Y;`) is its face, not an import.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// The longest a source file may be.
const MAX_LINES: usize = 1000;

/// The crates whose sources are checked.
const CRATES: [&str; 4] = [
    "podhost-core",
    "podhost-http",
    "podhost-cli",
    "podhost-testkit",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_core_depends_on_no_frontend_crate() {
    let manifest = std::fs::read_to_string(workspace().join("podhost-core/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    for forbidden in [
        "hyper",
        "clap",
        "tower",
        "axum",
        "podhost-http",
        "podhost-cli",
    ] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(forbidden)),
            "podhost-core depends on {forbidden}"
        );
    }
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut circles = Vec::new();
    for name in CRATES {
        let krate = Crate::read(&workspace().join(name).join("src"));
        for circle in krate.circles() {
            circles.push(format!("{name}:\n{circle}"));
        }
    }
    assert!(
        circles.is_empty(),
        "files that import each other in a circle (break it: move what both need into a \
         module that imports neither):\n\n{}",
        circles.join("\n\n")
    );
}

/// The services of the core's host, top down: each may import the ones below it and none
/// above. A new service takes its place here.
const SERVICES_TOP_DOWN: [&str; 7] = [
    "fediverse",
    "access",
    "podcasts",
    "delivery",
    "ads",
    "analytics",
    "work",
];

/// The services of the core's host, each a folder of `host/` (`access/`, `podcasts/`,
/// `delivery/`, `ads/`, `analytics/`, `work/`), import one another one way: down the order of
/// [`SERVICES_TOP_DOWN`]. An import up the order fails, and so does a circle, as a circle
/// between files does. (The hub's files, `host/*.rs`, are shared by all and are not services.)
#[test]
fn the_hosts_services_import_one_another_one_way() {
    let krate = Crate::read(&workspace().join("podhost-core/src"));
    let service = |file: &str| {
        file.strip_prefix("host/")
            .and_then(|rest| rest.split_once('/'))
            .map(|(name, _)| name.to_string())
    };
    let mut between: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, imports) in krate.edges() {
        let Some(a) = service(&from) else { continue };
        between.entry(a.clone()).or_default();
        for (to, names) in imports {
            if let Some(b) = service(&to).filter(|b| *b != a) {
                let taken = between.entry(a.clone()).or_default().entry(b).or_default();
                taken.extend(names.iter().map(|n| format!("{from}: {n}")));
            }
        }
    }
    assert!(
        between.contains_key("analytics"),
        "the services are found: {:?}",
        between.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        between.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        SERVICES_TOP_DOWN.into_iter().collect::<BTreeSet<_>>(),
        "every service of host/ has its place in SERVICES_TOP_DOWN"
    );
    let place = |s: &str| SERVICES_TOP_DOWN.iter().position(|t| *t == s);
    let upward: Vec<String> = between
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |(to, names)| (from, to, names)))
        .filter(|(from, to, _)| place(to) <= place(from))
        .map(|(from, to, names)| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            format!("  {from} -> {to}: {}", names.join(", "))
        })
        .collect();
    assert!(
        upward.is_empty(),
        "services of the host that import a service above them ({SERVICES_TOP_DOWN:?}):\n{}",
        upward.join("\n")
    );
    let services: Vec<&String> = between.keys().collect();
    let index: BTreeMap<&String, usize> =
        services.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let next: Vec<Vec<usize>> = services
        .iter()
        .map(|s| {
            between[*s]
                .keys()
                .filter_map(|t| index.get(t).copied())
                .collect()
        })
        .collect();
    let circles: Vec<String> = strongly_connected(&next)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| {
            let members: BTreeSet<&String> = group.iter().map(|&i| services[i]).collect();
            let mut lines = Vec::new();
            for from in &members {
                for (to, names) in &between[*from] {
                    if members.contains(to) {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        lines.push(format!("  {from} -> {to}: {}", names.join(", ")));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "services of the host that import each other in a circle:\n{}",
        circles.join("\n\n")
    );
}

#[test]
fn no_source_file_is_too_long() {
    let mut long = Vec::new();
    for name in CRATES {
        let src = workspace().join(name).join("src");
        for file in rust_files(&src) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines: split by concept:\n{}",
        long.join("\n")
    );
}

/// One home per concept: no two modules of the core share a name (`model/page.rs` beside
/// `publish/page/` made a reader ask which one holds paging).
#[test]
fn no_module_name_is_used_twice_in_the_core() {
    let src = workspace().join("podhost-core").join("src");
    let mut homes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        let module = if relative.file_name().is_some_and(|n| n == "mod.rs") {
            relative.parent().unwrap().to_path_buf()
        } else {
            relative.with_extension("")
        };
        let name = module.file_name().unwrap().to_string_lossy().into_owned();
        if ["lib", "tests"].contains(&name.as_str()) {
            continue;
        }
        homes
            .entry(name)
            .or_default()
            .push(relative.display().to_string());
    }
    let twins: Vec<String> = homes
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| format!("{name}: {}", files.join(", ")))
        .collect();
    assert!(
        twins.is_empty(),
        "module names used twice: name each after the concept it holds:\n{}",
        twins.join("\n")
    );
}
/// The circle finder must find circles: a made-up crate with one.
#[test]
fn the_circle_finder_finds_a_circle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod api;\nmod handlers;\npub use api::Api;\n");
    write(
        "api.rs",
        "use crate::handlers;\npub struct Api;\nfn go() { handlers::dispatch() }\n",
    );
    write(
        "handlers/mod.rs",
        "mod media;\npub(crate) fn dispatch() { media::list() }\n",
    );
    write(
        "handlers/media.rs",
        "use crate::{Api, handlers::other};\npub(crate) fn list() {}\n",
    );
    let krate = Crate::read(dir.path());
    let circles = krate.circles();
    assert_eq!(circles.len(), 1, "{circles:#?}");
    for file in ["api.rs", "handlers/mod.rs", "handlers/media.rs"] {
        assert!(circles[0].contains(file), "{file} in {}", circles[0]);
    }
    // Without the handler's import of the context, there is no circle.
    write("handlers/media.rs", "pub(crate) fn list() {}\n");
    assert!(Crate::read(dir.path()).circles().is_empty());
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// One crate's files and the imports between them.
struct Crate {
    /// Each file's module path (`["host", "episodes"]`), by file (relative to `src`).
    modules: BTreeMap<String, Vec<String>>,
    /// Each file's code without comments and test modules.
    code: BTreeMap<String, String>,
}

impl Crate {
    fn read(src: &Path) -> Self {
        let mut modules = BTreeMap::new();
        let mut code = BTreeMap::new();
        for file in rust_files(src) {
            let rel = file
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let mut path: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if matches!(
                path.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                path.pop();
            }
            // Binaries and build scripts beside lib.rs are not modules of the library.
            if rel.starts_with("bin/") || (rel == "main.rs" && src.join("lib.rs").exists()) {
                continue;
            }
            code.insert(
                rel.clone(),
                without_tests(&without_comments(&std::fs::read_to_string(&file).unwrap())),
            );
            modules.insert(rel, path);
        }
        Crate { modules, code }
    }

    /// The file of a module path, if one holds it.
    fn file_of(&self, module: &[String]) -> Option<&str> {
        self.modules
            .iter()
            .find(|(_, m)| m.as_slice() == module)
            .map(|(f, _)| f.as_str())
    }

    /// The file defining what `path` (absolute, from the crate root) names: the deepest module
    /// file on the path, then through its `pub use` re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> Option<String> {
        let mut module: Vec<String> = Vec::new();
        let mut file = self.file_of(&module)?.to_string();
        let mut rest = path;
        while let Some((first, tail)) = rest.split_first() {
            module.push(first.clone());
            match self.file_of(&module) {
                Some(f) => {
                    file = f.to_string();
                    rest = tail;
                }
                None => {
                    module.pop();
                    break;
                }
            }
        }
        // An item handed on by the module: follow the re-export.
        if let Some(name) = rest.first()
            && depth < 8
        {
            for (exported, target) in reexports(&self.code[&file]) {
                if exported == *name {
                    let mut absolute = relative_to(&module, &target, self, &file)?;
                    absolute.extend(rest[1..].iter().cloned());
                    return self.resolve(&absolute, depth + 1);
                }
            }
        }
        Some(file)
    }

    /// The imports of every file: file -> imported file -> the names taken.
    fn edges(&self) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
        let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (file, code) in &self.code {
            let module = &self.modules[file];
            for path in imported_paths(code, &children(code)) {
                let Some(absolute) = relative_to(module, &path, self, file) else {
                    continue;
                };
                let Some(target) = self.resolve(&absolute, 0) else {
                    continue;
                };
                if target != *file {
                    edges
                        .entry(file.clone())
                        .or_default()
                        .entry(target)
                        .or_default()
                        .insert(path.join("::"));
                }
            }
        }
        edges
    }

    /// Every circle (a strongly connected group of two files or more), described file by file
    /// with the names that tie it.
    fn circles(&self) -> Vec<String> {
        let edges = self.edges();
        let files: Vec<&String> = self.code.keys().collect();
        let index: BTreeMap<&String, usize> =
            files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let next: Vec<Vec<usize>> = files
            .iter()
            .map(|f| {
                edges
                    .get(*f)
                    .map(|to| to.keys().filter_map(|t| index.get(t).copied()).collect())
                    .unwrap_or_default()
            })
            .collect();
        let mut circles = Vec::new();
        for group in strongly_connected(&next) {
            if group.len() < 2 {
                continue;
            }
            let members: BTreeSet<&String> = group.iter().map(|&i| files[i]).collect();
            let mut lines = Vec::new();
            for from in &members {
                for (to, names) in &edges[*from] {
                    if members.contains(to) {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        lines.push(format!("  {from} -> {to}: {}", names.join(", ")));
                    }
                }
            }
            circles.push(lines.join("\n"));
        }
        circles
    }
}

/// Tarjan's strongly connected components.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        groups: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.next[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            s.groups.push(group);
        }
    }
    let mut s = State {
        next,
        index: vec![None; next.len()],
        low: vec![0; next.len()],
        on_stack: vec![false; next.len()],
        stack: Vec::new(),
        counter: 0,
        groups: Vec::new(),
    };
    for v in 0..next.len() {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.groups
}

/// `path` as written in the file of `module`, made absolute (from the crate root); `None` for
/// paths outside the crate.
fn relative_to(
    module: &[String],
    path: &[String],
    krate: &Crate,
    file: &str,
) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            base.pop()?;
            let mut rest = rest;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        child if children(&krate.code[file]).contains(child) => {
            let mut base = module.to_vec();
            base.push(child.to_string());
            base
        }
        _ => return None,
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The child modules a file declares (`mod x;`).
fn children(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub(crate) mod ")
                .or_else(|| line.strip_prefix("pub(super) mod "))
                .or_else(|| line.strip_prefix("pub mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(|name| name.trim().to_string())
        })
        .collect()
}

/// The code without comments (line, block and doc comments) and without string literals'
/// contents.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('"', _) => {
                out.push('"');
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            // A character literal (not a lifetime): skip it whole.
            ('\'', Some(_))
                if chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\') =>
            {
                let end = (i + 2..chars.len())
                    .find(|&j| chars[j] == '\'')
                    .unwrap_or(i + 2);
                i = end + 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The code before the first `#[cfg(test)]` module: tests may import what they test.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = code.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let module_follows = || {
            lines[i + 1..]
                .iter()
                .find(|next| !next.trim_start().starts_with("#["))
                .is_some_and(|next| next.split_whitespace().any(|w| w == "mod"))
        };
        if line.trim() == "#[cfg(test)]" && module_follows() {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every path a file names (use trees expanded; paths in code), except its `pub use`
/// re-exports and `$crate` paths of macros.
fn imported_paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    let mut plain = String::new();
    // `use` items (the whole tree, up to its `;`).
    while let Some(at) = find_word(rest, "use") {
        plain.push_str(&rest[..at]);
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        let tree = &rest[at + 3..end.saturating_sub(1)];
        if !public {
            expand(tree.trim(), &mut Vec::new(), &mut paths);
        }
        rest = &rest[end..];
    }
    plain.push_str(rest);
    // Paths in code.
    let bytes = plain.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || (!is_ident(bytes[i - 1]) && bytes[i - 1] != b'$')) {
            let start = i;
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let s = j;
                while j < bytes.len() && is_ident(bytes[j]) {
                    j += 1;
                }
                segments.push(plain[s..j].to_string());
                if plain[j..].starts_with("::") && bytes.get(j + 2).is_some_and(|&b| is_ident(b)) {
                    j += 2;
                } else {
                    break;
                }
            }
            let first = segments[0].as_str();
            let preceded_by_colons = start >= 2 && &plain[start - 2..start] == "::";
            if segments.len() > 1
                && !preceded_by_colons
                && (matches!(first, "crate" | "super" | "self") || children.contains(first))
            {
                paths.push(segments);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    paths
}

/// Where the next `use` item begins: the keyword first on its line, after a visibility at
/// most (not `+ use<>` in a bound).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + word.len()).copied();
        let ident = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        let line = text[..at].rsplit('\n').next().unwrap_or("").trim();
        let item_start = line.is_empty()
            || (line.starts_with("pub") && !line.contains(' '))
            || line == "pub(in crate)";
        if !ident(before) && !ident(after) && before != Some(b'$') && item_start {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Expands a use tree (`crate::{a::{B, C}, d}`) into its paths; `self` in a group names the
/// group's own path; `as` renames are dropped; a glob names its module.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(
            head.split("::")
                .filter(|s| !s.is_empty())
                .map(|s| s.trim().to_string()),
        );
        for part in split_top(inner) {
            expand(part, prefix, out);
        }
        prefix.truncate(depth);
        return;
    }
    let tree = tree.split(" as ").next().unwrap_or(tree).trim();
    let mut path = prefix.clone();
    for segment in tree.split("::").map(str::trim) {
        match segment {
            "self" if !path.is_empty() => {}
            "*" => {}
            s => path.push(s.to_string()),
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The comma-separated parts of a group, at its top level.
fn split_top(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// The names a face hands on with `pub use` (`pub use a::b::{C, D as E};` gives C and E),
/// with the paths they come from as written.
fn reexports(code: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        if before.ends_with("pub") || before.ends_with("pub(crate)") {
            let mut paths = Vec::new();
            let tree = &rest[at + 3..end.saturating_sub(1)];
            expand_named(tree.trim(), &mut Vec::new(), &mut paths);
            found.extend(paths);
        }
        rest = &rest[end..];
    }
    found
}

/// Like [`expand`], keeping the name each path is known by (its rename, else its last segment).
fn expand_named(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(
            head.split("::")
                .filter(|s| !s.is_empty())
                .map(|s| s.trim().to_string()),
        );
        for part in split_top(inner) {
            expand_named(part, prefix, out);
        }
        prefix.truncate(depth);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    let mut full = prefix.clone();
    full.extend(
        path.split("::")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
    );
    if let Some(last) = full.last().cloned()
        && last != "*"
    {
        out.push((alias.unwrap_or(&last).to_string(), full));
    }
}
