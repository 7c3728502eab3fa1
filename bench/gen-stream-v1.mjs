// Standard workload for reducer / mirror benchmarks, AHP 1.0 (a chat channel): the stream of
// gen-stream.mjs (0.3.0, a session channel) in 1.0's shapes.
// Usage: node gen-stream-v1.mjs [OUT_DIR]   (default: ./workload-v1)
// Writes, for N in {50, 500} completed turns:
//   OUT_DIR/initial-N.json     ChatState (1.0 shape), active turn "turn-(N+1)" with markdown part "p1"
//   OUT_DIR/actions-N.json     JSON array of the 20,600 StateAction objects (pre-parsed path)
//   OUT_DIR/envelopes-N.jsonl  one ActionEnvelope JSON text per line (wire path), channel CHAT_URI
// The stream: 20,000 slots; every 100th slot is a 4-action tool-call lifecycle (chat/toolCallStart,
// chat/toolCallDelta, chat/toolCallReady with confirmed 'not-needed', chat/toolCallComplete), every
// other slot a 5-byte chat/delta to part p1.
// Final state after the stream: p1 holds 99,000 chars; the active turn holds 200 completed tool calls.
// 1.0 differs from 0.3.0 where the workload touches it: the chat is its own channel (its state is
// the chat: resource, title, status, modifiedAt, turns, activeTurn; no session summary or
// lifecycle) and times are ISO 8601 strings (turns' startedAt, the chat's modifiedAt).
// Deterministic: the same files every run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const OUT = resolve(process.argv[2] ?? 'workload-v1');
const CHAT_URI = 'ahp-chat:/bench-session/main';
const SLOTS = 20000;          // stream slots
const TOOL_EVERY = 100;       // every 100th slot is a 4-action tool-call lifecycle
const MD_LEN = 2000;

function mdContent(i) {
  // 2,000 chars, deterministic, varies per turn
  const unit = `Turn ${i} lorem ipsum dolor sit amet. `;
  return unit.repeat(Math.ceil(MD_LEN / unit.length)).slice(0, MD_LEN);
}

function completedToolCall(id) {
  return {
    kind: 'toolCall',
    toolCall: {
      status: 'completed',
      toolCallId: id,
      toolName: 'bash',
      displayName: 'Run Command',
      invocationMessage: 'Run: ls -la',
      toolInput: 'ls -la',
      confirmed: 'not-needed',
      success: true,
      pastTenseMessage: 'Ran command',
    },
  };
}

function initialState(nTurns) {
  const turns = [];
  for (let i = 1; i <= nTurns; i++) {
    turns.push({
      id: `turn-${i}`,
      startedAt: '2026-10-02T09:00:00.000Z',
      duration: 1000,
      message: { text: `Question ${i}`, origin: { kind: 'user' } },
      responseParts: [
        { kind: 'markdown', id: `md-${i}`, content: mdContent(i) },
        completedToolCall(`tc-${i}-1`),
        completedToolCall(`tc-${i}-2`),
      ],
      state: 'complete',
    });
  }
  return {
    resource: CHAT_URI,
    title: 'Bench Chat',
    status: 8,
    modifiedAt: '2026-10-02T09:00:00.000Z',
    turns,
    activeTurn: {
      id: `turn-${nTurns + 1}`,
      startedAt: '2026-10-02T10:00:00.000Z',
      message: { text: `Question ${nTurns + 1}`, origin: { kind: 'user' } },
      responseParts: [{ kind: 'markdown', id: 'p1', content: '' }],
    },
  };
}

function actions(turnId) {
  const out = [];
  let k = 0;
  for (let i = 1; i <= SLOTS; i++) {
    if (i % TOOL_EVERY === 0) {
      k++;
      const toolCallId = `tc-live-${k}`;
      out.push({ type: 'chat/toolCallStart', turnId, toolCallId, toolName: 'bash', displayName: 'Run Command' });
      out.push({ type: 'chat/toolCallDelta', turnId, toolCallId, content: 'ls -la' });
      out.push({ type: 'chat/toolCallReady', turnId, toolCallId, invocationMessage: 'Run: ls -la', toolInput: 'ls -la', confirmed: 'not-needed' });
      out.push({ type: 'chat/toolCallComplete', turnId, toolCallId, result: { success: true, pastTenseMessage: 'Ran command' } });
    } else {
      out.push({ type: 'chat/delta', turnId, partId: 'p1', content: 'word ' });
    }
  }
  return out;
}

mkdirSync(OUT, { recursive: true });
for (const n of [50, 500]) {
  const init = initialState(n);
  const acts = actions(init.activeTurn.id);
  const env = acts.map((action, i) => JSON.stringify({ channel: CHAT_URI, action, serverSeq: i + 1 }));
  writeFileSync(join(OUT, `initial-${n}.json`), JSON.stringify(init));
  writeFileSync(join(OUT, `actions-${n}.json`), JSON.stringify(acts));
  writeFileSync(join(OUT, `envelopes-${n}.jsonl`), env.join('\n') + '\n');
  console.log(`N=${n}: ${acts.length} actions, initial state ${JSON.stringify(init).length} bytes`);
}
