//! MCP Apps (guide/mcp.md) and the `mcp://` channel (spec/mcp-channel.md), the parts that need
//! no I/O: which servers can host Apps and with which `AhpMcpUiHostCapabilities`, which methods
//! and notifications a channel serves, the `_meta.ui` of an App tool, and what clients that did
//! not declare `capabilities.mcpApps` see instead (the same state without `mcpApp` and
//! `channel`).
//!
//! The hub side (requests, bounds, permissions) is `hub/mcp/channel.rs`.

use super::McpTool;
use ahp_wasm::protocol::{
    AhpMcpUiHostCapabilities, AhpMcpUiHostCapabilitiesServerResources,
    AhpMcpUiHostCapabilitiesServerTools, Customization, McpServerCustomization, SessionState,
    StateAction,
};
use serde_json::{json, Value};

/// The MCP Apps extension id a client declares in `capabilities.extensions` (SEP-1724).
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an App's HTML resource.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme (and prefix) of channel URIs.
pub const SCHEME: &str = "mcp://";

/// `notifications/tools/list_changed`.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// `notifications/resources/list_changed`.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";

/// The `_meta.ui` of an MCP tool that backs an App (it has a `resourceUri`), verbatim; the
/// older flat key `_meta["ui/resourceUri"]` becomes `{resourceUri}`.
pub fn tool_ui(tool: &McpTool) -> Option<Value> {
    let meta = tool.raw.get("_meta")?;
    match meta.get("ui") {
        Some(ui) if ui.get("resourceUri").is_some_and(Value::is_string) => Some(ui.clone()),
        _ => meta
            .get("ui/resourceUri")
            .filter(|u| u.is_string())
            .map(|uri| json!({ "resourceUri": uri })),
    }
}

/// What this host serves on the channel of a server with MCP capabilities `server` (the
/// `capabilities` of its `initialize` result) and `tools`; `None` when it cannot host Apps.
///
/// A server can host Apps when it serves resources (a View is a `ui://` resource) and either one
/// of its tools points at a UI resource or it declares the UI extension. `serverTools` and
/// `serverResources` mirror the server's `tools` and `resources` capabilities (`listChanged`
/// included: the host forwards those notifications). `logging` and `sampling` are never
/// advertised: this host does not relay App log entries, and has no model to sample with.
pub fn host_capabilities(server: &Value, tools: &[McpTool]) -> Option<AhpMcpUiHostCapabilities> {
    let resources = server.get("resources")?;
    let declares_ui = server
        .pointer("/extensions")
        .and_then(|e| e.get(UI_EXTENSION))
        .is_some();
    if !declares_ui && !tools.iter().any(|t| tool_ui(t).is_some()) {
        return None;
    }
    let list_changed = |cap: &Value| cap.get("listChanged").and_then(Value::as_bool);
    Some(AhpMcpUiHostCapabilities {
        server_tools: server
            .get("tools")
            .map(|t| AhpMcpUiHostCapabilitiesServerTools {
                list_changed: list_changed(t),
                extra: Default::default(),
            }),
        server_resources: Some(AhpMcpUiHostCapabilitiesServerResources {
            list_changed: list_changed(resources),
            extra: Default::default(),
        }),
        logging: None,
        sampling: None,
        extra: Default::default(),
    })
}

/// Whether the channel serves request `method` under `caps` (spec/mcp-channel.md, "Negotiating
/// the served surface"); everything else is `-32601`.
pub fn serves(caps: &AhpMcpUiHostCapabilities, method: &str) -> bool {
    match method {
        "tools/list" | "tools/call" => caps.server_tools.is_some(),
        "resources/list" | "resources/templates/list" | "resources/read" => {
            caps.server_resources.is_some()
        }
        "logging/setLevel" => caps.logging.is_some(),
        "sampling/createMessage" => caps.sampling.is_some(),
        _ => false,
    }
}

/// Whether the host forwards server notification `method` to the channel's clients under
/// `caps` (only the `list_changed` ones whose capability says `listChanged: true`).
pub fn forwards(caps: &AhpMcpUiHostCapabilities, method: &str) -> bool {
    match method {
        TOOLS_LIST_CHANGED => caps
            .server_tools
            .as_ref()
            .is_some_and(|t| t.list_changed == Some(true)),
        RESOURCES_LIST_CHANGED => caps
            .server_resources
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true)),
        _ => false,
    }
}

fn has_app_fields(m: &McpServerCustomization) -> bool {
    m.mcp_app.is_some() || m.channel.is_some()
}

fn strip(m: &mut McpServerCustomization) {
    m.mcp_app = None;
    m.channel = None;
}

/// The action as a client without `capabilities.mcpApps` gets it, when it differs: the MCP
/// server customizations it carries lose `mcpApp` and `channel`. Applying the stripped actions
/// to the stripped state gives the stripped state of the full one, so such a client's mirror
/// stays exact.
pub fn plain_action(action: &StateAction) -> Option<StateAction> {
    match action {
        StateAction::SessionMcpServerStateChanged(a) if a.channel.is_some() => {
            let mut a = a.clone();
            a.channel = None;
            Some(StateAction::SessionMcpServerStateChanged(a))
        }
        StateAction::SessionCustomizationUpdated(a) => match &a.customization {
            Customization::McpServer(m) if has_app_fields(m) => {
                let mut a = a.clone();
                if let Customization::McpServer(m) = &mut a.customization {
                    strip(m);
                }
                Some(StateAction::SessionCustomizationUpdated(a))
            }
            _ => None,
        },
        StateAction::SessionCustomizationsChanged(a)
            if a.customizations.iter().any(is_app_bearing) =>
        {
            let mut a = a.clone();
            a.customizations.iter_mut().for_each(strip_customization);
            Some(StateAction::SessionCustomizationsChanged(a))
        }
        _ => None,
    }
}

