//! Unknown members of known objects (a newer peer's or an extension's fields, such as
//! `activeClient.systemMessageTransform`) survive decoding, reducing and encoding.
//!
//! The property test takes the 163 conformance fixtures, inserts random members (names the
//! schema does not use, random JSON values) into random objects at every depth of the state
//! (before every action, so objects made by earlier actions get some too) and of the actions,
//! reduces one action at a time, and checks:
//! 1. decoding and encoding the extended state and actions gives the same JSON;
//! 2. reducing the extended state with the extended actions gives the fixture's expected state
//!    once the inserted members are removed;
//! 3. every inserted member found in the result has the value it was inserted with;
//! 4. the inserted members of every object that survives the reduction are still on it: the
//!    state itself; a state object left unchanged or changed in place (same ids) at the same
//!    place; an action object that the reducer placed in the state. Objects the official
//!    reducers build anew are not "the same": pending messages and input requests replaced by
//!    id, and tool calls a transition (`toolCallReady`, `toolCallConfirmed`, `toolCallComplete`,
//!    `toolCallResultConfirmed`) rebuilds from their base fields.

mod common;
#[path = "support/split_mix.rs"]
mod split_mix;

use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionActiveClientChangedAction, SessionState,
    StateAction, StringOrMarkdown, TerminalState,
};
use ahp_wasm::reduce::{self, FixedClock, Outcome};
use proptest::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Map, Value};
use split_mix::SplitMix64;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

const FIXTURE_NOW: f64 = 9999.0;

/// Inserted member names start with this; no schema property does (checked).
const PREFIX: &str = "zzExt";

/// Properties whose object value is a map of typed values (a member there is an entry, which
/// must decode as the value type), not an object with known members.
const TYPED_MAPS: [&str; 3] = ["properties", "config", "answers"];

/// Members that identify an object: an object that keeps them was changed in place.
const IDENTITY_KEYS: [&str; 8] = [
    "id",
    "turnId",
    "toolCallId",
    "partId",
    "uri",
    "resource",
    "clientId",
    "requestId",
];

fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12)
}

/// Every property name the schema uses.
fn schema_names() -> &'static BTreeSet<String> {
    static NAMES: OnceLock<BTreeSet<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        fn walk(value: &Value, out: &mut BTreeSet<String>) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::Object(props)) = map.get("properties") {
                        out.extend(props.keys().cloned());
                    }
                    map.values().for_each(|v| walk(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("protocol/ahp-0.3.0/schema");
        let mut names = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).expect("schema dir") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("schema");
            walk(
                &serde_json::from_str(&text).expect("schema JSON"),
                &mut names,
            );
        }
        assert!(names.len() > 100, "schema property names: {}", names.len());
        assert!(names.iter().all(|n| !n.starts_with(PREFIX)));
        names
    })
}

// ---------------------------------------------------------------------------------------------
// Inserting members
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// One inserted member: where (the path of its object), its name and value.
#[derive(Debug, Clone)]
struct Inserted {
    path: Vec<Step>,
    name: String,
    value: Value,
}

struct Inserter<'a> {
    rng: &'a mut SplitMix64,
    /// Chance in 1/16ths that an object gets members.
    density: u64,
    counter: &'a mut u32,
    out: Vec<Inserted>,
}

