//! AHP 1.0's server -> client protocol notifications besides `action`: 0.3.0's set (the same
//! methods, 1.0's params types) and `progress`.

pub use crate::protocol::jsonrpc::methods::NotificationInfo;

/// Server -> client: `SessionAddedParams`.
pub const SESSION_ADDED: &str = "root/sessionAdded";
/// Server -> client: `SessionRemovedParams`.
pub const SESSION_REMOVED: &str = "root/sessionRemoved";
/// Server -> client: `SessionSummaryChangedParams`.
pub const SESSION_SUMMARY_CHANGED: &str = "root/sessionSummaryChanged";
/// Server -> client: `AuthRequiredParams` (1.0: the resource's RFC 9728 metadata, where 0.3.0
/// sent its URL).
pub const AUTH_REQUIRED: &str = "auth/required";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportLogsParams`.
pub const OTLP_EXPORT_LOGS: &str = "otlp/exportLogs";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportTracesParams`.
pub const OTLP_EXPORT_TRACES: &str = "otlp/exportTraces";
/// Server -> client, on an `ahp-otlp:` channel: `OtlpExportMetricsParams`.
pub const OTLP_EXPORT_METRICS: &str = "otlp/exportMetrics";

/// Server -> client, on the root channel: `ProgressParams` (a long request's progress, for
/// the `progressToken` the client gave it). New in 1.0.
pub const PROGRESS: &str = "progress";

/// The server's protocol notifications besides `action`, as AHP 1.0.0 defines them (the
/// official `ahp-types` 1.0.0 `notifications` module). Any other notification a client
/// receives (MCP traffic on an `mcp://` channel, an extension) is outside the protocol's set.
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
        method: PROGRESS,
        params: "ProgressParams",
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
