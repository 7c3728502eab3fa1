//! Numbers with a fraction or an exponent, read from and written as text. In wasm the page's
//! own JavaScript engine does it (`parseFloat`, `Number#toString`: what `JSON.parse` and
//! `JSON.stringify` do with them), which keeps Rust's float parser and formatter and their
//! tables (about 30 KB) out of the module. Natively, `core` parses and serde_json's formatter
//! writes (the shortest text that reads back the same).

/// The value of `text`, a JSON number (checked by the reader), correctly rounded; infinite
/// when out of range.
pub(crate) fn parse(text: &str) -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::parse_float(text)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        text.parse().unwrap_or(f64::NAN)
    }
}

/// Writes the finite `value` as the shortest text that reads back as it.
pub(crate) fn write(value: f64, out: &mut String) {
    #[cfg(target_arch = "wasm32")]
    {
        match js_sys::Number::from(value).to_string_with_radix(10) {
            Ok(text) => out.push_str(&String::from(text)),
            Err(_) => out.push_str("null"),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        match serde_json::Number::from_f64(value) {
            Some(number) => out.push_str(&number.to_string()),
            None => out.push_str("null"),
        }
    }
}
