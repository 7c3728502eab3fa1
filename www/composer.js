// The composer: the message box and Send, the session's config (model, mode, ...) and `@` / `/`
// completions. A message starts a turn in the open chat, or is queued when a turn is running
// there (the host starts it when the turn ends). AHP 1.0 picks the model per message: the
// model picker sets the `model` of the messages sent after it. Enter sends, Shift+Enter adds a line; while completions are shown,
// Up/Down choose, Enter or Tab takes one, Escape closes them.

import { app } from './state.js';
import { $, h, uuid } from './dom.js';
import { showError } from './errors.js';

/** Attachments of the completions taken into the current message, until it is sent. */
let attachments = [];
/** The model picked for the next messages (`undefined`: the session's). */
let chosenModel;

function send(text) {
  const chat = app.current?.chat;
  if (!chat?.sub) return false;
  // An attachment whose inserted text was edited away is dropped.
  const kept = attachments.filter((a) => text.includes(a.insertText)).map((a) => a.attachment);
  const message = { text, origin: { kind: 'user' } };
  if (kept.length) message.attachments = kept;
  if (chosenModel) message.model = { id: chosenModel };
  const state = chat.sub.state;
  try {
    if (state?.activeTurn) {
      // A turn is running: queue the message; the host starts it when the turn ends.
      chat.sub.dispatch({ type: 'chat/pendingMessageSet', kind: 'queued', id: uuid(), message });
    } else {
      chat.sub.dispatch({ type: 'chat/turnStarted', turnId: uuid(), startedAt: new Date().toISOString(), message });
    }
    attachments = [];
    return true;
  } catch (e) {
    showError('Send', e);
    return false;
  }
}

// --- completions ------------------------------------------------------------------------------

const completion = { items: [], selected: 0, generation: 0, timer: 0 };

/** The word before the caret, when it starts with a trigger character the host declared. */
function triggerWord(box) {
  const triggers = app.client?.serverInfo?.completionTriggerCharacters ?? [];
  const before = box.value.slice(0, box.selectionStart);
  const word = /\S*$/.exec(before)[0];
  return word && triggers.includes(word[0]) ? word : null;
}

export function closeCompletions() {
  completion.items = [];
  completion.generation += 1;
  const list = $('completions');
  list.hidden = true;
  list.replaceChildren();
}

function showCompletions(items) {
  completion.items = items;
  completion.selected = 0;
  const list = $('completions');
  list.replaceChildren(
    ...items.map((item, i) =>
      h(
        'li',
        {
          role: 'option',
          class: i === 0 ? 'selected' : null,
          dataset: { testid: 'completion' },
          onmousedown: (ev) => {
            ev.preventDefault();
            takeCompletion(i);
          },
        },
        String(item.insertText),
      ),
    ),
  );
  list.hidden = items.length === 0;
}

function moveSelection(step) {
  const n = completion.items.length;
  completion.selected = (completion.selected + step + n) % n;
  [...$('completions').children].forEach((li, i) => li.classList.toggle('selected', i === completion.selected));
}

function takeCompletion(i) {
  const item = completion.items[i];
  const box = $('message');
  if (!item) return;
  const text = box.value;
  box.value = text.slice(0, item.rangeStart) + item.insertText + text.slice(item.rangeEnd);
  const caret = item.rangeStart + item.insertText.length;
  box.setSelectionRange(caret, caret);
  if (item.attachment) attachments.push({ insertText: item.insertText, attachment: item.attachment });
  closeCompletions();
  box.focus();
}

/** Asks the host for completions of the word before the caret (debounced; stale answers dropped). */
function requestCompletions() {
  clearTimeout(completion.timer);
  const box = $('message');
  const cur = app.current;
  const chat = cur?.chat;
  if (!chat?.sub || !triggerWord(box)) return closeCompletions();
  completion.timer = setTimeout(async () => {
    const generation = ++completion.generation;
    try {
      // AHP 1.0 completes in a chat.
      const { items } = await app.client.completions({
        channel: chat.uri,
        kind: 'userMessage',
        text: box.value,
        offset: box.selectionStart,
      });
      if (generation === completion.generation && app.current === cur && cur.chat === chat) showCompletions(items.slice(0, 20));
    } catch (e) {
      if (generation === completion.generation) closeCompletions();
      showError('Completions', e);
    }
  }, 120);
}

// --- session config ---------------------------------------------------------------------------

let shownConfig = null;

/**
 * The session's config as pickers: one select per property with allowed values. `model` is
 * the model of the messages sent next (AHP 1.0 chooses it per message); other properties that
 * may change during a session are changed with `session/configChanged`; the others are shown,
 * disabled.
 */
export function renderSessionConfig(state, dispatch) {
  const config = state?.config ?? null;
  if (config === shownConfig) return;
  shownConfig = config;
  const box = $('session-config');
  const properties = Object.entries(config?.schema?.properties ?? {}).filter(([, p]) => Array.isArray(p.enum));
  box.hidden = properties.length === 0;
  box.replaceChildren(
    ...properties.map(([key, property]) => {
      const current = (key === 'model' ? chosenModel : undefined) ?? config.values?.[key] ?? property.default;
      const changeable = key === 'model' || property.sessionMutable !== false;
      const select = h(
        'select',
        {
          dataset: { testid: `config-${key}` },
          'aria-label': String(property.title ?? key),
          disabled: !changeable,
          onchange: (ev) => {
            const value = ev.target.value;
            if (key === 'model') chosenModel = value;
            else dispatch({ type: 'session/configChanged', config: { [key]: value } });
          },
        },
        ...property.enum.map((value, i) =>
          h('option', { value, selected: value === current }, String(property.enumLabels?.[i] ?? value)),
        ),
      );
      return h('label', { title: String(property.description ?? '') }, `${String(property.title ?? key)} `, select);
    }),
  );
}

/** Forgets what was shown (the session closed). */
export function clearSessionConfig() {
  shownConfig = null;
  $('session-config').hidden = true;
  $('session-config').replaceChildren();
  attachments = [];
  chosenModel = undefined;
  closeCompletions();
}

// --- wiring -----------------------------------------------------------------------------------

/** Wires the composer's form and message box. */
export function initComposer() {
  $('composer').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const box = $('message');
    const text = box.value;
    if (!text.trim()) return;
    closeCompletions();
    if (send(text)) box.value = '';
  });

  $('message').addEventListener('input', requestCompletions);
  $('message').addEventListener('blur', () => setTimeout(closeCompletions, 150));
  $('message').addEventListener('keydown', (ev) => {
    if (completion.items.length && !ev.isComposing) {
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        ev.preventDefault();
        return moveSelection(ev.key === 'ArrowDown' ? 1 : -1);
      }
      if (ev.key === 'Enter' || ev.key === 'Tab') {
        ev.preventDefault();
        return takeCompletion(completion.selected);
      }
      if (ev.key === 'Escape') return closeCompletions();
    }
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      $('composer').requestSubmit();
    }
  });
}
