// The AHP 1.0 reducers of the package's 1.0 entry (the wasm build with cargo feature `v1`),
// under the official 1.0 TypeScript names. Same contract as the 0.3.0 entry's: the input is
// never mutated; an action that does not apply returns `state` itself; otherwise a new, deeply
// frozen state. No 1.0 reducer reads a clock. A value of the wrong shape throws
// `InvalidInputError` (with the `argument` and the `path` of the offending value).

import type {
  AnnotationsState,
  AutomationRunState,
  AutomationState,
  CanvasState,
  ChangesetState,
  ChatState,
  ResourceWatchState,
  RootState,
  SessionState,
  StateAction,
  TerminalState,
} from './types.js';

export type * from './types.js';

/** The actions of one channel: those of `StateAction` whose `type` starts with `prefix`. */
type ActionsOf<Prefix extends string> = Extract<StateAction, { type: `${Prefix}/${string}` }>;

/** The actions of the root channel (`ahp-root://`). */
export type RootAction = ActionsOf<'root'>;
/** The actions of a session's channel (`ahp-session:/<id>`). */
export type SessionAction = ActionsOf<'session'>;
/** The actions of a chat's channel (`ahp-chat:/<id>`). */
export type ChatAction = ActionsOf<'chat'>;
/** The actions of a terminal's channel (`ahp-terminal:/<id>`). */
export type TerminalAction = ActionsOf<'terminal'>;
/** The actions of a changeset's channel (`ahp-changeset:/<id>`). */
export type ChangesetAction = ActionsOf<'changeset'>;
/** The actions of a resource watch's channel (`ahp-resource-watch:/<id>`). */
export type ResourceWatchAction = ActionsOf<'resourceWatch'>;
/** The actions of a session's annotations channel (`ahp-session:/<id>/annotations`). */
export type AnnotationsAction = ActionsOf<'annotations'>;
/** The actions of a canvas's channel (`ahp-canvas:/<id>`). */
export type CanvasAction = ActionsOf<'canvas'>;
/** The actions of the automation catalogue (`ahp-automations://`). */
export type AutomationAction = ActionsOf<'automation'>;
/** The actions of an automation run's channel (`ahp-automation-run:/<id>`). */
export type AutomationRunAction = ActionsOf<'automationRun'>;

/** Applies `action` to the root state. */
export function rootReducer(state: RootState, action: RootAction): RootState;
/** Applies `action` to a session's state. */
export function sessionReducer(state: SessionState, action: SessionAction): SessionState;
/** Applies `action` to a chat's state. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState;
/** Applies `action` to a terminal's state. */
export function terminalReducer(state: TerminalState, action: TerminalAction): TerminalState;
/** Applies `action` to a changeset's state. */
export function changesetReducer(state: ChangesetState, action: ChangesetAction): ChangesetState;
/** Applies `action` to a resource watch's state. */
export function resourceWatchReducer(
  state: ResourceWatchState,
  action: ResourceWatchAction,
): ResourceWatchState;
/** Applies `action` to a session's annotations. */
export function annotationsReducer(state: AnnotationsState, action: AnnotationsAction): AnnotationsState;
/** Applies `action` to a canvas's state. */
export function canvasReducer(state: CanvasState, action: CanvasAction): CanvasState;
/** Applies `action` to the automation catalogue. */
export function automationReducer(state: AutomationState, action: AutomationAction): AutomationState;
/** Applies `action` to an automation run's state. */
export function automationRunReducer(
  state: AutomationRunState,
  action: AutomationRunAction,
): AutomationRunState;
