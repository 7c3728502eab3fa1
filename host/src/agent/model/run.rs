//! A model agent's turn: requests to the provider in rounds, its events mapped to turn
//! actions, its tool calls run with the built-in agent's confirmation rules and their results
//! sent in the next round.
//!
//! - Text deltas go to a markdown part (`session/delta`), reasoning to a reasoning part
//!   (`session/reasoning`), the summed usage of the rounds to one `session/usage` at the end.
//! - Each tool call of a response becomes a tool-call part. The host's tools and MCP tools are
//!   confirmed by the user first (a denial is told to the model); client tools go to the
//!   active client. A name no offered tool has, or arguments that are not a JSON object (or
//!   lack a required field), make a failed call whose message goes back to the model.
//! - At most [`MAX_ROUNDS`] requests per turn: when the last one still asks for tools, they are
//!   not run, and the turn ends saying so (the next message goes on).
//! - A provider error fails the turn (`session/error`, its message never holding the key; a
//!   refused key says how to `authenticate`); the session stays usable. Cancelling the turn
//!   aborts this task, which drops the stream and so closes the HTTP connection at once.

use super::history::{self, MAX_RESULT_CHARS};
use super::tools::{self, Offered, Route};
use super::ModelRun;
use crate::agent::{calls, prompt, AgentEvent, Step, Stopped, TextPart, Turn};
use crate::probe::{self, Stage};
use crate::providers::{
    AssistantPart, ChatRequest, FinishReason, Message, ProviderError, ProviderEvent, ToolCall,
    Usage,
};
use ahp_wasm::protocol::*;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// Most model requests in one turn (see the module docs).
pub const MAX_ROUNDS: usize = 8;

/// The default and the longest `timeoutSecs` of `run_in_terminal`.
const RUN_TIMEOUT: (u64, u64) = (60, 600);

/// Why a model's call is refused before it runs.
const INVALID: &str = "InvalidToolCall";

impl Turn {
    pub(in crate::agent) async fn run_model(&mut self, mut run: ModelRun) -> Step {
        if run.key.is_none() && run.provider.key_from_client() {
            let name = &run.provider.config().name;
            let resource = run.resource.as_deref().unwrap_or_default();
            let message = format!(
                "model provider {name}: it takes its API key from the client, and this \
                 connection gave none. Send `authenticate` with resource `{resource}` and your \
                 API key, then try again"
            );
            return self.fail_turn("ProviderAuth", message).await;
        }
        let system = prompt::assemble(&self.job.prompt);
        let offered = tools::offered(&self.job);
        let mut messages = std::mem::take(&mut run.history);
        messages.push(Message::User {
            text: self.job.text.clone(),
        });
        if let Some(steering) = self.job.steering.take() {
            self.take_steering(steering, &mut messages).await?;
        }
        let mut usage = Usage::default();
        for round in 1..=MAX_ROUNDS {
            while let Ok(event) = self.events.try_recv() {
                match event {
                    AgentEvent::Steering(m) => self.take_steering(m, &mut messages).await?,
                    other => self.backlog.push_back(other),
                }
            }
            let request = ChatRequest {
                model: self.job.model.clone(),
                system: Some(system.clone()).filter(|s| !s.is_empty()),
                messages: match offered.is_empty() {
                    true => history::without_tools(messages.clone()),
                    false => messages.clone(),
                },
                tools: offered.iter().map(|o| o.definition.clone()).collect(),
                max_tokens: None,
            };
            let stream = run
                .provider
                .stream(&request, run.key.as_ref(), CancellationToken::new());
            let (parts, calls, finish) = match self.model_round(stream, &mut usage).await? {
                Ok(answer) => answer,
                Err(error) => return self.provider_failed(&run, error).await,
            };
            if !parts.is_empty() {
                messages.push(Message::Assistant { parts });
            }
            match finish {
                Some(FinishReason::Length) => {
                    self.say("\n\n_(The answer was cut: the model reached its token limit.)_")
                        .await?
                }
                Some(FinishReason::ContentFilter) => {
                    self.say("\n\n_(The provider withheld or cut the answer.)_")
                        .await?
                }
                _ => {}
            }
            if calls.is_empty() {
                break;
            }
            if round == MAX_ROUNDS {
                let note = format!(
                    "\n\n_Stopped: the model asked for more tools after {MAX_ROUNDS} rounds, the \
                     most one turn runs; those calls were not run. Send a message to go on._"
                );
                self.say(&note).await?;
                break;
            }
            for call in calls {
                let (content, is_error) = self.model_tool(&call, &offered).await?;
                messages.push(Message::ToolResult {
                    call_id: call.id.clone(),
                    content: history::clip(&content, MAX_RESULT_CHARS),
                    is_error,
                });
            }
            self.markdown = None;
        }
        self.finish_model(usage).await
    }

