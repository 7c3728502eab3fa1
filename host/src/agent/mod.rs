//! The agents. The built-in one: deterministic, no network, no model. For each turn it streams
//! reasoning and markdown and, on directives in the user message (see [`directives`]), calls
//! server and client tools, asks for input, renames the session or fails. The model agents
//! ([`model`]): a configured provider's model answers instead, calling the same tools through
//! the same code (`exec.rs`, `calls.rs`, `run.rs`). Either runs as a task per turn and emits
//! server-originated actions through the hub like any other producer.

mod calls;
pub mod config;
pub mod directives;
mod exec;
pub mod model;
mod panels;
pub mod prompt;
mod run;
pub mod text;
pub mod tools;
pub mod transform;
mod write;

use crate::bus::{HubMsg, HubSender};
use ahp_wasm::protocol::*;
use directives::{Directive, Parsed};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;
use text::chunks;
pub use text::describe_result;
use tokio::sync::mpsc;

/// The provider id of the built-in agent.
pub const PROVIDER: &str = "builtin";

/// The agent as listed in root state.
pub fn agent_info() -> AgentInfo {
    AgentInfo {
        provider: PROVIDER.into(),
        display_name: "Built-in agent".into(),
        description: "A deterministic agent for trying and testing AHP: it echoes your message \
                      and follows directives such as /tool list, /ask and /fail."
            .into(),
        models: config::model_infos(PROVIDER),
        system_message_sections: Some(prompt::catalogue()),
        ..Default::default()
    }
}

/// The model new sessions get.
pub fn default_model() -> ModelSelection {
    ModelSelection {
        id: config::MODELS[0].id.into(),
        config: None,
        extra: Default::default(),
    }
}

/// The kind of an empty text part a turn streams into.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TextPart {
    Markdown,
    Reasoning,
}

/// `session/responsePart` adding an empty `kind` part `id` to the turn, for deltas to fill.
pub(crate) fn text_part(turn_id: &str, id: &str, kind: TextPart) -> StateAction {
    let (id, content, extra) = (id.to_string(), String::new(), Default::default());
    let part = match kind {
        TextPart::Markdown => ResponsePart::Markdown(MarkdownResponsePart { id, content, extra }),
        TextPart::Reasoning => {
            ResponsePart::Reasoning(ReasoningResponsePart { id, content, extra })
        }
    };
    StateAction::SessionResponsePart(Box::new(SessionResponsePartAction {
        turn_id: turn_id.to_string(),
        part,
        extra: Default::default(),
    }))
}

/// What the hub tells a running turn.
#[derive(Debug)]
pub enum AgentEvent {
    /// A client approved or denied a tool call.
    ToolConfirmed {
        /// The tool call.
        tool_call_id: String,
        /// Approved?
        approved: bool,
    },
    /// The owning client completed a client tool call.
    ToolCompleted {
        /// The tool call.
        tool_call_id: String,
        /// Its result.
        result: Box<ToolCallResult>,
    },
    /// A client completed an input request.
    InputCompleted {
        /// The request.
        request_id: String,
        /// accept / decline / cancel.
        response: SessionInputResponseKind,
        /// The final answers.
        answers: Option<ahp_wasm::protocol::LiteMap<String, SessionInputAnswer>>,
    },
    /// A steering message arrived.
    Steering(PendingMessage),
    /// A tool call waiting for a new token (see `hub/mcp/step_up.rs`) may go on: with the
    /// server's new connection, or not (why).
    McpAuthSettled {
        /// The tool call.
        tool_call_id: String,
        /// The server to retry on, or why the call fails.
        outcome: Result<crate::mcp::ServerHandle, String>,
    },
}

