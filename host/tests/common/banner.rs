//! The address `ahp-host` prints when it listens, read from the child's stdout (for the tests
//! and the load bench, which start the binary).

use std::io::{BufRead, BufReader};
use std::process::Child;

/// Reads `child`'s stdout up to the line that starts with `prefix` and answers the rest of that
/// line, trimmed; then keeps draining stdout so the host never blocks on a full pipe.
pub fn read_banner(child: &mut Child, prefix: &str) -> String {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let rest = loop {
        let line = lines
            .next()
            .expect("ahp-host printed its banner (did it fail to start?)")
            .expect("readable stdout");
        if let Some(rest) = line.strip_prefix(prefix) {
            break rest.trim().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    rest
}
