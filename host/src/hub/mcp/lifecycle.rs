//! The MCP feature's lifecycle: a session's servers are declared and started when it opens
//! (or, restored after a restart, when it is next used), stopped when it goes.

use super::*;

impl McpRuns {
    /// After a restart: servers that were starting, ready or waiting for a token are `stopped`
    /// until the session is used again (tokens are not kept across restarts).
    pub(super) fn restored(&mut self, core: &mut Core, channel: &str) {
        let running: Vec<String> = servers(core, channel)
            .filter(|m| {
                matches!(
                    m.state,
                    McpServerState::Starting(_)
                        | McpServerState::Ready(_)
                        | McpServerState::AuthRequired(_)
                )
            })
            .map(|m| m.id.clone())
            .collect();
        for id in running {
            core.apply_server(
                channel,
                state_changed(
                    &id,
                    McpServerState::Stopped(McpServerStoppedState {
                        extra: Default::default(),
                    }),
                ),
            );
        }
        self.lazy.insert(channel.to_owned());
    }

    /// A restored session is being used: read its declarations and start its servers.
    pub(super) fn wake(&mut self, core: &mut Core, channel: &str) {
        if self.lazy.remove(channel) {
            self.open(core, channel);
        }
    }

    /// Reads the session's declarations, publishes them and starts the enabled ones.
    pub(super) fn open(&mut self, core: &mut Core, channel: &str) {
        let Some(session) = core.sessions.get(channel) else {
            return;
        };
        let workdir = core.session_workdir(&session.members);
        let declared = config::load(self.config_file.as_deref(), &self.plugins, &workdir);
        let previous = entries(core, channel);
        for (id, _) in &previous {
            if !declared.iter().any(|d| &d.id == id) {
                core.apply_server(
                    channel,
                    StateAction::SessionCustomizationRemoved(SessionCustomizationRemovedAction {
                        id: id.clone(),
                        extra: Default::default(),
                    }),
                );
            }
        }
        for mut run in self.remove(channel) {
            run.halt();
        }
        let mut runs = Vec::new();
        for d in declared {
            let pending = self.trust.pending(&workdir, &d);
            let was = previous.iter().find(|(p, _)| p == &d.id).map(|(_, e)| *e);
            let (enabled, state) = trust::opening(&d, pending.as_ref(), was);
            let Declared {
                id,
                name,
                source,
                spec,
                ..
            } = d;
            let entry = McpServerCustomization {
                id: id.clone(),
                uri: crate::resources::file_uri(&source),
                name: name.clone(),
                icons: None,
                range: None,
                enabled,
                state,
                channel: None,
                mcp_app: None,
                extra: Default::default(),
            };
            core.apply_server(
                channel,
                StateAction::SessionCustomizationUpdated(Box::new(
                    SessionCustomizationUpdatedAction {
                        customization: Customization::McpServer(entry),
                        extra: Default::default(),
                    },
                )),
            );
            runs.push((
                Run {
                    id,
                    name,
                    spec,
                    generation: 0,
                    resource: None,
                    attempt_token: None,
                    stop: CancellationToken::new(),
                    pid: Arc::new(AtomicU32::new(0)),
                    conn: None,
                    pending,
                    channel_uri: mint_channel_uri(),
                    caps: None,
                },
                enabled,
            ));
        }
        let start: Vec<String> = runs
            .iter()
            .filter(|(r, enabled)| *enabled && r.spec.is_ok())
            .map(|(r, _)| r.id.clone())
            .collect();
        for (run, _) in &runs {
            self.by_channel.insert(
                run.channel_uri.clone(),
                (channel.to_owned(), run.id.clone()),
            );
        }
        self.sessions.insert(
            channel.to_owned(),
            runs.into_iter().map(|(r, _)| r).collect(),
        );
        for id in start {
            self.start(core, channel, &id);
        }
    }

