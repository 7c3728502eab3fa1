//! One typed async method per command of the version the build speaks (AHP 1.0, or 0.3.0 in the
//! 0.3.0 entry) on `AhpClient`, from its command table (`protocol/command_table.rs`,
//! `protocol/v1/command_table.rs`): params are checked against the wire type
//! (`InvalidInputError`), results are handed over as plain JSON values (`JSON.parse` of the
//! result text).

use super::client::AhpClient;
use super::decode::Decode;
use crate::protocol::decode::{self, DecodeError, Reader};
use crate::protocol::jsonrpc::{self as rpc, Command, CommandCall, ROOT_CHANNEL};
use crate::protocol::RawJsonBuf;
use crate::wasm::convert::check_limits;
use crate::wasm::errors::invalid_input;
use crate::wasm::wire::{commands as markers, for_each_command_of_version};
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Checks the params value at the reader against one command's params type.
type ParamsCheck = fn(&mut Reader<'_>) -> Result<(), DecodeError>;

/// The [`ParamsCheck`] of command `C`: the only code instantiated per command (its params
/// type's decoder), so each method's binding stays a call of the shared, non-generic
/// [`AhpClient::command`], and the reader's setup and end check are [`params_text`]'s.
fn check_params<C: Command>(reader: &mut Reader<'_>) -> Result<(), DecodeError> {
    <C::Params as decode::Decode>::decode(reader).map(drop)
}

impl AhpClient {
    /// Sends `method` with params already checked; `void`: resolves `undefined`.
    #[inline(never)]
    fn send(&self, method: &'static str, params: RawJsonBuf, void: bool) -> Promise {
        let decode = Decode::Json { method, void };
        self.inner.request(
            move |e, now| e.request_json(method, params.as_raw(), now),
            decode,
        )
    }

    /// Sends `method` with params from JavaScript (`root`: whether the root channel is filled
    /// in when absent).
    ///
    /// Params go out as JSON text checked against the command's params type (its decoder;
    /// converting them to Rust values and serializing them again would take every params
    /// type's serializer too).
    #[inline(never)]
    fn command(
        &self,
        method: &'static str,
        check: ParamsCheck,
        params: &JsValue,
        void: bool,
        root: bool,
    ) -> Promise {
        match params_text(check, params, root) {
            Ok(text) => self.send(method, text, void),
            Err(e) => Promise::reject(&e),
        }
    }
}

/// The params as checked JSON text.
fn params_text(check: ParamsCheck, params: &JsValue, root: bool) -> Result<RawJsonBuf, JsValue> {
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
    // The message quotes the JSON around the offending value.
    let mut reader = Reader::new(&text);
    if let Err(e) = check(&mut reader).and_then(|()| reader.finish()) {
        let end = e.offset().min(text.len());
        let near = &text[floor_boundary(&text, end.saturating_sub(40))..floor_boundary(&text, end)];
        return Err(invalid_input(
            "params",
            &e.js_path(),
            &format!("{} (near `{near}`)", e.message()),
        ));
    }
    // `check` has just decoded the whole text as the params type: it is one JSON value.
    Ok(RawJsonBuf::from_checked(text))
}

/// The largest char boundary `<= i` (`str::floor_char_boundary` is newer than our MSRV).
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `{"channel": ROOT_CHANNEL}`: the params of the commands that take none but the channel.
fn root_params() -> RawJsonBuf {
    let text = format!("{{\"channel\":\"{ROOT_CHANNEL}\"}}");
    RawJsonBuf::from_string(text).expect("valid JSON")
}

/// `true` for a row's `void` result.
macro_rules! is_void {
    (void) => {
        true
    };
    ($result:ident) => {
        false
    };
}

macro_rules! wasm_methods {
    ($($call:ident $marker:ident = $method:literal => $rust_name:ident($params:ident) -> $result:ident, $doc:literal;)*) => {
        $(wasm_method!($call $marker $method $rust_name $params $result $doc);)*
    };
}

// One `#[wasm_bindgen] impl` per method: the attribute does not see into macro calls.
macro_rules! wasm_method {
    (handshake $($row:tt)*) => {};
    (no_params $marker:ident $method:literal $rust_name:ident $params:ident $result:ident $doc:literal) => {
        #[wasm_bindgen]
        impl AhpClient {
            #[doc = concat!("`", $method, "`: ", $doc)]
            #[wasm_bindgen(js_name = $method)]
            pub fn $rust_name(&self) -> Promise {
                self.send(markers::$marker::METHOD, root_params(), is_void!($result))
            }
        }
    };
    ($call:ident $marker:ident $method:literal $rust_name:ident $params:ident $result:ident $doc:literal) => {
        #[wasm_bindgen]
        impl AhpClient {
            #[doc = concat!("`", $method, "`: ", $doc)]
            #[wasm_bindgen(js_name = $method)]
            pub fn $rust_name(&self, params: JsValue) -> Promise {
                self.command(
                    markers::$marker::METHOD,
                    check_params::<markers::$marker>,
                    &params,
                    is_void!($result),
                    rpc::command_call!($call).fills_root(),
                )
            }
        }
    };
}

for_each_command_of_version!(wasm_methods);
