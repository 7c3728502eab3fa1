//! The `RootState` reducer (`ahp-root://`).
//!
//! Every root action is server-authoritative and replaces (or, for config, merges into) one
//! top-level field, so an action whose value equals the current one reports
//! [`NoOp::NothingToChange`]: a mirror has nothing to update.

use super::{Changed, Clock, NoOp, Outcome};
use crate::protocol::{
    JsonObject, RootConfigChangedAction, RootState, RootStateField, StateAction,
};

/// Applies `action` to a `RootState`.
///
/// - `root/agentsChanged`, `root/activeSessionsChanged`, `root/terminalsChanged` replace their
///   field wholesale.
/// - `root/configChanged` merges `config` into `config.values` key by key (shallow), or
///   replaces the values when `replace` is `true`; with no `config` in the state there is no
///   schema to hold values, so it is a no-op (fixture 128).
///
/// Root actions stamp no time, so `clock` is unused.
pub fn root_reducer(
    state: &mut RootState,
    action: &StateAction,
    _clock: &dyn Clock,
) -> Outcome<RootStateField> {
    match action {
        StateAction::RootAgentsChanged(a) => {
            if state.agents == a.agents {
                return Outcome::NoOp(NoOp::NothingToChange);
            }
            state.agents.clone_from(&a.agents);
            applied(RootStateField::Agents)
        }
        StateAction::RootActiveSessionsChanged(a) => {
            if state.active_sessions == Some(a.active_sessions) {
                return Outcome::NoOp(NoOp::NothingToChange);
            }
            state.active_sessions = Some(a.active_sessions);
            applied(RootStateField::ActiveSessions)
        }
        StateAction::RootTerminalsChanged(a) => {
            if state.terminals.as_ref() == Some(&a.terminals) {
                return Outcome::NoOp(NoOp::NothingToChange);
            }
            state.terminals = Some(a.terminals.clone());
            applied(RootStateField::Terminals)
        }
        StateAction::RootConfigChanged(a) => config_changed(state, a),
        _ => Outcome::NoOp(NoOp::NotForThisChannel),
    }
}

fn applied(field: RootStateField) -> Outcome<RootStateField> {
    Outcome::Applied(Changed::one(field))
}

fn config_changed(
    state: &mut RootState,
    action: &RootConfigChangedAction,
) -> Outcome<RootStateField> {
    let Some(config) = state.config.as_mut() else {
        return Outcome::NoOp(NoOp::NothingToChange);
    };
    let values = &mut config.values;
    if action.replace == Some(true) {
        // Order-insensitive: `Map` equality compares as a map even with `preserve_order`.
        if *values == action.config {
            return Outcome::NoOp(NoOp::NothingToChange);
        }
        values.clone_from(&action.config);
    } else {
        if !merge_changes(values, &action.config) {
            return Outcome::NoOp(NoOp::NothingToChange);
        }
        for (key, value) in &action.config {
            values.insert(key.clone(), value.clone());
        }
    }
    applied(RootStateField::Config)
}

