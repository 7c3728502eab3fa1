//! HTTP: the `/ahp` WebSocket endpoint (token and `Origin` checked before the upgrade), the
//! static page (`/` from `www/`, `/pkg/` from the npm package) and the pages of AHP 1.0
//! canvases (`/canvas/<instance id>/`, `crate::canvas_pages`).

use crate::bus::{HubMsg, HubSender};
use crate::canvas_pages::{self, CanvasPages};
use crate::config::Config;
use crate::connection::{self, ConnContext};
use crate::hub::Hub;
use crate::resources::Sandbox;
use crate::security::{origin_allowed, presented_token, Token};
use crate::store::Store;
use axum::extract::ws::{rejection::WebSocketUpgradeRejection, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, get_service};
use axum::Router;
use serde::Deserialize;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_http::services::{ServeDir, ServeFile};

/// Why the server could not start.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// A running host.
#[derive(Debug)]
pub struct RunningHost {
    /// The bound address (the real port when 0 was asked for).
    pub addr: SocketAddr,
    /// Where the data lives.
    pub data_dir: std::path::PathBuf,
    token: Token,
    shutdown: CancellationToken,
    server: tokio::task::JoinHandle<()>,
    hub_tx: HubSender,
    hub: Option<std::thread::JoinHandle<()>>,
}

impl RunningHost {
    /// The access token.
    pub fn token(&self) -> &Token {
        &self.token
    }

    /// `ws://ADDR/ahp` (without the token).
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ahp", self.addr)
    }

    /// The page URL with the token, as printed at startup.
    pub fn page_url(&self) -> String {
        format!("http://{}/?tkn={}", self.addr, self.token.expose())
    }

    /// Stops accepting connections, stops the hub (committing its last batch) and waits.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        let _ = self.hub_tx.send(HubMsg::Shutdown).await;
        let _ = (&mut self.server).await;
        if let Some(hub) = self.hub.take() {
            let _ = tokio::task::spawn_blocking(move || hub.join()).await;
        }
    }
}

struct App {
    token: Token,
    origins: Vec<String>,
    ctx: ConnContext,
    next_conn: AtomicU64,
    max_connections: usize,
}

#[derive(Deserialize)]
struct AuthQuery {
    tkn: Option<String>,
}

/// Opens the database, starts the hub thread and the HTTP server.
pub async fn start(config: Config) -> Result<RunningHost, StartError> {
    if !config.listen.is_loopback() && !config.allow_remote {
        return Err(StartError(format!(
            "refusing to listen on {} (not loopback) without --allow-remote",
            config.listen
        )));
    }
    let token = config.token.clone().unwrap_or_else(Token::generate);
    let sandbox = Sandbox::new(&config.workdir, config.limits.max_resource_bytes).map_err(|e| {
        StartError(format!(
            "working directory {}: {e}",
            config.workdir.display()
        ))
    })?;
    let agent_lock = match &config.agent_auth {
        Some(auth) => Some(crate::agent_auth::AgentLock::load(auth).map_err(StartError)?),
        None => None,
    };
    let model_agents =
        crate::agent::model::load(&config.providers, config.provider_models_timeout).await;
    let store = Store::open(&config.data_dir).map_err(|e| StartError(e.to_string()))?;
    let loaded = store.load().map_err(|e| StartError(e.to_string()))?;
    let listener = tokio::net::TcpListener::bind((config.listen, config.port))
        .await
        .map_err(|e| {
            StartError(format!(
                "cannot listen on {}:{}: {e}",
                config.listen, config.port
            ))
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| StartError(e.to_string()))?;

    let mut origins = vec![format!("http://{addr}")];
    if addr.ip().is_loopback() {
        let port = addr.port();
        origins.extend([
            format!("http://localhost:{port}"),
            format!("http://127.0.0.1:{port}"),
            format!("http://[::1]:{port}"),
        ]);
    }
    // Canvas pages are the host's own: their URLs use its own origins only.
    let own_origins = origins.clone();
    origins.extend(config.allow_origins.iter().cloned());

    let (hub_tx, hub_rx) = tokio::sync::mpsc::channel(1024);
    let peer = crate::peer::PeerRequests::new();
    let mut hub = Hub::new(
        &config,
        store,
        loaded,
        sandbox.clone(),
        hub_tx.clone(),
        tokio::runtime::Handle::current(),
        peer.clone(),
    );
    if let Some(lock) = agent_lock {
        hub.protect_agent(lock);
    }
    hub.add_model_agents(model_agents);
    let canvas_pages = CanvasPages::default();
    hub.serve_canvases(canvas_pages.clone(), own_origins);
    let hub_thread = std::thread::Builder::new()
        .name("ahp-hub".into())
        .spawn(move || hub.run(hub_rx))
        .map_err(|e| StartError(format!("cannot start the hub: {e}")))?;

    let app = Arc::new(App {
        token: token.clone(),
        origins,
        ctx: ConnContext {
            hub: hub_tx.clone(),
            limits: config.limits.clone(),
            sandbox: Arc::new(sandbox),
            live: Arc::new(AtomicUsize::new(0)),
            peer,
        },
        next_conn: AtomicU64::new(1),
        max_connections: config.limits.max_connections,
    });
    let sandbox_page = get_service(ServeFile::new(config.pkg.join("mcp-app-sandbox.html")))
        .layer(axum::middleware::map_response(sandbox_headers));
    let router = Router::new()
        .route("/ahp", get(upgrade))
        .route("/pkg/mcp-app-sandbox.html", sandbox_page)
        .nest_service("/pkg", ServeDir::new(&config.pkg))
        .nest(
            "/canvas",
            Router::new()
                .route("/{id}/", get(canvas_pages::serve))
                .with_state(canvas_pages),
        )
        .fallback_service(ServeDir::new(&config.www))
        .with_state(app);
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(accept_loop(
        listener,
        router,
        config.limits.clone(),
        shutdown.clone(),
    ));
    Ok(RunningHost {
        addr,
        data_dir: config.data_dir.clone(),
        token,
        shutdown,
        server,
        hub_tx,
        hub: Some(hub_thread),
    })
}

/// The upper bound of what an MCP App may load (its own declared domains narrow it in the
/// proxy's inner frame), and a CSP `sandbox`, so the proxy page has an opaque origin even when
/// opened on its own rather than in `mountMcpApp`'s sandboxed iframe.
const SANDBOX_PAGE_CSP: &str = "sandbox allow-scripts allow-forms; default-src 'none'; \
    script-src 'unsafe-inline' https:; style-src 'unsafe-inline' https:; \
    img-src data: blob: https:; font-src data: https:; media-src data: blob: https:; \
    connect-src https: wss:; frame-src https:; object-src 'none'; base-uri https:; \
    form-action 'none'";

/// Headers of the MCP App sandbox proxy page (`mcp-app-sandbox.html` of the npm package).
async fn sandbox_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(SANDBOX_PAGE_CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Accepts TCP connections and serves HTTP/1.1 on each. Until a connection has upgraded to an
/// authenticated WebSocket it holds one of `max_unauthenticated` permits (further connections
/// are closed at once) and must deliver each request's headers within `header_timeout`, which
/// also closes idle sockets.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: crate::config::Limits,
    stop: CancellationToken,
) {
    let permits = Arc::new(Semaphore::new(limits.max_unauthenticated));
    let service = hyper_util::service::TowerToHyperService::new(router);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                eprintln!("ahp-host: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            // Too many connections that have not authenticated: close this one at once.
            drop(tcp);
            continue;
        };
        // No Nagle: envelopes are small frames written as they happen; with Nagle on, a frame
        // behind an unacknowledged one waits for the peer's delayed ACK (40 ms on Linux).
        let _ = tcp.set_nodelay(true);
        let conn = http
            .serve_connection(hyper_util::rt::TokioIo::new(tcp), service.clone())
            .with_upgrades();
        let stop = stop.clone();
        tokio::spawn(async move {
            // Resolves when the connection closes or hands its socket to a WebSocket.
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), conn).await;
                }
            }
            drop(permit);
        });
    }
}

