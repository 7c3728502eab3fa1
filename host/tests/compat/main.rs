//! The AHP 0.3.0 view of 1.0 sessions (`ahp_host::compat`) against the official fixtures of
//! both versions: `view.rs` (1.0 actions shown to 0.3.0 clients), `lift.rs` (0.3.0 sessions
//! and actions taken into 1.0).

mod lift;
mod view;

use serde_json::Value;
use std::path::PathBuf;

/// The official fixtures of `release` (`ahp-1.0.0`, `ahp-0.3.0`) for `reducer`, by name.
fn fixtures(release: &str, reducer: &str) -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../protocol")
        .join(release)
        .join("conformance/reducers");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("the official fixtures")
        .map(|entry| {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("fixture");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str::<Value>(&text).expect("JSON"))
        })
        .filter(|(_, f)| f["reducer"] == reducer)
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A 0.3.0 session state to compare: nulls dropped (absent and null are the same on the wire)
/// and the summary's members in `gaps` left out.
fn comparable(mut state: Value, gaps: &[&str]) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.retain(|_, v| !v.is_null());
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Some(summary) = state.get_mut("summary").and_then(Value::as_object_mut) {
        for gap in gaps {
            summary.remove(*gap);
        }
    }
    strip(&mut state);
    state
}