    /// One response streamed into the turn: its assistant message parts, its tool calls, how
    /// it ended; or the provider's error.
    #[allow(clippy::type_complexity)]
    async fn model_round(
        &mut self,
        mut stream: crate::providers::EventStream,
        usage: &mut Usage,
    ) -> Result<
        Result<(Vec<AssistantPart>, Vec<ToolCall>, Option<FinishReason>), ProviderError>,
        Stopped,
    > {
        let (mut text, mut reasoning, mut signature) = (String::new(), String::new(), None);
        let mut reasoning_part: Option<String> = None;
        let (mut calls, mut finish) = (Vec::new(), None);
        while let Some(event) = stream.next_event().await {
            match event {
                Err(error) => return Ok(Err(error)),
                Ok(ProviderEvent::TextDelta(delta)) => {
                    probe::mark(Stage::AgentGot);
                    let part = self.markdown_part().await?;
                    text.push_str(&delta);
                    self.chunks += 1;
                    self.emit(vec![StateAction::SessionDelta(SessionDeltaAction {
                        turn_id: self.job.turn_id.clone(),
                        part_id: part,
                        content: delta,
                        extra: Default::default(),
                    })])
                    .await?;
                    probe::mark(Stage::AgentSent);
                }
                Ok(ProviderEvent::ReasoningDelta(delta)) => {
                    let part = match &reasoning_part {
                        Some(part) => part.clone(),
                        None => {
                            let part = self.reasoning_part().await?;
                            reasoning_part = Some(part.clone());
                            part
                        }
                    };
                    reasoning.push_str(&delta);
                    self.emit(vec![StateAction::SessionReasoning(
                        SessionReasoningAction {
                            turn_id: self.job.turn_id.clone(),
                            part_id: part,
                            content: delta,
                            extra: Default::default(),
                        },
                    )])
                    .await?;
                }
                Ok(ProviderEvent::ReasoningSignature(s)) => signature = Some(s),
                Ok(ProviderEvent::ToolCall(call)) => calls.push(call),
                Ok(ProviderEvent::Usage(u)) => add_usage(usage, &u),
                Ok(ProviderEvent::Finish(reason)) => finish = Some(reason),
            }
        }
        let mut parts = Vec::new();
        if !reasoning.is_empty() {
            parts.push(AssistantPart::Reasoning {
                text: reasoning,
                signature,
            });
        }
        if !text.is_empty() {
            parts.push(AssistantPart::Text(text));
        }
        parts.extend(calls.iter().cloned().map(AssistantPart::ToolCall));
        Ok(Ok((parts, calls, finish)))
    }

    /// A new reasoning part; answers its id.
    async fn reasoning_part(&mut self) -> Result<String, Stopped> {
        self.parts += 1;
        let id = format!("reasoning-{}", self.parts);
        let part = crate::agent::text_part(&self.job.turn_id, &id, TextPart::Reasoning);
        self.emit(vec![part]).await?;
        Ok(id)
    }

    /// A steering message joins the conversation as a user message.
    async fn take_steering(
        &mut self,
        message: PendingMessage,
        messages: &mut Vec<Message>,
    ) -> Step {
        self.emit(vec![StateAction::SessionPendingMessageRemoved(
            SessionPendingMessageRemovedAction {
                kind: PendingMessageKind::Steering,
                id: message.id,
                extra: Default::default(),
            },
        )])
        .await?;
        messages.push(Message::User {
            text: message.message.text,
        });
        Ok(())
    }

