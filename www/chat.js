// The open chat of the open session (AHP 1.0: a session's turns live in its chats, each an
// `ahp-chat:` channel): an SDK Subscription whose optimistic `state` is rendered into the
// transcript (turns, questions from the agent, queued messages) after every change; the user's
// actions on it (tool confirmations, answers, cancel, messages) are dispatched to it. Its
// canvases (`canvases`) are shown by canvases.js.

import { app } from './state.js';
import { $, h, syncKeyed } from './dom.js';
import { showError } from './errors.js';
import { InputRequestView, TurnView } from './turns.js';
import { TurnHistory } from './history.js';
import { mountApp } from './mcp.js';
import { closeCompletions } from './composer.js';
import { closeCanvases, syncCanvases } from './canvases.js';

/** Leaves the open chat of session `cur` (if any) and empties the transcript. */
export function closeChat(cur) {
  const chat = cur?.chat;
  if (!chat) return;
  cur.chat = null;
  chat.off?.();
  chat.offScroll?.();
  try { chat.sub?.unsubscribe(); } catch { /* already gone */ }
  for (const handle of chat.apps) handle.then((a) => a?.close()).catch(() => {});
  closeCanvases(chat);
  $('log').replaceChildren();
  $('inputs').replaceChildren();
  $('queued').replaceChildren();
  renderBackgroundWork([]);
  $('cancel-turn').hidden = true;
  $('message').disabled = true;
  $('send').disabled = true;
  closeCompletions();
}

