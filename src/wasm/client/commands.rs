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

fn check<C: Command>(text: &str) -> Result<(), String> {
    serde_json::from_str::<C::Result>(text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

impl AhpClient {
    fn command<C: Command>(&self, params: &JsValue, void: bool) -> Promise {
        let params = if params.is_undefined() {
            js_sys::Object::new().into()
        } else {
            params.clone()
        };
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
    ($($js:literal $name:ident => $command:ident $void:literal;)*) => {
        #[wasm_bindgen]
        impl AhpClient {
            $(
                #[doc = concat!("`", $js, "`.")]
                #[wasm_bindgen(js_name = $js)]
                pub fn $name(&self, params: JsValue) -> Promise {
                    self.command::<rpc::$command>(&params, $void)
                }
            )*
        }
    };
}

commands! {
    "createSession" create_session => CreateSession true;
    "disposeSession" dispose_session => DisposeSession true;
    "listSessions" list_sessions => ListSessions false;
    "fetchTurns" fetch_turns => FetchTurns false;
    "resourceRead" resource_read => ResourceRead false;
    "resourceWrite" resource_write => ResourceWrite false;
    "resourceList" resource_list => ResourceList false;
    "resourceCopy" resource_copy => ResourceCopy false;
    "resourceDelete" resource_delete => ResourceDelete false;
    "resourceMove" resource_move => ResourceMove false;
    "resourceResolve" resource_resolve => ResourceResolve false;
    "resourceMkdir" resource_mkdir => ResourceMkdir false;
    "resourceRequest" resource_request => ResourceRequest false;
    "createResourceWatch" create_resource_watch => CreateResourceWatch false;
    "authenticate" authenticate => Authenticate false;
    "completions" completions => Completions false;
    "resolveSessionConfig" resolve_session_config => ResolveSessionConfig false;
    "sessionConfigCompletions" session_config_completions => SessionConfigCompletions false;
    "createTerminal" create_terminal => CreateTerminal true;
    "disposeTerminal" dispose_terminal => DisposeTerminal true;
    "invokeChangesetOperation" invoke_changeset_operation => InvokeChangesetOperation false;
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
