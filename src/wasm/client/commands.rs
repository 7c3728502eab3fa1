//! One typed async method per AHP 0.3.0 command on `AhpClient`: params are checked against
//! the wire type (`InvalidInputError`), results are handed over as plain JSON values
//! (`JSON.parse` of the result text).

use super::client::AhpClient;
use super::driver::Decode;
use crate::protocol::jsonrpc::{self as rpc, Command, ROOT_CHANNEL};
use crate::protocol::PingParams;
use crate::wasm::convert::check_limits;
use crate::wasm::errors::invalid_input;
use js_sys::Promise;
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

impl AhpClient {
    /// `root`: the params' `channel` is always `ahp-root://`; filled in when absent.
    ///
    /// Params go out as JSON text checked against the command's params type with serde_json
    /// (one deserializer per type; converting them to Rust values through serde-wasm-bindgen
    /// and serializing them again would add a second and a serializer, about doubling the
    /// module's size).
    fn command<C: Command>(&self, params: &JsValue, void: bool, root: bool) -> Promise {
        match params_text::<C>(params, root) {
            Ok(text) => {
                let decode = Decode::Json {
                    method: C::METHOD,
                    void,
                };
                self.inner
                    .request(move |e, now| e.request_raw(C::METHOD, &text, now), decode)
            }
            Err(e) => Promise::reject(&e),
        }
    }
}

/// The params as checked JSON text.
fn params_text<C: Command>(params: &JsValue, root: bool) -> Result<Box<RawValue>, JsValue> {
    let params = if params.is_undefined() {
        js_sys::Object::new().into()
    } else {
        params.clone()
    };
    check_limits(&params, "params")?;
    if !params.is_object() || js_sys::Array::is_array(&params) {
        return Err(invalid_input("params", "", "expected an object"));
    }
    let channel = JsValue::from_str("channel");
    let params = if root && !js_sys::Reflect::has(&params, &channel).unwrap_or(true) {
        let copy = js_sys::Object::assign(&js_sys::Object::new(), params.unchecked_ref());
        let _ = js_sys::Reflect::set(&copy, &channel, &JsValue::from_str(ROOT_CHANNEL));
        copy.into()
    } else {
        params
    };
    let text = js_sys::JSON::stringify(&params)
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| invalid_input("params", "", "not JSON data"))?;
    // Untracked (no field path): tracking every params type's deserializer costs about
    // 250 KiB of wasm. The message quotes the JSON around the offending value instead.
    if let Err(e) = serde_json::from_str::<C::Params>(&text) {
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message);
        let end = e.column().min(text.len());
        let near = &text[floor_boundary(&text, end.saturating_sub(40))..floor_boundary(&text, end)];
        return Err(invalid_input(
            "params",
            "",
            &format!("{message} (near `{near}`)"),
        ));
    }
    RawValue::from_string(text).map_err(|e| invalid_input("params", "", &e.to_string()))
}

/// The largest char boundary `<= i` (`str::floor_char_boundary` is newer than our MSRV).
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

macro_rules! commands {
    ($($js:literal $name:ident => $command:ident $void:literal $root:literal;)*) => {
        #[wasm_bindgen]
        impl AhpClient {
            $(
                #[doc = concat!("`", $js, "`.")]
                #[wasm_bindgen(js_name = $js)]
                pub fn $name(&self, params: JsValue) -> Promise {
                    self.command::<rpc::$command>(&params, $void, $root)
                }
            )*
        }
    };
}

commands! {
    "createSession" create_session => CreateSession true false;
    "disposeSession" dispose_session => DisposeSession true false;
    "listSessions" list_sessions => ListSessions false true;
    "fetchTurns" fetch_turns => FetchTurns false false;
    "resourceRead" resource_read => ResourceRead false true;
    "resourceWrite" resource_write => ResourceWrite false true;
    "resourceList" resource_list => ResourceList false true;
    "resourceCopy" resource_copy => ResourceCopy false true;
    "resourceDelete" resource_delete => ResourceDelete false true;
    "resourceMove" resource_move => ResourceMove false true;
    "resourceResolve" resource_resolve => ResourceResolve false true;
    "resourceMkdir" resource_mkdir => ResourceMkdir false true;
    "resourceRequest" resource_request => ResourceRequest false true;
    "createResourceWatch" create_resource_watch => CreateResourceWatch false true;
    "authenticate" authenticate => Authenticate false true;
    "completions" completions => Completions false false;
    "resolveSessionConfig" resolve_session_config => ResolveSessionConfig false true;
    "sessionConfigCompletions" session_config_completions => SessionConfigCompletions false true;
    "createTerminal" create_terminal => CreateTerminal true false;
    "disposeTerminal" dispose_terminal => DisposeTerminal true false;
    "invokeChangesetOperation" invoke_changeset_operation => InvokeChangesetOperation false false;
}

#[wasm_bindgen]
impl AhpClient {
    /// `ping`: resolves when the server answers.
    pub fn ping(&self) -> Promise {
        let params = PingParams {
            channel: ROOT_CHANNEL.to_string(),
        };
        let decode = Decode::Json {
            method: rpc::Ping::METHOD,
            void: true,
        };
        self.inner
            .request(move |e, now| e.request::<rpc::Ping>(&params, now), decode)
    }
}
