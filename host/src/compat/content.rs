//! A file edit's contents (`fileEdit` tool results): 0.3.0 carries each side's text inline
//! (`content: "…"`), 1.0 by reference (`content: ContentRef`). The host's edits keep their text
//! inline (up to 64 KiB), so 1.0 gets it as a `data:` URI, which needs no request to read and
//! which `resourceRead` answers too; a `data:` reference becomes inline text again for 0.3.0.
//! A reference to anything else has no 0.3.0 form: the side's text is then empty (a
//! [`super::GAPS`] entry).

use crate::resources::data_uri_bytes;
use base64::Engine;
use serde_json::{json, Value};

const DATA_PREFIX: &str = "data:text/plain;charset=utf-8;base64,";

/// The `data:` URI of `text`.
pub fn data_uri(text: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    format!("{DATA_PREFIX}{encoded}")
}

/// Every `fileEdit` inside `value` with its sides' text as 1.0 references.
pub fn edits_to_v1(value: &mut Value) {
    for_each_edit_side(value, &mut |side| {
        if let Some(text) = side.get("content").and_then(Value::as_str) {
            let reference = json!({
                "uri": data_uri(text),
                "sizeHint": text.len(),
                "contentType": "text/plain",
            });
            side["content"] = reference;
        }
    });
}

/// Every `fileEdit` inside `value` with its sides' references as 0.3.0's inline text.
pub fn edits_to_v03(value: &mut Value) {
    for_each_edit_side(value, &mut |side| {
        if let Some(reference) = side.get("content").filter(|c| c.is_object()) {
            let text = reference
                .get("uri")
                .and_then(Value::as_str)
                .and_then(data_uri_bytes)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default();
            side["content"] = text.into();
        }
    });
}

fn for_each_edit_side(value: &mut Value, f: &mut impl FnMut(&mut Value)) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| for_each_edit_side(v, f)),
        Value::Object(members) => {
            if members.get("type").and_then(Value::as_str) == Some("fileEdit") {
                for key in ["before", "after"] {
                    if let Some(side) = members.get_mut(key).filter(|s| s.is_object()) {
                        f(side);
                    }
                }
                return;
            }
            members.values_mut().for_each(|v| for_each_edit_side(v, f));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_go_to_1_0_and_back() {
        let old = json!({"content": [{"type": "text", "text": "x"}, {"type": "fileEdit",
            "before": {"uri": "file:///w/a.txt", "content": "old ✓"},
            "after": {"uri": "file:///w/a.txt", "content": "new\n"},
            "diff": {"added": 1, "removed": 1}}]});
        let mut lifted = old.clone();
        edits_to_v1(&mut lifted);
        let after = &lifted["content"][1]["after"]["content"];
        assert_eq!(after["contentType"], "text/plain");
        assert_eq!(after["sizeHint"], 4);
        let bytes = data_uri_bytes(after["uri"].as_str().unwrap()).unwrap();
        assert_eq!(bytes, b"new\n");
        let _: ahp_wasm::protocol::v1::ToolResultContent =
            serde_json::from_value(lifted["content"][1].clone()).expect("a 1.0 fileEdit");
        edits_to_v03(&mut lifted);
        assert_eq!(lifted, old);
    }

    #[test]
    fn foreign_references_have_no_text() {
        let mut edit = json!({"type": "fileEdit",
            "after": {"uri": "file:///w/a", "content": {"uri": "git:blob/1"}}});
        edits_to_v03(&mut edit);
        assert_eq!(edit["after"]["content"], "");
    }
}