/// Raises the soft limit on open files to the hard limit (many hosts start with 1024, which a
/// few hundred idle sockets would exhaust). Returns the soft limit now in force.
#[cfg(unix)]
pub fn raise_open_files_limit() -> std::io::Result<libc::rlim_t> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed to them.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        limit = raised;
    }
    Ok(limit.rlim_cur)
}

async fn upgrade(
    State(app): State<Arc<App>>,
    Query(query): Query<AuthQuery>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let authorized =
        presented_token(query.tkn.as_deref(), authorization).is_some_and(|t| app.token.matches(t));
    if !authorized {
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid access token is required (tkn query parameter or Authorization: Bearer)",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
        return response;
    }
    let origin = match headers.get(header::ORIGIN).map(|v| v.to_str()) {
        None => None,
        Some(Ok(o)) => Some(o),
        Some(Err(_)) => return refusal(StatusCode::FORBIDDEN, "forbiddenOrigin", "bad Origin"),
    };
    if !origin_allowed(origin, &app.origins) {
        return refusal(
            StatusCode::FORBIDDEN,
            "forbiddenOrigin",
            "this Origin may not connect (ahp-host --allow-origin)",
        );
    }
    if app.ctx.live.load(Ordering::Relaxed) >= app.max_connections {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "too many connections",
        );
    }
    let Ok(ws) = ws else {
        return refusal(
            StatusCode::UPGRADE_REQUIRED,
            "upgradeRequired",
            "this is the AHP WebSocket endpoint: the token and Origin are accepted, connect with a WebSocket",
        );
    };
    let limits = &app.ctx.limits;
    let conn = app.next_conn.fetch_add(1, Ordering::Relaxed);
    let ctx = app.ctx.clone();
    ws.max_message_size(limits.hard_frame_bytes)
        .max_frame_size(limits.hard_frame_bytes)
        .read_buffer_size(8 * 1024)
        .write_buffer_size(8 * 1024)
        .on_upgrade(move |socket| connection::serve(socket, conn, ctx))
}

/// A refusal of `/ahp` as JSON (`{"error": kind, "message": ...}`). Browsers hide why a
/// WebSocket upgrade failed, so the SDK asks the same URL again with a plain GET to tell a wrong
/// token from a refused Origin, a wrong path or a host that is down; any page may read the
/// answer (it holds nothing secret and no credentials are involved).
fn refusal(status: StatusCode, error: &str, message: &str) -> Response {
    let body = serde_json::json!({ "error": error, "message": message }).to_string();
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn the_open_files_limit_is_raised_to_the_hard_limit() {
        let soft = super::raise_open_files_limit().unwrap();
        let mut now = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct passed to it.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut now) }, 0);
        assert_eq!(soft, now.rlim_cur);
        assert_eq!(now.rlim_cur, now.rlim_max);
    }
}
