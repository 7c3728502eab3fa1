//! A fake model endpoint on loopback: plain tokio sockets and HTTP/1.1 written by hand, so a
//! test controls every byte and sees when the client closes the connection.

use serde_json::Value;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// How a streamed reply ends.
#[derive(Clone, Debug)]
pub enum End {
    /// The last chunk (`0\r\n\r\n`), then close.
    Complete,
    /// Half a chunk, then close: the body is cut.
    Cut,
    /// Keep the connection open until the client closes it.
    Hang,
}

/// One scripted reply.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A whole response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `200 text/event-stream`, chunked: each part written on its own after `delay`.
    Stream {
        parts: Vec<Vec<u8>>,
        delay: Duration,
        end: End,
    },
    /// Read the request, never answer (until the client closes).
    Silent,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::Full {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
        }
    }

    pub fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::Full {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn stream(parts: Vec<Vec<u8>>) -> Reply {
        Reply::Stream {
            parts,
            delay: Duration::from_millis(2),
            end: End::Complete,
        }
    }

    pub fn ending(self, end: End) -> Reply {
        match self {
            Reply::Stream { parts, delay, .. } => Reply::Stream { parts, delay, end },
            other => other,
        }
    }
}

/// `data: ...` (and `event: ...`) as one server-sent event.
pub fn sse(event: Option<&str>, data: &str) -> Vec<u8> {
    let mut out = String::new();
    if let Some(event) = event {
        out.push_str(&format!("event: {event}\n"));
    }
    out.push_str(&format!("data: {data}\n\n"));
    out.into_bytes()
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When it had been read.
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the request body is JSON")
    }
}

/// The server: replies in order, one per request (a 599 once they run out).
pub struct FakeServer {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// When each streamed part was written to its socket.
    written: Arc<Mutex<Vec<Instant>>>,
    closed: mpsc::UnboundedReceiver<Instant>,
}

impl FakeServer {
    pub async fn start(replies: Vec<Reply>) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let (closed_tx, closed) = mpsc::unbounded_channel();
        let recorded = requests.clone();
        let written = Arc::new(Mutex::new(Vec::new()));
        let writes = written.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (recorded, replies, closed_tx, writes) = (
                    recorded.clone(),
                    replies.clone(),
                    closed_tx.clone(),
                    writes.clone(),
                );
                tokio::spawn(async move {
                    let _ = socket.set_nodelay(true);
                    serve(socket, recorded, replies, closed_tx, writes).await;
                });
            }
        });
        FakeServer {
            addr,
            requests,
            written,
            closed,
        }
    }

    /// Like [`FakeServer::start`], on a thread and runtime of its own, so its writes (and
    /// their timestamps) never wait for the test's tasks. The thread lives as long as the
    /// test process.
    pub fn start_on_own_thread(replies: Vec<Reply>) -> FakeServer {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the fake server");
            runtime.block_on(async move {
                let _ = tx.send(FakeServer::start(replies).await);
                std::future::pending::<()>().await
            });
        });
        rx.recv().expect("the fake server started")
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// When each part of the streamed replies was written, in order.
    pub fn writes(&self) -> Vec<Instant> {
        self.written.lock().unwrap().clone()
    }

    /// When a held connection ([`End::Hang`], [`Reply::Silent`]) was closed by the client.
    pub async fn next_close(&mut self, within: Duration) -> Option<Instant> {
        tokio::time::timeout(within, self.closed.recv())
            .await
            .ok()
            .flatten()
    }
}

async fn serve(
    mut socket: TcpStream,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    closed: mpsc::UnboundedSender<Instant>,
    written: Arc<Mutex<Vec<Instant>>>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    recorded.lock().unwrap().push(request);
    let reply = replies.lock().unwrap().pop_front();
    let reply = reply.unwrap_or_else(|| Reply::status(599, &[], "no reply scripted"));
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stream { parts, delay, end } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                        transfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for part in parts {
                tokio::time::sleep(delay).await;
                let chunk = [format!("{:x}\r\n", part.len()).as_bytes(), &part, b"\r\n"].concat();
                if socket.write_all(&chunk).await.is_err() {
                    return;
                }
                written.lock().unwrap().push(Instant::now());
            }
            match end {
                End::Complete => {
                    let _ = socket.write_all(b"0\r\n\r\n").await;
                    let _ = socket.shutdown().await;
                }
                End::Cut => {
                    let _ = socket.write_all(b"40\r\ndata: {\"cho").await;
                    let _ = socket.shutdown().await;
                }
                End::Hang => wait_for_close(socket, closed).await,
            }
        }
        Reply::Silent => wait_for_close(socket, closed).await,
    }
}

async fn wait_for_close(mut socket: TcpStream, closed: mpsc::UnboundedSender<Instant>) {
    let mut buf = [0u8; 1024];
    loop {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => {
                let _ = closed.send(Instant::now());
                return;
            }
            Ok(_) => {}
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(data[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Recorded {
        method,
        target,
        headers,
        body,
        at: Instant::now(),
    })
}