impl Inserter<'_> {
    fn name(&mut self) -> String {
        *self.counter += 1;
        let name = format!("{PREFIX}{}_{:x}", self.counter, self.rng.below(1 << 20));
        assert!(!schema_names().contains(&name));
        name
    }

    fn value(&mut self, depth: u32) -> Value {
        let kinds = if depth >= 2 { 6 } else { 8 };
        match self.rng.below(kinds) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.below(2) == 1),
            2 => json!(self.rng.next_u64() as i64 >> self.rng.below(64)),
            3 => {
                let f = f64::from_bits(self.rng.next_u64());
                if f.is_finite() {
                    json!(f)
                } else {
                    json!(0.5)
                }
            }
            4 => {
                let pool = ["", "text", "é ☃ 🙂", "\"quoted\"\n", "0", "{}", "null"];
                Value::String(pool[self.rng.below(pool.len() as u64) as usize].into())
            }
            5 => json!(self.rng.below(1000)),
            6 => Value::Array(
                (0..self.rng.below(4))
                    .map(|_| self.value(depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..self.rng.below(4))
                    .map(|i| (format!("k{i}"), self.value(depth + 1)))
                    .collect(),
            ),
        }
    }

    /// Inserts members into random objects of `value` (children first, so that inserted
    /// values are not walked), at random positions among the existing members.
    fn walk(&mut self, value: &mut Value, path: &mut Vec<Step>) {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    path.push(Step::Index(i));
                    self.walk(item, path);
                    path.pop();
                }
            }
            Value::Object(map) => {
                let typed_map =
                    matches!(path.last(), Some(Step::Key(k)) if TYPED_MAPS.contains(&k.as_str()));
                for (key, child) in map.iter_mut() {
                    if key.starts_with(PREFIX) {
                        continue; // an inserted value: not an object of the protocol
                    }
                    if typed_map {
                        // The map's values are objects again: walk them.
                        path.push(Step::Key(key.clone()));
                        self.walk(child, path);
                        path.pop();
                        continue;
                    }
                    path.push(Step::Key(key.clone()));
                    self.walk(child, path);
                    path.pop();
                }
                if typed_map || self.rng.below(16) >= self.density {
                    return;
                }
                let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                for _ in 0..1 + self.rng.below(2) {
                    let name = self.name();
                    let member = self.value(0);
                    let at = self.rng.below(entries.len() as u64 + 1) as usize;
                    entries.insert(at, (name.clone(), member.clone()));
                    self.out.push(Inserted {
                        path: path.clone(),
                        name,
                        value: member,
                    });
                }
                *map = entries.into_iter().collect();
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------------------------

/// `value` without the inserted members, at every depth.
fn strip(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !k.starts_with(PREFIX))
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
        other => other.clone(),
    }
}

fn resolve<'a>(value: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, step| match step {
        Step::Key(k) => v.get(k),
        Step::Index(i) => v.get(i),
    })
}