    /// Starts (a new attempt of) one server, with the token pushed for its resource if any.
    pub(super) fn start(&mut self, core: &mut Core, channel: &str, id: &str) {
        let cwd: PathBuf = match core.sessions.get(channel) {
            Some(s) => core.session_workdir(&s.members),
            None => return,
        };
        let token = self
            .run(channel, id)
            .and_then(|r| self.auth.token_for(r.resource.as_deref()?))
            .map(|t| (t.serial, t.token.clone()));
        let Some(run) = self.run_mut(channel, id) else {
            return;
        };
        // Nothing of a working directory runs (or is contacted) before a client approved it.
        let (Ok(spec), None) = (run.spec.clone(), &run.pending) else {
            return;
        };
        run.halt();
        run.stop = CancellationToken::new();
        run.pid = Arc::new(AtomicU32::new(0));
        run.attempt_token = token.as_ref().map(|(serial, _)| *serial);
        let token = token.map(|(_, token)| token);
        let generation = run.generation;
        let (stop, pid) = (run.stop.clone(), run.pid.clone());
        let limits = self.limits.clone();
        let hub = core.tx.clone();
        let (channel, id) = (channel.to_owned(), id.to_owned());
        let (notify, mut notifications) = tokio::sync::mpsc::channel(16);
        core.rt.spawn(async move {
            let event = |result: Result<Arc<McpConnection>, String>| match result {
                Ok(conn) => McpEvent::Ready {
                    channel: channel.clone(),
                    id: id.clone(),
                    generation,
                    conn,
                },
                Err(reason) => McpEvent::Failed {
                    channel: channel.clone(),
                    id: id.clone(),
                    generation,
                    reason,
                },
            };
            // The state of a refusal, its metadata fetched (given up when the run is stopped).
            let refused = |denied: upstream_auth::Denied, during_call: bool| {
                let (url, stop) = (spec.url().unwrap_or_default(), stop.clone());
                let (channel, id) = (channel.clone(), id.clone());
                async move {
                    let state = tokio::select! {
                        s = upstream_auth::auth_required(url, &denied, limits.init_timeout) => s,
                        _ = stop.cancelled() => return None,
                    };
                    Some(HubMsg::Mcp(McpEvent::AuthRequired {
                        channel,
                        id,
                        generation,
                        state: Box::new(state),
                        during_call,
                    }))
                }
            };
            let handler = Upstream::new(notify);
            let result = McpConnection::connect(
                &spec,
                &cwd,
                &limits,
                stop.clone(),
                pid,
                handler,
                token.as_ref(),
            )
            .await;
            drop(token);
            let conn = match result {
                Ok(conn) => Arc::new(conn),
                Err(ConnectError::Failed(reason)) => {
                    let _ = hub.send(HubMsg::Mcp(event(Err(reason)))).await;
                    return;
                }
                Err(ConnectError::Denied(denied)) => {
                    if let Some(msg) = refused(denied, false).await {
                        let _ = hub.send(msg).await;
                    }
                    return;
                }
            };
            let mut exited = conn.exit_watch();
            let mut denied = conn.denied_watch();
            let weak = Arc::downgrade(&conn);
            let refresh = refresh_tools(
                weak.clone(),
                hub.clone(),
                stop.clone(),
                (channel.clone(), id.clone(), generation),
            );
            if hub.send(HubMsg::Mcp(event(Ok(conn)))).await.is_err() {
                return;
            }
            // Its notifications are passed on while it runs; a ready server that goes away or
            // refuses a request for authorization is reported (a stop by the hub is stale by
            // then). (HTTP servers have no exit watch: their notifications end with the session;
            // stdio servers are never refused.)
            enum End {
                Exited,
                Denied(upstream_auth::Denied),
                Closed,
            }
            let (mut watching, mut watching_auth) = (true, true);
            let end = loop {
                let method = tokio::select! {
                    r = exited.wait_for(Option::is_some), if watching => match r {
                        Ok(_) => break End::Exited,
                        Err(_) => {
                            watching = false;
                            continue;
                        }
                    },
                    r = denied.wait_for(Option::is_some), if watching_auth => {
                        match r.ok().and_then(|d| d.clone()) {
                            Some(d) => break End::Denied(d),
                            None => {
                                watching_auth = false;
                                continue;
                            }
                        }
                    },
                    m = notifications.recv() => match m {
                        Some(method) => method,
                        None => break End::Closed,
                    },
                };
                if method == apps::TOOLS_LIST_CHANGED {
                    // Coalesced: one refresh pending is enough.
                    let _ = refresh.try_send(());
                }
                let note = McpEvent::Notified {
                    channel: channel.clone(),
                    id: id.clone(),
                    generation,
                    method,
                };
                if hub.send(HubMsg::Mcp(note)).await.is_err() {
                    return;
                }
            };
            match end {
                End::Exited => {
                    let mut reason = exited.borrow().clone().unwrap_or_default();
                    if let Some(conn) = weak.upgrade() {
                        let tail = conn.stderr_tail();
                        if !tail.is_empty() {
                            reason = format!("{reason}; stderr: {tail}");
                        }
                    }
                    let _ = hub.send(HubMsg::Mcp(event(Err(reason)))).await;
                }
                End::Denied(denied) => {
                    if let Some(msg) = refused(denied, true).await {
                        let _ = hub.send(msg).await;
                    }
                }
                End::Closed => {}
            }
        });
    }

    /// The session is gone: stop its servers.
    pub(super) fn close(&mut self, channel: &str) {
        self.lazy.remove(channel);
        self.forget_step_ups(channel);
        for mut run in self.remove(channel) {
            run.halt();
        }
    }

    /// The host stops: kill every server now.
    pub(super) fn close_all(&mut self) {
        self.by_channel.clear();
        for (_, runs) in self.sessions.drain() {
            for mut run in runs {
                run.halt();
            }
        }
    }
}

impl Feature for McpRuns {
    fn session_opened(&mut self, core: &mut Core, session: &str) {
        self.open(core, session);
    }

    fn session_restored(&mut self, core: &mut Core, session: &str) {
        self.restored(core, session);
    }

    fn session_used(&mut self, core: &mut Core, session: &str) {
        self.wake(core, session);
    }

    fn turn_ended(&mut self, _core: &mut Core, session: &str) {
        self.forget_step_ups(session);
    }

    fn session_disposed(&mut self, _core: &mut Core, session: &str) {
        self.close(session);
    }

    /// Answers the `authenticate` requests whose servers have settled.
    fn after_message(&mut self, core: &mut Core) {
        if self.auth.waiting() {
            self.settle_auth(core);
        }
    }

    fn shutdown(&mut self, _core: &mut Core) {
        self.close_all();
    }
}
