//! The replay measurement: a subscriber's connection is cut (a [`Cuttable`] transport), a gap
//! is streamed, and its reconnect is let through; the time until its mirror has caught up.

use super::*;
use ahp_wasm::client::native::{BoxFuture, BoxTransport, Connector, WsConnector};
use ahp_wasm::client::transport::Transport;
use futures_util::task::AtomicWaker;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

/// Opens WebSocket connections that the bench can cut, and holds reconnects until released.
#[derive(Clone, Default)]
struct Cuttable {
    current: Arc<Mutex<Option<Arc<Switch>>>>,
    gate: Arc<Gate>,
}

#[derive(Default)]
struct Switch {
    cut: AtomicBool,
    waker: AtomicWaker,
}

#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    notify: tokio::sync::Notify,
}

struct CuttableTransport {
    inner: BoxTransport,
    switch: Arc<Switch>,
}

impl Transport for CuttableTransport {
    fn send(&mut self, frame: String) -> Result<(), Error> {
        self.inner.send(frame)
    }
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>> {
        self.switch.waker.register(cx.waker());
        if self.switch.cut.load(Ordering::SeqCst) {
            self.inner.close();
            return Poll::Ready(None);
        }
        self.inner.poll_recv(cx)
    }
    fn close(&mut self) {
        self.inner.close()
    }
}

impl Cuttable {
    fn cut(&self) {
        *self.gate.open.lock().unwrap() = false;
        if let Some(s) = self.current.lock().unwrap().take() {
            s.cut.store(true, Ordering::SeqCst);
            s.waker.wake();
        }
    }

    fn release(&self) {
        *self.gate.open.lock().unwrap() = true;
        self.gate.notify.notify_waiters();
    }
}

impl Connector for Cuttable {
    fn connect(&self, url: &str) -> BoxFuture<Result<BoxTransport, Error>> {
        let this = self.clone();
        let url = url.to_owned();
        Box::pin(async move {
            loop {
                let notified = this.gate.notify.notified();
                if *this.gate.open.lock().unwrap() {
                    break;
                }
                notified.await;
            }
            let inner = WsConnector.connect(&url).await?;
            let switch = Arc::new(Switch::default());
            *this.current.lock().unwrap() = Some(switch.clone());
            Ok(Box::new(CuttableTransport { inner, switch }) as BoxTransport)
        })
    }
}

pub(super) async fn replay(opts: &Opts) -> Vec<(u64, f64)> {
    let host = Host::start();
    let driver = host.client("replay-driver".into(), vec![]).await;
    let uri = "ahp-session:/replay";
    let mut driver_sub = create_session(&driver, uri).await;
    let cuttable = Cuttable::default();
    cuttable.release();
    let mut options = host.options("replay-client".into(), vec![]);
    options.reconnect = ReconnectPolicy {
        initial_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(1),
        multiplier: 1.0,
        max_attempts: None,
    };
    let client = AhpClient::connect(&host.ws_url, options.with_connector(cuttable.clone()))
        .await
        .expect("connect");
    let mut sub = client.subscribe(uri).await.expect("subscribe");
    let mut out = Vec::new();
    for run in 0..opts.runs {
        let turns_before = turns_done(&driver_sub);
        cuttable.cut();
        driver
            .dispatch(uri, message(&format!("/stream {} 0", opts.gap)))
            .expect("dispatch");
        until(&mut driver_sub, "the gap turn to end", |s| {
            turns_done(s) > turns_before
        })
        .await;
        let target = last_seq(&driver_sub);
        let gap = target - last_seq(&sub);
        let released = Instant::now();
        cuttable.release();
        until(&mut sub, "the replay", |s| last_seq(s) >= target).await;
        // The reconnect attempt was already waiting at the gate: the clock starts there.
        let t = released.elapsed().as_secs_f64() * 1000.0;
        eprintln!("  replay run {}: {gap} envelopes in {t:.1} ms", run + 1);
        out.push((gap, t));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    client.close();
    driver.close();
    out
}
