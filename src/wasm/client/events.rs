//! The JS form of what the client reports (`ClientEvent`, `ChangeInfo`, `ServerInfo`), and
//! of what server-request handlers return and throw.

use super::errors::{set, string_array, to_js_error};
#[cfg(feature = "v0_3")]
use crate::client::engine::ServerNotification;
use crate::client::engine::{DropReason, Event, ServerInfo};
use crate::client::Error;
use crate::protocol::jsonrpc::ErrorObject;
use crate::protocol::JsonValue;
use crate::wasm::convert::to_js;
use crate::wasm::errors::describe;
use crate::wasm::wire::{ChannelEvent, Rejection};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

fn object(kind: &str) -> Object {
    let o = Object::new();
    set(&o, "type", kind);
    o
}

pub fn connection_state(name: &str) -> JsValue {
    let o = object("connectionState");
    set(&o, "state", name);
    o.into()
}

pub fn server_info(info: &ServerInfo) -> JsValue {
    let o = Object::new();
    set(&o, "protocolVersion", info.protocol_version.as_str());
    set(&o, "serverSeq", info.server_seq as f64);
    if let Some(dir) = &info.default_directory {
        set(&o, "defaultDirectory", dir.as_str());
    }
    if let Some(chars) = &info.completion_trigger_characters {
        set(&o, "completionTriggerCharacters", string_array(chars));
    }
    if let Some(limit) = info.max_frame_bytes {
        set(&o, "maxFrameBytes", limit as f64);
    }
    if let Some(telemetry) = &info.telemetry {
        if let Ok(value) = crate::wasm::convert::to_js(telemetry) {
            set(&o, "telemetry", value);
        }
    }
    o.into()
}

pub fn connected(info: &ServerInfo, resumed: bool) -> JsValue {
    let o = object("connected");
    set(&o, "info", server_info(info));
    set(&o, "resumed", resumed);
    o.into()
}

pub fn reconnect_failed(attempt: u32, error: &Error) -> JsValue {
    let o = object("reconnectFailed");
    set(&o, "attempt", attempt);
    set(&o, "error", to_js_error(error));
    o.into()
}

pub fn reconnect_aborted(error: JsValue) -> JsValue {
    let o = object("reconnectAborted");
    set(&o, "error", error);
    o.into()
}

pub fn subscription_lost(channel: &str, reason: &str) -> JsValue {
    let o = object("subscriptionLost");
    set(&o, "channel", channel);
    set(&o, "reason", reason);
    o.into()
}

/// A rejection as the JS `Rejection` object.
pub fn rejection(r: &Rejection) -> JsValue {
    let o = Object::new();
    set(&o, "clientSeq", r.client_seq as f64);
    set(&o, "action", to_js(&r.action).unwrap_or_default());
    set(&o, "reason", r.reason.as_str());
    o.into()
}

fn drop_reason(reason: DropReason) -> &'static str {
    match reason {
        DropReason::Skipped => "skipped",
        DropReason::ReconnectSnapshot => "reconnectSnapshot",
        DropReason::InFlightOnReconnect => "inFlightOnReconnect",
        DropReason::ChannelLost => "channelLost",
        DropReason::Unsubscribed => "unsubscribed",
    }
}

/// A `notification` event (one of the protocol's: apart, so that TypeScript narrows `params`
/// by `method`) or an `otherNotification`.
fn notification(protocol: bool, method: &str, params: Result<JsValue, JsValue>) -> Object {
    let o = object(if protocol {
        "notification"
    } else {
        "otherNotification"
    });
    set(&o, "method", method);
    set(&o, "params", params.unwrap_or_default());
    o
}

