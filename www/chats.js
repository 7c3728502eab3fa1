// The chat bar of the open session: its chats (the session state's `chats`, in the host's
// order) as tabs, the open one marked; New chat (`createChat`), Archive / Unarchive
// (`chat/isArchivedChanged` on the chat), Move to another session (`moveChat`, for a chat the
// host marks `movable`), Delete (`disposeChat`), and Fork on a completed turn and Side chat on any
// turn (`createChat` with a fork or side-chat `source`; a side chat takes the selected text). A command the host refuses shows its error; nothing else changes. Archived
// chats are listed only with "archived" ticked (or when open).

import { app } from './state.js';
import { $, h, uuid } from './dom.js';
import { showError } from './errors.js';
import { closeChat, openChat } from './chat.js';

/** `SessionStatus.IsArchived`: a chat's status bit. */
const IS_ARCHIVED = 64;
const IN_PROGRESS = 8;
const INPUT_NEEDED = 16;

const archived = (chat) => (Number(chat?.status) & IS_ARCHIVED) !== 0;

/**
 * Renders the chat bar of session `cur` and opens chat `wanted` (default: the open chat while
 * the session still lists it, else the session's `defaultChat`, else its first chat).
 */
export async function renderChats(cur, wanted) {
  const state = cur.sub?.state;
  if (!state) return;
  const chats = state.chats ?? [];
  const listed = (uri) => chats.some((c) => c.resource === uri);
  const target = [wanted, cur.chat?.uri, state.defaultChat, chats[0]?.resource].find((u) => u && listed(u))
    ?? wanted ?? null;
  renderBar(cur, chats, target);
  if (!target) {
    closeChat(cur);
    return;
  }
  if (cur.chat?.uri !== target) {
    await openChat(cur, target);
    if (app.current === cur) renderBar(cur, chats, target);
  }
}

function renderBar(cur, chats, open) {
  $('chat-bar').hidden = false;
  const showArchived = $('show-archived').checked;
  const items = chats.filter((c) => !archived(c) || showArchived || c.resource === open).map((c) => {
    const badges = [];
    if (c.resource === cur.sub.state.defaultChat) badges.push('default');
    if (archived(c)) badges.push('archived');
    if ((c.status & INPUT_NEEDED) === INPUT_NEEDED) badges.push('needs input');
    else if (c.status & IN_PROGRESS) badges.push('working');
    return h('li', { dataset: { archived: String(archived(c)) } }, h('button', {
      type: 'button',
      'aria-current': c.resource === open ? 'true' : null,
      title: c.resource,
      dataset: { testid: 'chat-item', uri: c.resource },
    }, String(c.title || 'Chat'), badges.length ? h('span', { class: 'muted' }, ` · ${badges.join(' · ')}`) : null));
  });
  $('chats').replaceChildren(...items);
  const chat = chats.find((c) => c.resource === open);
  $('archive-chat').textContent = archived(chat) ? 'Unarchive' : 'Archive';
  $('archive-chat').disabled = !chat;
  $('dispose-chat').disabled = !chat;
  // The host says which chats may move (never the default chat).
  $('move-chat').disabled = !chat?.movable;
  $('move-chat').title = chat?.movable ? '' : 'The host does not let this chat move';
  renderMoveTargets(cur);
  renderInputNeeded(cur, open);
}

/** What each kind of the session's `inputNeeded` entries waits for (a client's tool running
 * elsewhere waits on no person: not shown). */
const WAITS_FOR = {
  chatInput: 'an answer',
  toolConfirmation: 'a tool call to be approved',
  toolAuthentication: 'a sign-in',
};

/**
 * Shows what the session's other chats wait for (its `inputNeeded` roll-up: entries of chats
 * other than the open one), each with a button that opens the chat where it is answered.
 */
export function renderInputNeeded(cur = app.current, open = cur?.chat?.uri) {
  const box = $('input-needed');
  const state = cur?.sub?.state;
  const entries = (state?.inputNeeded ?? []).filter((e) => e.chat !== open && WAITS_FOR[e.kind]);
  box.hidden = entries.length === 0;
  box.replaceChildren(...entries.map((e) => {
    const chat = state.chats?.find((c) => c.resource === e.chat);
    return h('span', { class: 'need', dataset: { testid: 'input-needed-entry', chat: e.chat } },
      `${String(chat?.title || 'Another chat')} waits for ${WAITS_FOR[e.kind]} `,
      h('button', {
        type: 'button',
        dataset: { testid: 'input-needed-open' },
        onclick: () => renderChats(cur, e.chat).catch((err) => showError('Open chat', err)),
      }, 'Open'));
  }));
}

/** The sessions a chat can move to: every other listed session, or a new one. */
export function renderMoveTargets(cur = app.current) {
  const select = $('move-target');
  const chosen = select.value;
  const others = [...app.sessions.values()].filter((s) => s.resource !== cur?.uri);
  select.replaceChildren(
    h('option', { value: '' }, 'to a new session'),
    ...others.map((s) => h('option', { value: s.resource, selected: s.resource === chosen }, `to ${String(s.title || s.resource)}`)),
  );
}