/// Everything a turn needs.
#[derive(Debug)]
pub struct TurnJob {
    /// Session URI.
    pub channel: String,
    /// The turn.
    pub turn_id: String,
    /// The user message text.
    pub text: String,
    /// The session's working directory (file tools are confined to it).
    pub workdir: PathBuf,
    /// The session's model (reported in `session/usage`).
    pub model: String,
    /// The session's `mode` when the turn started (see [`config`]).
    pub mode: config::Mode,
    /// The active client when the turn started (its tools are callable).
    pub active_client: Option<SessionActiveClient>,
    /// A steering message stored while idle, consumed at the start.
    pub steering: Option<PendingMessage>,
    /// Delay between chunks.
    pub chunk_delay: Duration,
    /// The session's ready MCP servers when the turn started.
    pub mcp: Vec<crate::mcp::ServerHandle>,
    /// The system prompt of this turn (sections as rendered; [`run_turn`] applies the
    /// `systemMessageTransform` first).
    pub prompt: Vec<prompt::Section>,
    /// The children of the session's enabled customization containers (rules, skills,
    /// prompts, agents, hooks) with their bodies, when the turn started.
    pub customizations: Vec<crate::customize::ActiveCustomization>,
    /// Where this turn's `systemMessageTransform` goes (the active client when the prompt was
    /// rendered), when it opted into any rendered section.
    pub transform: Option<transform::Target>,
    /// A model agent's turn: its provider, key and conversation (`None`: the built-in agent).
    pub model_run: Option<model::ModelRun>,
}

/// The hub is gone or the turn was stopped.
struct Stopped;

type Step = Result<(), Stopped>;

/// Runs one turn to its end (`session/turnComplete` or `session/error`).
pub async fn run_turn(
    mut job: TurnJob,
    hub: HubSender,
    events: mpsc::UnboundedReceiver<AgentEvent>,
) {
    if let Some(target) = job.transform.take() {
        let rendered = std::mem::take(&mut job.prompt);
        job.prompt = transform::apply(&job.channel, rendered, target).await;
    }
    let model_run = job.model_run.take();
    let parsed = directives::parse(&job.text);
    let mut turn = Turn {
        delay: job.chunk_delay,
        job,
        hub,
        events,
        backlog: VecDeque::new(),
        markdown: None,
        parts: 0,
        chunks: 0,
    };
    let _ = match model_run {
        Some(run) => turn.run_model(run).await,
        None => turn.run(parsed).await,
    };
}

struct Turn {
    job: TurnJob,
    hub: HubSender,
    events: mpsc::UnboundedReceiver<AgentEvent>,
    /// Events that arrived while waiting for something else.
    backlog: VecDeque<AgentEvent>,
    delay: Duration,
    /// The markdown part being streamed into.
    markdown: Option<String>,
    parts: u32,
    chunks: u64,
}

impl Turn {
    async fn run(&mut self, parsed: Parsed) -> Step {
        let turn_id = self.job.turn_id.clone();
        if config::model(&self.job.model).is_none_or(|m| m.reasoning) {
            self.reason(&parsed).await?;
        }
        if let Some(steering) = self.job.steering.take() {
            self.consume_steering(steering).await?;
        }
        let intro = if parsed.prose.is_empty() {
            "Running your directives.\n\n".to_owned()
        } else {
            format!(
                "**You said:**\n\n> {}\n\n",
                parsed.prose.replace('\n', "\n> ")
            )
        };
        self.say(&intro).await?;
        for directive in parsed.directives {
            if self.directive(directive).await? {
                return Ok(());
            }
        }
        self.say("Done.").await?;
        self.emit(vec![
            StateAction::SessionUsage(Box::new(SessionUsageAction {
                turn_id: turn_id.clone(),
                usage: UsageInfo {
                    input_tokens: Some(self.job.text.split_whitespace().count() as f64),
                    output_tokens: Some(self.chunks as f64),
                    model: Some(self.job.model.clone()),
                    ..Default::default()
                },
                extra: Default::default(),
            })),
            StateAction::SessionTurnComplete(SessionTurnCompleteAction {
                turn_id,
                extra: Default::default(),
            }),
        ])
        .await
    }