/** Opens chat `uri` of session `cur` in the transcript (closing the one open before). */
export async function openChat(cur, uri) {
  if (cur.chat?.uri === uri) return;
  closeChat(cur);
  const chat = { uri, sub: null, off: null, turnViews: new Map(), inputViews: new Map(), apps: [], last: {} };
  cur.chat = chat;
  let sub;
  try {
    sub = await app.client.subscribe(uri);
  } catch (e) {
    if (cur.chat === chat) cur.chat = null;
    throw e;
  }
  if (app.current !== cur || cur.chat !== chat) {
    sub.unsubscribe();
    return;
  }
  chat.sub = sub;
  chat.history = new TurnHistory(app.client, sub, () => { if (cur.chat === chat) renderTurns(chat, true); });
  const onScroll = () => chat.history.maybeLoad($('log'), true);
  $('log').addEventListener('scroll', onScroll, { passive: true });
  chat.offScroll = () => $('log').removeEventListener('scroll', onScroll);
  chat.off = sub.onChange((_state, info) => {
    if (cur.chat !== chat) return;
    for (const r of info?.rejections ?? []) showError(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
    try {
      renderChat(chat);
    } catch (e) {
      showError('Render', e);
    }
  });
  const readOnly = sub.state?.interactivity && sub.state.interactivity !== 'full';
  $('message').disabled = Boolean(readOnly);
  $('send').disabled = Boolean(readOnly);
  renderChat(chat);
}

/** Dispatches `action` on the open chat; errors are shown. */
export function dispatchChat(action) {
  const chat = app.current?.chat;
  if (!chat?.sub) return;
  try {
    chat.sub.dispatch(action);
  } catch (e) {
    showError(`Dispatch ${action.type}`, e);
  }
}

const chatCtx = {
  confirmTool(turnId, toolCallId, approved) {
    dispatchChat(approved
      ? { type: 'chat/toolCallConfirmed', turnId, toolCallId, approved: true, confirmed: 'user-action' }
      : { type: 'chat/toolCallConfirmed', turnId, toolCallId, approved: false, reason: 'denied' });
  },
  completeInput(requestId, response, answers) {
    dispatchChat(answers ? { type: 'chat/inputCompleted', requestId, response, answers }
      : { type: 'chat/inputCompleted', requestId, response });
  },
  /** Whether the open session's agent offers forks (`capabilities.multipleChats.fork`). */
  canFork() {
    return multipleChats()?.fork === true;
  },
  /** Whether it offers side chats (`capabilities.multipleChats.sideChat`). */
  canSideChat() {
    return multipleChats()?.sideChat === true;
  },
  /** Renders an MCP App tool call's View into `element` (a tool call of the open chat). */
  mountApp(element, toolCallId) {
    const cur = app.current;
    const chat = cur?.chat;
    if (!chat) return;
    chat.apps.push(mountApp(element, cur.uri, chat.uri, toolCallId));
  },
};

/** The open session's agent's `capabilities.multipleChats`. */
function multipleChats() {
  const provider = app.current?.sub?.state?.provider;
  return app.root?.state?.agents?.find((a) => a.provider === provider)?.capabilities?.multipleChats;
}

/** What the chat's agent runs on after the tool call that started it (`backgroundWork`). */
function renderBackgroundWork(work) {
  const box = $('background-work');
  box.hidden = work.length === 0;
  box.replaceChildren(...work.map((w) => h('span', {
    class: 'work', title: String(w.terminal ?? w.id), dataset: { testid: 'background-work-entry', id: String(w.id) },
  }, `In the background: ${String(w.kind === 'shell' ? w.command : w.label)}`)));
}

/** The questions of the active turn still waiting for an answer (1.0: `inputRequest` parts). */
function openRequests(state) {
  return (state.activeTurn?.responseParts ?? [])
    .filter((p) => p?.kind === 'inputRequest' && !p.response && p.request)
    .map((p) => p.request);
}

function renderChat(chat) {
  const state = chat.sub.state;
  const last = chat.last;
  if (state === last.state) return;
  chat.last = { ...last, state };
  if (!state) return;

  renderTurns(chat, false, last);
  $('cancel-turn').hidden = !state.activeTurn;
  if (state.backgroundWork !== last.state?.backgroundWork) renderBackgroundWork(state.backgroundWork ?? []);
  if (state.canvases !== last.state?.canvases) syncCanvases(chat, state.canvases);

  if (state.activeTurn !== last.state?.activeTurn) {
    const requests = openRequests(state);
    syncKeyed($('inputs'), chat.inputViews, requests, (r) => r.id,
      (request, view) => (view?.request === request ? view : new InputRequestView(request, chatCtx)));
  }

  if (state.queuedMessages !== last.state?.queuedMessages || state.steeringMessage !== last.state?.steeringMessage) {
    const items = [];
    if (state.steeringMessage) items.push(h('li', null, `Steering: ${String(state.steeringMessage.message?.text ?? '')}`));
    for (const m of state.queuedMessages ?? []) items.push(h('li', { dataset: { testid: 'queued-message' } }, `Queued: ${String(m.message?.text ?? '')}`));
    $('queued').replaceChildren(...items);
  }
}

/**
 * Turns: the marker, the completed ones the history shows (history.js), then the active one;
 * views keyed by turn id (the active turn's view becomes the completed turn's view, re-rendering
 * only the parts that changed). `force`: the history changed (older turns shown).
 */
function renderTurns(chat, force, last = chat.last) {
  const state = chat.sub.state;
  if (!state) return;
  const confirmed = chat.sub.confirmedState;
  const active = state.activeTurn ?? null;
  const turns = state.turns ?? [];
  if (!force && turns === last.shownTurns && active === last.state?.activeTurn && chat.sub.pendingCount === last.pendingCount) return;
  const shown = [{ marker: true }, ...chat.history.turns(turns).map((turn) => ({ turn, live: false }))];
  if (active) shown.push({ turn: active, live: true });
  const log = $('log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  syncKeyed(log, chat.turnViews, shown, (s) => (s.marker ? '\u0000marker' : s.turn.id), (s, view) => {
    if (s.marker) return chat.history.marker;
    const { turn, live } = s;
    view ??= new TurnView(turn.id);
    const pending = live && confirmed?.activeTurn?.id !== turn.id;
    view.update(turn, { live, pending, ctx: chatCtx });
    return view;
  });
  if (atBottom && !force) log.scrollTop = log.scrollHeight;
  chat.last.shownTurns = turns;
  chat.last.pendingCount = chat.sub.pendingCount;
  // A window shorter than the log cannot be scrolled: show older turns until it can.
  chat.history.maybeLoad(log, false);
}
