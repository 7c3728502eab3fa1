//! Session config and completions: `resolveSessionConfig` and `sessionConfigCompletions` (on
//! `ahp-root://`, before a session exists), `completions` (a session's user message), the
//! checks `createSession` shares with them, and `config.values.model` following
//! `session/modelChanged`. The schema and its checks are the agent's (`agent/config.rs`); the
//! completion items come from `crate::completions`.

use super::commands::{invalid, session_not_found};
use super::{ConnId, Hub};
use crate::agent::config;
use crate::completions::{byte_offset, complete, Bounds};
use crate::resources::uri_path;
use crate::store::Op;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{self, Command, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::tagged::TaggedUnion;
use ahp_wasm::protocol::{
    ActionOrigin, CompletionItemKind, CompletionsParams, CompletionsResult, JsonObject,
    ResolveSessionConfigParams, ResolveSessionConfigResult, SessionConfigChangedAction,
    SessionConfigCompletionsParams, SessionConfigCompletionsResult, StateAction,
};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// `completions` one connection may have in flight (a client debounces; a flood is refused).
pub const MAX_COMPLETIONS_IN_FLIGHT: usize = 4;

/// `channel` of a root command must be `ahp-root://`.
fn on_root(channel: &str, method: &str) -> Result<(), ErrorObject> {
    if channel != ROOT_CHANNEL {
        return Err(invalid(format!(
            "invalid params at `channel`: `{method}` is sent on `{ROOT_CHANNEL}`"
        )));
    }
    Ok(())
}

/// Values for a root state without `config` (it always has one: see `Hub::new`).
static NO_VALUES: std::sync::LazyLock<JsonObject> = std::sync::LazyLock::new(JsonObject::new);

impl Hub {
    /// The host configuration's values (root `config.values`): a new session's config
    /// defaults.
    pub(super) fn root_config_values(&self) -> &JsonObject {
        self.core
            .root
            .config
            .as_ref()
            .map_or(&NO_VALUES, |c| &c.values)
    }

    /// A client's `root/configChanged`: checked against the host configuration's schema
    /// (known properties, allowed values, none removed), applied, and kept across restarts.
    pub(super) fn on_root_config_changed(
        &mut self,
        conn: ConnId,
        action: StateAction,
        origin: ActionOrigin,
    ) {
        let checked = match &action {
            StateAction::RootConfigChanged(a) => {
                config::check_root_change(self.root_config_values(), a)
            }
            _ => Err(format!(
                "`{}` is not client-dispatchable",
                action.variant_tag()
            )),
        };
        if let Err(reason) = checked {
            return self.core.reject(conn, ROOT_CHANNEL, action, origin, reason);
        }
        match self.apply(ROOT_CHANNEL, action, Some(origin.clone())) {
            Ok(_) => {
                let json = serde_json::to_string(self.root_config_values()).unwrap_or_default();
                self.core.ops.push(Op::RootConfig { json });
            }
            Err((action, why)) => {
                self.core
                    .reject(conn, ROOT_CHANNEL, action, origin, why.reason().into())
            }
        }
    }

    /// The provider asked for: the built-in agent's (also when none is named), a model
    /// agent's, or -32002.
    pub(super) fn check_provider(&self, provider: Option<&str>) -> Result<String, ErrorObject> {
        match provider {
            None | Some(crate::agent::PROVIDER) => Ok(crate::agent::PROVIDER.into()),
            Some(name) if self.model_agent(name).is_some() => Ok(name.to_owned()),
            Some(_) => {
                let names: Vec<String> = self
                    .core
                    .root
                    .agents
                    .iter()
                    .map(|a| format!("`{}`", a.provider))
                    .collect();
                Err(ErrorObject::new(
                    errors::PROVIDER_NOT_FOUND,
                    format!("unknown provider; this host has {}", names.join(", ")),
                ))
            }
        }
    }

    /// A session's working directory: an existing directory inside `--workdir` (canonical).
    pub(super) fn check_workdir(&self, dir: &str) -> Result<PathBuf, ErrorObject> {
        let path = self.core.sandbox.existing(&uri_path(dir)?)?;
        if !path.is_dir() {
            return Err(invalid("workingDirectory is not a directory"));
        }
        Ok(path)
    }

    /// `resolveSessionConfig`: the built-in agent's schema and the given values (checked) with
    /// the defaults filled in. The schema does not depend on the working directory; one that
    /// `createSession` would refuse is refused here too.
    pub(super) fn resolve_session_config(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: ResolveSessionConfigParams,
    ) -> Result<(), ErrorObject> {
        on_root(&p.channel, jsonrpc::ResolveSessionConfig::METHOD)?;
        let provider = self.check_provider(p.provider.as_deref())?;
        if let Some(dir) = &p.working_directory {
            self.check_workdir(dir)?;
        }
        let (schema, values) = match self.model_agent(&provider) {
            Some(agent) => {
                let models = agent.model_infos();
                let defaults = self.root_config_values();
                let (state, _) =
                    config::for_model_session(p.config.as_ref(), None, defaults, &models)
                        .map_err(invalid)?;
                (state.schema, state.values)
            }
            None => {
                let values = config::resolve(p.config.as_ref(), self.root_config_values())
                    .map_err(|e| invalid(format!("config: {e}")))?;
                (config::schema(), values)
            }
        };
        self.core.respond(
            conn,
            id,
            &ResolveSessionConfigResult {
                schema,
                values,
                extra: Default::default(),
            },
        );
        Ok(())
    }

    /// `sessionConfigCompletions`: the values of one property matching `query`.
    pub(super) fn session_config_completions(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: SessionConfigCompletionsParams,
    ) -> Result<(), ErrorObject> {
        on_root(&p.channel, jsonrpc::SessionConfigCompletions::METHOD)?;
        let provider = self.check_provider(p.provider.as_deref())?;
        if let Some(dir) = &p.working_directory {
            self.check_workdir(dir)?;
        }
        let schema = match self.model_agent(&provider) {
            Some(agent) => config::schema_for(&agent.model_infos()),
            None => config::schema(),
        };
        let items = config::value_items_in(&schema, &p.property, p.query.as_deref().unwrap_or(""))
            .map_err(|e| invalid(format!("invalid params at `property`: {e}")))?;
        self.core.respond(
            conn,
            id,
            &SessionConfigCompletionsResult {
                items,
                extra: Default::default(),
            },
        );
        Ok(())
    }

    /// `completions`: checked here, answered off the hub (the `@` walk reads the disk), straight
    /// into the connection's queue.
    pub(super) fn completions(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: CompletionsParams,
    ) -> Result<(), ErrorObject> {
        let session = self
            .core
            .sessions
            .get(&p.channel)
            // A chat's view is a 1.0 chat, never a 0.3.0 session (`chat_views.rs`).
            .filter(|_| !super::v1_mirror::is_chat_view(&p.channel) || self.core.is_v1(conn))
            .ok_or_else(|| session_not_found(&p.channel))?;
        let cursor = byte_offset(&p.text, p.offset).ok_or_else(|| {
            invalid(
                "invalid params at `offset`: a whole number of UTF-16 code units within `text`, \
                 not inside a character",
            )
        })?;
        if p.kind != CompletionItemKind::UserMessage {
            // Best effort: nothing to offer for a kind this host does not know.
            self.core.respond(conn, id, &empty());
            return Ok(());
        }
        let workdir = self.core.session_workdir(&session.members);
        let Some(handle) = self.core.conns.get(&conn).map(|c| c.handle.clone()) else {
            return Ok(());
        };
        let in_flight = &handle.shared.completions_inflight;
        if in_flight.load(Ordering::Relaxed) >= MAX_COMPLETIONS_IN_FLIGHT {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!(
                    "{MAX_COMPLETIONS_IN_FLIGHT} completions requests are in flight on this \
                     connection; wait for their answers"
                ),
            ));
        }
        in_flight.fetch_add(1, Ordering::Relaxed);
        let counted = InFlight(handle.shared.clone());
        let (sandbox, id) = (self.core.sandbox.clone(), id.clone());
        self.core.rt.spawn_blocking(move || {
            let _counted = counted;
            // The directory is checked again: it may have changed since the session began.
            let items = match sandbox.existing(&workdir) {
                Ok(root) => complete(
                    &root,
                    &p.text,
                    cursor,
                    Bounds::default(),
                    crate::agent::directives::CATALOGUE,
                ),
                Err(_) => Vec::new(),
            };
            let result = CompletionsResult {
                items,
                extra: Default::default(),
            };
            // A 1.0 client's offsets are integers.
            let v1 = handle.shared.v1.load(Ordering::Acquire);
            let text = match v1.then(|| serde_json::to_value(&result).ok()).flatten() {
                Some(mut json) => {
                    crate::compat::integers(&mut json);
                    jsonrpc::result_text(&id, &json)
                }
                _ => jsonrpc::result_text(&id, &result),
            };
            // A peer that does not read is dropped by the queue; nothing else to do here.
            let _ = handle.queue(Arc::from(text));
        });
        Ok(())
    }

    /// A model change applied: `config.values.model` follows it (a server `configChanged`).
    pub(super) fn mirror_model(&mut self, channel: &str, model: &str) {
        let Some(values) = self
            .core
            .sessions
            .get(channel)
            .and_then(|s| s.members.config.as_ref())
            .map(|c| &c.values)
        else {
            return;
        };
        if values.get(config::MODEL).and_then(|v| v.as_str()) == Some(model) {
            return;
        }
        let mut change = JsonObject::new();
        change.insert(config::MODEL.into(), model.into());
        self.apply_server(
            channel,
            StateAction::SessionConfigChanged(SessionConfigChangedAction {
                config: change,
                replace: None,
                extra: Default::default(),
            }),
        );
    }
}

/// Counts one `completions` in flight for as long as it lives.
struct InFlight(Arc<super::ConnShared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.completions_inflight.fetch_sub(1, Ordering::Relaxed);
    }
}

fn empty() -> CompletionsResult {
    CompletionsResult {
        items: Vec::new(),
        extra: Default::default(),
    }
}
