//! Runs one target on input files, as libFuzzer would, to debug a finding:
//! `cargo run -p msctp-fuzz --bin replay -- TARGET FILE...`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay TARGET FILE...");
        std::process::exit(2);
    };
    let Some((_, run)) = msctp_fuzz::TARGETS.iter().find(|(n, _)| n == target) else {
        eprintln!("unknown target {target}");
        std::process::exit(2);
    };
    for f in files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        run(&data);
        println!("{f}: ok");
    }
}