    /// The reasoning part: a few words about the message.
    async fn reason(&mut self, parsed: &Parsed) -> Step {
        let turn_id = self.job.turn_id.clone();
        self.parts += 1;
        let reasoning = format!("reasoning-{}", self.parts);
        self.emit(vec![text_part(&turn_id, &reasoning, TextPart::Reasoning)])
            .await?;
        let thoughts = [
            format!(
                "The message has {} line(s). ",
                self.job.text.lines().count()
            ),
            format!("It carries {} directive(s). ", parsed.directives.len()),
            "I will echo the rest.".to_owned(),
        ];
        for chunk in thoughts {
            self.emit(vec![StateAction::SessionReasoning(
                SessionReasoningAction {
                    turn_id: turn_id.clone(),
                    part_id: reasoning.clone(),
                    content: chunk,
                    extra: Default::default(),
                },
            )])
            .await?;
            self.pause().await;
        }
        Ok(())
    }

    /// Runs one directive; `Ok(true)` when it ended the turn.
    async fn directive(&mut self, directive: Directive) -> Result<bool, Stopped> {
        let tool = matches!(
            directive,
            Directive::ToolList(_)
                | Directive::ToolRead(_)
                | Directive::ClientTool { .. }
                | Directive::Mcp { .. }
                | Directive::Run { .. }
                | Directive::Write { .. }
        );
        if tool && self.job.mode == config::Mode::Ask {
            let note = "\n\nNot run: this session is in `ask` mode, where tools are off \
                        (change `mode` to `agent`).\n\n";
            self.say(note).await?;
            return Ok(false);
        }
        match directive {
            Directive::ToolList(path) => self.server_tool("list_files", "List files", path).await?,
            Directive::ToolRead(path) => self.server_tool("read_file", "Read file", path).await?,
            Directive::ClientTool { name, input } => self.client_tool(name, input).await?,
            Directive::Mcp {
                server,
                tool,
                input,
            } => self.mcp_tool(server, tool, input).await?,
            Directive::Run {
                command,
                timeout_secs,
                background,
            } => {
                self.run_in_terminal(command, timeout_secs, background)
                    .await?
            }
            Directive::Write { path, text } => self.write_file(path, text).await?,
            Directive::Ask(question) => self.ask(question).await?,
            Directive::Fail(message) => {
                self.emit(vec![StateAction::SessionError(Box::new(
                    SessionErrorAction {
                        turn_id: self.job.turn_id.clone(),
                        error: ErrorInfo {
                            error_type: "AgentError".into(),
                            message,
                            stack: None,
                            extra: Default::default(),
                        },
                        extra: Default::default(),
                    },
                ))])
                .await?;
                return Ok(true);
            }
            Directive::Title(title) => {
                self.emit(vec![StateAction::SessionTitleChanged(
                    SessionTitleChangedAction {
                        title,
                        extra: Default::default(),
                    },
                )])
                .await?
            }
            Directive::Prompt => {
                let text = prompt::assemble(&self.job.prompt);
                self.say(&format!(
                    "\n\nThe system prompt of this turn:\n\n```text\n{text}\n```\n\n"
                ))
                .await?
            }
            Directive::Annotate { path, line, text } => self.annotate(path, line, text).await?,
            Directive::Canvas { title, file } => self.canvas(title, file).await?,
            Directive::Slow => self.delay = Duration::from_millis(250),
            Directive::Fast => self.delay = Duration::ZERO,
            Directive::Stream { count, per_second } => self.stream(count, per_second).await?,
            Directive::Long(n) => {
                for i in 1..=n {
                    self.say(&format!(
                        "Line {i} of {n}: the quick brown fox jumps over the lazy dog.\n"
                    ))
                    .await?;
                }
            }
        }
        Ok(false)
    }

