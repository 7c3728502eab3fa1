// The open session: an SDK Subscription whose optimistic `state` is rendered into the main pane
// (title, turns, input requests, queued messages) after every change; the user's actions on it
// (tool confirmations, answers, cancel) are dispatched to it. One session is open at a time.

import { app } from './state.js';
import { $, h, syncKeyed } from './dom.js';
import { showError } from './errors.js';
import { renderSessions } from './session-list.js';
import { InputRequestView, TurnView } from './turns.js';
import { TurnHistory } from './history.js';
import { mountApp, renderMcpServers } from './mcp.js';
import { claim, release, renderBrowserTools } from './browser-tools.js';
import { renderCustomizations } from './customizations.js';
import { clearSessionConfig, renderSessionConfig } from './composer.js';
import { closeChanges, syncChanges } from './changes.js';

export function closeSession(message) {
  const cur = app.current;
  if (!cur) return;
  app.current = null;
  app.closedUri = cur.uri;
  cur.off?.();
  cur.offScroll?.();
  release(cur);
  closeChanges(cur);
  try { cur.sub?.unsubscribe(); } catch { /* already gone */ }
  $('log').replaceChildren();
  $('inputs').replaceChildren();
  $('queued').replaceChildren();
  $('mcp-servers').replaceChildren();
  $('mcp-panel').hidden = true;
  $('customizations').replaceChildren();
  $('tools-panel').hidden = true;
  clearSessionConfig();
  for (const handle of cur.apps) handle.then((a) => a?.close()).catch(() => {});
  $('session-title').textContent = message ?? 'No session open';
  $('session-info').textContent = '';
  $('cancel-turn').hidden = true;
  $('dispose-session').hidden = true;
  $('message').disabled = true;
  $('send').disabled = true;
  if (history.replaceState) history.replaceState(null, '', location.pathname + location.search);
  renderSessions();
}

/** The host deleted session `uri`: closes it if it is open (or says so if it was the last one). */
export function sessionDeleted(uri) {
  const deleted = 'This session was deleted.';
  if (app.current?.uri === uri) closeSession(deleted);
  else if (!app.current && app.closedUri === uri) $('session-title').textContent = deleted;
}

export async function openSession(uri) {
  if (app.current?.uri === uri) return;
  closeSession();
  const cur = { uri, sub: null, off: null, turnViews: new Map(), inputViews: new Map(), mcpViews: new Map(), containerViews: new Map(), apps: [], tools: null, last: {} };
  app.current = cur;
  $('session-title').textContent = 'Opening…';
  renderSessions();
  let sub;
  try {
    sub = await app.client.subscribe(uri);
  } catch (e) {
    if (app.current === cur) closeSession('Could not open the session');
    throw e;
  }
  if (app.current !== cur) return; // another session was opened meanwhile
  cur.sub = sub;
  // Older turns: loaded with fetchTurns when the user scrolls to the top (history.js).
  cur.history = new TurnHistory(app.client, uri, () => { if (app.current === cur) renderTurns(cur, true); });
  const onScroll = () => cur.history.maybeLoad($('log'), true);
  $('log').addEventListener('scroll', onScroll, { passive: true });
  cur.offScroll = () => $('log').removeEventListener('scroll', onScroll);
  cur.off = sub.onChange((state, info) => {
    if (app.current !== cur) return;
    for (const r of info?.rejections ?? []) showError(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
    try {
      renderSession(cur);
    } catch (e) {
      showError('Render', e);
    }
  });
  history.replaceState?.(null, '', `${location.pathname}${location.search}#${encodeURIComponent(uri)}`);
  $('dispose-session').hidden = false;
  $('tools-panel').hidden = false;
  // Lend the browser tools when no other client holds the session's active-client role.
  if (!sub.state?.activeClient) await claim(cur);
  if (app.current !== cur) return;
  $('message').disabled = false;
  $('send').disabled = false;
  renderSession(cur);
  $('message').focus();
}

const sessionCtx = {
  confirmTool(turnId, toolCallId, approved) {
    dispatch(approved
      ? { type: 'session/toolCallConfirmed', turnId, toolCallId, approved: true, confirmed: 'user-action' }
      : { type: 'session/toolCallConfirmed', turnId, toolCallId, approved: false, reason: 'denied' });
  },
  completeInput(requestId, response, answers) {
    dispatch(answers ? { type: 'session/inputCompleted', requestId, response, answers }
      : { type: 'session/inputCompleted', requestId, response });
  },
  /** Renders an MCP App tool call's View into `element` (the open session's). */
  mountApp(element, toolCallId) {
    const cur = app.current;
    if (!cur) return;
    cur.apps.push(mountApp(element, cur.uri, toolCallId));
  },
};

export function dispatch(action) {
  const cur = app.current;
  if (!cur?.sub) return;
  try {
    cur.sub.dispatch(action);
  } catch (e) {
    showError(`Dispatch ${action.type}`, e);
  }
}

function renderSession(cur) {
  const state = cur.sub.state;
  const last = cur.last;
  if (state === last.state) return;
  cur.last = { ...last, state };
  if (!state) return;

  if (state.summary !== last.state?.summary || state.lifecycle !== last.state?.lifecycle) {
    $('session-title').textContent = String(state.summary?.title || cur.uri);
    const info = [state.lifecycle, state.summary?.model?.id].filter(Boolean).join(' · ');
    $('session-info').textContent = state.creationError ? `${info} · ${String(state.creationError.message)}` : info;
  }

  if (state.customizations !== last.state?.customizations) {
    renderMcpServers(state, cur.mcpViews, dispatch);
    renderCustomizations(state, cur.containerViews, dispatch);
  }
  if (state.activeClient !== last.state?.activeClient) renderBrowserTools(cur, state);
  if (state.config !== last.state?.config) renderSessionConfig(state, dispatch);
  if (state.changesets !== last.state?.changesets) syncChanges(cur, state);

  renderTurns(cur, false, last);
  $('cancel-turn').hidden = !state.activeTurn;

  // Input requests.
  if (state.inputRequests !== last.state?.inputRequests) {
    syncKeyed($('inputs'), cur.inputViews, state.inputRequests ?? [], (r) => r.id,
      (request, view) => (view?.request === request ? view : new InputRequestView(request, sessionCtx)));
  }

  // Queued and steering messages.
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
 * only the parts that changed). `force`: the history changed (older turns loaded).
 */
function renderTurns(cur, force, last = cur.last) {
  const state = cur.sub.state;
  if (!state) return;
  const confirmed = cur.sub.confirmedState;
  const active = state.activeTurn ?? null;
  const turns = state.turns ?? [];
  if (!force && turns === last.shownTurns && active === last.state?.activeTurn && cur.sub.pendingCount === last.pendingCount) return;
  const shown = [{ marker: true }, ...cur.history.turns(turns).map((turn) => ({ turn, live: false }))];
  if (active) shown.push({ turn: active, live: true });
  const log = $('log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  syncKeyed(log, cur.turnViews, shown, (s) => (s.marker ? '\u0000marker' : s.turn.id), (s, view) => {
    if (s.marker) return cur.history.marker;
    const { turn, live } = s;
    view ??= new TurnView(turn.id);
    const pending = live && confirmed?.activeTurn?.id !== turn.id;
    view.update(turn, { live, pending, ctx: sessionCtx });
    return view;
  });
  if (atBottom && !force) log.scrollTop = log.scrollHeight;
  cur.last.shownTurns = turns;
  cur.last.pendingCount = cur.sub.pendingCount;
  // A window shorter than the log cannot be scrolled: load older turns until it can.
  cur.history.maybeLoad(log, false);
}