    /// Runs one of the model's tool calls; answers the text fed back and whether it failed.
    async fn model_tool(
        &mut self,
        call: &ToolCall,
        offered: &[Offered],
    ) -> Result<(String, bool), Stopped> {
        let Some(tool) = offered.iter().find(|o| o.definition.name == call.name) else {
            let why = if offered.is_empty() {
                format!(
                    "there is no tool named `{}`: tools are off in this session's `ask` mode",
                    clip_name(&call.name)
                )
            } else {
                let names: Vec<&str> = offered.iter().map(|o| o.definition.name.as_str()).collect();
                format!(
                    "there is no tool named `{}`; the tools are {}",
                    clip_name(&call.name),
                    names.join(", ")
                )
            };
            return self.refused_call(call, why).await;
        };
        let args = match call.parsed_arguments() {
            Ok(args) => args,
            Err(why) => return self.refused_call(call, why).await,
        };
        let name = call.name.as_str();
        let input = Value::Object(args.clone()).to_string();
        match tool.route.clone() {
            Route::File => {
                let Some(path) = string_arg(&args, "path") else {
                    return self.refused_call(call, missing(name, "path")).await;
                };
                let display = if name == "list_files" {
                    "List files"
                } else {
                    "Read file"
                };
                let id = self.tool_start(name, display, None, None).await?;
                let invocation = format!("{display} `{path}`");
                if !self.confirm(&id, invocation, input, display).await? {
                    return Ok(denied());
                }
                let out = self.file_tool(&id, name, path).await?;
                Ok((out.text, !out.success))
            }
            Route::Write => {
                let (Some(path), Some(text)) =
                    (string_arg(&args, "path"), string_arg(&args, "text"))
                else {
                    return self
                        .refused_call(call, missing(name, "path` and `text"))
                        .await;
                };
                let id = self.tool_start(name, "Write file", None, None).await?;
                let invocation = format!("Writing `{path}`");
                if !self.confirm(&id, invocation, input, "Write file").await? {
                    return Ok(denied());
                }
                let out = self.write_tool(&id, path, text).await?;
                Ok((format!("{}: {}", out.summary, out.text), !out.success))
            }
            Route::Run => {
                let Some(command) = string_arg(&args, "command") else {
                    return self.refused_call(call, missing(name, "command")).await;
                };
                let timeout = args
                    .get("timeoutSecs")
                    .and_then(Value::as_u64)
                    .unwrap_or(RUN_TIMEOUT.0)
                    .clamp(1, RUN_TIMEOUT.1);
                let id = self.tool_start(name, "Run in terminal", None, None).await?;
                let invocation = format!("Running `{command}` in a terminal");
                if !self
                    .confirm(&id, invocation, input, "Run in terminal")
                    .await?
                {
                    return Ok(denied());
                }
                let background = args.get("background").and_then(Value::as_bool) == Some(true);
                let (_, result) = match background {
                    true => self.background_command(&id, &command).await?,
                    false => self.terminal_command(&id, &command, timeout).await?,
                };
                // The summary holds the exit code: the model gets it on success too.
                let (text, failed) = feed(&result);
                let summary = history::result_text(None, &result.past_tense_message);
                match text.contains(&summary) {
                    true => Ok((text, failed)),
                    false => Ok((format!("{summary}\n{text}"), failed)),
                }
            }
            Route::Mcp { server, tool } => {
                let Some(handle) = self.job.mcp.iter().find(|h| h.name == server).cloned() else {
                    let why = format!("the MCP server `{server}` is no longer ready");
                    return self.refused_call(call, why).await;
                };
                let tools = handle.conn.tools();
                let meta = tools
                    .iter()
                    .find(|t| t.name == tool)
                    .and_then(crate::mcp::apps::tool_ui)
                    .map(|ui| {
                        let mut meta = JsonObject::new();
                        meta.insert("ui".into(), ui);
                        meta
                    });
                let contributor = ToolCallContributor::MCP(ToolCallMcpContributor {
                    customization_id: handle.customization_id.clone(),
                    extra: Default::default(),
                });
                let id = self
                    .tool_start(name, &tool, Some(contributor), meta)
                    .await?;
                let invocation = format!("Calling `{tool}` of MCP server `{server}`");
                if !self.confirm(&id, invocation, input, &tool).await? {
                    return Ok(denied());
                }
                let result = self.mcp_call(&handle, &id, &tool, args).await?;
                Ok(feed(&result))
            }
            Route::Client => {
                let Some(client_id) = self.job.active_client.as_ref().map(|c| c.client_id.clone())
                else {
                    return self
                        .refused_call(call, "there is no active client to run it".into())
                        .await;
                };
                let contributor = ToolCallContributor::Client(ToolCallClientContributor {
                    client_id,
                    extra: Default::default(),
                });
                let id = self.tool_start(name, name, Some(contributor), None).await?;
                let invocation = format!("Calling client tool `{name}`");
                self.tool_ready(&id, invocation, input, None).await?;
                let result = self.client_result(&id).await?;
                Ok(feed(&result))
            }
        }
    }

