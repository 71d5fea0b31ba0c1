//! Writes the seed corpus into `fuzz/corpus/<target>/` (existing files,
//! among them everything the fuzzers found, are kept). With an argument,
//! only the seeds whose name starts with it (e.g. `issue31-`).

fn main() {
    let root = msctp_fuzz::seeds::repo_root().join("fuzz/corpus");
    let prefix = std::env::args().nth(1).unwrap_or_default();
    let mut n = 0;
    for seed in msctp_fuzz::seeds::all()
        .into_iter()
        .filter(|s| s.name.starts_with(&prefix))
    {
        let dir = root.join(seed.target);
        std::fs::create_dir_all(&dir).expect("create the corpus directory");
        std::fs::write(dir.join(&seed.name), &seed.bytes).expect("write a seed");
        n += 1;
    }
    println!("{n} seeds written to {}", root.display());
}
