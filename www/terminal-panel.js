// The terminal panel: one terminal of the host at a time, shown with xterm.js (the npm package
// `@xterm/xterm`, copied to vendor/ by scripts/build-pkg.sh) over the SDK's `TerminalHandle`.
//
// - "New terminal" creates one claimed by this page's client (`client.openTerminal`); a `/run`
//   tool call's terminal link opens that terminal here (`openTerminal(uri)`).
// - Output: the handle's `onData` (the whole text again on `reset`) goes to xterm; keys typed in
//   xterm go to `handle.write` when this client holds the terminal, else the panel says who
//   does and offers "Take" (a claim the host refuses unless the holder is this client).
// - The terminal keeps the size of its state (cols × rows); the panel does not resize it.
//
// Peer output is untrusted but goes to a terminal emulator only (no HTML). The title, claim
// and exit are shown with textContent.

import { app } from './state.js';
import { $, h } from './dom.js';
import { showError } from './errors.js';

let xtermModule = null;

async function loadXterm() {
  xtermModule ??= import('./vendor/xterm/xterm.mjs');
  return xtermModule;
}

/** The open terminal: `{ handle, xterm, offs }`. */
function close() {
  const cur = app.terminal;
  if (!cur) return;
  app.terminal = null;
  for (const off of cur.offs) off();
  cur.xterm.dispose();
  cur.handle.close();
}

function claimText(claim) {
  if (claim?.kind === 'client') return claim.clientId === app.client?.clientId ? 'yours' : `held by client ${claim.clientId}`;
  if (claim?.kind === 'session') return claim.toolCallId ? `used by a tool call of ${claim.session}` : `held by session ${claim.session}`;
  return 'unclaimed';
}

function renderHead() {
  const cur = app.terminal;
  const handle = cur?.handle;
  $('terminal-title').textContent = handle ? handle.title || handle.uri : 'No terminal open';
  $('terminal-info').textContent = handle
    ? `${handle.cols ?? '?'}×${handle.rows ?? '?'} · ${claimText(handle.holder)}${handle.exitCode !== undefined ? ` · exited (${handle.exitCode})` : ''}`
    : '';
  $('terminal-take').hidden = !handle || handle.isClaimant || handle.exitCode !== undefined;
}

/** Shows the terminal at `uri` in the panel (subscribing to it, unless `given` is its handle). */
export async function openTerminal(uri, given) {
  const panel = $('terminal-panel');
  panel.hidden = false;
  panel.open = true;
  if (app.terminal?.handle.uri === uri) return;
  close();
  const [{ Terminal }, handle] = await Promise.all([loadXterm(), given ?? app.client.terminal(uri)]);
  const xterm = new Terminal({ cols: handle.cols ?? 80, rows: handle.rows ?? 24, convertEol: false, scrollback: 5000 });
  const view = $('terminal-view');
  view.replaceChildren();
  xterm.open(view);
  xterm.write(handle.text);
  const cur = { handle, xterm, offs: [] };
  app.terminal = cur;
  view.dataset.uri = uri;
  // A reset goes in-band (RIS, `ESC c`): `xterm.reset()` would act before earlier writes,
  // which xterm parses later.
  cur.offs.push(handle.onData((data, { reset }) => xterm.write(reset ? `\x1bc${data}` : data)));
  const typed = xterm.onData((data) => {
    if (!handle.isClaimant) {
      showError('Terminal', new Error(`this terminal is ${claimText(handle.holder)}: take it first`));
      return;
    }
    try {
      handle.write(data);
    } catch (e) {
      showError('Terminal input', e);
    }
  });
  cur.offs.push(() => typed.dispose());
  cur.offs.push(handle.subscription.onChange((state) => {
    if (state?.cols && state?.rows && (state.cols !== xterm.cols || state.rows !== xterm.rows)) xterm.resize(state.cols, state.rows);
    renderHead();
  }));
  renderHead();
}

/** Wires the panel's buttons. */
export function initTerminalPanel() {
  $('new-terminal').addEventListener('click', async () => {
    try {
      const handle = await app.client.openTerminal({ cols: 100, rows: 24, name: 'Terminal' });
      await openTerminal(handle.uri, handle);
      app.terminal?.xterm.focus();
    } catch (e) {
      showError('New terminal', e);
    }
  });
  $('terminal-take').addEventListener('click', () => {
    app.terminal?.handle.claim().then(renderHead, (e) => showError('Take the terminal', e));
  });
  $('terminal-close').addEventListener('click', () => {
    close();
    renderHead();
    $('terminal-panel').hidden = true;
  });
}

/** A link to a terminal in a tool call's content (`ToolResultTerminalContent`). */
export function terminalLink(content) {
  const uri = String(content?.resource ?? '');
  return h('button', {
    type: 'button',
    class: 'terminal-link',
    dataset: { testid: 'tool-terminal', uri },
    onclick: () => openTerminal(uri).catch((e) => showError('Open terminal', e)),
  }, `Terminal: ${String(content?.title ?? uri)}`);
}