    /// Announces a started server tool call as ready and waits for the user's decision.
    async fn confirm(
        &mut self,
        id: &str,
        invocation: String,
        input: String,
        title: &str,
    ) -> Result<bool, Stopped> {
        self.tool_ready(id, invocation, input, Some(title)).await?;
        let approved = loop {
            match self.next_event().await? {
                AgentEvent::ToolConfirmed {
                    tool_call_id,
                    approved,
                } if tool_call_id == id => break approved,
                other => self.backlog.push_back(other),
            }
        };
        self.markdown = None;
        Ok(approved)
    }

    /// Says that a tool call was denied.
    async fn denied(&mut self, name: &str) -> Step {
        self.say(&format!(
            "\n\n`{name}` was not run: the call was denied.\n\n"
        ))
        .await
    }

    /// A server tool: start, wait for the user's confirmation, run, complete.
    async fn server_tool(&mut self, name: &str, display: &str, path: String) -> Step {
        let id = self.tool_start(name, display, None, None).await?;
        let input = serde_json::json!({ "path": path }).to_string();
        if !self
            .confirm(&id, format!("{display} `{path}`"), input, display)
            .await?
        {
            return self.denied(name).await;
        }
        let out = self.file_tool(&id, name, path).await?;
        self.say(&format!(
            "\n\n{}:\n\n```\n{}\n```\n\n",
            out.summary, out.text
        ))
        .await
    }

