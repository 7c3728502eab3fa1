use super::*;
use crate::protocol::{DispatchActionParams, SessionState, StateAction};
use proptest::prelude::*;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Value};

/// The path `serde_json::from_str::<T>(text)` fails at, in the `InvalidInputError` form.
fn fails_at<T: serde::de::DeserializeOwned + fmt::Debug>(text: &str) -> String {
    let error = serde_json::from_str::<T>(text).expect_err(text);
    error_path(text, &error).to_js_string()
}

#[test]
fn names_the_offending_value_of_wire_types() {
    let action = r#"{"type":"session/delta","turnId":"turn-1","partId":7,"content":"x"}"#;
    assert_eq!(fails_at::<StateAction>(action), "partId");
    let params = r#"{"channel":"ahp-session:/s","clientSeq":1,
        "action":{"type":"session/titleChanged","title":{"no":"object"}}}"#;
    assert_eq!(fails_at::<DispatchActionParams>(params), "action.title");
    let params = r#"{"channel":"c","clientSeq":"one","action":{}}"#;
    assert_eq!(fails_at::<DispatchActionParams>(params), "clientSeq");
    // A missing field: the object that lacks it; `field_path` names the member itself.
    let params = r#"{"channel":"c","clientSeq":1,"action":{"type":"session/delta"}}"#;
    assert_eq!(fails_at::<DispatchActionParams>(params), "action");
    let error = serde_json::from_str::<DispatchActionParams>(params).unwrap_err();
    assert_eq!(
        super::field_path(params, &error).to_js_string(),
        "action.turnId"
    );
    let error = serde_json::from_str::<DispatchActionParams>(r#"{"channel":"c"}"#).unwrap_err();
    assert_eq!(
        super::field_path(r#"{"channel":"c"}"#, &error).to_js_string(),
        "clientSeq"
    );
    assert_eq!(fails_at::<DispatchActionParams>(r#"{"channel":"c"}"#), "");
    // The tag is not the first member (the buffered path): the object is named.
    let action = r#"{"partId":7,"type":"session/delta","turnId":"t","content":"x"}"#;
    assert_eq!(fails_at::<StateAction>(action), "");
    let params = r#"{"channel":"c","clientSeq":1,
        "action":{"partId":7,"type":"session/delta","turnId":"t","content":"x"}}"#;
    assert_eq!(fails_at::<DispatchActionParams>(params), "action");
    // An array where a string belongs, pretty-printed.
    let params = "{\n  \"channel\": [\n 1\n ],\n  \"clientSeq\": 1\n}";
    assert_eq!(fails_at::<DispatchActionParams>(params), "channel");
}

#[test]
fn deep_state_paths_and_odd_keys() {
    let mut state = json!({
        "summary": {"resource": "ahp-session:/s", "provider": "p", "title": "t",
            "status": 1, "createdAt": 1, "modifiedAt": 2},
        "lifecycle": "ready",
        "turns": [],
        "activeTurn": {"id": "t1", "userMessage": {"text": "hi"}, "responseParts": [
            {"kind": "markdown", "id": "md-1", "content": ""},
            {"kind": 42, "id": "md-2", "content": ""}
        ], "usage": null, "startedAt": 1}
    });
    let text = state.to_string();
    let error = serde_json::from_str::<SessionState>(&text).unwrap_err();
    assert_eq!(
        error_path(&text, &error).to_js_string(),
        "activeTurn.responseParts[1].kind"
    );
    state["activeTurn"]["responseParts"][1]["kind"] = json!("markdown");
    state["summary"]["createdAt"] = json!("yesterday");
    let text = serde_json::to_string_pretty(&state).unwrap();
    let error = serde_json::from_str::<SessionState>(&text).unwrap_err();
    assert_eq!(
        error_path(&text, &error).to_js_string(),
        "summary.createdAt"
    );
    assert_eq!(error_path(&text, &error).to_string(), "summary.createdAt");

    let path = JsonPath(vec![
        Segment::Key("_meta".into()),
        Segment::Key("a b".into()),
        Segment::Index(3),
        Segment::Key("x\"y".into()),
    ]);
    assert_eq!(path.to_js_string(), r#"_meta["a b"][3]["x\"y"]"#);
    assert_eq!(path.to_string(), r#"_meta.a b[3].x"y"#);
    assert_eq!(JsonPath::default().to_string(), ".");
    assert_eq!(JsonPath::default().to_js_string(), "");
}

#[test]
fn messages_lose_the_position_and_speak_json() {
    let error = serde_json::from_str::<u32>("\"x\"").unwrap_err();
    assert_eq!(
        message_of(&error),
        "expected a whole number from 0 to 4294967295, got the string \"x\""
    );
    assert!(error.to_string().ends_with("at line 1 column 3"));
    let error: serde_json::Error = de::Error::custom("no position");
    assert_eq!(message_of(&error), "no position");
}

#[test]
fn positions_outside_any_value() {
    assert_eq!(path_at("", 0), JsonPath::default());
    assert_eq!(path_at("  {} ", 99), JsonPath::default());
    assert_eq!(
        path_at(r#"{"a":[1,"#, 8),
        JsonPath(vec![Segment::Key("a".into()), Segment::Index(1)])
    );
    // An escaped key is unescaped.
    let text = r#"{"a\"b":{"c\u0041":1}}"#;
    let error = serde_json::from_str::<
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
    >(text)
    .unwrap_err();
    assert_eq!(error_path(text, &error).to_js_string(), r#"["a\"b"].cA"#);
}

// ---- property: a value made invalid at one place is named by its path ----

const POISON: &str = "\u{2620}poison";
const POISON_NUMBER: f64 = 13.25;
/// An object with this member fails once it is read to its end (like a missing field).
const END: &str = "!end";
/// A member with this key must be a string (a non-string fails before it is read).
const STR: &str = "!str";

/// Any JSON, except the poisons above.
struct Strict;

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON without poison")
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Strict, E> {
        if v == POISON_NUMBER {
            return Err(E::invalid_value(de::Unexpected::Float(v), &self));
        }
        Ok(Strict)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Strict, E> {
        if v == POISON {
            return Err(E::invalid_value(de::Unexpected::Str(v), &self));
        }
        Ok(Strict)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        while seq.next_element::<Strict>()?.is_some() {}
        Ok(Strict)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut end = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == STR {
                map.next_value::<String>()?;
            } else {
                map.next_value::<Strict>()?;
            }
            end |= key == END;
        }
        if end {
            return Err(de::Error::missing_field("required"));
        }
        Ok(Strict)
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let key = "[a-z_]{1,4}|[ -~é😀\\\\\"\n\t]{0,4}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e9f64..1.0e9).prop_map(Value::from),
        "[ -~é😀\\\\\"\n\t\u{7f}]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 48, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Every value's path, in document order.
fn paths(value: &Value, path: &mut Vec<Segment>, out: &mut Vec<Vec<Segment>>) {
    out.push(path.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                paths(item, path, out);
                path.pop();
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                path.push(Segment::Key(key.clone()));
                paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(value: &'a mut Value, path: &[Segment]) -> &'a mut Value {
    path.iter().fold(value, |v, segment| match segment {
        Segment::Key(k) => &mut v[k.as_str()],
        Segment::Index(i) => &mut v[*i],
    })
}

/// Makes the value at `path` invalid in one of five ways; returns the path of the value the
/// error is about.
fn poison(root: &mut Value, path: &[Segment], how: u8, filler: Value) -> Vec<Segment> {
    let target = at_mut(root, path);
    let mut expected = path.to_vec();
    match how {
        0 => *target = Value::from(POISON),
        1 => *target = Value::from(POISON_NUMBER),
        2 => {
            // An object that fails at its end, with some members before and after.
            let mut object = serde_json::Map::new();
            object.insert("before".into(), filler.clone());
            object.insert(END.into(), Value::Null);
            object.insert("after".into(), filler);
            *target = Value::Object(object);
        }
        _ => {
            // A member that must be a string, holding the filler (made a non-string).
            let filler = match filler {
                Value::String(_) | Value::Null => json!({"x": [1, {"y": "z"}]}),
                other => other,
            };
            let mut object = serde_json::Map::new();
            object.insert("a".into(), Value::from(1));
            object.insert(STR.into(), filler);
            *target = Value::Object(object);
            expected.push(Segment::Key(STR.into()));
        }
    }
    expected
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_invalid_value_is_named(
        mut value in json_value(),
        filler in json_value(),
        which in any::<prop::sample::Index>(),
        how in 0u8..4,
        pretty in any::<bool>(),
    ) {
        let mut all = Vec::new();
        paths(&value, &mut Vec::new(), &mut all);
        let path = which.get(&all).clone();
        let expected = JsonPath(poison(&mut value, &path, how, filler));
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        let error = match serde_json::from_str::<Strict>(&text) {
            Ok(_) => panic!("no error for {text}"),
            Err(e) => e,
        };
        prop_assert!(error.is_data(), "{error}");
        prop_assert_eq!(error_path(&text, &error), expected, "{} in {}", error, text);
    }

    /// Never panics, whatever the text and offset.
    #[test]
    fn any_text_any_offset(text in "[ -~é\n]{0,40}", offset in 0usize..50) {
        let _ = path_at(&text, offset);
    }
}

// ---- oracle: the same paths as `serde_path_to_error` on the wire types ----

fn fixtures() -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol/ahp-0.3.0/conformance/reducers");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// Decodes `text` as `T` and, on failure, returns (our path, `serde_path_to_error`'s path),
/// both in the `invalid params at` form, and the two messages.
fn both_paths<T: serde::de::DeserializeOwned>(text: &str) -> Option<(String, String)> {
    let error = serde_json::from_str::<T>(text).err()?;
    let ours = format!("{} {error}", error_path(text, &error));
    let mut de = serde_json::Deserializer::from_str(text);
    let theirs = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => panic!("serde_path_to_error decodes what serde_json does not: {text}"),
        Err(e) => format!("{} {}", e.path(), e.inner()),
    };
    Some((ours, theirs))
}

/// Each value of each fixture's state and actions, replaced by a value of another kind or
/// removed: where decoding fails, the path (and message) is the one `serde_path_to_error`
/// gives.
#[test]
fn same_paths_as_serde_path_to_error_on_every_fixture() {
    use crate::protocol::{ChangesetState, ResourceWatchState, RootState, TerminalState};
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for fixture in fixtures() {
        let mut targets = vec![(
            fixture["reducer"].as_str().unwrap().to_owned(),
            fixture["initial"].clone(),
        )];
        for action in fixture["actions"].as_array().unwrap() {
            targets.push(("action".to_owned(), action.clone()));
        }
        for (kind, value) in targets {
            let mut all = Vec::new();
            paths(&value, &mut Vec::new(), &mut all);
            for path in all.iter().skip(1) {
                for how in 0..2 {
                    let mut mutated = value.clone();
                    let target = at_mut(&mut mutated, path);
                    if how == 0 {
                        *target = match target {
                            Value::String(_) => json!(42),
                            Value::Number(_) | Value::Bool(_) => json!("x"),
                            Value::Null => json!([]),
                            Value::Object(_) => json!("x"),
                            Value::Array(_) => json!({"a": 1}),
                        };
                    } else {
                        let (last, parent) = path.split_last().unwrap();
                        let parent = at_mut(&mut mutated, parent);
                        match (last, parent) {
                            (Segment::Key(k), Value::Object(m)) => {
                                m.shift_remove(k);
                            }
                            _ => continue,
                        }
                    }
                    for text in [
                        mutated.to_string(),
                        serde_json::to_string_pretty(&mutated).unwrap(),
                    ] {
                        let found = match kind.as_str() {
                            "action" => both_paths::<StateAction>(&text),
                            "root" => both_paths::<RootState>(&text),
                            "session" => both_paths::<SessionState>(&text),
                            "terminal" => both_paths::<TerminalState>(&text),
                            "changeset" => both_paths::<ChangesetState>(&text),
                            "resourceWatch" => both_paths::<ResourceWatchState>(&text),
                            other => panic!("reducer {other}"),
                        };
                        if let Some((ours, theirs)) = found {
                            checked += 1;
                            if ours != theirs {
                                mismatches.push(format!("ours:   {ours}\ntheirs: {theirs}"));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} failing decodes");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} differ, e.g.\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn messages_are_in_json_terms() {
    use super::json_terms;
    let cases = [
        (
            "invalid type: floating point `1.5`, expected u32",
            "expected a whole number from 0 to 4294967295, got the number 1.5",
        ),
        (
            "invalid value: integer `-1`, expected u32",
            "expected a whole number from 0 to 4294967295, got the number -1",
        ),
        (
            "invalid type: string \"idle\", expected u32",
            "expected a whole number from 0 to 4294967295, got the string \"idle\"",
        ),
        (
            "invalid type: integer `5`, expected a string",
            "expected a string, got the number 5",
        ),
        ("missing field `title`", "missing property `title`"),
        (
            "invalid type: null, expected struct SessionState",
            "expected an object (SessionState), got null",
        ),
        (
            "invalid type: map, expected a sequence",
            "expected an array, got an object",
        ),
        (
            "invalid type: boolean `true`, expected f64",
            "expected a number, got true",
        ),
        (
            "unknown variant `x`, expected `a` or `b`",
            "unknown variant `x`, expected `a` or `b`",
        ),
    ];
    for (serde, json) in cases {
        assert_eq!(json_terms(serde), json, "{serde}");
        assert_eq!(json_terms(json), json, "idempotent: {json}");
    }
}
