//! Notification method names, and the table of the server's protocol notifications.

/// Server -> client: an `ActionEnvelope`.
pub const ACTION: &str = "action";
/// Client -> server: `DispatchActionParams`.
pub const DISPATCH_ACTION: &str = "dispatchAction";
/// Client -> server: `UnsubscribeParams`.
pub const UNSUBSCRIBE: &str = "unsubscribe";
/// Server -> client: `SessionAddedParams`.
pub const SESSION_ADDED: &str = "root/sessionAdded";
/// Server -> client: `SessionRemovedParams`.
pub const SESSION_REMOVED: &str = "root/sessionRemoved";
/// Server -> client: `SessionSummaryChangedParams`.
pub const SESSION_SUMMARY_CHANGED: &str = "root/sessionSummaryChanged";
/// Server -> client: `AuthRequiredParams`.
pub const AUTH_REQUIRED: &str = "auth/required";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportLogsParams`.
pub const OTLP_EXPORT_LOGS: &str = "otlp/exportLogs";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportTracesParams`.
pub const OTLP_EXPORT_TRACES: &str = "otlp/exportTraces";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportMetricsParams`.
pub const OTLP_EXPORT_METRICS: &str = "otlp/exportMetrics";

/// A server -> client protocol notification other than `action`: its method and the name of
/// its params type (schema `ProtocolNotification`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotificationInfo {
    /// The method.
    pub method: &'static str,
    /// The params type.
    pub params: &'static str,
}

/// The server's protocol notifications besides `action`, as AHP 0.3.0 defines them (each arm
/// of the schema's `ProtocolNotification`). Any other notification a client receives (MCP
/// traffic on an `mcp://` channel, an extension) is outside the protocol's set.
pub const PROTOCOL_NOTIFICATIONS: &[NotificationInfo] = &[
    NotificationInfo {
        method: SESSION_ADDED,
        params: "SessionAddedParams",
    },
    NotificationInfo {
        method: SESSION_REMOVED,
        params: "SessionRemovedParams",
    },
    NotificationInfo {
        method: SESSION_SUMMARY_CHANGED,
        params: "SessionSummaryChangedParams",
    },
    NotificationInfo {
        method: AUTH_REQUIRED,
        params: "AuthRequiredParams",
    },
    NotificationInfo {
        method: OTLP_EXPORT_LOGS,
        params: "OtlpExportLogsParams",
    },
    NotificationInfo {
        method: OTLP_EXPORT_TRACES,
        params: "OtlpExportTracesParams",
    },
    NotificationInfo {
        method: OTLP_EXPORT_METRICS,
        params: "OtlpExportMetricsParams",
    },
];

/// Whether `method` is one of [`PROTOCOL_NOTIFICATIONS`].
pub fn is_protocol_notification(method: &str) -> bool {
    PROTOCOL_NOTIFICATIONS.iter().any(|n| n.method == method)
}
