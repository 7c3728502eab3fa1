// Small helpers of the page: building DOM nodes, keeping a parent's children in order, keyed
// views, ids.

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** Creates an element: h('div', { class: 'x', dataset: { testid: 'y' } }, 'text', child). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...children.filter((c) => c != null && c !== false));
  return el;
}

/** A random UUID; `crypto.randomUUID` exists only in secure contexts (a LAN address over http is not one). */
export function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Makes `parent`'s children exactly `nodes`, in order, touching only what differs. */
export function syncChildren(parent, nodes) {
  let i = 0;
  for (const node of nodes) {
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at ?? null);
    i += 1;
  }
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

/**
 * Keeps one view (an object with `el`) per key under `parent`: `render(item, view)` returns the
 * view of `item` (given its previous one, `undefined` the first time), views whose key is gone
 * are dropped from `views` (a Map), and `parent`'s children become the views' elements in order.
 */
export function syncKeyed(parent, views, items, keyOf, render) {
  const seen = new Set();
  const nodes = items.map((item) => {
    const key = keyOf(item);
    seen.add(key);
    const view = render(item, views.get(key));
    views.set(key, view);
    return view.el;
  });
  for (const key of views.keys()) if (!seen.has(key)) views.delete(key);
  syncChildren(parent, nodes);
}
