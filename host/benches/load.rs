//! Load benchmark: the real `ahp-host` binary (built by cargo in the bench profile, started as a
//! child process on loopback) against many clients of the SDK's native client
//! (`ahp_wasm::client::native`), all in this process.
//!
//! ```sh
//! cargo bench -p ahp-host --bench load              # full run
//! cargo bench -p ahp-host --bench load -- --quick   # a short smoke run
//! ```
//!
//! Scenarios:
//!
//! - **fan-out**: N subscribers on one session while the built-in agent streams
//!   `/stream <n> <per-second>` chunks, once with AHP 0.3.0 subscribers on the session and once
//!   with AHP 1.0 subscribers on its default chat (`ahp-chat:/<id>/default`, served by the
//!   host's translation: `load/v1.rs`), the runs of both interleaved on one host. Every chunk carries the host's clock at the moment the
//!   agent emitted it (unix µs); a subscriber stamps receipt when its application task reads the
//!   chunk out of its client's mirror (after the WebSocket frame was parsed, the envelope
//!   applied by the reducer and the change event delivered). Latency = receipt − emit: agent →
//!   hub (apply, persist, serialize) → socket → client (parse, reduce) → application. Two runs per
//!   N: *paced* at `LOAD_RATE` deliveries/s in total (latency percentiles, achieved rate) and
//!   *unpaced* (the agent as fast as the hub takes it: the most deliveries/s end to end). CPU per
//!   delivery: user + system time of the host process and of this process (/proc) over the run.
//! - **idle memory**: the host's `VmRSS` (/proc/PID/status) before and after `LOAD_IDLE`
//!   initialized connections (each subscribed to `ahp-root://`), divided by their number.
//! - **replay**: a subscriber's connection is cut, `LOAD_GAP` chunks are streamed, then it
//!   reconnects (`reconnect` with its `lastSeenServerSeq`); time from the reconnect attempt to
//!   the subscriber's mirror holding the last envelope (TCP + WebSocket handshake + replay +
//!   parse + reduce).
//!
//! Environment: `LOAD_SUBS` (comma-separated, default `100,1000`), `LOAD_RUNS` (5),
//! `LOAD_RATE` (paced deliveries/s, 200000), `LOAD_SECONDS` (paced run length, 3),
//! `LOAD_IDLE` (1000; 0 skips), `LOAD_GAP` (10000; 0 skips), `LOAD_THREADS` (client runtime
//! workers, 2).

#[path = "../tests/common/banner.rs"]
mod banner;
#[path = "load/replay.rs"]
mod replay;
#[path = "load/v1.rs"]
mod v1;

use ahp_wasm::client::native::{AhpClient, ConnectOptions, ReconnectPolicy, Subscription};
use ahp_wasm::client::Error;
use ahp_wasm::protocol::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TOKEN: &str = "load-bench-token-0123456789abcdef";

struct Opts {
    subs: Vec<usize>,
    runs: usize,
    rate: u64,
    seconds: f64,
    idle: usize,
    gap: usize,
    threads: usize,
}

impl Opts {
    fn from_env(quick: bool) -> Opts {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }
        let subs = std::env::var("LOAD_SUBS")
            .ok()
            .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
            .unwrap_or_else(|| if quick { vec![100] } else { vec![100, 1000] });
        Opts {
            subs,
            runs: var("LOAD_RUNS", if quick { 1 } else { 5 }).max(1),
            rate: var("LOAD_RATE", 200_000),
            seconds: var("LOAD_SECONDS", if quick { 1.0 } else { 3.0 }),
            idle: var("LOAD_IDLE", if quick { 200 } else { 1000 }),
            gap: var("LOAD_GAP", 10_000),
            threads: var("LOAD_THREADS", 2).max(1),
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; ours is `--quick`.
    let quick = std::env::args().any(|a| a == "--quick");
    let opts = Opts::from_env(quick);
    raise_fd_limit();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(opts.threads)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run(opts));
}

