//! The model fingerprint (`MSCTP_MODEL_FINGERPRINT`, read by
//! `runner::model_fingerprint`): a SHA-256 over the sources of this crate
//! and of every workspace crate it depends on (followed through the
//! `msctp-*` path dependencies of their manifests), the workspace's
//! `Cargo.lock` (dependency versions) and the target triple.
//!
//! It enters every stored run's key, so a changed model never reuses runs
//! of an older one; and since it depends on the sources only, the `msctp`
//! command and the Python extension built from the same tree agree on it
//! and share one results store.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let mut h = Sha256::new();
    field(&mut h, b"msctp model v1");
    field(
        &mut h,
        std::env::var("TARGET").unwrap_or_default().as_bytes(),
    );
    let root = here.ancestors().skip(1).find(|d| is_workspace(d));
    let crates = match &root {
        Some(root) => model_crates(root, &here),
        None => {
            println!(
                "cargo:warning=no workspace around {}: the model fingerprint covers this crate only",
                here.display()
            );
            vec![here.clone()]
        }
    };
    if let Some(root) = &root {
        let lock = root.join("Cargo.lock");
        hash_file(&mut h, root, &lock);
        println!("cargo:rerun-if-changed={}", lock.display());
    }
    for dir in &crates {
        let base = root.unwrap_or(&here);
        hash_file(&mut h, base, &dir.join("Cargo.toml"));
        let mut files = Vec::new();
        walk(&dir.join("src"), &mut files);
        files.sort();
        for f in files {
            hash_file(&mut h, base, &f);
        }
        println!("cargo:rerun-if-changed={}", dir.join("src").display());
        println!(
            "cargo:rerun-if-changed={}",
            dir.join("Cargo.toml").display()
        );
    }
    let hex: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=MSCTP_MODEL_FINGERPRINT={hex}");
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// Hashes a file's path (relative to `base`, so the checkout's location
/// does not matter) and content; a missing file hashes as its name alone.
fn hash_file(h: &mut Sha256, base: &Path, path: &Path) {
    let rel = path.strip_prefix(base).unwrap_or(path);
    field(h, rel.to_string_lossy().replace('\\', "/").as_bytes());
    field(h, &std::fs::read(path).unwrap_or_default());
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn is_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
}

/// This crate and every workspace crate it depends on, transitively.
fn model_crates(root: &Path, start: &Path) -> Vec<PathBuf> {
    let paths = workspace_paths(root);
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if !seen.insert(dir.clone()) {
            continue;
        }
        for dep in msctp_dependencies(&dir.join("Cargo.toml")) {
            match paths.iter().find(|(n, _)| *n == dep) {
                Some((_, p)) => todo.push(root.join(p)),
                None => panic!(
                    "{}: dependency `{dep}` has no path in the workspace's [workspace.dependencies]",
                    dir.display()
                ),
            }
        }
    }
    seen.into_iter().collect()
}

/// `msctp-x = { path = "crates/x" }` lines of `[workspace.dependencies]`.
fn workspace_paths(root: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    section(&text, "[workspace.dependencies]")
        .filter_map(|l| {
            let (name, rest) = l.split_once('=')?;
            let name = name.trim();
            let path = rest.split_once("path")?.1.split('"').nth(1)?;
            name.starts_with("msctp")
                .then(|| (name.to_string(), path.to_string()))
        })
        .collect()
}

/// The `msctp-*` names of a manifest's `[dependencies]` (not dev- or
/// build-dependencies: they do not enter the model).
fn msctp_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap_or_default();
    section(&text, "[dependencies]")
        .filter_map(|l| {
            let name = l.split(['.', '=', ' ']).next()?.trim();
            name.starts_with("msctp").then(|| name.to_string())
        })
        .collect()
}

/// The non-empty, non-comment lines of one `[section]` of a manifest.
fn section<'a>(text: &'a str, header: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    text.lines()
        .map(str::trim)
        .skip_while(move |l| *l != header)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}