fn is_app_bearing(c: &Customization) -> bool {
    matches!(c, Customization::McpServer(m) if has_app_fields(m))
}

fn strip_customization(c: &mut Customization) {
    if let Customization::McpServer(m) = c {
        strip(m);
    }
}

/// The session state as a client without `capabilities.mcpApps` sees it, when it differs.
pub fn plain_state(state: &SessionState) -> Option<SessionState> {
    if !state.customizations.iter().flatten().any(is_app_bearing) {
        return None;
    }
    let mut state = state.clone();
    state
        .customizations
        .iter_mut()
        .flatten()
        .for_each(strip_customization);
    Some(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ahp_wasm::protocol::{
        McpServerCustomizationApps, McpServerReadyState, McpServerState,
        SessionMcpServerStateChangedAction,
    };

    fn tool(raw: Value) -> McpTool {
        McpTool {
            name: raw["name"].as_str().unwrap().to_owned(),
            raw,
        }
    }

    #[test]
    fn app_tools_and_capabilities() {
        let app = tool(
            json!({"name": "a", "_meta": {"ui": {"resourceUri": "ui://a/x.html",
            "visibility": ["app"]}}}),
        );
        let legacy = tool(json!({"name": "b", "_meta": {"ui/resourceUri": "ui://b"}}));
        let plain = tool(json!({"name": "c", "_meta": {"ui": {"visibility": ["app"]}}}));
        assert_eq!(
            tool_ui(&app),
            Some(json!({"resourceUri": "ui://a/x.html", "visibility": ["app"]}))
        );
        assert_eq!(tool_ui(&legacy), Some(json!({"resourceUri": "ui://b"})));
        assert_eq!(tool_ui(&plain), None);

        let server = json!({"tools": {"listChanged": true}, "resources": {}});
        let caps = host_capabilities(&server, std::slice::from_ref(&app)).unwrap();
        assert_eq!(
            serde_json::to_value(&caps).unwrap(),
            json!({"serverTools": {"listChanged": true}, "serverResources": {}})
        );
        assert!(serves(&caps, "tools/call") && serves(&caps, "resources/templates/list"));
        for m in [
            "logging/setLevel",
            "sampling/createMessage",
            "prompts/list",
            "initialize",
        ] {
            assert!(!serves(&caps, m), "{m}");
        }
        assert!(forwards(&caps, TOOLS_LIST_CHANGED));
        assert!(!forwards(&caps, RESOURCES_LIST_CHANGED));
        // No App tool, no resources: no Apps.
        assert!(host_capabilities(&server, std::slice::from_ref(&plain)).is_none());
        assert!(host_capabilities(&json!({"tools": {}}), &[app]).is_none());
        // The extension alone is enough.
        let declared = json!({"resources": {}, "extensions": {UI_EXTENSION: {}}});
        assert!(host_capabilities(&declared, &[]).is_some());
    }

    #[test]
    fn clients_without_mcp_apps_see_neither_mcp_app_nor_channel() {
        let entry = McpServerCustomization {
            id: "mcp/x".into(),
            uri: "file:///w/.mcp.json".into(),
            name: "x".into(),
            icons: None,
            range: None,
            enabled: true,
            state: McpServerState::Ready(McpServerReadyState {
                extra: Default::default(),
            }),
            channel: Some("mcp://ahp-host/1".into()),
            mcp_app: Some(McpServerCustomizationApps {
                capabilities: AhpMcpUiHostCapabilities::default(),
                extra: Default::default(),
            }),
            extra: Default::default(),
        };
        let updated = StateAction::SessionCustomizationUpdated(Box::new(
            ahp_wasm::protocol::SessionCustomizationUpdatedAction {
                customization: Customization::McpServer(entry.clone()),
                extra: Default::default(),
            },
        ));
        let Some(StateAction::SessionCustomizationUpdated(p)) = plain_action(&updated) else {
            panic!("stripped")
        };
        let Customization::McpServer(m) = &p.customization else {
            panic!()
        };
        assert!(m.mcp_app.is_none() && m.channel.is_none() && m.name == "x");
        let changed = StateAction::SessionMcpServerStateChanged(Box::new(
            SessionMcpServerStateChangedAction {
                id: "mcp/x".into(),
                state: McpServerState::Ready(McpServerReadyState {
                    extra: Default::default(),
                }),
                channel: Some("mcp://ahp-host/1".into()),
                extra: Default::default(),
            },
        ));
        assert!(matches!(plain_action(&changed),
            Some(StateAction::SessionMcpServerStateChanged(a)) if a.channel.is_none()));
        let changed_all = StateAction::SessionCustomizationsChanged(
            ahp_wasm::protocol::SessionCustomizationsChangedAction {
                customizations: vec![Customization::McpServer(entry)],
                extra: Default::default(),
            },
        );
        let Some(StateAction::SessionCustomizationsChanged(p)) = plain_action(&changed_all) else {
            panic!("stripped")
        };
        assert!(plain_action(&StateAction::SessionCustomizationsChanged(p)).is_none());
        assert!(
            plain_action(&StateAction::SessionMcpServerStateChanged(Box::new(
                SessionMcpServerStateChangedAction {
                    id: "mcp/x".into(),
                    state: McpServerState::Ready(McpServerReadyState {
                        extra: Default::default(),
                    }),
                    channel: None,
                    extra: Default::default(),
                }
            )))
            .is_none()
        );
    }
}
