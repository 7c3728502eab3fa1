//! One typed async method per AHP 0.3.0 command on `AhpClient`: params are checked against
//! the wire type (`InvalidInputError` naming the field), results against the result type
//! (`InvalidResponseError`), then handed over as plain JSON values.

use super::client::AhpClient;
use super::driver::Decode;
use crate::protocol::jsonrpc::{self as rpc, Command, ROOT_CHANNEL};
use crate::protocol::PingParams;
use crate::wasm::convert::from_js;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn check<C: Command>(text: &str) -> Result<(), String> {
    serde_json::from_str::<C::Result>(text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

impl AhpClient {
    /// `root`: the params' `channel` is always `ahp-root://`; filled in when absent.
    fn command<C: Command>(&self, params: &JsValue, void: bool, root: bool) -> Promise {
        let mut params = if params.is_undefined() {
            js_sys::Object::new().into()
        } else {
            params.clone()
        };
        let channel = JsValue::from_str("channel");
        if root && params.is_object() && !js_sys::Reflect::has(&params, &channel).unwrap_or(true) {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), params.unchecked_ref());
            let _ = js_sys::Reflect::set(&copy, &channel, &JsValue::from_str(ROOT_CHANNEL));
            params = copy.into();
        }
        let params: C::Params = match from_js(&params, "params") {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        let decode = Decode::Checked {
            method: C::METHOD,
            check: check::<C>,
            void,
        };
        self.inner
            .request(move |e, now| e.request::<C>(&params, now), decode)
    }
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
        let decode = Decode::Checked {
            method: rpc::Ping::METHOD,
            check: check::<rpc::Ping>,
            void: true,
        };
        self.inner
            .request(move |e, now| e.request::<rpc::Ping>(&params, now), decode)
    }
}
