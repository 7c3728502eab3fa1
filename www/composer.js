// The composer: the message box and Send. A message starts a turn, or is queued when a turn is
// running (the host starts it when the turn ends). Enter sends, Shift+Enter adds a line.

import { app } from './state.js';
import { $, uuid } from './dom.js';
import { showError } from './errors.js';

function send(text) {
  const cur = app.current;
  if (!cur?.sub) return false;
  const message = { text, origin: { kind: 'user' } };
  const state = cur.sub.state;
  try {
    if (state?.activeTurn) {
      // A turn is running: queue the message; the host starts it when the turn ends.
      cur.sub.dispatch({ type: 'session/pendingMessageSet', kind: 'queued', id: uuid(), message });
    } else {
      cur.sub.dispatch({ type: 'session/turnStarted', turnId: uuid(), message });
    }
    return true;
  } catch (e) {
    showError('Send', e);
    return false;
  }
}

/** Wires the composer's form and message box. */
export function initComposer() {
  $('composer').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const box = $('message');
    const text = box.value;
    if (!text.trim()) return;
    if (send(text)) box.value = '';
  });

  $('message').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      $('composer').requestSubmit();
    }
  });
}
