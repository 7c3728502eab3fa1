//! The small proptest strategies every differential test draws from, whatever the protocol
//! version: the case count, short text, and ids from small pools.

use proptest::prelude::*;
use proptest::sample::select;

/// The default number of cases per property; `AHP_PROPTEST_CASES=n` runs more.
pub fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Short text: mostly lowercase, sometimes control characters or multi-byte characters.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z]{0,3}", 1 => "[\\x00-\\x7f]{0,3}", 1 => "[é√𝄞]{1,2}"].boxed()
}

/// One string of a small pool: pools are what make ids collide.
pub fn pick(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    select(pool).prop_map(str::to_owned).boxed()
}