/// Many sockets on both sides: lift the soft open-file limit to the hard one (the host child
/// inherits it).
fn raise_fd_limit() {
    #[cfg(unix)]
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// CPU time (user + system) of a process so far, in µs (from /proc/PID/stat).
fn cpu_micros(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesized command name; utime and stime are the 14th and 15th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    #[cfg(unix)]
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    #[cfg(not(unix))]
    let hz = 100;
    (ticks(11) + ticks(12)) * 1_000_000 / hz
}

fn unix_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

// ---------------------------------------------------------------------------------------------
// The host process

struct Host {
    child: Child,
    ws_url: String,
    _dir: tempfile::TempDir,
}

impl Host {
    fn start() -> Host {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().to_str().expect("utf-8 temp path").to_owned();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ahp-host"))
            .args(["--port", "0", "--token", TOKEN, "--chunk-delay-ms", "0"])
            .args(["--data-dir", &path, "--workdir", &path])
            // Subscribers may fall behind the unpaced stream: let them queue instead of being
            // dropped as slow consumers (frames are shared, a queue entry is a pointer).
            .args(["--outbound-queue", "1000000", "--max-connections", "100000"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the ahp-host binary starts");
        let ws_url = banner::read_banner(&mut child, "websocket: ");
        Host {
            child,
            ws_url,
            _dir: dir,
        }
    }

    /// The host's resident set size, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status (Linux)");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("VmRSS")
    }

    fn options(&self, client_id: String, subs: Vec<String>) -> ConnectOptions {
        ConnectOptions {
            client_id: Some(client_id),
            protocol_versions: vec!["0.3.0".into()],
            initial_subscriptions: subs,
            token: Some(TOKEN.into()),
            request_timeout: Duration::from_secs(120),
            keepalive: None,
            reconnect: ReconnectPolicy::never(),
            ..Default::default()
        }
    }

    async fn client(&self, client_id: String, subs: Vec<String>) -> AhpClient {
        AhpClient::connect(&self.ws_url, self.options(client_id, subs))
            .await
            .expect("connect")
    }

    /// `n` clients, connected a few at a time.
    async fn clients(&self, prefix: &str, n: usize, subs: Vec<String>) -> Vec<AhpClient> {
        let subscribers = self.subscribers(prefix, n, subs, Proto::V0_3).await;
        subscribers.into_iter().map(|s| s.client).collect()
    }

    /// `n` clients of protocol `proto`, connected a few at a time.
    async fn subscribers(
        &self,
        prefix: &str,
        n: usize,
        subs: Vec<String>,
        proto: Proto,
    ) -> Vec<Subscriber> {
        let mut out = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let end = (start + 64).min(n);
            let batch = (start..end).map(|i| {
                let mut options = self.options(format!("{prefix}-{i}"), subs.clone());
                if proto == Proto::V1 {
                    options.protocol_versions = vec!["1.0.0".into()];
                }
                let url = self.ws_url.clone();
                tokio::spawn(async move {
                    let client = AhpClient::connect(&url, options).await?;
                    Ok::<_, Error>(Subscriber { client, proto })
                })
            });
            for task in batch.collect::<Vec<_>>() {
                out.push(task.await.expect("task").expect("connect"));
            }
            start = end;
        }
        out
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The protocol a fan-out's subscribers speak.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Proto {
    /// AHP 0.3.0, subscribed to the session.
    V0_3,
    /// AHP 1.0, subscribed to the session's default chat.
    V1,
}

impl Proto {
    fn label(self) -> &'static str {
        match self {
            Proto::V0_3 => "0.3.0",
            Proto::V1 => "1.0",
        }
    }
}

/// A subscriber's client and the protocol it speaks.
struct Subscriber {
    client: AhpClient,
    proto: Proto,
}

fn message(text: &str) -> StateAction {
    StateAction::user_turn_started(format!("turn-{}", unix_micros()), text)
}

async fn create_session(driver: &AhpClient, uri: &str) -> Subscription {
    driver
        .create_session(CreateSessionParams {
            channel: uri.into(),
            ..Default::default()
        })
        .await
        .expect("createSession");
    driver.subscribe(uri).await.expect("subscribe")
}

fn session<R>(sub: &Subscription, f: impl FnOnce(&SessionState) -> R) -> Option<R> {
    sub.with_mirror(|m| m.typed::<SessionState>().map(|m| f(m.state())))
        .flatten()
}

fn last_seq(sub: &Subscription) -> u64 {
    sub.with_mirror(|m| m.last_server_seq()).unwrap_or(0)
}

/// Waits until `done` holds for the subscription's state.
async fn until(sub: &mut Subscription, what: &str, done: impl Fn(&Subscription) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !done(sub) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        let _ = tokio::time::timeout(Duration::from_millis(200), sub.next_event()).await;
    }
}

