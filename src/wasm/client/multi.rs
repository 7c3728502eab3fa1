//! `MultiHostClient`: several hosts, each its own `AhpClient` with its own connection and
//! reconnection; their events fanned in, tagged with the host name.

use super::args::{function_arg, remover_of, string_arg};
use super::client::{add_listener, AhpClient};
use super::driver::{then_both, Inner};
use super::listener::{call, Listener};
use js_sys::{Function, Promise};
use litemap::LiteMap;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

struct Host {
    inner: Rc<Inner>,
    /// Removes the fan-in listener from the host's client.
    remove: JsValue,
}

#[derive(Default)]
struct Shared {
    hosts: RefCell<LiteMap<String, Host>>,
    /// Connections in progress, by name (so a second `addHost` waits for the same one).
    connecting: RefCell<LiteMap<String, Promise>>,
    listeners: RefCell<Vec<(u32, Function)>>,
    next_id: Cell<u32>,
}

/// Several hosts at once. Typed in `js/index.d.ts`.
#[wasm_bindgen(skip_typescript)]
pub struct MultiHostClient {
    shared: Rc<Shared>,
}

impl Default for MultiHostClient {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl MultiHostClient {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MultiHostClient {
        MultiHostClient {
            shared: Rc::new(Shared::default()),
        }
    }

    /// Connects (or returns the existing client) under `name`.
    #[wasm_bindgen(js_name = addHost)]
    pub fn add_host(&self, name: JsValue, url: JsValue, options: JsValue) -> Promise {
        let name = match string_arg(&name, "name") {
            Ok(n) => n,
            Err(e) => return Promise::reject(&e),
        };
        if let Some(host) = self.shared.hosts.borrow().get(&name) {
            return Promise::resolve(&host.inner.client_handle());
        }
        if let Some(promise) = self.shared.connecting.borrow().get(&name) {
            return promise.clone();
        }
        let (inner, connected) = match AhpClient::connect_inner(&url, &options) {
            Ok(started) => started,
            Err(e) => return Promise::reject(&e),
        };
        // Events from the start (connection states included), tagged with the name.
        let weak: Weak<Shared> = Rc::downgrade(&self.shared);
        let tag = JsValue::from_str(&name);
        let remove = add_listener(
            &inner,
            Listener::Rust(Rc::new(move |event: &JsValue| {
                if let Some(shared) = weak.upgrade() {
                    let listeners: Vec<Function> = shared
                        .listeners
                        .borrow()
                        .iter()
                        .map(|(_, f)| f.clone())
                        .collect();
                    for listener in listeners {
                        call(&listener, &[tag.clone(), event.clone()]);
                    }
                }
            })),
        );
        let (weak_ok, weak_err) = (Rc::downgrade(&self.shared), Rc::downgrade(&self.shared));
        let (name_ok, name_err) = (name.clone(), name.clone());
        let host = Host { inner, remove };
        let on_ok = Closure::once_into_js(move |client: JsValue| -> JsValue {
            if let Some(shared) = weak_ok.upgrade() {
                shared.connecting.borrow_mut().remove(&name_ok);
                let old = shared.hosts.borrow_mut().insert(name_ok, host);
                if let Some(old) = old {
                    close_host(old);
                }
            } else {
                close_host(host);
            }
            client
        });
        let on_err = Closure::once_into_js(move |error: JsValue| -> Result<JsValue, JsValue> {
            if let Some(shared) = weak_err.upgrade() {
                shared.connecting.borrow_mut().remove(&name_err);
            }
            Err(error)
        });
        let promise = then_both(&connected, &on_ok, &on_err);
        self.shared
            .connecting
            .borrow_mut()
            .insert(name, promise.clone());
        promise
    }

    /// Closes and forgets a host.
    #[wasm_bindgen(js_name = removeHost)]
    pub fn remove_host(&self, name: JsValue) {
        let Some(name) = name.as_string() else {
            return;
        };
        let host = self.shared.hosts.borrow_mut().remove(&name);
        if let Some(host) = host {
            close_host(host);
        }
    }

    /// The client of a host.
    pub fn host(&self, name: JsValue) -> JsValue {
        let Some(name) = name.as_string() else {
            return JsValue::UNDEFINED;
        };
        let inner = self
            .shared
            .hosts
            .borrow()
            .get(&name)
            .map(|h| h.inner.clone());
        inner.map_or(JsValue::UNDEFINED, |i| i.client_handle())
    }

    /// Host names, sorted.
    #[wasm_bindgen(js_name = hostNames)]
    pub fn host_names(&self) -> Vec<String> {
        self.shared.hosts.borrow().keys().cloned().collect()
    }

    /// Listens to the events of every host: `listener(hostName, event)`.
    #[wasm_bindgen(js_name = onEvent)]
    pub fn on_event(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = function_arg(listener, "listener")?;
        let id = self.shared.next_id.get();
        self.shared.next_id.set(id.wrapping_add(1));
        self.shared.listeners.borrow_mut().push((id, f));
        let weak = Rc::downgrade(&self.shared);
        Ok(remover_of(
            move |id| {
                if let Some(shared) = weak.upgrade() {
                    shared.listeners.borrow_mut().retain(|(i, _)| *i != id);
                }
            },
            id,
        ))
    }

    /// Closes every host.
    pub fn close(&self) {
        let hosts = std::mem::take(&mut *self.shared.hosts.borrow_mut());
        for (_, host) in hosts {
            close_host(host);
        }
    }
}

fn close_host(host: Host) {
    if let Ok(remove) = host.remove.dyn_into::<Function>() {
        let _ = remove.call0(&JsValue::UNDEFINED);
    }
    host.inner.close();
}