/// Whether merging `incoming` into `values` would change any value.
fn merge_changes(values: &JsonObject, incoming: &JsonObject) -> bool {
    incoming
        .iter()
        .any(|(key, value)| values.get(key) != Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        AgentInfo, RootConfigState, TerminalClaim, TerminalClientClaim, TerminalInfo,
    };
    use crate::reduce::FixedClock;
    use serde_json::json;

    const CLOCK: FixedClock = FixedClock(42.0);

    fn action(value: serde_json::Value) -> StateAction {
        serde_json::from_value(value).expect("valid action")
    }

    fn with_config(values: serde_json::Value) -> RootState {
        RootState {
            config: Some(RootConfigState {
                values: serde_json::from_value(values).expect("object"),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Applies `a` and asserts it is a no-op with nothing to change that leaves `state` as it was.
    fn assert_nothing_to_change(state: &mut RootState, a: &StateAction) {
        let before = state.clone();
        assert_eq!(
            root_reducer(state, a, &CLOCK),
            Outcome::NoOp(NoOp::NothingToChange)
        );
        assert_eq!(*state, before);
    }

    fn agent(provider: &str) -> AgentInfo {
        AgentInfo {
            provider: provider.into(),
            ..Default::default()
        }
    }

    #[test]
    fn agents_changed_replaces_and_reports_agents() {
        let mut state = RootState::default();
        let a = StateAction::RootAgentsChanged(crate::protocol::RootAgentsChangedAction {
            agents: vec![agent("copilot")],
            extra: Default::default(),
        });
        let out = root_reducer(&mut state, &a, &CLOCK);
        assert_eq!(out, Outcome::Applied(Changed::one(RootStateField::Agents)));
        assert_eq!(state.agents, vec![agent("copilot")]);
        assert_nothing_to_change(&mut state, &a);
    }

    #[test]
    fn active_sessions_and_terminals_report_their_field_only() {
        let mut state = RootState::default();
        let out = root_reducer(
            &mut state,
            &action(json!({"type": "root/activeSessionsChanged", "activeSessions": 3})),
            &CLOCK,
        );
        assert_eq!(
            out,
            Outcome::Applied(Changed::one(RootStateField::ActiveSessions))
        );
        assert_eq!(state.active_sessions, Some(3.0));

        let terminals = action(json!({"type": "root/terminalsChanged", "terminals": []}));
        let out = root_reducer(&mut state, &terminals, &CLOCK);
        assert_eq!(
            out,
            Outcome::Applied(Changed::one(RootStateField::Terminals))
        );
        assert_eq!(state.terminals, Some(vec![]));
        assert_nothing_to_change(&mut state, &terminals);
    }

    #[test]
    fn terminals_with_unknown_claims_are_kept_verbatim() {
        let mut state = RootState::default();
        let a = action(json!({"type": "root/terminalsChanged", "terminals": [
            {"resource": "t:/1", "title": "a", "claim": {"kind": "future", "x": 1}},
            {"resource": "t:/2", "title": "b", "claim": {"kind": "client", "clientId": "c"}},
        ]}));
        assert!(root_reducer(&mut state, &a, &CLOCK).is_applied());
        let terminals = state.terminals.as_deref().unwrap_or_default();
        assert!(matches!(
            terminals.first().map(|t| &t.claim),
            Some(TerminalClaim::Unknown(_))
        ));
        assert_eq!(
            terminals.get(1).map(|t| &t.claim),
            Some(&TerminalClaim::Client(TerminalClientClaim {
                client_id: "c".into(),
                extra: Default::default()
            }))
        );
        let json = serde_json::to_value(&state).expect("serializes");
        assert_eq!(
            json["terminals"][0]["claim"],
            json!({"kind": "future", "x": 1})
        );
        let _: Vec<TerminalInfo> =
            serde_json::from_value(json["terminals"].clone()).expect("round-trips");
    }

    #[test]
    fn config_merge_keeps_other_keys_and_noops_when_equal() {
        let mut state = with_config(json!({"theme": "light", "locale": "en"}));
        let a =
            action(json!({"type": "root/configChanged", "config": {"theme": "dark", "font": 12}}));
        assert_eq!(
            root_reducer(&mut state, &a, &CLOCK),
            Outcome::Applied(Changed::one(RootStateField::Config))
        );
        let values = state
            .config
            .as_ref()
            .map(|c| serde_json::Value::Object(c.values.clone()));
        assert_eq!(
            values,
            Some(json!({"theme": "dark", "locale": "en", "font": 12}))
        );

        assert_nothing_to_change(&mut state, &a);
        let empty = action(json!({"type": "root/configChanged", "config": {}}));
        assert_nothing_to_change(&mut state, &empty);
    }

    #[test]
    fn config_replace_drops_other_keys() {
        let mut state = with_config(json!({"theme": "light", "locale": "en"}));
        let a = action(
            json!({"type": "root/configChanged", "config": {"theme": "light"}, "replace": true}),
        );
        assert!(root_reducer(&mut state, &a, &CLOCK).is_applied());
        let values = state
            .config
            .as_ref()
            .map(|c| serde_json::Value::Object(c.values.clone()));
        assert_eq!(values, Some(json!({"theme": "light"})));
        assert_nothing_to_change(&mut state, &a);
        // `replace: false` is a merge.
        let merge =
            action(json!({"type": "root/configChanged", "config": {"x": true}, "replace": false}));
        assert!(root_reducer(&mut state, &merge, &CLOCK).is_applied());
        let values = state
            .config
            .as_ref()
            .map(|c| serde_json::Value::Object(c.values.clone()));
        assert_eq!(values, Some(json!({"theme": "light", "x": true})));
    }

    #[test]
    fn config_changed_without_config_is_untouched() {
        let mut state = RootState {
            agents: vec![agent("a")],
            ..Default::default()
        };
        for replace in [json!(null), json!(true)] {
            let a = action(
                json!({"type": "root/configChanged", "config": {"k": 1}, "replace": replace}),
            );
            assert_nothing_to_change(&mut state, &a);
        }
    }

    #[test]
    fn other_channels_and_unknown_actions_are_not_for_root() {
        let mut state = with_config(json!({"a": 1}));
        state.agents.push(agent("x"));
        let before = state.clone();
        for value in [
            json!({"type": "root/nonExistentAction"}),
            json!({"type": "terminal/cleared"}),
            json!({"type": "session/titleChanged", "title": "t"}),
            json!({"type": "changeset/cleared"}),
        ] {
            assert_eq!(
                root_reducer(&mut state, &action(value), &CLOCK),
                Outcome::NoOp(NoOp::NotForThisChannel)
            );
        }
        assert_eq!(state, before);
    }
}
