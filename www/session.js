// The open session: an SDK Subscription of its `ahp-session:` channel, whose optimistic `state`
// is rendered after every change (title, its chats, customizations, MCP servers, browser tools,
// config, changes); its transcript is the open chat's (chat.js), its annotations are
// annotations.js's panel. One session is open at a time.

import { app } from './state.js';
import { $ } from './dom.js';
import { showError } from './errors.js';
import { renderSessions } from './session-list.js';
import { renderMcpServers } from './mcp.js';
import { claim, release, renderBrowserTools } from './browser-tools.js';
import { renderCustomizations } from './customizations.js';
import { clearSessionConfig, renderSessionConfig } from './composer.js';
import { closeChanges, syncChanges } from './changes.js';
import { closeChat } from './chat.js';
import { clearChats, renderChats, renderInputNeeded } from './chats.js';
import { closeAnnotations, openAnnotations } from './annotations.js';

const SESSION_PANELS = ['tools-panel', 'customizations-panel', 'mcp-panel'];

export function closeSession(message) {
  const cur = app.current;
  if (!cur) return;
  app.current = null;
  app.closedUri = cur.uri;
  cur.off?.();
  release(cur);
  closeChanges(cur);
  closeChat(cur);
  closeAnnotations(cur);
  clearChats();
  try { cur.sub?.unsubscribe(); } catch { /* already gone */ }
  $('mcp-servers').replaceChildren();
  $('customizations').replaceChildren();
  for (const id of SESSION_PANELS) $(id).hidden = true;
  clearSessionConfig();
  $('session-title').textContent = message ?? 'No session open';
  $('session-info').textContent = '';
  $('dispose-session').hidden = true;
  if (history.replaceState) history.replaceState(null, '', location.pathname + location.search);
  renderSessions();
}

/** The host deleted session `uri`: closes it if it is open (or says so if it was the last one). */
export function sessionDeleted(uri) {
  const deleted = 'This session was deleted.';
  if (app.current?.uri === uri) closeSession(deleted);
  else if (!app.current && app.closedUri === uri) $('session-title').textContent = deleted;
}

/**
 * Opens session `uri` (if it is not the open one) and its chat `chatUri` (default: the chat
 * the session routes input to, `defaultChat`). The page lends its browser tools there when no
 * other client does (`lend` undefined), or as told (a recovery: whether it lent them before).
 */
export async function openSession(uri, chatUri, lend) {
  if (app.current?.uri === uri) {
    if (chatUri) await renderChats(app.current, chatUri);
    return;
  }
  closeSession();
  const cur = { uri, sub: null, off: null, chat: null, mcpViews: new Map(), containerViews: new Map(), tools: null, last: {} };
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
  if (app.current !== cur) {
    sub.unsubscribe();
    return;
  }
  cur.sub = sub;
  cur.off = sub.onChange((_state, info) => {
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
  for (const id of SESSION_PANELS) $(id).hidden = false;
  renderSession(cur);
  await Promise.all([renderChats(cur, chatUri), openAnnotations(cur)]);
  if (app.current !== cur) return;
  // Lend the browser tools (the host keeps one active client per session).
  const mine = sub.state?.activeClients?.some((c) => c?.clientId === app.client.clientId);
  if (lend === true ? true : lend === undefined && (mine || !sub.state?.activeClients?.length)) await claim(cur);
  if (app.current !== cur) return;
  $('message').focus();
}

/** Dispatches `action` on the open session; errors are shown. */
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

  if (state.title !== last.state?.title || state.lifecycle !== last.state?.lifecycle || state.creationError !== last.state?.creationError) {
    $('session-title').textContent = String(state.title || cur.uri);
    const info = [state.lifecycle, state.provider].filter(Boolean).join(' · ');
    $('session-info').textContent = state.creationError ? `${info} · ${String(state.creationError.message)}` : info;
  }

  if (state.customizations !== last.state?.customizations) {
    renderMcpServers(state, cur.mcpViews, dispatch);
    renderCustomizations(state, cur.containerViews, dispatch);
  }
  if (state.activeClients !== last.state?.activeClients) renderBrowserTools(cur, state);
  if (state.config !== last.state?.config) renderSessionConfig(state, dispatch);
  if (state.changesets !== last.state?.changesets) syncChanges(cur, state);
  if (state.chats !== last.state?.chats || state.defaultChat !== last.state?.defaultChat) {
    renderChats(cur).catch((e) => showError('Open chat', e));
  } else if (state.inputNeeded !== last.state?.inputNeeded) {
    renderInputNeeded(cur);
  }
}
