#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| msctp_fuzz::listener::run(data));
