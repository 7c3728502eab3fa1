// The SDK's `TerminalHandle` (js/terminal.js) against the real `ahp-host`, with a real bash on
// a real pty: typing and the echo, resizing, claims (a non-claimant is refused), bad input,
// shell-integration commands with their exit codes, and the shell's exit.
// Run: node --experimental-websocket --test tests/node/terminal.test.mjs   (after
// scripts/build-pkg.sh and `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, AhpError, InvalidInputError, TerminalHandle } from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

/** Resolves once `check()` holds, checking on every change of `term`. */
function until(term, what, check, ms = 15_000) {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}; terminal text: ${JSON.stringify(term.text)}`));
    }, ms);
    const off = term.subscription.onChange(() => {
      if (check()) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

test('a terminal: type, see the echo, resize, claims, commands, exit', async (t) => {
  const host = await startHost(t);
  const alice = await AhpClient.connect(host.wsUrl, { token: host.token, clientId: 'alice' });
  const bob = await AhpClient.connect(host.wsUrl, { token: host.token, clientId: 'bob' });
  t.after(() => {
    alice.close();
    bob.close();
  });

  const term = await alice.openTerminal({ cols: 80, rows: 24, name: 'sdk test' });
  assert.ok(term instanceof TerminalHandle);
  assert.match(term.uri, /^ahp-terminal:\//);
  assert.equal(term.title, 'sdk test');
  assert.ok(term.isClaimant);
  let output = term.text;
  let resets = 0;
  term.onData((data, { reset }) => {
    resets += reset ? 1 : 0;
    output = reset ? data : output + data;
  });
  const events = [];
  term.onCommand((e) => events.push(e));

  await until(term, 'command detection', () => term.commandDetection);
  term.write('echo hi-$((40+2))\r');
  await until(term, 'the echo', () => output.includes('hi-42'));
  // What onData handed out is what the state keeps, as appends (no reset without a clear).
  assert.equal(output, term.text);
  assert.equal(resets, 0);
  await until(term, 'the command', () => events.some((e) => e.type === 'finished'));
  assert.deepEqual(
    events.map((e) => [e.type, e.command.commandLine]),
    [
      ['executed', 'echo hi-$((40+2))'],
      ['finished', 'echo hi-$((40+2))'],
    ],
  );
  assert.equal(events[1].command.exitCode, 0);
  assert.ok(events[1].command.output.includes('hi-42'));

  // Resize: applied to the state and the pty.
  await term.resize(100, 30);
  assert.equal(term.cols, 100);
  assert.equal(term.rows, 30);
  term.write('stty size\r');
  await until(term, 'the new size', () => output.includes('30 100'));

  // Bad input: refused before anything is sent.
  assert.throws(() => term.resize(0, 24), InvalidInputError);
  assert.throws(() => term.resize(80, 1e9), InvalidInputError);
  assert.throws(() => term.resize(80.5, 24), InvalidInputError);
  assert.throws(() => term.write('x'.repeat(2 * 1024 * 1024)), InvalidInputError);
  assert.throws(() => term.write(42), InvalidInputError);
  await assert.rejects(alice.openTerminal({ cols: 0 }), InvalidInputError);
  // Long input is split into inputs the host takes (each at most 64 KiB).
  const big = 'y'.repeat(100_000);
  assert.equal(term.write(`cat > /dev/null\r${big}\r\x04`).length, 7);
  term.write('echo after-big\r');
  await until(term, 'the shell after a big write', () => output.includes('after-big'));
  // A clear starts the output over (`reset`).
  const cleared = new Promise((resolve) => term.onData((data, { reset }) => reset && resolve(data)));
  term.subscription.dispatch({ type: 'terminal/cleared' });
  assert.equal(await cleared, '');
  assert.equal(output, '');
  assert.equal(resets, 1);

  // Bob is not the claimant: his claim and his input are refused, the terminal goes on.
  const theirs = await bob.terminal(term.uri);
  assert.equal(theirs.isClaimant, false);
  const rejected = new Promise((resolve) => bob.onEvent((e) => e.type === 'rejected' && resolve(e)));
  theirs.write('echo from-bob\r');
  assert.match((await rejected).rejection.reason, /holding the terminal/);
  await assert.rejects(theirs.claim(), (e) => e instanceof AhpError && e.kind === 'rejected' && /holding/.test(e.message));
  assert.equal(term.holder.clientId, 'alice');
  // Alice hands it to Bob, who may then type.
  await term.claim({ kind: 'client', clientId: 'bob' });
  await until(theirs, 'the claim', () => theirs.isClaimant);
  theirs.write('(exit 7)\r');
  await until(term, 'the failed command', () => events.at(-1)?.command.commandLine === '(exit 7)' && events.at(-1).type === 'finished');
  assert.equal(events.at(-1).command.commandLine, '(exit 7)');
  assert.equal(events.at(-1).command.exitCode, 7);
  assert.ok(!output.includes('from-bob'));

  // The exit. Bob holds the terminal: he disposes of it, Alice no longer may.
  theirs.write('exit 3\r');
  assert.equal(await term.exited, 3);
  assert.equal(term.exitCode, 3);
  await assert.rejects(term.dispose(), (e) => e instanceof AhpError && e.code === -32009);
  await theirs.dispose();
  term.close();
  await assert.rejects(alice.terminal(term.uri), AhpError);
  assert.throws(() => term.write('x'), AhpError);
});
