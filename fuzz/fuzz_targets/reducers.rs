#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ahp_fuzz::reducers::run(data));
