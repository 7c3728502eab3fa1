// A tiny, safe Markdown subset -> DOM: paragraphs (single newlines are line breaks), fenced code
// blocks, block quotes, lists, headings; inline `code`, **bold**, *em* / _em_. Nothing else is
// interpreted; links and HTML stay literal text (DOM nodes and text only, never HTML strings).

import { h, syncChildren } from './dom.js';

/** Splits Markdown into blocks: [{ type, lines }]; an unclosed fence is a code block (streaming). */
function markdownBlocks(text) {
  const blocks = [];
  let current = null;
  const close = () => { if (current) blocks.push(current); current = null; };
  for (const line of text.split('\n')) {
    if (current?.type === 'code') {
      if (/^\s*```/.test(line)) close();
      else current.lines.push(line);
      continue;
    }
    if (/^\s*```/.test(line)) { close(); current = { type: 'code', lines: [], fence: line.trim().slice(3) }; continue; }
    if (line.trim() === '') { close(); continue; }
    const type = /^\s*>/.test(line) ? 'quote'
      : /^\s*([-*+]|\d+\.)\s+/.test(line) ? 'list'
      : /^#{1,6}\s/.test(line) ? 'heading'
      : 'para';
    if (type === 'heading') { close(); blocks.push({ type, lines: [line] }); continue; }
    if (current && current.type !== type) close();
    if (!current) current = { type, lines: [] };
    current.lines.push(line);
  }
  close();
  return blocks.map((b) => ({ ...b, key: `${b.type}\u0000${b.fence ?? ''}\u0000${b.lines.join('\n')}` }));
}

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|(?<![\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_]*?\S)_(?!\w)/g;

/** Inline Markdown -> an array of nodes (text nodes, <code>, <strong>, <em>). */
function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    if (m[2] !== undefined) out.push(h('code', null, m[2]));
    else if (m[3] !== undefined) out.push(h('strong', null, ...inline(m[3])));
    else out.push(h('em', null, ...inline(m[4] ?? m[5])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

/** Lines -> nodes with <br> between them. */
function inlineLines(lines) {
  const out = [];
  lines.forEach((line, i) => {
    if (i > 0) out.push(h('br'));
    out.push(...inline(line));
  });
  return out;
}

function renderBlock(block) {
  switch (block.type) {
    case 'code': return h('pre', null, h('code', null, block.lines.join('\n')));
    case 'quote': return h('blockquote', null, h('p', null, ...inlineLines(block.lines.map((l) => l.replace(/^\s*>\s?/, '')))));
    case 'heading': {
      const level = Math.min(6, block.lines[0].match(/^#+/)[0].length + 2);
      return h(`h${level}`, null, ...inline(block.lines[0].replace(/^#+\s*/, '')));
    }
    case 'list': {
      const ordered = /^\s*\d+\./.test(block.lines[0]);
      return h(ordered ? 'ol' : 'ul', null,
        ...block.lines.map((l) => h('li', null, ...inline(l.replace(/^\s*([-*+]|\d+\.)\s+/, '')))));
    }
    default: return h('p', null, ...inlineLines(block.lines));
  }
}

/** A Markdown view that re-renders only the blocks whose source changed (streaming appends). */
export class MarkdownView {
  constructor(testid) {
    this.el = h('div', { class: 'md', dataset: { testid } });
    this.text = null;
    this.blocks = []; // [{ key, el }]
  }

  update(text) {
    if (text === this.text) return;
    this.text = text;
    const next = markdownBlocks(text).map((b, i) => {
      const old = this.blocks[i];
      return old && old.key === b.key ? old : { key: b.key, el: renderBlock(b) };
    });
    this.blocks = next;
    syncChildren(this.el, next.map((b) => b.el));
  }
}

/** A StringOrMarkdown value: plain strings as text, `{ markdown }` through the safe subset. */
export function stringOrMarkdown(value, testid) {
  if (value == null) return null;
  if (typeof value === 'string') return h('span', { dataset: { testid } }, value);
  const view = new MarkdownView(testid);
  view.update(String(value.markdown ?? ''));
  return view.el;
}
