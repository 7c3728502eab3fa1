//! Keep-alive: a `ping` after a quiet period; no answer means a dead connection
//! (spec `transport.md`: clients MAY ping; the server MUST answer).

use super::events::Event;
use super::requests::Purpose;
use super::{ConnectionState, Engine};
use crate::protocol::jsonrpc::{Command, Ping, ROOT_CHANNEL};
use crate::protocol::PingParams;

impl Engine {
    /// When the next keep-alive ping is due, if one will be.
    pub(super) fn keepalive_due(&self) -> Option<f64> {
        let interval = self.config.keepalive_ms?;
        let idle = self.state == ConnectionState::Connected && !self.keepalive_in_flight;
        idle.then_some(self.last_rx + interval)
    }

    pub(super) fn keepalive_tick(&mut self, now: f64) {
        if self.keepalive_due().is_some_and(|due| now >= due) {
            let params = PingParams {
                channel: ROOT_CHANNEL.to_string(),
                extra: Default::default(),
            };
            self.keepalive_in_flight = true;
            self.start_request(Ping::METHOD, &params, Purpose::Keepalive, now);
        }
    }

    pub(super) fn keepalive_timed_out(&mut self) {
        self.keepalive_in_flight = false;
        self.events.push_back(Event::ConnectionStale);
    }
}

#[cfg(all(test, feature = "v0_3"))]
mod tests {
    use super::super::tests::{config, connected, events, reply, sent};
    use super::*;
    use serde_json::json;

    #[test]
    fn pings_when_quiet_and_reports_a_stale_connection() {
        let mut config = config();
        config.keepalive_ms = Some(1_000.0);
        config.request_timeout_ms = 500.0;
        let mut engine = connected(config);
        assert_eq!(engine.next_deadline(), Some(1_001.0));
        engine.handle_frame(r#"{"jsonrpc":"2.0","method":"x/y","params":{}}"#, 600.0);
        events(&mut engine);
        assert_eq!(
            engine.next_deadline(),
            Some(1_600.0),
            "traffic postpones the ping"
        );
        engine.on_tick(1_599.0);
        assert!(sent(&mut engine).is_empty());
        engine.on_tick(1_600.0);
        let ping = sent(&mut engine).remove(0);
        assert_eq!(ping["method"], "ping");
        assert_eq!(
            engine.next_deadline(),
            Some(2_100.0),
            "now the ping's timeout"
        );
        reply(&mut engine, &ping["id"], json!({}), 1_700.0);
        assert!(
            events(&mut engine).is_empty(),
            "keep-alive answers are internal"
        );
        engine.on_tick(2_700.0);
        assert_eq!(sent(&mut engine)[0]["method"], "ping");
        engine.on_tick(3_200.0);
        assert!(matches!(&events(&mut engine)[..], [Event::ConnectionStale]));
    }
}
