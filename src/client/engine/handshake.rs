//! `initialize` with version negotiation, and `reconnect` with replay or fresh snapshots.

use super::channels::{Channels, IMPLEMENTED_PROTOCOL_VERSIONS};
use super::events::{Event, ServerInfo};
use super::inbound::Batch;
use super::requests::Purpose;
use super::versions::RawSnapshot;
use super::{ConnectionState, DropReason, Engine, PendingPolicy};
use crate::client::Error;
use crate::protocol::decode::{self, decode_object};
use crate::protocol::encode::{Encode, EncodeMembers, Writer};
use crate::protocol::jsonrpc::{self, Command, ErrorObject, ROOT_CHANNEL};
use crate::protocol::RawJson;
use crate::protocol::{errors, ActionEnvelope, InitializeParams, ReconnectParams};
use litemap::LiteMap;

/// What a handshake result carries besides [`ServerInfo`], read in one pass: the snapshots
/// (raw) and, from `initialize`, the secret the server issued (any JSON: a secret that is not
/// a string is ignored, not an invalid result).
struct Snapshots {
    snapshots: Vec<RawSnapshot>,
    client_secret: Option<serde_json::Value>,
}

decode_object!(Snapshots {
    snapshots: "snapshots" = Vec::new(),
    client_secret: "clientSecret" = None,
});

/// Handshake params with the client's secret beside the protocol's members.
struct WithSecret<'a, P> {
    params: &'a P,
    client_secret: Option<String>,
}

impl<P: EncodeMembers> Encode for WithSecret<'_, P> {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        self.params.encode_members(writer);
        if let Some(secret) = &self.client_secret {
            writer.key("\"clientSecret\":");
            writer.string(secret);
        }
        writer.end_object();
    }
}

struct ReconnectKind {
    kind: String,
}

decode_object!(ReconnectKind { kind: "type" });

/// A replay reconnect result.
struct Replay {
    actions: Vec<ActionEnvelope>,
    missing: Vec<String>,
}

decode_object!(Replay {
    actions: "actions",
    missing: "missing" = Vec::new(),
});

/// A reconnect result, decoded in the negotiated version.
enum Reconnected {
    Snapshots(Vec<RawSnapshot>),
    Replay(Replay),
    #[cfg(feature = "v1")]
    ReplayV1(super::v1::ReplayV1),
}

impl Engine {
    pub(super) fn send_initialize(&mut self, subscriptions: Vec<String>, resume: bool, now: f64) {
        let params = InitializeParams {
            channel: ROOT_CHANNEL.to_string(),
            protocol_versions: self.config.protocol_versions.clone(),
            client_id: self.config.client_id.clone(),
            initial_subscriptions: (!subscriptions.is_empty()).then_some(subscriptions),
            locale: self.config.locale.clone(),
            capabilities: self.config.capabilities.clone(),
            extra: Default::default(),
        };
        let purpose = Purpose::Initialize { resume };
        let params = WithSecret {
            params: &params,
            client_secret: self.config.client_secret.clone(),
        };
        self.start_request(jsonrpc::Initialize::METHOD, &params, purpose, now);
    }

    pub(super) fn send_reconnect(&mut self, now: f64) {
        let params = ReconnectParams {
            channel: ROOT_CHANNEL.to_string(),
            client_id: self.config.client_id.clone(),
            last_seen_server_seq: self.last_seen_server_seq,
            subscriptions: self.subscriptions(),
            extra: Default::default(),
        };
        let params = WithSecret {
            params: &params,
            client_secret: self.config.client_secret.clone(),
        };
        self.start_request(jsonrpc::Reconnect::METHOD, &params, Purpose::Reconnect, now);
    }