/// The `ClientEvent` of an engine event, for those the app sees.
pub fn client_event(event: &Event) -> Option<JsValue> {
    let o = match event {
        #[cfg(feature = "v0_3")]
        Event::Notification(n) => {
            let params = match &**n {
                ServerNotification::SessionAdded(p) => to_js(p),
                ServerNotification::SessionRemoved(p) => to_js(p),
                ServerNotification::SessionSummaryChanged(p) => to_js(p),
                ServerNotification::AuthRequired(p) => to_js(p),
                ServerNotification::Other { params, .. } => match params {
                    Some(p) => to_js(p),
                    None => Ok(JsValue::UNDEFINED),
                },
            };
            let protocol = crate::protocol::jsonrpc::methods::is_protocol_notification(n.method());
            notification(protocol, n.method(), params)
        }
        #[cfg(feature = "v1")]
        Event::NotificationV1 {
            notification: n,
            params,
        } => {
            let params = match params {
                Some(raw) => js_sys::JSON::parse(raw.get()),
                None => Ok(JsValue::UNDEFINED),
            };
            notification(n.is_protocol(), n.method(), params)
        }
        Event::Resync { channel, reason } => {
            let o = object("resync");
            set(&o, "channel", channel.as_str());
            set(&o, "reason", reason.as_str());
            o
        }
        Event::SubscriptionLost { channel, reason } => {
            return Some(subscription_lost(channel, reason))
        }
        Event::Malformed { message, frame } => {
            let o = object("malformed");
            set(&o, "message", message.as_str());
            set(&o, "frame", frame.as_str());
            o
        }
        _ => return None,
    };
    Some(o.into())
}

/// The `ClientEvent` of a channel event, for those the app sees (not `Changed`: a channel's
/// changes reach its `Subscription`'s listeners).
pub fn channel_client_event(event: &ChannelEvent) -> Option<JsValue> {
    let o = match event {
        ChannelEvent::Rejected {
            channel,
            rejection: r,
        } => {
            let o = object("rejected");
            set(&o, "channel", channel.as_str());
            set(&o, "rejection", rejection(r));
            o
        }
        ChannelEvent::PendingDropped {
            channel,
            actions,
            reason,
        } => {
            let o = object("pendingDropped");
            set(&o, "channel", channel.as_str());
            let list: js_sys::Array = actions
                .iter()
                .map(|p| {
                    let a = Object::new();
                    set(&a, "clientSeq", p.client_seq as f64);
                    set(&a, "action", to_js(&p.action).unwrap_or_default());
                    JsValue::from(a)
                })
                .collect();
            set(&o, "actions", list);
            set(&o, "reason", drop_reason(*reason));
            o
        }
        ChannelEvent::ResourceChanges { channel, changes } => {
            let o = object("resourceChanges");
            set(&o, "channel", channel.as_str());
            set(&o, "changes", to_js(changes).unwrap_or_default());
            o
        }
        ChannelEvent::Changed { .. } => return None,
    };
    Some(o.into())
}

/// `ChangeInfo` for `Subscription.onChange` listeners.
pub fn change_info(changed: &[&str], pending: usize, rejections: &[JsValue]) -> JsValue {
    let o = Object::new();
    set(&o, "changed", string_array(changed));
    set(&o, "pendingCount", pending as f64);
    let list: js_sys::Array = rejections.iter().collect();
    set(&o, "rejections", list);
    o.into()
}

/// A JS value as JSON (for answers to server requests).
pub fn to_json(value: &JsValue) -> Result<JsonValue, String> {
    if value.is_undefined() {
        return Ok(JsonValue::Null);
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|e| describe(&e))?
        .as_string()
        .ok_or_else(|| "not serializable".to_string())?;
    crate::protocol::decode::from_text(&text).map_err(|e| e.to_string())
}

/// The JSON-RPC error for what a server-request handler threw: its numeric `code` (and
/// `data`) if it has one, else -32603 with its message.
pub fn error_object(thrown: &JsValue) -> ErrorObject {
    let message = describe(thrown);
    let code = Reflect::get(thrown, &"code".into())
        .ok()
        .and_then(|c| c.as_f64())
        .filter(|c| c.fract() == 0.0)
        .map(|c| c as i64)
        .unwrap_or(crate::protocol::errors::INTERNAL_ERROR);
    let mut error = ErrorObject::new(code, message);
    if let Some(data) = Reflect::get(thrown, &"data".into())
        .ok()
        .filter(|d| !d.is_undefined())
        .and_then(|d| to_json(&d).ok())
    {
        error.data = Some(data);
    }
    error
}