fn turns_done(sub: &Subscription) -> usize {
    session(sub, |s| {
        if s.active_turn.is_none() {
            s.turns.len()
        } else {
            0
        }
    })
    .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Fan-out

/// What one subscriber saw in one run.
struct Seen {
    latencies_us: Vec<u32>,
    first_emit_us: u64,
    last_receipt_us: u64,
}

/// The markdown of the turn being streamed (active or just completed).
fn stream_text<R>(s: &SessionState, f: impl FnOnce(&str) -> R) -> Option<R> {
    let parts = match &s.active_turn {
        Some(t) => &t.response_parts,
        None => &s.turns.last()?.response_parts,
    };
    let text = parts.iter().rev().find_map(|p| match p {
        ResponsePart::Markdown(m) => Some(m.content.as_str()),
        _ => None,
    })?;
    Some(f(text))
}

/// Runs `f` on the text streamed into the subscriber's turn (the one after the `turns_before`
/// completed ones), borrowed from its mirror.
fn read_stream(sub: &Subscription, proto: Proto, turns_before: usize, f: &mut dyn FnMut(&str)) {
    match proto {
        Proto::V0_3 => {
            session(sub, |s| {
                let ours = match &s.active_turn {
                    Some(_) => s.turns.len() == turns_before,
                    None => s.turns.len() == turns_before + 1,
                };
                if ours {
                    stream_text(s, |text| f(text));
                }
            });
        }
        Proto::V1 => v1::read_stream(sub, turns_before, f),
    }
}

/// Reads the chunks `"<i> <emit µs>\n"` a subscriber has not seen yet, until all `count`.
async fn watch(mut sub: Subscription, proto: Proto, turns_before: usize, count: usize) -> Seen {
    let mut seen = Seen {
        latencies_us: Vec::with_capacity(count),
        first_emit_us: u64::MAX,
        last_receipt_us: 0,
    };
    let mut offset = 0usize;
    let mut stamps: Vec<u64> = Vec::with_capacity(256);
    let deadline = Instant::now() + Duration::from_secs(300);
    while seen.latencies_us.len() < count {
        stamps.clear();
        read_stream(&sub, proto, turns_before, &mut |text| {
            let tail = &text[offset.min(text.len())..];
            let mut used = 0;
            for line in tail.split_inclusive('\n') {
                if !line.ends_with('\n') {
                    break;
                }
                used += line.len();
                let mut words = line.split_whitespace();
                if let (Some(i), Some(t), None) = (words.next(), words.next(), words.next()) {
                    if let (Ok(_), Ok(t)) = (i.parse::<u64>(), t.parse::<u64>()) {
                        stamps.push(t);
                    }
                }
            }
            offset += used;
        });
        let now = unix_micros();
        for &t in &stamps {
            seen.first_emit_us = seen.first_emit_us.min(t);
            seen.latencies_us
                .push(now.saturating_sub(t).min(u32::MAX as u64) as u32);
        }
        if !stamps.is_empty() {
            seen.last_receipt_us = now;
        }
        if seen.latencies_us.len() >= count {
            break;
        }
        assert!(Instant::now() < deadline, "a subscriber stalled");
        match tokio::time::timeout(Duration::from_secs(5), sub.next_event()).await {
            Ok(Some(_)) | Err(_) => {}
            Ok(None) => panic!("a subscriber lost its connection"),
        }
    }
    seen
}

struct RunResult {
    /// CPU µs per delivery: the host process, this (client) process.
    host_cpu_us: f64,
    client_cpu_us: f64,
    deliveries_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

/// One streamed turn (on session `uri`, driven by a 0.3.0 client) watched by every subscriber:
/// 0.3.0 ones on the session, 1.0 ones on its default chat.
async fn fan_out_run(
    host: &Host,
    driver: &AhpClient,
    driver_sub: &mut Subscription,
    subs: &[Subscriber],
    uri: &str,
    count: usize,
    per_second: u64,
) -> RunResult {
    let turns_before = turns_done(driver_sub);
    let chat = v1::default_chat(uri);
    let mut tasks = Vec::with_capacity(subs.len());
    for s in subs {
        let channel = match s.proto {
            Proto::V0_3 => uri,
            Proto::V1 => &chat,
        };
        let sub = s.client.subscribe(channel).await.expect("subscribe");
        tasks.push(tokio::spawn(watch(sub, s.proto, turns_before, count)));
    }
    let host_pid = host.child.id().to_string();
    let cpu_before = (cpu_micros(&host_pid), cpu_micros("self"));
    driver
        .dispatch(uri, message(&format!("/stream {count} {per_second}")))
        .expect("dispatch");
    let mut latencies = Vec::with_capacity(count * subs.len());
    let (mut first, mut last) = (u64::MAX, 0u64);
    for task in tasks {
        let seen = task.await.expect("subscriber task");
        first = first.min(seen.first_emit_us);
        last = last.max(seen.last_receipt_us);
        latencies.extend(seen.latencies_us);
    }
    let cpu_after = (cpu_micros(&host_pid), cpu_micros("self"));
    until(driver_sub, "the turn to end", |s| {
        turns_done(s) > turns_before
    })
    .await;
    for s in subs {
        s.client
            .unsubscribe(if s.proto == Proto::V1 { &chat } else { uri });
    }
    latencies.sort_unstable();
    let pct = |p: f64| {
        let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies[i] as f64 / 1000.0
    };
    let n = latencies.len().max(1) as f64;
    RunResult {
        host_cpu_us: (cpu_after.0 - cpu_before.0) as f64 / n,
        client_cpu_us: (cpu_after.1 - cpu_before.1) as f64 / n,
        deliveries_per_s: latencies.len() as f64 / ((last - first).max(1) as f64 / 1e6),
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        max_ms: pct(1.0),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn range(v: &[f64]) -> (f64, f64) {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

struct FanOutRow {
    subs: usize,
    proto: Proto,
    mode: String,
    chunks: usize,
    runs: Vec<RunResult>,
}

async fn fan_out(host: &Host, opts: &Opts, n: usize, rows: &mut Vec<FanOutRow>) {
    let driver = host.client(format!("driver-{n}"), vec![]).await;
    let by_proto = [
        (
            Proto::V0_3,
            host.subscribers(&format!("sub{n}"), n, vec![], Proto::V0_3)
                .await,
        ),
        (
            Proto::V1,
            host.subscribers(&format!("sub{n}-v1"), n, vec![], Proto::V1)
                .await,
        ),
    ];
    let uri = format!("ahp-session:/fan-out-{n}");
    let mut driver_sub = create_session(&driver, &uri).await;
    // Paced: LOAD_RATE deliveries/s in total; unpaced: about as many deliveries.
    let per_second = (opts.rate / n as u64).max(1);
    let count = ((per_second as f64 * opts.seconds) as usize).clamp(50, 100_000);
    // Warm-up (connections, allocator, caches): one short unpaced turn each.
    for (_, subs) in &by_proto {
        fan_out_run(host, &driver, &mut driver_sub, subs, &uri, 50, 0).await;
    }
    for (mode, rate) in [("paced", per_second), ("unpaced", 0)] {
        let mut runs: [Vec<RunResult>; 2] = Default::default();
        for run in 0..opts.runs {
            // Interleaved, each protocol first every other run: neither gets the warmer host.
            for k in 0..2 {
                let which = (run + k) % 2;
                let (proto, subs) = &by_proto[which];
                let r = fan_out_run(host, &driver, &mut driver_sub, subs, &uri, count, rate).await;
                eprintln!(
                    "  fan-out {n} subs, {}, {mode} run {}: {:.0} deliveries/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, CPU/delivery host {:.2} µs, clients {:.2} µs",
                    proto.label(),
                    run + 1,
                    r.deliveries_per_s,
                    r.p50_ms,
                    r.p99_ms,
                    r.max_ms,
                    r.host_cpu_us,
                    r.client_cpu_us
                );
                runs[which].push(r);
            }
        }
        let label = if rate > 0 {
            format!("{mode} ({rate} chunks/s)")
        } else {
            mode.to_string()
        };
        for ((proto, _), runs) in by_proto.iter().zip(runs) {
            rows.push(FanOutRow {
                subs: n,
                proto: *proto,
                mode: label.clone(),
                chunks: count,
                runs,
            });
        }
    }
    for (_, subs) in &by_proto {
        for s in subs {
            s.client.close();
        }
    }
    driver.close();
}

/// 1.0 against 0.3.0 for each fan-out: the ratios of the medians (deliveries/s: higher is
/// better; latency and CPU: lower is better).
fn ratios(rows: &[FanOutRow]) {
    let med = |row: &FanOutRow, f: fn(&RunResult) -> f64| median(row.runs.iter().map(f).collect());
    println!();
    println!("| subscribers | stream | 1.0/0.3.0: deliveries/s | p50 | p99 | CPU/delivery: host | clients |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for old in rows.iter().filter(|r| r.proto == Proto::V0_3) {
        let Some(new) = rows
            .iter()
            .find(|r| r.proto == Proto::V1 && r.subs == old.subs && r.mode == old.mode)
        else {
            continue;
        };
        let ratio = |f: fn(&RunResult) -> f64| med(new, f) / med(old, f).max(f64::MIN_POSITIVE);
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            old.subs,
            old.mode,
            ratio(|r| r.deliveries_per_s),
            ratio(|r| r.p50_ms),
            ratio(|r| r.p99_ms),
            ratio(|r| r.host_cpu_us),
            ratio(|r| r.client_cpu_us)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Idle connections

async fn idle_memory(opts: &Opts) -> (usize, f64, u64, u64) {
    let host = Host::start();
    // One connection first: lazily initialized parts of the host are not per connection.
    let warm = host.clients("warm", 8, vec!["ahp-root://".into()]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = host.rss_kib();
    let idle = host
        .clients("idle", opts.idle, vec!["ahp-root://".into()])
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = host.rss_kib();
    let per = (after.saturating_sub(before)) as f64 / opts.idle as f64;
    drop(idle);
    drop(warm);
    (opts.idle, per, before, after)
}

// ---------------------------------------------------------------------------------------------

async fn run(opts: Opts) {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!(
        "ahp-host load benchmark: {cores} cores, client runtime {} threads, runs {}, subscribers {:?}",
        opts.threads, opts.runs, opts.subs
    );
    let mut rows = Vec::new();
    {
        let host = Host::start();
        for &n in &opts.subs {
            fan_out(&host, &opts, n, &mut rows).await;
        }
    }
    let idle = (opts.idle > 0).then_some(idle_memory(&opts).await);
    if let Some((n, _, before, after)) = idle {
        eprintln!("  idle: {n} connections, host RSS {before} -> {after} KiB");
    }
    let replays = if opts.gap > 0 {
        replay::replay(&opts).await
    } else {
        Vec::new()
    };

    println!();
    println!(
        "ahp-host load benchmark ({cores} cores, host and clients on the same machine; medians of {} runs, [min-max])",
        opts.runs
    );
    println!();
    println!(
        "| subscribers | protocol | stream | chunks | deliveries/s | p50 latency | p99 latency | max latency | CPU/delivery: host | clients |"
    );
    println!("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for row in &rows {
        let d: Vec<f64> = row.runs.iter().map(|r| r.deliveries_per_s).collect();
        let p50: Vec<f64> = row.runs.iter().map(|r| r.p50_ms).collect();
        let p99: Vec<f64> = row.runs.iter().map(|r| r.p99_ms).collect();
        let max: Vec<f64> = row.runs.iter().map(|r| r.max_ms).collect();
        let host_cpu: Vec<f64> = row.runs.iter().map(|r| r.host_cpu_us).collect();
        let client_cpu: Vec<f64> = row.runs.iter().map(|r| r.client_cpu_us).collect();
        let (dmin, dmax) = range(&d);
        let (p99min, p99max) = range(&p99);
        println!(
            "| {} | {} | {} | {} | {:.0} [{:.0}-{:.0}] | {:.2} ms | {:.2} ms [{:.2}-{:.2}] | {:.2} ms | {:.2} µs | {:.2} µs |",
            row.subs,
            row.proto.label(),
            row.mode,
            row.chunks,
            median(d),
            dmin,
            dmax,
            median(p50),
            median(p99),
            p99min,
            p99max,
            median(max),
            median(host_cpu),
            median(client_cpu)
        );
    }
    ratios(&rows);
    if let Some((n, per_conn, before, after)) = idle {
        println!();
        println!(
            "| idle connections | host RSS before | after | per connection |\n|---:|---:|---:|---:|\n| {n} | {before} KiB | {after} KiB | {per_conn:.1} KiB |"
        );
    }
    if replays.is_empty() {
        return;
    }
    println!();
    let times: Vec<f64> = replays.iter().map(|r| r.1).collect();
    let (tmin, tmax) = range(&times);
    let gap = replays.first().map_or(0, |r| r.0);
    println!(
        "| reconnect replay | gap | time to caught up |\n|---|---:|---:|\n| median of {} | {gap} envelopes | {:.1} ms [{tmin:.1}-{tmax:.1}] |",
        replays.len(),
        median(times)
    );
}
