//! Checks of the numeric params the schema types only as `number`: positions, sizes, page
//! limits and terminal dimensions arrive as any JSON number, negative and fractional included,
//! and a value out of range is refused with a message naming the range, never clamped into a
//! different request (a write at position -1 must not become a write at 0).

/// `value` as a whole number in `min..=max`, or a message `"{name} must be a whole number from
/// {min} to {max}"`.
pub fn whole_number(value: f64, name: &str, min: u64, max: u64) -> Result<u64, String> {
    if value.fract() != 0.0 || !(min as f64..=max as f64).contains(&value) {
        return Err(format!("{name} must be a whole number from {min} to {max}"));
    }
    Ok(value as u64)
}

/// The largest integer a JSON number carries exactly (2^53 - 1).
pub const MAX_EXACT: u64 = (1 << 53) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_fractional_and_non_finite_values_are_refused() {
        assert_eq!(whole_number(3.0, "n", 1, 5), Ok(3));
        assert_eq!(whole_number(1.0, "n", 1, 5), Ok(1));
        assert_eq!(whole_number(5.0, "n", 1, 5), Ok(5));
        for bad in [0.0, 6.0, -1.0, 2.5, f64::NAN, f64::INFINITY, -0.5] {
            assert_eq!(
                whole_number(bad, "n", 1, 5),
                Err("n must be a whole number from 1 to 5".to_string()),
                "{bad}"
            );
        }
    }
}
