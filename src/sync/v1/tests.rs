use super::*;
use crate::sync::ChangeSet;

#[test]
fn kind_from_uri() {
    let cases = [
        ("ahp-root://", Some(ChannelKind::Root)),
        ("ahp-session:/s1", Some(ChannelKind::Session)),
        (
            "ahp-session:/s1/annotations",
            Some(ChannelKind::Annotations),
        ),
        ("ahp-session:/annotations", Some(ChannelKind::Session)),
        ("ahp-chat:/s1/main", Some(ChannelKind::Chat)),
        ("ahp-terminal:/t", Some(ChannelKind::Terminal)),
        (
            "ahp-changeset:/s1/main/branch",
            Some(ChannelKind::Changeset),
        ),
        ("ahp-resource-watch:/w", Some(ChannelKind::ResourceWatch)),
        ("ahp-automations://", Some(ChannelKind::Automations)),
        ("ahp-automation-run:/r1", Some(ChannelKind::AutomationRun)),
        ("ahp-canvas:/preview", Some(ChannelKind::Canvas)),
        ("ahp-otlp://logs", None),
        ("ahp-automation:/a1", None),
        ("copilot:/s", None),
        ("no-scheme", None),
    ];
    for (uri, kind) in cases {
        assert_eq!(ChannelKind::from_uri(uri), kind, "{uri}");
    }
}

#[test]
fn every_kind_has_a_state_and_names_its_fields() {
    fn check<S: ChannelState>(kind: ChannelKind) {
        assert_eq!(S::KIND, kind);
        let all = crate::sync::all_fields::<S>();
        let names = ChangeSet::of::<S>(all).names();
        assert_eq!(names.len(), S::fields().len(), "{kind:?}");
        assert_eq!(kind.field_names(all.bits()), names);
        assert!(ChangeSet::empty(kind).names().is_empty());
    }
    check::<RootState>(ChannelKind::Root);
    check::<SessionState>(ChannelKind::Session);
    check::<AnnotationsState>(ChannelKind::Annotations);
    check::<ChatState>(ChannelKind::Chat);
    check::<TerminalState>(ChannelKind::Terminal);
    check::<ChangesetState>(ChannelKind::Changeset);
    check::<ResourceWatchState>(ChannelKind::ResourceWatch);
    check::<AutomationState>(ChannelKind::Automations);
    check::<AutomationRunState>(ChannelKind::AutomationRun);
    check::<CanvasState>(ChannelKind::Canvas);
    let names: Vec<_> = ChannelKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), 10);
    assert!(names.contains(&"automationRun") && names.contains(&"annotations"));
}
