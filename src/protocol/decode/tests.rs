use super::*;
use crate::protocol::{
    ChangesetState, DispatchActionParams, ResourceWatchState, RootState, SessionState, StateAction,
    TerminalState,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// The path and message `from_text::<T>(text)` fails with, in the `InvalidInputError` form.
fn fails<T: Decode + fmt::Debug>(text: &str) -> (String, String) {
    let error = from_text::<T>(text).expect_err(text);
    (error.js_path(), error.message().to_owned())
}

#[test]
fn names_the_offending_value_of_wire_types() {
    let action = r#"{"type":"session/delta","turnId":"turn-1","partId":7,"content":"x"}"#;
    assert_eq!(
        fails::<StateAction>(action),
        (
            "partId".into(),
            "expected a string, got the number 7".into()
        )
    );
    let params = r#"{"channel":"ahp-session:/s","clientSeq":1,
        "action":{"type":"session/titleChanged","title":{"no":"object"}}}"#;
    assert_eq!(
        fails::<DispatchActionParams>(params).0,
        "action.title",
        "an object where a string belongs"
    );
    let params = r#"{"channel":"c","clientSeq":"one","action":{}}"#;
    assert_eq!(
        fails::<DispatchActionParams>(params),
        (
            "clientSeq".into(),
            r#"expected a whole number from 0 to 18446744073709551615, got the string "one""#
                .into()
        )
    );
    // A missing member: the member itself.
    let params = r#"{"channel":"c","clientSeq":1,"action":{"type":"session/delta"}}"#;
    assert_eq!(
        fails::<DispatchActionParams>(params),
        ("action.turnId".into(), "missing property `turnId`".into())
    );
    // The tag is not the first member (the buffered path): still named.
    let action = r#"{"partId":7,"type":"session/delta","turnId":"t","content":"x"}"#;
    assert_eq!(fails::<StateAction>(action).0, "partId");
    let params = r#"{"channel":"c","clientSeq":1,
        "action":{"partId":7,"type":"session/delta","turnId":"t","content":"x"}}"#;
    assert_eq!(fails::<DispatchActionParams>(params).0, "action.partId");
    // An array where a string belongs, pretty-printed.
    let params = "{\n  \"channel\": [\n 1\n ],\n  \"clientSeq\": 1\n}";
    assert_eq!(
        fails::<DispatchActionParams>(params),
        ("channel".into(), "expected a string, got an array".into())
    );
    // A member given twice.
    let action = r#"{"type":"session/titleChanged","title":"a","title":"b"}"#;
    assert_eq!(
        fails::<StateAction>(action),
        ("title".into(), "duplicate property `title`".into())
    );
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
    assert_eq!(
        fails::<SessionState>(&text).0,
        "activeTurn.responseParts[1].kind"
    );
    state["activeTurn"]["responseParts"][1]["kind"] = json!("markdown");
    state["summary"]["createdAt"] = json!("yesterday");
    let text = serde_json::to_string_pretty(&state).unwrap();
    let error = from_text::<SessionState>(&text).unwrap_err();
    assert_eq!(error.js_path(), "summary.createdAt");
    assert_eq!(error.path().to_string(), "summary.createdAt");
    assert_eq!(
        error.to_string(),
        r#"expected a number, got the string "yesterday" at `summary.createdAt`"#
    );

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
    // An escaped key is unescaped.
    let text = r#"{"a\"b":{"c\u0041":1}}"#;
    let error = from_text::<LiteMap<String, LiteMap<String, String>>>(text).unwrap_err();
    assert_eq!(error.js_path(), r#"["a\"b"].cA"#);
}