/** Hides the chat bar (no session open). */
export function clearChats() {
  $('chats').replaceChildren();
  $('input-needed').replaceChildren();
  $('input-needed').hidden = true;
  $('chat-bar').hidden = true;
}

async function command(what, run) {
  try {
    return await run();
  } catch (e) {
    showError(what, e);
    return undefined;
  }
}

/** JSON-RPC "invalid params": how a host refuses a move destination kind it does not offer. */
const INVALID_PARAMS = -32602;

/**
 * Moves `chat` to a new session and answers that session. The host's own `newSession` move
 * first (ahp-host serves it); a host may refuse that destination kind (AHP lets it), and then
 * the page makes a session and moves the chat into it, beside that session's own default chat. If that move fails, the session made for it
 * is deleted again (nothing left behind).
 */
async function moveToNewSession(chat) {
  try {
    return (await app.client.moveChat({ channel: chat, destination: { kind: 'newSession' } })).session;
  } catch (e) {
    if (e?.code !== INVALID_PARAMS) throw e;
  }
  const session = `ahp-session:/${uuid()}`;
  await app.client.createSession({ channel: session });
  try {
    return (await app.client.moveChat({ channel: chat, destination: { kind: 'session', session } })).session;
  } catch (e) {
    await app.client.disposeSession({ channel: session }).catch(() => {});
    throw e;
  }
}

/** Wires the chat bar (once); `openSession(uri, chat)` opens a session on one of its chats. */
export function initChats({ openSession }) {
  $('chats').addEventListener('click', (ev) => {
    const item = ev.target.closest('button[data-uri]');
    const cur = app.current;
    if (item && cur) renderChats(cur, item.dataset.uri).catch((e) => showError('Open chat', e));
  });
  $('show-archived').addEventListener('change', () => {
    if (app.current?.sub) renderBar(app.current, app.current.sub.state?.chats ?? [], app.current.chat?.uri);
  });
  // Fork and Side chat (a turn's buttons, turns.js): a new chat with the open chat's turns
  // through that one, opened at once; a side chat also takes the text selected in that turn,
  // read when the button is pressed (before the click may change the selection).
  let selected = '';
  $('log').addEventListener('pointerdown', (ev) => {
    const button = ev.target.closest('button[data-testid=turn-side-chat]');
    const turn = button?.closest('[data-testid=turn]');
    const selection = window.getSelection();
    const inTurn = turn && selection?.rangeCount && turn.contains(selection.getRangeAt(0).commonAncestorContainer);
    selected = inTurn ? selection.toString() : '';
  });
  $('log').addEventListener('click', async (ev) => {
    const button = ev.target.closest('button[data-testid=turn-fork], button[data-testid=turn-side-chat]');
    const cur = app.current;
    const from = cur?.chat?.uri;
    if (!button || !from) return;
    const chat = `ahp-chat:/${uuid()}`;
    const fork = button.dataset.testid === 'turn-fork';
    const source = { kind: fork ? 'fork' : 'sideChat', chat: from, turnId: button.dataset.turnId };
    if (!fork && selected) source.selection = { text: selected };
    selected = '';
    const made = await command(fork ? 'Fork' : 'Side chat', async () => {
      await app.client.createChat({ channel: cur.uri, chat, source });
      return true;
    });
    if (made && app.current === cur) await renderChats(cur, chat).catch((e) => showError('Open chat', e));
  });
  $('new-chat').addEventListener('click', async () => {
    const cur = app.current;
    if (!cur) return;
    const chat = `ahp-chat:/${uuid()}`;
    // `createChat` answers with nothing: success is its not throwing.
    try {
      await app.client.createChat({ channel: cur.uri, chat });
    } catch (e) {
      showError('New chat', e);
      return;
    }
    if (app.current === cur) await renderChats(cur, chat).catch((e) => showError('Open chat', e));
  });
  $('archive-chat').addEventListener('click', () => {
    const chat = app.current?.chat;
    const summary = app.current?.sub?.state?.chats?.find((c) => c.resource === chat?.uri);
    if (!chat?.sub || !summary) return;
    try {
      chat.sub.dispatch({ type: 'chat/isArchivedChanged', isArchived: !archived(summary) });
    } catch (e) {
      showError('Archive chat', e);
    }
  });
  $('dispose-chat').addEventListener('click', async () => {
    const chat = app.current?.chat;
    if (chat) await command('Delete chat', () => app.client.disposeChat({ channel: chat.uri }));
  });
  // The chat follows its move: its new session opens on it.
  $('move-chat').addEventListener('click', async () => {
    const chat = app.current?.chat?.uri;
    if (!chat) return;
    const session = $('move-target').value;
    const moved = await command('Move chat', async () => (session
      ? (await app.client.moveChat({ channel: chat, destination: { kind: 'session', session } })).session
      : moveToNewSession(chat)));
    if (moved) await openSession(moved, chat).catch((e) => showError('Open session', e));
  });
}
