//! `listSessions.filter`. The 0.3.0 schema leaves the filter open ("optional filter criteria",
//! an object); this host defines these members, all optional, all of which must match:
//!
//! | member | type | a session matches when |
//! |---|---|---|
//! | `provider` | string | `summary.provider` is it |
//! | `workingDirectory` | URI | `summary.workingDirectory` is it (as the host reports it) |
//! | `status` | integer mask | `summary.status` has every bit of it (`8`: a turn is active) |
//! | `excludeStatus` | integer mask | `summary.status` has none of its bits (`64`: not archived) |
//! | `titleContains` | string | `summary.title` contains it, ignoring case |
//! | `createdAfter` / `modifiedAfter` | number (ms) | `summary.createdAt` / `modifiedAt` is later |
//!
//! Any other member, or a member of the wrong type, is `-32602`: a filter the host would
//! silently ignore answers more sessions than were asked for.

use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::{errors, JsonObject, ListSessionsParams, SessionSummary};
use serde_json::Value;

/// The members of `filter` this host knows.
const MEMBERS: &str = "provider, workingDirectory, status, excludeStatus, titleContains, \
                       createdAfter, modifiedAfter";

/// A checked `listSessions` filter (the empty filter lists every session).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SessionFilter {
    provider: Option<String>,
    working_directory: Option<String>,
    status: u32,
    exclude_status: u32,
    /// Lower-cased.
    title_contains: Option<String>,
    created_after: Option<f64>,
    modified_after: Option<f64>,
}

fn invalid(message: String) -> ErrorObject {
    ErrorObject::new(errors::INVALID_PARAMS, message)
}

fn string(key: &str, value: &Value) -> Result<String, ErrorObject> {
    value.as_str().map(str::to_owned).ok_or_else(|| {
        invalid(format!(
            "invalid params at `filter.{key}`: expected a string"
        ))
    })
}

fn number(key: &str, value: &Value) -> Result<f64, ErrorObject> {
    value.as_f64().ok_or_else(|| {
        invalid(format!(
            "invalid params at `filter.{key}`: expected a number"
        ))
    })
}

fn mask(key: &str, value: &Value) -> Result<u32, ErrorObject> {
    value
        .as_u64()
        .and_then(|m| u32::try_from(m).ok())
        .ok_or_else(|| {
            invalid(format!(
                "invalid params at `filter.{key}`: expected a SessionStatus bit mask \
                 (an integer from 0 to 4294967295)"
            ))
        })
}

impl SessionFilter {
    /// Checks `listSessions` params.
    pub fn from_params(p: ListSessionsParams) -> Result<SessionFilter, ErrorObject> {
        if p.channel != ROOT_CHANNEL {
            return Err(invalid(format!(
                "invalid params at `channel`: `listSessions` is sent on `{ROOT_CHANNEL}`"
            )));
        }
        p.filter
            .map_or(Ok(SessionFilter::default()), SessionFilter::from_object)
    }

    fn from_object(filter: JsonObject) -> Result<SessionFilter, ErrorObject> {
        let mut f = SessionFilter::default();
        for (key, value) in &filter {
            match key.as_str() {
                "provider" => f.provider = Some(string(key, value)?),
                "workingDirectory" => f.working_directory = Some(string(key, value)?),
                "status" => f.status = mask(key, value)?,
                "excludeStatus" => f.exclude_status = mask(key, value)?,
                "titleContains" => f.title_contains = Some(string(key, value)?.to_lowercase()),
                "createdAfter" => f.created_after = Some(number(key, value)?),
                "modifiedAfter" => f.modified_after = Some(number(key, value)?),
                other => {
                    let shown: String = other.chars().take(64).collect();
                    return Err(invalid(format!(
                        "invalid params at `filter`: unknown member `{shown}`; this host \
                         filters by {MEMBERS}"
                    )));
                }
            }
        }
        Ok(f)
    }

    /// Whether a session's summary passes.
    pub fn matches(&self, s: &SessionSummary) -> bool {
        self.provider.as_ref().is_none_or(|p| *p == s.provider)
            && self
                .working_directory
                .as_ref()
                .is_none_or(|w| s.working_directory.as_ref() == Some(w))
            && s.status & self.status == self.status
            && s.status & self.exclude_status == 0
            && self
                .title_contains
                .as_ref()
                .is_none_or(|t| s.title.to_lowercase().contains(t.as_str()))
            && self.created_after.is_none_or(|t| s.created_at > t)
            && self.modified_after.is_none_or(|t| s.modified_at > t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filter(v: Value) -> Result<SessionFilter, ErrorObject> {
        SessionFilter::from_params(ListSessionsParams {
            channel: ROOT_CHANNEL.into(),
            filter: Some(serde_json::from_value(v).unwrap()),
            extra: Default::default(),
        })
    }

    #[test]
    fn every_member_must_match() {
        let s = SessionSummary {
            provider: "p".into(),
            title: "Fix the Parser".into(),
            status: 1 | 64,
            created_at: 10.0,
            modified_at: 20.0,
            working_directory: Some("file:///w".into()),
            ..Default::default()
        };
        let yes = |v| filter(v).unwrap().matches(&s);
        assert!(yes(json!({})));
        assert!(yes(json!({"provider": "p", "titleContains": "PARSER",
            "status": 65, "createdAfter": 9, "modifiedAfter": 19.5,
            "workingDirectory": "file:///w"})));
        assert!(!yes(json!({"provider": "q"})));
        assert!(!yes(json!({"status": 8})));
        assert!(!yes(json!({"excludeStatus": 64})));
        assert!(yes(json!({"excludeStatus": 8})));
        assert!(!yes(json!({"titleContains": "lexer"})));
        assert!(!yes(json!({"createdAfter": 10})));
        assert!(!yes(json!({"workingDirectory": "file:///x"})));
    }

    #[test]
    fn unknown_members_and_wrong_types_are_refused() {
        for bad in [
            json!({"color": "red"}),
            json!({"provider": 7}),
            json!({"status": -1}),
            json!({"status": 1.5}),
            json!({"modifiedAfter": "yesterday"}),
        ] {
            let e = filter(bad.clone()).unwrap_err();
            assert_eq!(e.code, errors::INVALID_PARAMS, "{bad}");
            assert!(e.message.contains("filter"), "{bad}: {}", e.message);
        }
    }
}
