// The porting example of pkg/README.md, verbatim after these three lines (tests/node/readme.test.mjs
// checks they match); type-checked with the consumer (tsc --strict).
declare const client: import('ahp-wasm/v0.3').AhpClient, sub: import('ahp-wasm/v0.3').Subscription<import('ahp-wasm/v0.3').SessionState>, uri: string, render: (...values: unknown[]) => void, reuse: (uri: string) => void;
import { ActionType, SessionStatus, AhpErrorCodes, isClientDispatchable, RpcError } from 'ahp-wasm/v0.3';

const waiting = (status: SessionStatus) => (status & SessionStatus.InputNeeded) !== 0;
sub.onChange((state) => render(state.turns, waiting(state.summary.status)));
const seq = sub.dispatch({ type: ActionType.SessionTitleChanged, title: 'Renamed' });
try {
  await client.createSession({ channel: uri });
} catch (e) {
  if (e instanceof RpcError && e.code === AhpErrorCodes.SessionAlreadyExists) reuse(uri);
  else throw e;
}