    /// A tool of a ready MCP server: start (with the `mcp` contributor), wait for the user's
    /// confirmation, call it through the server's `rmcp` client, complete with the mapped
    /// result (or a failure saying why there is none).
    async fn mcp_tool(&mut self, server: String, tool: String, input: String) -> Step {
        let Some(handle) = self.job.mcp.iter().find(|h| h.name == server).cloned() else {
            return self
                .say(&format!(
                    "\n\nNo MCP server named `{server}` is ready in this session.\n\n"
                ))
                .await;
        };
        let tools = handle.conn.tools();
        let Some(definition) = tools.iter().find(|t| t.name == tool) else {
            return self
                .say(&format!(
                    "\n\nThe MCP server `{server}` has no tool named `{tool}`.\n\n"
                ))
                .await;
        };
        // An App tool's call carries its `_meta.ui` (guide/mcp.md, "Identifying an App tool
        // call").
        let meta = crate::mcp::apps::tool_ui(definition).map(|ui| {
            let mut meta = JsonObject::new();
            meta.insert("ui".into(), ui);
            meta
        });
        let arguments = match serde_json::from_str::<serde_json::Value>(&input) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => {
                return self
                    .say(&format!(
                        "\n\nThe arguments for `{tool}` must be a JSON object, not `{input}`.\n\n"
                    ))
                    .await
            }
        };
        let name = crate::mcp::tool_name(&server, &tool);
        let contributor = ToolCallContributor::MCP(ToolCallMcpContributor {
            customization_id: handle.customization_id.clone(),
            extra: Default::default(),
        });
        let id = self
            .tool_start(&name, &tool, Some(contributor), meta)
            .await?;
        let invocation = format!("Calling `{tool}` of MCP server `{server}`");
        if !self.confirm(&id, invocation, input, &tool).await? {
            return self.denied(&name).await;
        }
        let result = self.mcp_call(&handle, &id, &tool, arguments).await?;
        let text = crate::mcp::clip(&describe_result(&result), 2000);
        self.say(&format!("\n\nMCP tool `{tool}` returned: {text}\n\n"))
            .await
    }

    /// The server refused tool call `id` for authorization: the hub raises an input request
    /// and tells when the server is back with a new token (the call is then retried once) or
    /// why the call fails (declined, timed out, server off). The call stays `running` meanwhile.
    async fn step_up(
        &mut self,
        handle: &crate::mcp::ServerHandle,
        id: &str,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Result<serde_json::Value, (&'static str, String)>, Stopped> {
        let wait = crate::bus::StepUp {
            channel: self.job.channel.clone(),
            turn_id: self.job.turn_id.clone(),
            tool_call_id: id.to_owned(),
            tool: tool.to_owned(),
            server_id: handle.customization_id.clone(),
            generation: handle.generation,
        };
        self.hub
            .send(HubMsg::McpStepUp(Box::new(wait)))
            .await
            .map_err(|_| Stopped)?;
        let outcome = loop {
            match self.next_event().await? {
                AgentEvent::McpAuthSettled {
                    tool_call_id,
                    outcome,
                } if tool_call_id == id => break outcome,
                other => self.backlog.push_back(other),
            }
        };
        let fresh = match outcome {
            Ok(fresh) => fresh,
            Err(why) => return Ok(Err(("McpAuthRequired", why))),
        };
        // Later calls of this turn use the new connection too.
        for h in &mut self.job.mcp {
            if h.customization_id == fresh.customization_id {
                *h = fresh.clone();
            }
        }
        Ok(fresh
            .conn
            .call_tool(tool, arguments)
            .await
            .map_err(|e| ("McpError", e.to_string())))
    }

    /// A tool of the active client: started as `running` (not-needed confirmation), completed
    /// by that client.
    async fn client_tool(&mut self, name: String, input: String) -> Step {
        // Like a model that names a tool the client no longer has (a stale list), the call goes
        // to the active client even when `name` is not in its tools: the client denies it.
        let Some(client_id) = self.job.active_client.as_ref().map(|c| c.client_id.clone()) else {
            return self
                .say(&format!(
                    "\n\nThere is no active client to run `{name}`.\n\n"
                ))
                .await;
        };
        let contributor = ToolCallContributor::Client(ToolCallClientContributor {
            client_id,
            extra: Default::default(),
        });
        let id = self
            .tool_start(&name, &name, Some(contributor), None)
            .await?;
        let invocation = format!("Calling client tool `{name}`");
        self.tool_ready(&id, invocation, input, None).await?;
        let result = self.client_result(&id).await?;
        let text = describe_result(&result);
        self.say(&format!("\n\nClient tool `{name}` returned: {text}\n\n"))
            .await
    }

    /// Asks the user one text question and reports the answer.
    async fn ask(&mut self, question: String) -> Step {
        self.parts += 1;
        let request_id = format!("input-{}", self.parts);
        self.emit(vec![StateAction::SessionInputRequested(Box::new(
            SessionInputRequestedAction {
                request: SessionInputRequest {
                    id: request_id.clone(),
                    message: Some(question.clone()),
                    url: None,
                    questions: Some(vec![SessionInputQuestion::Text(SessionInputTextQuestion {
                        id: "answer".into(),
                        message: question,
                        required: Some(true),
                        ..Default::default()
                    })]),
                    answers: None,
                    extra: Default::default(),
                },
                extra: Default::default(),
            },
        ))])
        .await?;
        let (response, answers) = loop {
            match self.next_event().await? {
                AgentEvent::InputCompleted {
                    request_id: r,
                    response,
                    answers,
                } if r == request_id => break (response, answers),
                other => self.backlog.push_back(other),
            }
        };
        let answer = answers
            .as_ref()
            .and_then(|a| a.get("answer"))
            .and_then(|a| match a {
                SessionInputAnswer::Submitted(v) | SessionInputAnswer::Draft(v) => match &v.value {
                    SessionInputAnswerValue::Text(t) => Some(t.value.clone()),
                    other => serde_json::to_string(other).ok(),
                },
                _ => None,
            });
        let reply = match (response, answer) {
            (SessionInputResponseKind::Accept, Some(answer)) => format!("You answered: {answer}"),
            (SessionInputResponseKind::Accept, None) => "You accepted without an answer.".into(),
            (other, _) => format!(
                "The question was {}d.",
                other.as_str().trim_end_matches('e')
            ),
        };
        self.say(&format!("\n\n{reply}\n\n")).await
    }

    async fn tool_start(
        &mut self,
        name: &str,
        display: &str,
        contributor: Option<ToolCallContributor>,
        meta: Option<JsonObject>,
    ) -> Result<String, Stopped> {
        self.parts += 1;
        let id = format!("tool-{}", self.parts);
        self.emit(vec![StateAction::SessionToolCallStart(Box::new(
            SessionToolCallStartAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id.clone(),
                meta,
                tool_name: name.into(),
                display_name: display.into(),
                contributor,
                extra: Default::default(),
            },
        ))])
        .await?;
        Ok(id)
    }

    /// The markdown part being streamed into, created first when needed.
    async fn markdown_part(&mut self) -> Result<String, Stopped> {
        if let Some(part) = &self.markdown {
            return Ok(part.clone());
        }
        self.parts += 1;
        let id = format!("markdown-{}", self.parts);
        self.emit(vec![text_part(&self.job.turn_id, &id, TextPart::Markdown)])
            .await?;
        self.markdown = Some(id.clone());
        Ok(id)
    }

    /// `/stream`: chunks `"<i> <unix µs>\n"` stamped as they are emitted, paced at
    /// `per_second` from a fixed schedule (0: unpaced).
    async fn stream(&mut self, count: usize, per_second: u64) -> Step {
        let part = self.markdown_part().await?;
        let start = tokio::time::Instant::now();
        for i in 0..count {
            if per_second > 0 {
                let due = start + Duration::from_secs_f64(i as f64 / per_second as f64);
                if due > tokio::time::Instant::now() {
                    tokio::time::sleep_until(due).await;
                }
            }
            let micros = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros());
            self.emit(vec![StateAction::SessionDelta(SessionDeltaAction {
                turn_id: self.job.turn_id.clone(),
                part_id: part.clone(),
                content: format!("{i} {micros}\n"),
                extra: Default::default(),
            })])
            .await?;
            self.chunks += 1;
        }
        Ok(())
    }

    /// Streams markdown in chunks of a few words, creating the part first when needed.
    async fn say(&mut self, text: &str) -> Step {
        let part = self.markdown_part().await?;
        for chunk in chunks(text, 24) {
            self.emit(vec![StateAction::SessionDelta(SessionDeltaAction {
                turn_id: self.job.turn_id.clone(),
                part_id: part.clone(),
                content: chunk.to_owned(),
                extra: Default::default(),
            })])
            .await?;
            self.chunks += 1;
            self.pause().await;
            while let Ok(event) = self.events.try_recv() {
                match event {
                    AgentEvent::Steering(m) => Box::pin(self.consume_steering(m)).await?,
                    other => self.backlog.push_back(other),
                }
            }
        }
        Ok(())
    }

    /// Takes a steering message into the turn: removes it from the session and says so.
    async fn consume_steering(&mut self, message: PendingMessage) -> Step {
        self.emit(vec![StateAction::SessionPendingMessageRemoved(
            SessionPendingMessageRemovedAction {
                kind: PendingMessageKind::Steering,
                id: message.id,
                extra: Default::default(),
            },
        )])
        .await?;
        let note = format!("\n\n_Steering received: {}_\n\n", message.message.text);
        Box::pin(self.say(&note)).await
    }

    async fn next_event(&mut self) -> Result<AgentEvent, Stopped> {
        loop {
            let event = match self.backlog.pop_front() {
                Some(e) => e,
                None => self.events.recv().await.ok_or(Stopped)?,
            };
            match event {
                AgentEvent::Steering(m) => self.consume_steering(m).await?,
                other => return Ok(other),
            }
        }
    }

    async fn pause(&self) {
        if self.delay.is_zero() {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(self.delay).await;
        }
    }

    async fn emit(&self, actions: Vec<StateAction>) -> Step {
        self.hub
            .send(HubMsg::Agent {
                channel: self.job.channel.clone(),
                turn_id: self.job.turn_id.clone(),
                actions,
            })
            .await
            .map_err(|_| Stopped)
    }
}
