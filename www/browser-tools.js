// Browser tools: the page lends the agent a few tools that only a browser has, by becoming one of
// the session's active clients through the SDK (`client.setActiveClient`; AHP 1.0 lets several
// clients be active at once). The agent calls them
// with `/client-tool NAME {json}`; the SDK runs them here and reports the result. The panel shows
// whether this page holds the role, lets the user give it up or take it back, and publishes a
// skill written in the page as a client plugin.

import { app } from './state.js';
import { $, h } from './dom.js';
import { showError } from './errors.js';

/** A question in the page (not `window.confirm`, which blocks the page and its connection). */
function ask(message, signal) {
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.remove();
      resolve(answer);
    };
    const dialog = h('div', { class: 'tool-dialog', role: 'dialog', 'aria-label': 'The agent asks', dataset: { testid: 'tool-dialog' } },
      h('p', null, message),
      h('button', { type: 'button', dataset: { testid: 'tool-dialog-yes' }, onclick: () => done(true) }, 'Yes'), ' ',
      h('button', { type: 'button', dataset: { testid: 'tool-dialog-no' }, onclick: () => done(false) }, 'No'));
    signal.addEventListener('abort', () => done(false), { once: true });
    $('tool-dialogs').append(dialog);
  });
}

// The last text the user selected in the page (outside form fields): typing the message that
// asks for it moves the focus, and the live selection, into the message box.
let lastSelection = '';
document.addEventListener('selectionchange', () => {
  const selection = getSelection();
  const node = selection?.anchorNode;
  const inField = node?.nodeType === Node.ELEMENT_NODE && /^(TEXTAREA|INPUT)$/.test(node.nodeName);
  if (selection && !selection.isCollapsed && !inField) lastSelection = String(selection);
});

/** The tools, as the SDK takes them. */
export const BROWSER_TOOLS = [
  {
    name: 'page_selection',
    title: 'Selected text',
    description: 'The text the user last selected in the page (empty when nothing was selected).',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute() {
      const text = lastSelection;
      return { content: text || '(nothing is selected)', structuredContent: { text } };
    },
  },
  {
    name: 'ask_user',
    title: 'Ask the user',
    description: 'Asks the user a yes/no question in the page and returns the answer.',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string', minLength: 1, maxLength: 500 } },
      required: ['question'],
      additionalProperties: false,
    },
    async execute({ question }, { signal, update }) {
      update('Waiting for the user…');
      const yes = await ask(question, signal);
      return { content: yes ? 'yes' : 'no', structuredContent: { answer: yes } };
    },
  },
  {
    name: 'clock',
    title: 'Browser clock',
    description: "The browser's current time, in its time zone or the one given, and its locale.",
    inputSchema: {
      type: 'object',
      properties: { timeZone: { type: 'string', description: 'An IANA time zone, e.g. Europe/Paris (default: the browser\'s).' } },
      additionalProperties: false,
    },
    execute({ timeZone } = {}) {
      const now = new Date();
      const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      // Throws a RangeError for an unknown zone: the SDK reports it as the call's failure.
      const local = now.toLocaleString(navigator.language, { timeZone: zone });
      return {
        content: `${now.toISOString()} (${zone}: ${local})`,
        structuredContent: { iso: now.toISOString(), timeZone: zone, local, locale: navigator.language },
      };
    },
  },
];

/** Claims the role for the open session (with the published skills, if any). */
export async function claim(cur) {
  try {
    cur.tools = await app.client.setActiveClient(cur.uri, {
      displayName: 'ahp-host page',
      tools: BROWSER_TOOLS,
      plugins: cur.plugins ?? [],
    });
  } catch (e) {
    showError('Browser tools', e);
  }
}

/** Releases the role of session `cur` (closing it, or the user's choice). */
export function release(cur) {
  cur.tools?.release();
  cur.tools = null;
}

/** Publishes a skill written in the page (a client plugin with one SKILL.md). */
async function publishSkill(cur, name, description, body) {
  const file = `---\nname: ${name}\ndescription: ${description.replace(/\n/g, ' ')}\n---\n${body}\n`;
  const skills = { ...(cur.skillFiles ?? {}), [`skills/${name}/SKILL.md`]: file };
  cur.skillFiles = skills;
  cur.plugins = [app.sdk.buildClientPlugin(app.client, { id: 'page-skills', name: 'Skills from the page', files: skills })];
  if (!cur.tools) await claim(cur);
  else cur.tools.updatePlugins(cur.plugins);
}

/** Whether this page is one of the session's active clients (AHP 1.0: there may be several). */
function lending(state) {
  return (state?.activeClients ?? []).some((c) => c?.clientId === app.client?.clientId);
}

/** Renders the panel: whether this page lends its tools (and who else does), a toggle and the skill form. */
export function renderBrowserTools(cur, state) {
  const mine = lending(state);
  const others = (state?.activeClients ?? []).filter((c) => c?.clientId !== app.client?.clientId).map((c) => c.displayName ?? c.clientId);
  const also = others.length ? ` (also active: ${others.join(', ')})` : '';
  const status = mine ? `active: ${BROWSER_TOOLS.map((t) => t.name).join(', ')}${also}` : others.length ? `not lent${also}` : 'not lent';
  $('tools-status').textContent = status;
  $('tools-status').dataset.state = mine ? 'active' : others.length ? 'other' : 'none';
  $('tools-toggle').textContent = mine ? 'Stop lending' : 'Lend browser tools';
}

/** Wires the panel's controls (once). */
export function initBrowserTools() {
  $('tools-toggle').addEventListener('click', async () => {
    const cur = app.current;
    if (!cur) return;
    if (lending(cur.sub?.state)) release(cur);
    else await claim(cur);
  });
  $('skill-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const cur = app.current;
    const name = $('skill-name').value.trim();
    if (!cur || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) {
      showError('Publish skill', 'a skill name is 1-64 lowercase letters, digits or dashes');
      return;
    }
    try {
      await publishSkill(cur, name, $('skill-description').value.trim(), $('skill-body').value);
      $('skill-form').reset();
    } catch (e) {
      showError('Publish skill', e);
    }
  });
}