#[test]
fn messages_are_in_json_terms() {
    let message = |result: Result<(), DecodeError>| result.unwrap_err().message().to_owned();
    let cases = [
        (
            message(from_text::<u32>("1.5").map(drop)),
            "expected a whole number from 0 to 4294967295, got the number 1.5",
        ),
        (
            message(from_text::<u32>("-1").map(drop)),
            "expected a whole number from 0 to 4294967295, got the number -1",
        ),
        (
            message(from_text::<u32>("4294967296").map(drop)),
            "expected a whole number from 0 to 4294967295, got the number 4294967296",
        ),
        (
            message(from_text::<u32>(r#""idle""#).map(drop)),
            "expected a whole number from 0 to 4294967295, got the string \"idle\"",
        ),
        (
            message(from_text::<String>("5").map(drop)),
            "expected a string, got the number 5",
        ),
        (
            message(from_text::<SessionState>("null").map(drop)),
            "expected an object (SessionState), got null",
        ),
        (
            message(from_text::<Vec<String>>("{}").map(drop)),
            "expected an array, got an object",
        ),
        (
            message(from_text::<f64>("true").map(drop)),
            "expected a number, got true",
        ),
        (
            message(from_text::<f64>("1e400").map(drop)),
            "the number 1e400 is out of range",
        ),
        (
            message(from_text::<i64>("1.0").map(drop)),
            "expected a whole number, got the number 1.0",
        ),
        (
            message(from_text::<bool>("\"yes\"").map(drop)),
            "expected a boolean, got the string \"yes\"",
        ),
        (
            message(from_text::<String>("\"a\" x").map(drop)),
            "invalid JSON: trailing characters after the value",
        ),
    ];
    for (ours, expected) in cases {
        assert_eq!(ours, expected);
    }
}

#[test]
fn syntax_errors_are_told_apart_from_shape_errors() {
    for text in [
        "",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "01",
        "1.",
        "-",
        "\"\\x\"",
        "\"a",
        "nul",
        "[1 2]",
        "{1:2}",
        "\"\u{1}\"",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "tru",
        "1e",
        "+1",
    ] {
        let error = from_text::<JsonValue>(text).expect_err(text);
        assert!(error.is_syntax(), "{text}: {error}");
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
    }
    let error = from_text::<String>("7").unwrap_err();
    assert!(!error.is_syntax());
}

#[test]
fn nesting_is_bounded_as_serde_json_bounds_it() {
    for depth in [127, 128, 129, 200] {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(
            from_text::<JsonValue>(&text).is_ok(),
            serde_json::from_str::<Value>(&text).is_ok(),
            "{depth} levels"
        );
        let object = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(
            from_text::<JsonValue>(&object).is_ok(),
            serde_json::from_str::<Value>(&object).is_ok(),
            "{depth} levels of objects"
        );
    }
}

#[test]
fn numbers_read_as_json_parse_reads_them() {
    // Found by the `reducers` fuzz target against a rounding parser.
    assert_eq!(
        from_text::<f64>("17000000010700000001000").unwrap(),
        17000000010700000001000.0
    );
    assert!(from_text::<f64>("-0").unwrap().is_sign_negative());
    assert_eq!(
        from_text::<JsonValue>("-0").unwrap(),
        serde_json::from_str::<Value>("-0").unwrap()
    );
    assert_eq!(from_text::<u64>("18446744073709551615").unwrap(), u64::MAX);
    assert_eq!(from_text::<i64>("-9223372036854775808").unwrap(), i64::MIN);
    assert_eq!(from_text::<f64>("1E2").unwrap(), 100.0);
    assert_eq!(
        from_text::<f64>("123456789012345678").unwrap(),
        123456789012345678.0
    );
}

/// Each value of each fixture's state and actions, replaced by a value of another kind or
/// removed: where decoding fails, the error names the changed value (or the removed member).
#[test]
fn a_broken_fixture_value_is_named_by_its_path() {
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
                    if how == 0 {
                        let target = at_mut(&mut mutated, path);
                        *target = match target {
                            Value::String(_) => json!(42),
                            Value::Number(_) | Value::Bool(_) => json!("x"),
                            Value::Null => json!([]),
                            Value::Object(_) => json!("x"),
                            Value::Array(_) => json!({"a": 1}),
                        };
                    } else {
                        let (last, parent) = path.split_last().unwrap();
                        match (last, at_mut(&mut mutated, parent)) {
                            (Segment::Key(k), Value::Object(m)) => {
                                m.shift_remove(k);
                            }
                            _ => continue,
                        }
                    }
                    let text = mutated.to_string();
                    let ours = match kind.as_str() {
                        "action" => error_of::<StateAction>(&text),
                        "root" => error_of::<RootState>(&text),
                        "session" => error_of::<SessionState>(&text),
                        "terminal" => error_of::<TerminalState>(&text),
                        "changeset" => error_of::<ChangesetState>(&text),
                        "resourceWatch" => error_of::<ResourceWatchState>(&text),
                        other => panic!("reducer {other}"),
                    };
                    let Some(ours) = ours else { continue };
                    checked += 1;
                    // A removed required member, or a value of the wrong kind, is named by its
                    // own path.
                    let expected = JsonPath(path.clone());
                    if ours.path() != expected {
                        mismatches.push(format!("{kind} {text}\n  changed {expected}: {ours}"));
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} failing decodes");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} name another value, e.g.\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn error_of<T: Decode>(text: &str) -> Option<DecodeError> {
    from_text::<T>(text).err()
}

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

fn json_value() -> impl Strategy<Value = Value> {
    let key = "[a-z_]{1,4}|[ -~é😀\\\\\"\n\t]{0,4}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        (-1.0e9f64..1.0e9).prop_map(Value::from),
        "[ -~é😀\\\\\"\n\t\u{7f}\u{1}]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 48, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any JSON value reads back as `serde_json` reads it, compact or pretty.
    #[test]
    fn values_read_as_serde_json_reads_them(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        let theirs: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(from_text::<JsonValue>(&text).unwrap(), theirs);
        let mut reader = Reader::new(&text);
        prop_assert_eq!(reader.raw_value().unwrap(), text.trim());
    }

    /// Any text: accepted exactly when `serde_json` accepts it, as the same value.
    #[test]
    fn any_text_as_serde_json(text in r#"[\[\]{}:," a-z0-9.eE+\-\\ ]{0,24}"#) {
        let ours = from_text::<JsonValue>(&text);
        let theirs = serde_json::from_str::<Value>(&text);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "{:?}: ours {:?}, serde_json's {:?}", text, a, b),
        }
    }

    /// Every finite number comes back exactly (as `JSON.parse` reads the shortest form).
    #[test]
    fn numbers_round_trip(v in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let text = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(from_text::<f64>(&text).unwrap().to_bits(), v.to_bits());
    }

    /// Decoding a wire type through serde (`serde_json::from_str`) is decoding it here.
    #[test]
    fn serde_goes_through_the_decoder(title in "[ -~é]{0,8}", n in any::<u32>()) {
        let text = json!({"type": "session/titleChanged", "title": title, "x": n}).to_string();
        let ours: StateAction = from_text(&text).unwrap();
        let theirs: StateAction = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&ours, &theirs);
        let from_value: StateAction = serde_json::from_value(serde_json::from_str(&text).unwrap()).unwrap();
        prop_assert_eq!(ours, from_value);
    }
}

