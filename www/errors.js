// Errors shown on the page (the list under the session header), also logged to the console.

import { $, h } from './dom.js';

function describeError(error) {
  if (error && typeof error === 'object') {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    const code = typeof error.code === 'number' ? ` (code ${error.code})` : '';
    return `${name}${error.message ?? String(error)}${code}`;
  }
  return String(error);
}

export function showError(context, error) {
  const text = `${context}: ${describeError(error)}`;
  console.error(text, error);
  const list = $('errors');
  const item = h('li', { dataset: { testid: 'error' } },
    h('span', null, text),
    h('button', { type: 'button', 'aria-label': 'Dismiss error', onclick: () => item.remove() }, '×'));
  list.append(item);
  while (list.children.length > 20) list.firstElementChild.remove();
}
