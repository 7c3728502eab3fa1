// A TypeScript consumer of the AHP 1.0 reducers' declarations (js/v1/reducers.d.ts, over the
// generated js/v1/types.d.ts). Every `@ts-expect-error` must be a real error: if a declaration
// degraded to `any` or `unknown`, or lost the channel's action union, tsc would report the
// directive as unused and this check fails.
import {
  annotationsReducer,
  automationReducer,
  automationRunReducer,
  canvasReducer,
  changesetReducer,
  chatReducer,
  resourceWatchReducer,
  rootReducer,
  sessionReducer,
  terminalReducer,
  type ChatAction,
  type ChatState,
  type RootState,
  type SessionState,
  type StateAction,
  type ToolCallState,
} from '../../js/v1/reducers.js';

declare const chat: ChatState;
const delta: ChatAction = { type: 'chat/delta', turnId: 't1', partId: 'p1', content: 'x' };
const next: ChatState = chatReducer(chat, delta);
const root: RootState = rootReducer({ agents: [] }, { type: 'root/activeSessionsChanged', activeSessions: 2 });

// @ts-expect-error: a session action is not a chat action
chatReducer(chat, { type: 'session/titleChanged', title: 't' });
// @ts-expect-error: a state of the wrong shape
rootReducer({ agents: 3 }, { type: 'root/activeSessionsChanged', activeSessions: 2 });
// @ts-expect-error: one reducer's state is not another's
const wrong: ChatState = rootReducer(root, { type: 'root/activeSessionsChanged', activeSessions: 1 });
// @ts-expect-error: an unknown action type
const unknownAction: StateAction = { type: 'chat/fromTheFuture' };

// Tagged unions narrow by their tag.
declare const toolCall: ToolCallState;
if (toolCall.status === 'running') {
  const id: string = toolCall.toolCallId;
  void id;
}
declare const session: SessionState;
const title: string = session.title;

void [next, wrong, unknownAction, title];
void [annotationsReducer, automationReducer, automationRunReducer, canvasReducer];
void [changesetReducer, resourceWatchReducer, sessionReducer, terminalReducer];