#[test]
fn untagged_shapes_take_the_first_that_fits() {
    use crate::protocol::jsonrpc::ReconnectResult;
    use crate::protocol::SnapshotState;
    let session = json!({
        "summary": {"resource": "ahp-session:/s", "provider": "p", "title": "t",
            "status": 1, "createdAt": 1, "modifiedAt": 2},
        "lifecycle": "ready", "turns": []
    });
    let decoded = from_text::<SnapshotState>(&session.to_string()).unwrap();
    assert!(matches!(decoded, SnapshotState::Session(_)), "{decoded:?}");
    let error = from_text::<SnapshotState>("[1]").unwrap_err();
    assert_eq!(
        error.message(),
        "expected a root, session, terminal or changeset state"
    );
    let replay = json!({"type": "replay", "actions": [], "missing": []}).to_string();
    assert!(matches!(
        from_text::<ReconnectResult>(&replay).unwrap(),
        ReconnectResult::Replay(_)
    ));
    let error = from_text::<ReconnectResult>(r#"{"type": "replay"}"#).unwrap_err();
    assert_eq!(
        error.message(),
        "expected a replay or a snapshot reconnect result"
    );
}

/// Strings are scanned eight bytes at a time up to the first byte that needs a look: a quote,
/// an escape or a control character at any position (and in any word of a long string) is
/// still found, and multi-byte characters pass, as serde_json reads them.
#[test]
fn strings_read_as_serde_json_reads_them_at_every_position() {
    let plain = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";
    for len in 0..=plain.len() {
        for special in [
            "",
            "\"",
            "\\\\",
            "\\n",
            "\\u00e9",
            "\u{1}",
            "é",
            "\u{1F600}",
            "\u{7f}",
        ] {
            for at in 0..=len {
                let content = format!("{}{special}{}", &plain[..at], &plain[at..len]);
                let text = format!("\"{content}\"");
                let ours = from_text::<String>(&text).map_err(|e| e.offset());
                let theirs = serde_json::from_str::<String>(&text).map_err(|_| ());
                assert_eq!(ours.is_ok(), theirs.is_ok(), "{text:?}");
                if let (Ok(ours), Ok(theirs)) = (&ours, &theirs) {
                    assert_eq!(ours, theirs, "{text:?}");
                }
                if special == "\u{1}" {
                    // The control character is where the error points.
                    assert_eq!(ours, Err(at + 1), "{text:?}");
                }
            }
        }
    }
}