    /// A call that cannot run: shown as a failed tool call, its reason fed back to the model.
    async fn refused_call(
        &mut self,
        call: &ToolCall,
        why: String,
    ) -> Result<(String, bool), Stopped> {
        let name = clip_name(&call.name);
        let id = self.tool_start(&name, &name, None, None).await?;
        let input = crate::mcp::clip(&call.arguments, 4096);
        self.tool_ready(&id, format!("Calling `{name}`"), input, None)
            .await?;
        let content = vec![calls::text_content(&why)];
        let result = calls::tool_result(false, &why, content, Some(INVALID.into()));
        self.complete_tool(&id, result).await?;
        self.markdown = None;
        Ok((why, true))
    }

    /// The provider failed: the turn ends with an error saying what to do.
    async fn provider_failed(&mut self, run: &ModelRun, error: ProviderError) -> Step {
        let name = &run.provider.config().name;
        let (kind, mut message) = match &error {
            ProviderError::Auth { .. } => ("ProviderAuth", error.to_string()),
            ProviderError::RateLimited { .. } => ("ProviderRateLimited", error.to_string()),
            ProviderError::Timeout(_) => ("ProviderTimeout", error.to_string()),
            _ => ("ProviderError", error.to_string()),
        };
        if let ProviderError::Auth { .. } = error {
            match &run.resource {
                Some(resource) => message.push_str(&format!(
                    ". Send `authenticate` with resource `{resource}` and your API key for \
                     `{name}`, then try again"
                )),
                None => message.push_str(". Check the API key the host was started with"),
            }
        }
        // The provider scrubs what it reports; a key given by a client is scrubbed again here.
        if let Some(key) = &run.key {
            message = key.scrub(&message);
        }
        self.fail_turn(kind, format!("model provider {name}: {message}"))
            .await
    }

    /// Ends the turn with `session/error`.
    async fn fail_turn(&mut self, kind: &str, message: String) -> Step {
        self.emit(vec![StateAction::SessionError(Box::new(
            SessionErrorAction {
                turn_id: self.job.turn_id.clone(),
                error: ErrorInfo {
                    error_type: kind.into(),
                    message,
                    stack: None,
                    extra: Default::default(),
                },
                extra: Default::default(),
            },
        ))])
        .await
    }

    async fn finish_model(&mut self, usage: Usage) -> Step {
        let turn_id = self.job.turn_id.clone();
        let tokens = |n: Option<u64>| n.map(|n| n as f64);
        self.emit(vec![
            StateAction::SessionUsage(Box::new(SessionUsageAction {
                turn_id: turn_id.clone(),
                usage: UsageInfo {
                    input_tokens: tokens(usage.input_tokens),
                    output_tokens: tokens(usage.output_tokens),
                    cache_read_tokens: tokens(usage.cache_read_tokens),
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
}

fn add_usage(sum: &mut Usage, u: &Usage) {
    let add = |a: &mut Option<u64>, b: Option<u64>| {
        if let Some(b) = b {
            *a = Some(a.unwrap_or(0) + b);
        }
    };
    add(&mut sum.input_tokens, u.input_tokens);
    add(&mut sum.output_tokens, u.output_tokens);
    add(&mut sum.cache_read_tokens, u.cache_read_tokens);
    add(&mut sum.cache_write_tokens, u.cache_write_tokens);
    add(&mut sum.reasoning_tokens, u.reasoning_tokens);
}

fn string_arg(args: &Map<String, Value>, key: &str) -> Option<String> {
    args.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn missing(tool: &str, field: &str) -> String {
    format!("the arguments of `{tool}` need `{field}` as a string")
}

fn denied() -> (String, bool) {
    ("The user denied this call; it was not run.".into(), true)
}

/// A model's tool name as shown (it may be long or odd: it is the model's).
fn clip_name(name: &str) -> String {
    let name = if name.is_empty() { "(no name)" } else { name };
    crate::mcp::clip(name, 64)
}

/// What the model is told of a result: its text, with the error when it failed.
fn feed(result: &ToolCallResult) -> (String, bool) {
    let text = history::result_text(result.content.as_deref(), &result.past_tense_message);
    let text = match (&result.error, result.success) {
        (Some(e), false) if !text.contains(&e.message) => format!("{}\n{text}", e.message),
        _ => text,
    };
    (text, !result.success)
}
