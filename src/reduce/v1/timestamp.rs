//! The one piece of time arithmetic of the 1.0 reducers: a turn that ends stamps the chat's
//! `modifiedAt` with its start plus its duration, as an ISO 8601 UTC timestamp with
//! milliseconds (`2026-10-02T09:30:00.250Z`, what JavaScript's `toISOString` writes).

/// Nanoseconds in a second, a millisecond.
const NANOS_PER_SECOND: i128 = 1_000_000_000;
const NANOS_PER_MILLI: i128 = 1_000_000;

/// `timestamp` (RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`) plus `millis`, written
/// in UTC with three fraction digits (sub-millisecond digits are dropped). `None` when the
/// timestamp is not RFC 3339 or the result is outside years 0 to 9999.
pub fn add_milliseconds(timestamp: &str, millis: i64) -> Option<String> {
    let nanos = parse(timestamp)?.checked_add(i128::from(millis) * NANOS_PER_MILLI)?;
    format(nanos)
}

/// Milliseconds since the Unix epoch of an RFC 3339 timestamp (sub-millisecond digits
/// dropped, towards the past); `None` when it is not RFC 3339. AHP 0.3.0 wrote times so.
pub fn unix_millis(timestamp: &str) -> Option<i64> {
    i64::try_from(parse(timestamp)?.div_euclid(NANOS_PER_MILLI)).ok()
}

/// The ISO 8601 UTC timestamp (`toISOString`'s form) of milliseconds since the Unix epoch;
/// `None` outside years 0 to 9999.
pub fn from_unix_millis(millis: i64) -> Option<String> {
    format(i128::from(millis) * NANOS_PER_MILLI)
}

/// Nanoseconds since the Unix epoch of an RFC 3339 timestamp.
fn parse(text: &str) -> Option<i128> {
    let bytes = text.as_bytes();
    let number = |from: usize, len: usize| -> Option<i64> {
        let digits = bytes.get(from..from + len)?;
        digits.iter().try_fold(0i64, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
        })
    };
    let at = |index: usize, allowed: &[u8]| bytes.get(index).is_some_and(|b| allowed.contains(b));
    if !(at(4, b"-") && at(7, b"-") && at(10, b"Tt ") && at(13, b":") && at(16, b":")) {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
    let (hour, minute) = (number(11, 2)?, number(14, 2)?);
    let second = number(17, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // A leap second reads as the last second of its minute.
    let second = second.min(59);
    let mut index = 19;
    let mut fraction: i128 = 0;
    if at(index, b".,") {
        index += 1;
        let start = index;
        while bytes.get(index).is_some_and(u8::is_ascii_digit) {
            index += 1;
        }
        let digits = index - start;
        if digits == 0 || digits > 9 {
            return None;
        }
        fraction = i128::from(number(start, digits)?) * 10i128.pow((9 - digits) as u32);
    }
    let offset_seconds = match bytes.get(index) {
        Some(b'Z' | b'z') if bytes.len() == index + 1 => 0,
        Some(&sign @ (b'+' | b'-')) if bytes.len() == index + 6 && at(index + 3, b":") => {
            let (hours, minutes) = (number(index + 1, 2)?, number(index + 4, 2)?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            let seconds = hours * 3600 + minutes * 60;
            if sign == b'-' {
                -seconds
            } else {
                seconds
            }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    Some(i128::from(seconds) * NANOS_PER_SECOND + fraction)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of nanoseconds since the epoch (years 0 to 9999 only).
fn format(nanos: i128) -> Option<String> {
    let seconds = i64::try_from(nanos.div_euclid(NANOS_PER_SECOND)).ok()?;
    let millis = nanos.rem_euclid(NANOS_PER_SECOND) / NANOS_PER_MILLI;
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    ))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::{add_milliseconds, from_unix_millis, unix_millis};

    #[test]
    fn converts_to_and_from_unix_milliseconds() {
        let cases = [
            ("1970-01-01T00:00:00.000Z", 0),
            ("1970-01-01T00:00:09.999Z", 9999),
            ("2026-10-02T09:30:00.250Z", 1_790_933_400_250),
            ("1969-12-31T23:59:59.500Z", -500),
        ];
        for (text, millis) in cases {
            assert_eq!(unix_millis(text), Some(millis), "{text}");
            assert_eq!(from_unix_millis(millis).as_deref(), Some(text), "{millis}");
        }
        assert_eq!(
            unix_millis("2026-10-02T11:30:00.250+02:00"),
            Some(1_790_933_400_250)
        );
        assert_eq!(unix_millis("1969-12-31T23:59:59.9999Z"), Some(-1));
        assert_eq!(unix_millis("not a time"), None);
        assert_eq!(from_unix_millis(i64::MAX), None);
    }

    #[test]
    fn adds_and_writes_utc_milliseconds() {
        let cases = [
            ("1970-01-01T00:00:01.000Z", 1500, "1970-01-01T00:00:02.500Z"),
            ("2024-02-28T23:59:59Z", 1000, "2024-02-29T00:00:00.000Z"),
            ("2023-12-31T23:59:59.9999Z", 0, "2023-12-31T23:59:59.999Z"),
            ("2026-10-02T10:00:00+02:00", 0, "2026-10-02T08:00:00.000Z"),
            (
                "2026-10-02T10:00:00-01:30",
                60_000,
                "2026-10-02T11:31:00.000Z",
            ),
            ("1969-12-31T23:59:59.500Z", 250, "1969-12-31T23:59:59.750Z"),
        ];
        for (start, millis, expected) in cases {
            assert_eq!(
                add_milliseconds(start, millis).as_deref(),
                Some(expected),
                "{start}"
            );
        }
    }

    #[test]
    fn rejects_what_is_not_rfc_3339() {
        for text in [
            "",
            "yesterday",
            "2026-10-02",
            "2026-10-02T10:00:00",
            "2026-13-02T10:00:00Z",
            "2026-02-30T10:00:00Z",
            "2026-10-02T24:00:00Z",
            "2026-10-02T10:00:00.Z",
            "2026-10-02T10:00:00Zjunk",
        ] {
            assert_eq!(add_milliseconds(text, 0), None, "{text:?}");
        }
        assert_eq!(add_milliseconds("9999-12-31T23:59:59Z", 1000), None);
    }
}
