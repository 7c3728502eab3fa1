//! Resource watches in the hub: `createResourceWatch`, the `ahp-resource-watch:/<id>` channels
//! and their lifetime (the watcher itself is `crate::watches`).
//!
//! Ownership and lifetime (spec/resource-watch-channel.md, "Close"): a watch belongs to the
//! connection that created it and counts against its limit ([`MAX_PER_CONNECTION`]; the host
//! keeps at most [`MAX_PER_HOST`]). Any connection may subscribe to its (opaque, unguessable)
//! URI. The watcher is released as soon as the watch has no subscriber left after an
//! unsubscribe or a dropped connection, and when its creating connection closes while nobody
//! subscribes to it; there is no dispose command. A released watch's URI is gone: subscribing
//! again is `NotFound`, and `reconnect` reports it `missing` (batches are not replayed).
//!
//! Batches are applied through the SDK's `resource_watch_reducer` (which accepts
//! `resourceWatch/changed` without changing the state), get a `serverSeq` and go to the
//! channel's subscribers; a batch nobody subscribes to, or an empty one, is not sent.

use super::base::Core;
use super::features::{snapshot_json, Feature};
use super::{ConnId, Hub, HubMsg};
use crate::bus::WatchOpened;
use crate::watches::{self, MAX_PER_CONNECTION, MAX_PER_HOST};
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use ahp_wasm::protocol::{
    errors, CreateResourceWatchParams, CreateResourceWatchResult, ResourceChange,
    ResourceWatchChangedAction, ResourceWatchChangedActionChanges, ResourceWatchState, StateAction,
};
use ahp_wasm::reduce::{resource_watch_reducer, FixedClock, NoOp, Outcome};
use std::collections::HashMap;

/// The watches of the host, by channel URI.
#[derive(Default)]
pub(super) struct Watches {
    map: HashMap<String, Watch>,
}

struct Watch {
    owner: ConnId,
    subscribers: Vec<ConnId>,
    /// `None` while the watcher is being started.
    live: Option<Live>,
}

struct Live {
    state: ResourceWatchState,
    /// Dropped to release the watch.
    _watcher: notify::RecommendedWatcher,
}

impl Hub {
    /// `createResourceWatch`: checks the bounds, reserves the channel and starts the watcher
    /// on the blocking pool (a recursive watch walks the tree); answered in
    /// [`Hub::on_watch_opened`].
    pub(super) fn create_watch(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: CreateResourceWatchParams,
    ) -> Result<(), ErrorObject> {
        watches::check(&p)?;
        let owned = self
            .watches
            .map
            .values()
            .filter(|w| w.owner == conn)
            .count();
        if owned >= MAX_PER_CONNECTION {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!(
                    "watch limit ({MAX_PER_CONNECTION} per connection) reached; unsubscribe from one first"
                ),
            ));
        }
        if self.watches.map.len() >= MAX_PER_HOST {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!("this host keeps at most {MAX_PER_HOST} watches"),
            ));
        }
        let channel = watches::new_channel();
        self.watches.map.insert(
            channel.clone(),
            Watch {
                owner: conn,
                subscribers: Vec::new(),
                live: None,
            },
        );
        let sandbox = self.core.sandbox.clone();
        let hub = self.core.tx.clone();
        let id = id.clone();
        self.core.rt.spawn(async move {
            let result = tokio::task::spawn_blocking(move || watches::open(&sandbox, &p))
                .await
                .unwrap_or_else(|_| {
                    Err(ErrorObject::new(
                        errors::INTERNAL_ERROR,
                        "cannot watch the resource",
                    ))
                });
            let opened = WatchOpened {
                channel,
                conn,
                id,
                result,
            };
            let _ = hub.send(HubMsg::WatchOpened(Box::new(opened))).await;
        });
        Ok(())
    }

    pub(super) fn on_watch_opened(&mut self, opened: WatchOpened) {
        let WatchOpened {
            channel,
            conn,
            id,
            result,
        } = opened;
        // Its connection closed meanwhile: dropping the watcher releases it.
        let Some(watch) = self.watches.map.get_mut(&channel) else {
            return;
        };
        let opened = match result {
            Ok(opened) => opened,
            Err(e) => {
                self.watches.map.remove(&channel);
                self.core.respond_error(conn, &id, e);
                return;
            }
        };
        let state = opened.state.clone();
        let hub = self.core.tx.clone();
        let name = channel.clone();
        let watcher = watches::spawn_batcher(
            opened,
            state.recursive,
            self.core.sandbox.clone(),
            &self.core.rt,
            move |changes| {
                let hub = hub.clone();
                let channel = name.clone();
                async move {
                    hub.send(HubMsg::WatchChanged { channel, changes })
                        .await
                        .is_ok()
                }
            },
        );
        watch.live = Some(Live {
            state,
            _watcher: watcher,
        });
        self.core.respond(
            conn,
            &id,
            &CreateResourceWatchResult {
                channel,
                extra: Default::default(),
            },
        );
    }

    /// A batch of changes: applied through the reducer and sent to the subscribers.
    pub(super) fn on_watch_changed(&mut self, channel: &str, changes: Vec<ResourceChange>) {
        if changes.is_empty() {
            return;
        }
        let Some(Watch {
            subscribers,
            live: Some(live),
            ..
        }) = self.watches.map.get_mut(channel)
        else {
            return;
        };
        if subscribers.is_empty() {
            return;
        }
        let action = StateAction::ResourceWatchChanged(ResourceWatchChangedAction {
            changes: ResourceWatchChangedActionChanges {
                items: changes,
                extra: Default::default(),
            },
            extra: Default::default(),
        });
        let clock = FixedClock(0.0);
        match resource_watch_reducer(&mut live.state, &action, &clock) {
            // The channel's action: delivered, the state unchanged.
            Outcome::NoOp(NoOp::NothingToChange) | Outcome::Applied(_) => {}
            Outcome::NoOp(_) => return,
        }
        let subscribers = subscribers.clone();
        self.core.seq += 1;
        let (frame, action) = self.core.envelope_frame(channel, action, None, None);
        self.core
            .fanout_channel(channel, &action, None, &frame, &subscribers);
    }
}

impl Watches {
    /// Releases the watch on `channel` if nobody subscribes to it any more.
    pub(super) fn unsubscribed(&mut self, channel: &str) {
        if self
            .map
            .get(channel)
            .is_some_and(|w| w.subscribers.is_empty())
        {
            self.map.remove(channel);
        }
    }
}

impl Feature for Watches {
    /// A watch is a channel once it is live (its watcher started).
    fn has_channel(&self, channel: &str) -> bool {
        self.map.get(channel).is_some_and(|w| w.live.is_some())
    }

    fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        self.map
            .get_mut(channel)
            .filter(|w| w.live.is_some())
            .map(|w| &mut w.subscribers)
    }

    fn snapshot(&self, channel: &str, from_seq: u64) -> Option<String> {
        let state = &self.map.get(channel)?.live.as_ref()?.state;
        snapshot_json(channel, state, from_seq)
    }

    /// After `conn` closed (its subscriptions already removed): releases the watches it
    /// subscribed to that have no subscriber left, and the ones it created that nobody
    /// subscribes to (pending ones included).
    fn conn_closed(&mut self, _core: &mut Core, conn: ConnId, subs: &[String]) {
        for channel in subs {
            self.unsubscribed(channel);
        }
        self.map
            .retain(|_, w| w.owner != conn || !w.subscribers.is_empty());
    }
}