/// Every inserted member found in `value`: (path of its object, name, value).
fn found_members(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Inserted>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k.starts_with(PREFIX) {
                    out.push(Inserted {
                        path: path.clone(),
                        name: k.clone(),
                        value: v.clone(),
                    });
                } else {
                    path.push(Step::Key(k.clone()));
                    found_members(v, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Step::Index(i));
                found_members(v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Every object in `value` (normalized) with its path.
fn objects(value: &Value, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Value)>) {
    match value {
        Value::Object(map) => {
            out.push((path.clone(), common::normalize(value)));
            for (k, v) in map {
                path.push(Step::Key(k.clone()));
                objects(v, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Step::Index(i));
                objects(v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn identity(value: &Value) -> Vec<(&'static str, &Value)> {
    IDENTITY_KEYS
        .iter()
        .filter_map(|k| value.get(k).map(|v| (*k, v)))
        .collect()
}

/// Whether `path` names the same object in `a` and in `b`: every array on the way has the same
/// length in both (reducers append, remove or reorder) and the same identity members (`id`, ...)
/// at the index taken; objects the reducers build anew ([`REBUILT`]) are not the same.
fn same_place(a: &Value, b: &Value, path: &[Step]) -> bool {
    let (mut a, mut b) = (a, b);
    for (depth, step) in path.iter().enumerate() {
        if let Step::Index(i) = step {
            match (a.as_array(), b.as_array()) {
                (Some(x), Some(y)) if x.len() == y.len() => {}
                _ => return false,
            }
            a = &a[*i];
            b = &b[*i];
            if identity(a) != identity(b) {
                return false;
            }
        } else if let Step::Key(k) = step {
            match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => {
                    a = x;
                    b = y;
                }
                _ => return false,
            }
        }
        if REBUILT.iter().any(|r| r(&path[..=depth])) {
            return false;
        }
    }
    true
}

/// Objects that an action replaces by a new one with the same id, as the TypeScript reducers
/// do (`steeringMessage: { id: action.id, message: action.message }`, an input request upserted
/// by id): the old object's members go, the action's come.
const REBUILT: [fn(&[Step]) -> bool; 3] = [
    |p| matches!(p, [Step::Key(k)] if k == "steeringMessage"),
    |p| matches!(p, [Step::Key(k), Step::Index(_)] if k == "queuedMessages"),
    |p| matches!(p, [Step::Key(k), Step::Index(_)] if k == "inputRequests"),
];

/// The tool calls of the active turn that `action` moved to another status or rebuilt: a
/// `toolCallReady`, `toolCallConfirmed`, `toolCallComplete` or `toolCallResultConfirmed` builds
/// each call it applies to anew from its base fields (`tcBase` in the TypeScript reducers), so
/// the call object's own unknown members go (objects inside it, such as `_meta`, are kept).
fn rebuilt_tool_calls(plain: &Value, plain_after: &Value, action: &Value) -> Vec<Vec<Step>> {
    const TRANSITIONS: [&str; 4] = [
        "session/toolCallReady",
        "session/toolCallConfirmed",
        "session/toolCallComplete",
        "session/toolCallResultConfirmed",
    ];
    if !TRANSITIONS.contains(&action["type"].as_str().unwrap_or("")) {
        return Vec::new();
    }
    let parts = |state: &Value| state["activeTurn"]["responseParts"].as_array().cloned();
    let (Some(before), Some(after)) = (parts(plain), parts(plain_after)) else {
        return Vec::new();
    };
    before
        .iter()
        .zip(&after)
        .enumerate()
        .filter(|(_, (b, a))| {
            b["toolCall"]["toolCallId"] == action["toolCallId"]
                && common::normalize(&b["toolCall"]) != common::normalize(&a["toolCall"])
        })
        .map(|(i, _)| {
            vec![
                Step::Key("activeTurn".into()),
                Step::Key("responseParts".into()),
                Step::Index(i),
                Step::Key("toolCall".into()),
            ]
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Running fixtures
// ---------------------------------------------------------------------------------------------

fn roundtrip<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    serde_json::to_value(&typed).map_err(|e| format!("encode: {e}"))
}

/// Reduces and returns the encoded state; also checks the decode -> encode round trip of the
/// state and the actions.
fn run(kind: &str, initial: &Value, actions: &[Value]) -> Result<Value, String> {
    let clock = FixedClock(FIXTURE_NOW);
    let state_rt = match kind {
        "root" => roundtrip::<RootState>(initial),
        "session" => roundtrip::<SessionState>(initial),
        "terminal" => roundtrip::<TerminalState>(initial),
        "changeset" => roundtrip::<ChangesetState>(initial),
        "resourceWatch" => roundtrip::<ResourceWatchState>(initial),
        other => return Err(format!("unknown reducer {other:?}")),
    }?;
    if let Some(d) = common::first_difference(
        "state",
        &common::normalize(&state_rt),
        &common::normalize(initial),
    ) {
        return Err(format!("state round trip: {d}"));
    }
    for (i, action) in actions.iter().enumerate() {
        let rt = roundtrip::<StateAction>(action)?;
        if let Some(d) = common::first_difference(
            &format!("action {i}"),
            &common::normalize(&rt),
            &common::normalize(action),
        ) {
            return Err(format!("action round trip: {d}"));
        }
    }
    common::run_reducer(kind, initial, actions, &clock)
}

/// Runs one fixture with members inserted by `seed`; `Err` describes the first violation.
/// Reduces one action at a time, checking each step.
fn check_fixture(name: &str, fixture: &Value, seed: u64, density: u64) -> Result<(), String> {
    let kind = fixture["reducer"].as_str().unwrap_or_default();
    let actions = fixture["actions"].as_array().ok_or("no actions")?;
    let expected = common::normalize(&fixture["expected"]);
    let ctx = |what: String| format!("{name} (seed {seed:#x}): {what}");

    let mut rng = SplitMix64(seed);
    let mut counter = 0;
    let mut ins = Inserter {
        rng: &mut rng,
        density,
        counter: &mut counter,
        out: Vec::new(),
    };
    let mut plain = fixture["initial"].clone();
    let mut extended = plain.clone();
    ins.walk(&mut extended, &mut Vec::new());
    // Every member inserted so far, by name: its value.
    let mut inserted: BTreeMap<String, Value> = BTreeMap::new();
    for m in std::mem::take(&mut ins.out) {
        inserted.insert(m.name, m.value);
    }
    // The decode -> encode round trip of the extended initial state.
    run(kind, &extended, &[]).map_err(&ctx)?;

    for (step, action) in actions.iter().enumerate() {
        if step > 0 {
            // Members on the objects earlier actions made (a started tool call, ...) too.
            ins.walk(&mut extended, &mut Vec::new());
            for m in std::mem::take(&mut ins.out) {
                inserted.insert(m.name, m.value);
            }
        }
        let mut action_ext = action.clone();
        ins.walk(&mut action_ext, &mut Vec::new());
        let action_members = std::mem::take(&mut ins.out);
        for m in &action_members {
            inserted.insert(m.name.clone(), m.value.clone());
        }
        let ctx = |what: String| ctx(format!("action {step}: {what}"));
        let plain_after = run(kind, &plain, std::slice::from_ref(action)).map_err(&ctx)?;
        let ext_after = run(kind, &extended, &[action_ext]).map_err(&ctx)?;
        check_step(
            &plain,
            &extended,
            action,
            &action_members,
            &plain_after,
            &ext_after,
        )
        .map_err(&ctx)?;
        // 3. Members keep their values, and none is made up.
        let mut found = Vec::new();
        found_members(&ext_after, &mut Vec::new(), &mut found);
        for m in &found {
            match inserted.get(&m.name) {
                Some(v) if *v == m.value => {}
                Some(v) => {
                    return Err(ctx(format!(
                        "{} at {:?} is {}, was inserted as {v}",
                        m.name, m.path, m.value
                    )))
                }
                None => {
                    return Err(ctx(format!(
                        "{} at {:?} was never inserted",
                        m.name, m.path
                    )))
                }
            }
        }
        plain = plain_after;
        extended = ext_after;
    }
    // 2. The inserted members change nothing else.
    if let Some(d) =
        common::first_difference("state", &common::normalize(&strip(&extended)), &expected)
    {
        return Err(ctx(format!("result without the inserted members: {d}")));
    }
    Ok(())
}

/// Checks one reduction step: `plain` -> `plain_after` by `action`, and the same with members
/// inserted (`extended` -> `ext_after` by the action with `action_members`).
fn check_step(
    plain: &Value,
    extended: &Value,
    action: &Value,
    action_members: &[Inserted],
    plain_after: &Value,
    ext_after: &Value,
) -> Result<(), String> {
    if let Some(d) = common::first_difference(
        "state",
        &common::normalize(&strip(ext_after)),
        &common::normalize(plain_after),
    ) {
        return Err(format!("result without the inserted members: {d}"));
    }
    let present =
        |path: &[Step], name: &str| resolve(ext_after, path).is_some_and(|o| o.get(name).is_some());
    let mut result_objects = Vec::new();
    objects(plain_after, &mut Vec::new(), &mut result_objects);
    // 4a. Action objects placed in the state: where an object of the action (below its top)
    //     appears in the result exactly once, and not where the state had it already.
    let mut by_path: BTreeMap<String, Vec<&Inserted>> = BTreeMap::new();
    for m in action_members.iter().filter(|m| !m.path.is_empty()) {
        by_path.entry(format!("{:?}", m.path)).or_default().push(m);
    }
    for members in by_path.values() {
        let path = &members[0].path;
        let Some(object) = resolve(action, path).map(common::normalize) else {
            continue;
        };
        let new_places: Vec<&Vec<Step>> = result_objects
            .iter()
            .filter(|(p, o)| {
                *o == object && resolve(plain, p).map(common::normalize).as_ref() != Some(o)
            })
            .map(|(p, _)| p)
            .collect();
        if let [place] = new_places[..] {
            for m in members {
                if !present(place, &m.name) {
                    return Err(format!(
                        "the action object at {path:?}, placed at {place:?}, lost {}",
                        m.name
                    ));
                }
            }
        }
    }
    // Places in the result that hold an object equal to one of the action (below its top):
    // the reducer put the action's object there (or one like it), replacing what was there.
    let mut action_objects = Vec::new();
    objects(action, &mut Vec::new(), &mut action_objects);
    let replaced: Vec<&Vec<Step>> = result_objects
        .iter()
        .filter(|(_, o)| action_objects.iter().any(|(p, a)| !p.is_empty() && a == o))
        .map(|(p, _)| p)
        .collect();
    // 4b. State objects that survive in place.
    let mut state_members = Vec::new();
    found_members(extended, &mut Vec::new(), &mut state_members);
    let rebuilt = rebuilt_tool_calls(plain, plain_after, action);
    for m in &state_members {
        let survives = if m.path.is_empty() {
            true
        } else if rebuilt.contains(&m.path)
            || (1..=m.path.len()).any(|k| replaced.iter().any(|p| **p == m.path[..k]))
        {
            // A tool call that a transition built anew (its own members only), or an object
            // from the action (maybe an equal one) took its place.
            false
        } else {
            match (resolve(plain, &m.path), resolve(plain_after, &m.path)) {
                (Some(b), Some(a)) if a.is_object() && same_place(plain, plain_after, &m.path) => {
                    let (nb, na) = (common::normalize(b), common::normalize(a));
                    nb == na || {
                        let id = identity(&nb);
                        !id.is_empty() && id == identity(&na)
                    }
                }
                _ => false,
            }
        };
        if survives && !present(&m.path, &m.name) {
            return Err(format!(
                "the state object at {:?} survives but lost {}",
                m.path, m.name
            ));
        }
    }
    Ok(())
}

fn fixtures() -> &'static Vec<(String, Value)> {
    static FIXTURES: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let f = common::fixtures();
        assert_eq!(f.len(), 163);
        f
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Every fixture, with members inserted into random objects by one seed per case.
    #[test]
    fn extra_members_survive_every_fixture(seed in any::<u64>(), density in 1u64..=16) {
        for (i, (name, fixture)) in fixtures().iter().enumerate() {
            let seed = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            if let Err(e) = check_fixture(name, fixture, seed, density) {
                return Err(TestCaseError::fail(e));
            }
        }
    }
}

/// Members on every object: the densest case, once per fixture.
#[test]
fn members_on_every_object_of_every_fixture() {
    for (i, (name, fixture)) in fixtures().iter().enumerate() {
        check_fixture(name, fixture, i as u64, 16).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The issue's case: `session/activeClientChanged` keeps our `systemMessageTransform` (with a
/// member this version does not know inside it) and a newer peer's unknown member of
/// `activeClient`, through the reducer and the wire.
#[test]
fn active_client_changed_keeps_system_message_transform() {
    let transform = json!({ "sections": ["tone"], "zzExtMode": "replace" });
    let action = json!({
        "type": "session/activeClientChanged",
        "activeClient": {
            "clientId": "c1",
            "tools": [],
            "systemMessageTransform": transform,
            "zzNewerPeer": { "level": 2 },
        },
        "zzExtTop": 1,
    });
    let parsed: StateAction = serde_json::from_value(action.clone()).expect("action");
    assert_eq!(serde_json::to_value(&parsed).unwrap(), action);
    let StateAction::SessionActiveClientChanged(inner) = &parsed else {
        panic!("{parsed:?}");
    };
    let inner: &SessionActiveClientChangedAction = inner;
    let client = inner.active_client.as_ref().expect("activeClient");
    let opt_in = client.system_message_transform.as_ref().expect("opt-in");
    assert_eq!(opt_in.sections, ["tone"]);
    assert_eq!(opt_in.extra.get("zzExtMode"), Some(&json!("replace")));
    assert_eq!(
        client.extra.get("zzNewerPeer"),
        Some(&json!({ "level": 2 }))
    );

    let fixture = fixtures()
        .iter()
        .find(|(_, f)| f["reducer"] == "session")
        .expect("a session fixture");
    let mut state: SessionState =
        serde_json::from_value(fixture.1["initial"].clone()).expect("state");
    state
        .extra
        .insert("zzExtState".into(), json!({ "kept": true }));
    let outcome = reduce::session_reducer(&mut state, &parsed, &FixedClock(FIXTURE_NOW));
    assert!(matches!(outcome, Outcome::Applied(_)), "{outcome:?}");
    let encoded = serde_json::to_value(&state).unwrap();
    assert_eq!(encoded["activeClient"]["systemMessageTransform"], transform);
    assert_eq!(
        encoded["activeClient"]["zzNewerPeer"],
        json!({ "level": 2 })
    );
    assert_eq!(encoded["zzExtState"], json!({ "kept": true }));
    // The action's own top-level extension member is not a state member.
    assert!(encoded.get("zzExtTop").is_none());
}

/// `{ markdown }` objects keep their unknown members too.
#[test]
fn markdown_objects_keep_members() {
    let value = json!({ "markdown": "**hi**", "zzExtFlavor": "gfm" });
    let parsed: StringOrMarkdown = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
}

/// A tagged union member whose extension members come before the tag (the slow path of the
/// union decoder) keeps them, and writes the tag first again.
#[test]
fn members_before_the_tag_are_kept() {
    let text = r#"{"zzExtA":[1,2],"type":"session/delta","turnId":"t","partId":"p","content":"x","zzExtB":null}"#;
    let parsed: StateAction = serde_json::from_str(text).unwrap();
    assert_eq!(
        serde_json::to_string(&parsed).unwrap(),
        r#"{"type":"session/delta","turnId":"t","partId":"p","content":"x","zzExtA":[1,2],"zzExtB":null}"#
    );
    let _: Map<String, Value> = serde_json::from_str(text).unwrap();
}
