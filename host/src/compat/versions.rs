//! Version negotiation: which protocol version an `initialize` gets.

/// A protocol version `MAJOR.MINOR.PATCH` (SemVer's core, no pre-release or build).
fn semver(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.split('.').map(|p| {
        let digits = !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| p.parse::<u64>().ok()).flatten()
    });
    let core = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(core)
}

/// The version an `initialize` gets, and whether it is 1.x: the highest offered one compatible
/// (SemVer, the spec's versioning page: same `MAJOR >= 1`, or same `0.MINOR`) with one this
/// host implements (1.0.0 and 0.3.0). The client's own string is answered: a 1.x.y client
/// gets 1.0.0's semantics, whose additions a newer 1.x peer must tolerate.
pub fn negotiate(offered: &[String]) -> Option<(String, bool)> {
    let served = |(major, minor, _): (u64, u64, u64)| match major {
        1 => Some(true),
        0 if minor == 3 => Some(false),
        _ => None,
    };
    offered
        .iter()
        .filter_map(|v| {
            let core = semver(v)?;
            Some((core, v, served(core)?))
        })
        .max_by_key(|(core, _, _)| *core)
        .map(|(_, v, v1)| (v.clone(), v1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(offered: &[&str]) -> Option<(String, bool)> {
        negotiate(&offered.iter().map(|v| v.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_highest_offered_version_of_a_served_range_wins() {
        assert_eq!(pick(&["1.0.0", "0.3.0"]), Some(("1.0.0".into(), true)));
        assert_eq!(pick(&["0.3.0", "1.0.0"]), Some(("1.0.0".into(), true)));
        assert_eq!(pick(&["0.3.0", "1.0.2"]), Some(("1.0.2".into(), true)));
        assert_eq!(pick(&["1.4.0", "1.0.0"]), Some(("1.4.0".into(), true)));
        assert_eq!(pick(&["2.0.0", "0.3.1"]), Some(("0.3.1".into(), false)));
        assert_eq!(pick(&["0.3.0"]), Some(("0.3.0".into(), false)));
        for none in [
            &["2.0.0", "0.2.0", "0.4.0"][..],
            &[
                "1.0",
                "1.0.0.0",
                "v1.0.0",
                "1.0.0-rc.1",
                "1.0.x",
                "",
                "01.0.0a",
            ],
            &[],
        ] {
            assert_eq!(pick(none), None, "{none:?}");
        }
    }
}
