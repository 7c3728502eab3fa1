// The default entry's named values (`ahp-wasm`, AHP 1.0: pkg/protocol.js, generated as
// js/v1/protocol.js from the 1.0 definition) against the official 1.0.0 action list, and their
// declarations in pkg/generated.d.ts (re-exported by pkg/index.d.ts). The 0.3.0 entry
// (`ahp-wasm/v0.3`) keeps 0.3.0's.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as v1 from 'ahp-wasm';
import * as v03 from 'ahp-wasm/v0.3';

const root = new URL('../../', import.meta.url);
const officialActionTypes = readFileSync(new URL('protocol/ahp-1.0.0/action-types-1.0.0.txt', root), 'utf8')
  .split('\n')
  .filter(Boolean);

test('ActionType of the 1.0 entry is exactly the 106 action types of 1.0.0', () => {
  assert.equal(officialActionTypes.length, 106);
  assert.deepEqual(Object.values(v1.ActionType).sort(), [...officialActionTypes].sort());
  assert.ok(Object.isFrozen(v1.ActionType));
  assert.equal(v1.ActionType.ChatTurnStarted, 'chat/turnStarted');
  assert.equal(v1.ActionType.SessionChatAdded, 'session/chatAdded');
  assert.equal(v1.ActionType.AutomationRunCancelRequested, 'automationRun/cancelRequested');
  // 0.3.0's turn actions moved to chats in 1.0.
  assert.equal(v1.ActionType.SessionTurnStarted, undefined);
  assert.equal(v1.ActionType.SessionDelta, undefined);
  // The 0.3.0 entry's are 0.3.0's.
  assert.equal(v03.ActionType.SessionTurnStarted, 'session/turnStarted');
  assert.equal(v03.ActionType.ChatTurnStarted, undefined);
});

test("the 1.0 entry's error codes, SessionStatus bits and string enums are 1.0's", () => {
  assert.equal(v1.AhpErrorCodes.Conflict, -32011);
  assert.equal(v1.AhpErrorCodes.SessionNotFound, -32001);
  assert.equal(v1.AhpErrorCodes.ContentNotFound, undefined, '0.3.0 only');
  assert.equal(v03.AhpErrorCodes.ContentNotFound, -32006);
  assert.equal(v1.JsonRpcErrorCodes.InvalidParams, -32602);
  assert.equal(v1.SessionStatus.InputNeeded, 24);
  assert.equal(v1.SessionStatus.IsArchived, 64);
  assert.deepEqual({ ...v1.ChatInteractivity }, { Full: 'full', ReadOnly: 'read-only', Hidden: 'hidden' });
  assert.equal(v1.ChatOriginKind.SideChat, 'sideChat');
  assert.equal(v1.ToolCallStatus.PendingConfirmation, 'pending-confirmation');
  for (const [name, group] of Object.entries(v1)) {
    if (group && typeof group === 'object' && !Array.isArray(group)) assert.ok(Object.isFrozen(group), name);
  }
  // Each entry's isClientDispatchable is its version's (below).
  assert.equal(typeof v1.isClientDispatchable, 'function');
  assert.notEqual(v1.isClientDispatchable, v03.isClientDispatchable);
});

test('the 1.0 named values drive the 1.0 reducers', () => {
  const chat = {
    resource: 'ahp-chat:/c1',
    title: 'Chat',
    status: v1.SessionStatus.Idle,
    modifiedAt: '1970-01-01T00:00:01.000Z',
    turns: [],
  };
  const started = v1.chatReducer(chat, {
    type: v1.ActionType.ChatTurnStarted,
    turnId: 'turn-1',
    startedAt: '1970-01-01T00:00:02.000Z',
    message: { text: 'Hello', origin: { kind: 'user' } },
  });
  assert.equal(started.activeTurn.id, 'turn-1');
  assert.equal(started.activeTurn.message.text, 'Hello');
});

test('pkg/generated.d.ts declares each named value the default entry exports, with its members', () => {
  const dts = readFileSync(new URL('pkg/generated.d.ts', root), 'utf8');
  assert.match(readFileSync(new URL('pkg/index.d.ts', root), 'utf8'), /^export \* from '\.\/generated\.js';$/m);
  const runtime = readFileSync(new URL('pkg/protocol.js', root), 'utf8');
  const groups = Object.entries(v1).filter(([, value]) => value && typeof value === 'object' && Object.isFrozen(value) && !Array.isArray(value));
  assert.ok(groups.length > 30, `${groups.length} groups`);
  for (const [name, group] of groups) {
    const block = new RegExp(`export declare const ${name}: \\{\\n([\\s\\S]*?)\\n\\};`).exec(dts);
    assert.ok(block, `${name} is declared`);
    for (const [member, value] of Object.entries(group)) {
      assert.ok(block[1].includes(`readonly ${member}: ${typeof value === 'string' ? `'${value}'` : value};`), `${name}.${member}`);
    }
  }
  // The 0.3.0 module's values are not what the 1.0 entry ships.
  assert.ok(!runtime.includes('session/turnStarted'));
});

test('isClientDispatchable of the default entry: the 1.0 list, declared as the same union', () => {
  const listed = JSON.parse(readFileSync(new URL('protocol/ahp-1.0.0-overlay.json', root), 'utf8')).clientDispatchable;
  const dispatchable = officialActionTypes.filter((type) => v1.isClientDispatchable(type));
  assert.deepEqual(dispatchable.sort(), [...listed].sort());
  // Actions as well as their types; anything else is not dispatchable.
  assert.equal(v1.isClientDispatchable({ type: 'chat/turnCancelled', turnId: 't', duration: 1 }), true);
  assert.equal(v1.isClientDispatchable({ type: 'chat/turnComplete', turnId: 't', duration: 1 }), false);
  for (const other of ['session/turnStarted', 'session/delta', '', 'x', null, undefined, 42, {}]) {
    assert.equal(v1.isClientDispatchable(other), false, String(other));
  }
  // The server's side of a turn and the catalogue changes are the host's.
  for (const type of ['chat/delta', 'chat/responsePart', 'chat/toolCallStart', 'session/chatAdded', 'root/agentsChanged', 'automation/set', 'canvas/stateChanged']) {
    assert.equal(v1.isClientDispatchable(type), false, type);
  }
  // 0.3.0's list stays the 0.3.0 entry's.
  assert.equal(v03.isClientDispatchable('session/turnStarted'), true);
  assert.equal(v03.isClientDispatchable('chat/turnStarted'), false);
  const dts = readFileSync(new URL('pkg/generated.d.ts', root), 'utf8');
  const union = /export type ClientDispatchableActionType =\n([\s\S]*?)\n  ;/.exec(dts);
  assert.ok(union, 'ClientDispatchableActionType is declared');
  assert.deepEqual(union[1].split('\n').map((line) => line.trim().replace(/^\| '(.*)'$/, '$1')).sort(), [...listed].sort());
  assert.match(dts, /export declare function isClientDispatchable\(action: StateAction \| string\): boolean;/);
});
