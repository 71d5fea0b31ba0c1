#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| msctp_fuzz::session::run(data));