    pub(super) fn on_initialize_result(
        &mut self,
        outcome: Result<RawJson<'_>, ErrorObject>,
        resume: bool,
        now: f64,
    ) {
        let raw = match outcome {
            Ok(raw) => raw,
            Err(e) if e.code == errors::UNSUPPORTED_PROTOCOL_VERSION => {
                let server_data = e
                    .data
                    .and_then(|d| decode::from_text(&crate::protocol::encode::json_text(&d)).ok());
                let error = Error::UnsupportedProtocolVersion {
                    offered: self.config.protocol_versions.clone(),
                    server_data,
                };
                return self.events.push_back(Event::HandshakeFailed(error));
            }
            Err(e) => return self.events.push_back(Event::HandshakeFailed(Error::rpc(e))),
        };
        let invalid = |message: String| {
            Event::HandshakeFailed(Error::InvalidResponse {
                method: jsonrpc::Initialize::METHOD.to_string(),
                message,
            })
        };
        let parsed = raw
            .decode::<ServerInfo>()
            .and_then(|info| Ok((info, raw.decode::<Snapshots>()?)));
        let (
            info,
            Snapshots {
                snapshots,
                client_secret,
            },
        ) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return self.events.push_back(invalid(e.to_string())),
        };
        let chosen = crate::protocol::encode::to_text(&info.protocol_version);
        if !self
            .config
            .protocol_versions
            .contains(&info.protocol_version)
        {
            let message =
                format!("the server chose protocol version {chosen}, which was not offered");
            return self.events.push_back(invalid(message));
        }
        let Some(table) = Channels::for_version(&info.protocol_version) else {
            let message = format!(
                "the server chose protocol version {chosen}, which this client does not \
                 implement (it implements {})",
                IMPLEMENTED_PROTOCOL_VERSIONS.join(", ")
            );
            return self.events.push_back(invalid(message));
        };
        let mut replaced = Vec::new();
        if table.version() != self.channels.version() {
            // Only a re-`initialize` can change the version: the old mirrors cannot take the
            // new version's snapshots and actions, so their pending actions are dropped (a
            // channel the host sends a snapshot for is mirrored anew; the others are lost).
            replaced = self.channels.names();
            for channel in &replaced {
                self.remove_mirror(channel, DropReason::ChannelLost, now);
            }
            self.channels = table;
        }
        if let Some(serde_json::Value::String(secret)) = client_secret {
            self.config.client_secret = Some(secret);
        }
        self.last_seen_server_seq = info.server_seq;
        if resume {
            // Re-initialized after `reconnect` failed: as good as a snapshot reconnect.
            self.adopt_snapshots(snapshots, now);
        } else {
            let mut remaining = self.config.initial_subscriptions.clone();
            for snapshot in snapshots {
                let channel = snapshot.resource.clone();
                remaining.retain(|c| *c != channel);
                if let Err(message) = self.install_snapshot(&channel, snapshot, now) {
                    return self.events.push_back(invalid(message));
                }
            }
            for channel in remaining {
                self.stateless.insert(channel, ());
            }
        }
        for channel in replaced {
            if !self.is_subscribed(&channel) {
                let reason =
                    format!("the host now speaks {chosen} and sent no snapshot for this channel");
                self.events
                    .push_back(Event::SubscriptionLost { channel, reason });
            }
        }
        self.established = true;
        self.server = Some(info.clone());
        self.finish_handshake(info, resume);
    }

    pub(super) fn on_reconnect_result(
        &mut self,
        outcome: Result<RawJson<'_>, ErrorObject>,
        now: f64,
    ) {
        let raw = match outcome {
            Ok(raw) => raw,
            // The server cannot resume us (e.g. it restarted): start over, keeping our channels.
            Err(_) => return self.send_initialize(self.subscriptions(), true, now),
        };
        let parsed = raw.decode::<ReconnectKind>().and_then(|k| {
            Ok(match k.kind.as_str() {
                "snapshot" => Reconnected::Snapshots(raw.decode::<Snapshots>()?.snapshots),
                #[cfg(feature = "v1")]
                _ if self.channels.is_v1() => Reconnected::ReplayV1(raw.decode()?),
                _ => Reconnected::Replay(raw.decode()?),
            })
        });
        match parsed {
            Ok(Reconnected::Replay(replay)) => self.adopt_replay(replay, now),
            #[cfg(feature = "v1")]
            Ok(Reconnected::ReplayV1(replay)) => self.adopt_replay_v1(replay, now),
            Ok(Reconnected::Snapshots(snapshots)) => self.adopt_snapshots(snapshots, now),
            Err(e) => {
                let error = Error::InvalidResponse {
                    method: jsonrpc::Reconnect::METHOD.to_string(),
                    message: e.to_string(),
                };
                return self.events.push_back(Event::HandshakeFailed(error));
            }
        }
        let info = self.server.clone().unwrap_or(ServerInfo {
            protocol_version: String::new(),
            server_seq: self.last_seen_server_seq,
            default_directory: None,
            completion_trigger_characters: None,
            telemetry: None,
            max_frame_bytes: None,
        });
        self.finish_handshake(info, true);
    }

    /// The server replayed what we missed: apply it (own echoes resolve pending actions), drop
    /// the channels it cannot resume, then apply the pending policy.
    fn adopt_replay(&mut self, replay: Replay, now: f64) {
        for channel in replay.missing {
            self.lose_channel(&channel, "the server cannot resume this channel", now);
        }
        let mut batch = Batch::default();
        for envelope in replay.actions {
            self.route_envelope(envelope, &mut batch);
        }
        self.flush_batch(&mut batch, now);
        self.after_replay(now);
    }

    /// After a replay: the pending policy.
    pub(super) fn after_replay(&mut self, now: f64) {
        if self.config.pending_policy == PendingPolicy::DropInFlight {
            self.drop_in_flight(DropReason::InFlightOnReconnect, now);
        }
    }

    /// Fresh snapshots: in-flight actions have an unknowable fate and are dropped; channels
    /// without a snapshot are lost; stateless channels are re-subscribed.
    fn adopt_snapshots(&mut self, snapshots: Vec<RawSnapshot>, now: f64) {
        self.drop_in_flight(DropReason::ReconnectSnapshot, now);
        let mut by_channel: LiteMap<String, RawSnapshot> = LiteMap::new();
        for snapshot in snapshots {
            by_channel.insert(snapshot.resource.clone(), snapshot); // a repeated channel: the last
        }
        let channels = self.channels.names();
        for channel in channels {
            let installed = match by_channel.remove(&channel) {
                Some(snapshot) => self.install_snapshot(&channel, snapshot, now),
                None => Err("the server sent no snapshot for it".to_string()),
            };
            if let Err(reason) = installed {
                self.lose_channel(&channel, &reason, now);
            }
        }
        for (channel, snapshot) in by_channel {
            // Stateless before, or a snapshot we did not ask for: keep it.
            let _ = self.install_snapshot(&channel, snapshot, now);
        }
        for (channel, ()) in std::mem::take(&mut self.stateless) {
            self.subscribe(&channel, now);
        }
        self.last_seen_server_seq = self
            .last_seen_server_seq
            .max(self.channels.last_server_seq());
    }

    fn drop_in_flight(&mut self, reason: DropReason, now: f64) {
        match self.channels {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => self.drop_in_flight_in::<super::versions::V0_3>(reason, now),
            #[cfg(feature = "v1")]
            Channels::V1(_) => self.drop_in_flight_in::<super::versions::V1>(reason, now),
        }
    }

    fn finish_handshake(&mut self, info: ServerInfo, resumed: bool) {
        self.set_state(ConnectionState::Connected);
        self.events.push_back(Event::Connected { info, resumed });
        self.send_all_pending();
        self.flush_queued();
    }
}
