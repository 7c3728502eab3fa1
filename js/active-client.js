// The active client role of a session (AHP 0.3.0 guide/customizations.md): claiming it with
// tools, client-published plugins and the systemMessageTransform opt-in, running the app's tool
// handlers for the calls this client owns, answering the host's `resourceRead`/`resourceList`
// for the published plugins' `virtual://` files, and the `systemMessageTransform` request.
//
// Everything goes through the public client API (dispatch, subscriptions, setRequestHandler,
// events): tool calls are state, so the owned calls are found in the session mirror as it
// changes, and the results are actions. Hand-written; scripts/build-pkg.sh copies it into pkg/.
import { AhpError, InvalidInputError } from './error-classes.js';
import { schemaErrors } from './schema-check.js';

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const sessions = new WeakMap(); // AhpClient -> Map<session uri, ActiveClientHandle>
const transforms = new WeakMap(); // AhpClient -> handler
const installed = new WeakSet(); // clients whose request handlers are set

function invalid(message, argument, path = '') {
  return new InvalidInputError(message, argument, path);
}

/** A tool's `ToolDefinition` (what the host and every subscriber see). */
function definition(tool, index) {
  const path = `tools[${index}]`;
  if (!tool || typeof tool !== 'object') throw invalid('a tool must be an object', 'options', path);
  if (typeof tool.name !== 'string' || !NAME.test(tool.name)) {
    throw invalid(`${path}.name must be 1-128 characters of letters, digits, _ . : -`, 'options', `${path}.name`);
  }
  if (typeof tool.execute !== 'function') throw invalid(`${path}.execute must be a function`, 'options', `${path}.execute`);
  if (tool.inputSchema !== undefined && (tool.inputSchema === null || typeof tool.inputSchema !== 'object')) {
    throw invalid(`${path}.inputSchema must be a JSON Schema object`, 'options', `${path}.inputSchema`);
  }
  const def = { name: tool.name, inputSchema: tool.inputSchema ?? { type: 'object' } };
  if (tool.title !== undefined) def.title = String(tool.title);
  if (tool.description !== undefined) def.description = String(tool.description);
  if (tool.annotations !== undefined) def.annotations = tool.annotations;
  return def;
}

function toolMap(tools) {
  if (tools === undefined) return new Map();
  if (!Array.isArray(tools)) throw invalid('`tools` must be an array', 'options', 'tools');
  const map = new Map();
  tools.forEach((tool, i) => {
    const def = definition(tool, i);
    if (map.has(def.name)) throw invalid(`two tools are named \`${def.name}\``, 'options', `tools[${i}].name`);
    map.set(def.name, { tool, def });
  });
  return map;
}

/** `update(...)`/result content: a string is one text block. */
function contentOf(value) {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (Array.isArray(value)) return value.map((c) => (typeof c === 'string' ? { type: 'text', text: c } : c));
  return [value];
}

/** What `execute` returned, as a successful `ToolCallResult`. */
function successResult(name, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && ('content' in value || 'structuredContent' in value || 'pastTenseMessage' in value)) {
    const result = { success: true, pastTenseMessage: value.pastTenseMessage ?? `Ran \`${name}\``, content: contentOf(value.content) };
    if (value.structuredContent !== undefined) result.structuredContent = value.structuredContent;
    return result;
  }
  return { success: true, pastTenseMessage: `Ran \`${name}\``, content: contentOf(value) };
}

function failureResult(name, message, code) {
  return { success: false, pastTenseMessage: `\`${name}\` failed`, error: { message: String(message), code } };
}

/** The owned tool calls of the active turn: `{ turnId, call }`. */
function ownedCalls(state, clientId) {
  const turn = state?.activeTurn;
  const out = [];
  for (const part of turn?.responseParts ?? []) {
    const call = part?.kind === 'toolCall' ? part.toolCall : undefined;
    if (call?.contributor?.kind === 'client' && call.contributor.clientId === clientId) out.push({ turnId: turn.id, call });
  }
  return out;
}

/**
 * The active-client role of one session, held by one `AhpClient` (see `AhpClient.setActiveClient`).
 */
export class ActiveClientHandle {
  /** @private */
  constructor(client, subscription, options) {
    this.client = client;
    this.session = subscription.uri;
    this._sub = subscription;
    this._options = options;
    this._tools = toolMap(options.tools);
    this._plugins = options.plugins ?? [];
    // Keyed by `turnId toolCallId`: tool call ids are only unique within a turn.
    this._running = new Map(); // key -> AbortController
    this._seen = new Set(); // keys of calls already handled (this turn's; cleared per turn)
    this._seenTurn = undefined;
    this._released = false;
    this._offChange = subscription.onChange((state) => this._scan(state));
    this._offEvent = client.onEvent((event) => {
      // After a reconnect the host may have cleared the role (the connection dropped): claim it
      // again, unless another client has taken it meanwhile.
      if (event.type === 'connected' && !this._released) queueMicrotask(() => this._reclaim());
    });
  }

  /** The `SessionActiveClient` this handle publishes. */
  get activeClient() {
    const o = this._options;
    const value = { clientId: this.client.clientId, tools: [...this._tools.values()].map((t) => t.def) };
    if (o.displayName !== undefined) value.displayName = String(o.displayName);
    if (this._plugins.length > 0) value.customizations = this._plugins.map((p) => p.customization);
    if (o.systemMessageTransform?.sections?.length) {
      value.systemMessageTransform = { sections: o.systemMessageTransform.sections.map(String) };
    }
    return value;
  }

  /** Whether the session's state names this client as the active one. */
  get isActive() {
    return this._sub.state?.activeClient?.clientId === this.client.clientId;
  }

  /** @private Claims the role: `session/activeClientChanged`. */
  _claim() {
    this._sub.dispatch({ type: 'session/activeClientChanged', activeClient: this.activeClient });
    this._scan(this._sub.state);
  }

  _reclaim() {
    if (this._released) return;
    const current = this._sub.state?.activeClient;
    if (current == null) this._claim();
  }

  /** Replaces the tool list (`session/activeClientToolsChanged`); running calls go on. */
  updateTools(tools) {
    this._check();
    const next = toolMap(tools);
    this._tools = next;
    this._sub.dispatch({ type: 'session/activeClientToolsChanged', tools: [...next.values()].map((t) => t.def) });
  }

  /** Replaces the published plugins (re-claims the role with the new list). */
  updatePlugins(plugins) {
    this._check();
    this._plugins = plugins ?? [];
    this._claim();
  }

  /** Gives the role up (`activeClient: null` if this client holds it) and aborts running calls. */
  release() {
    if (this._released) return;
    this._released = true;
    this._offChange();
    this._offEvent();
    for (const controller of this._running.values()) controller.abort(new AhpError('the active client was released', { kind: 'aborted' }));
    this._running.clear();
    sessions.get(this.client)?.delete(this.session);
    try {
      if (this.isActive) this._sub.dispatch({ type: 'session/activeClientChanged', activeClient: null });
    } catch {
      // The client closed or the subscription ended: nothing to give back.
    }
  }

  /** The file of a published plugin at `uri`, if any. */
  _file(uri) {
    for (const p of this._plugins) {
      const f = p.files.get(uri);
      if (f !== undefined) return f;
    }
    return undefined;
  }

  /** The entries directly under `uri` (a plugin root or a folder of it), or undefined. */
  _list(uri) {
    const base = uri.endsWith('/') ? uri : `${uri}/`;
    for (const p of this._plugins) {
      const root = p.customization.uri.endsWith('/') ? p.customization.uri : `${p.customization.uri}/`;
      if (!base.startsWith(root)) continue;
      const names = new Map();
      for (const file of p.files.keys()) {
        if (!file.startsWith(base)) continue;
        const rest = file.slice(base.length);
        const slash = rest.indexOf('/');
        names.set(slash < 0 ? rest : rest.slice(0, slash), slash < 0 ? 'file' : 'directory');
      }
      if (names.size > 0 || base === root) return [...names].map(([name, type]) => ({ name, type }));
    }
    return undefined;
  }

  _check() {
    if (this._released) throw new AhpError('this active-client handle was released', { kind: 'closed' });
  }

  /** Starts owned calls that reached `running`, aborts those that left it. */
  _scan(state) {
    if (this._released) return;
    const live = new Set();
    const turnId = state?.activeTurn?.id;
    if (turnId !== this._seenTurn) {
      this._seenTurn = turnId;
      this._seen.clear();
    }
    for (const { call } of ownedCalls(state, this.client.clientId)) {
      if (call.status !== 'running') continue;
      const key = `${turnId} ${call.toolCallId}`;
      live.add(key);
      if (this._seen.has(key)) continue;
      this._seen.add(key);
      this._start(turnId, call, key);
    }
    for (const [id, controller] of this._running) {
      if (!live.has(id)) {
        controller.abort(new AhpError('the tool call was cancelled', { kind: 'aborted' }));
        this._running.delete(id);
      }
    }
  }

  async _start(turnId, call, key) {
    const entry = this._tools.get(call.toolName);
    const dispatch = (action) => {
      try {
        this._sub.dispatch({ ...action, turnId, toolCallId: call.toolCallId });
        return true;
      } catch {
        return false; // the subscription or client is gone
      }
    };
    if (!entry) {
      // A call for a tool this client does not have (a stale registration): deny it (spec MUST).
      dispatch({ type: 'session/toolCallConfirmed', approved: false, reason: 'denied' });
      return;
    }
    const { tool } = entry;
    const controller = new AbortController();
    this._running.set(key, controller);
    const finish = (result) => {
      if (this._running.get(key) !== controller) return; // cancelled or released meanwhile
      this._running.delete(key);
      dispatch({ type: 'session/toolCallComplete', result });
    };
    let input;
    try {
      input = call.toolInput === undefined || call.toolInput === '' ? {} : JSON.parse(call.toolInput);
    } catch (e) {
      return finish(failureResult(tool.name, `the input is not JSON: ${e.message}`, 'InvalidInput'));
    }
    const problems = schemaErrors(entry.def.inputSchema, input);
    if (problems.length > 0) {
      return finish(failureResult(tool.name, `the input does not match the tool's schema: ${problems.join('; ')}`, 'InvalidInput'));
    }
    const context = {
      signal: controller.signal,
      toolCallId: call.toolCallId,
      turnId,
      session: this.session,
      update: (content) => {
        if (this._running.get(key) === controller) {
          dispatch({ type: 'session/toolCallContentChanged', content: contentOf(content) });
        }
      },
    };
    try {
      const confirm = tool.confirm ?? this._options.confirm;
      if (confirm && !(await confirm({ tool: tool.name, input, toolCallId: call.toolCallId, session: this.session }))) {
        if (this._running.get(key) === controller && this._running.delete(key)) {
          dispatch({ type: 'session/toolCallConfirmed', approved: false, reason: 'denied' });
        }
        return;
      }
      const value = await tool.execute(input, context);
      finish(successResult(tool.name, value));
    } catch (e) {
      finish(failureResult(tool.name, e?.message ?? String(e), typeof e?.code === 'string' ? e.code : undefined));
    }
  }
}

/** Routes the host's requests to the handles of `client` (installed once per client). */
function install(client) {
  if (installed.has(client)) return;
  installed.add(client);
  const handles = () => [...(sessions.get(client)?.values() ?? [])];
  const notFound = (uri) => Object.assign(new Error(`no published plugin file \`${uri}\``), { code: -32008 });
  client.setRequestHandler('resourceRead', (params) => {
    const uri = String(params?.uri ?? '');
    for (const h of handles()) {
      const data = h._file(uri);
      if (data !== undefined) return { data, encoding: 'utf-8', contentType: uri.endsWith('.md') ? 'text/markdown' : 'text/plain' };
    }
    throw notFound(uri);
  });
  client.setRequestHandler('resourceList', (params) => {
    const uri = String(params?.uri ?? '');
    for (const h of handles()) {
      const entries = h._list(uri);
      if (entries !== undefined) return { entries };
    }
    throw notFound(uri);
  });
  client.setRequestHandler('systemMessageTransform', async (params) => {
    const handler = transforms.get(client);
    const asked = params?.sections && typeof params.sections === 'object' ? params.sections : {};
    if (!handler) return { sections: {} };
    const out = await handler({ channel: String(params?.channel ?? ''), sections: asked });
    const sections = {};
    // Only ids the host asked about, with string content: no new sections (the proposal's rule).
    for (const [id, value] of Object.entries(out?.sections ?? out ?? {})) {
      if (!Object.hasOwn(asked, id)) continue;
      const content = typeof value === 'string' ? value : value?.content;
      if (typeof content === 'string') sections[id] = { content };
    }
    return { sections };
  });
}

/**
 * Claims the active-client role of `session` for `client` (see index.d.ts `setActiveClient`).
 * Replaces this client's earlier handle for the same session.
 */
export async function setActiveClient(client, session, options = {}) {
  if (typeof session !== 'string' || session === '') throw invalid('`session` must be a session URI', 'session');
  if (options === null || typeof options !== 'object') throw invalid('`options` must be an object', 'options');
  const sections = options.systemMessageTransform?.sections;
  if (sections !== undefined && (!Array.isArray(sections) || sections.some((s) => typeof s !== 'string'))) {
    throw invalid('`systemMessageTransform.sections` must be an array of section ids', 'options', 'systemMessageTransform.sections');
  }
  if (options.plugins !== undefined && (!Array.isArray(options.plugins) || options.plugins.some((p) => !(p?.files instanceof Map)))) {
    throw invalid('`plugins` must be plugins made with `buildClientPlugin`', 'options', 'plugins');
  }
  toolMap(options.tools); // validates before anything is dispatched
  const subscription = client.subscription(session) ?? (await client.subscribe(session));
  let map = sessions.get(client);
  if (!map) sessions.set(client, (map = new Map()));
  const previous = map.get(session);
  if (previous) {
    previous._released = true;
    previous._offChange();
    previous._offEvent();
  }
  install(client);
  const handle = new ActiveClientHandle(client, subscription, options);
  map.set(session, handle);
  handle._claim();
  return handle;
}

/**
 * Gives up `client`'s active-client role of `session` (see index.d.ts `releaseActiveClient`):
 * through its handle when it has one, else by dispatching `activeClient: null` when the session
 * state names this client. Resolves whether there was a role to give up.
 */
export function releaseActiveClient(client, session) {
  if (typeof session !== 'string' || session === '') throw invalid('`session` must be a session URI', 'session');
  const handle = sessions.get(client)?.get(session);
  if (handle) {
    const held = handle.isActive;
    handle.release();
    return held;
  }
  const sub = client.subscription(session);
  if (sub?.state?.activeClient?.clientId !== client.clientId) return false;
  sub.dispatch({ type: 'session/activeClientChanged', activeClient: null });
  return true;
}

/** Sets (or clears, with `null`) the handler of the host's `systemMessageTransform` requests. */
export function onSystemMessageTransform(client, handler) {
  if (handler !== null && typeof handler !== 'function') throw invalid('the handler must be a function or null', 'handler');
  install(client);
  if (handler) transforms.set(client, handler);
  else transforms.delete(client);
}

// --- Client-published plugins ---------------------------------------------------------------

/** FNV-1a over UTF-16 code units, 2 x 32 bits (a change detector, not a security hash). */
function hash(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ (c + i), 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/**
 * A plugin made of in-memory files (Open Plugins layout: `skills/NAME/SKILL.md`,
 * `agents/NAME.md`, `commands/NAME.md` (slash-command skills), `prompts/NAME.md`,
 * `rules/NAME.md`, ... with YAML frontmatter; see ahp-host's README, "Customizations"),
 * published by `setActiveClient({ plugins })` under `virtual://<clientId>/<id>/`. The `nonce`
 * hashes the files, so the host re-reads the plugin only when something changed.
 */
export function buildClientPlugin(client, { id, name, files }) {
  if (typeof id !== 'string' || !NAME.test(id)) throw invalid('`id` must be 1-128 characters of letters, digits, _ . : -', 'plugin', 'id');
  if (!files || typeof files !== 'object') throw invalid('`files` must map paths to text', 'plugin', 'files');
  const root = `virtual://${encodeURIComponent(client.clientId)}/${encodeURIComponent(id)}`;
  const map = new Map();
  const parts = [];
  for (const [path, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (typeof text !== 'string') throw invalid(`file \`${path}\` must be text`, 'plugin', `files.${path}`);
    const segments = path.split('/');
    if (path === '' || path.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..')) {
      throw invalid(`\`${path}\` is not a relative file path`, 'plugin', `files.${path}`);
    }
    map.set(`${root}/${segments.map(encodeURIComponent).join('/')}`, text);
    parts.push(path, '\0', text, '\0');
  }
  return {
    customization: { type: 'plugin', id, uri: root, name: String(name ?? id), enabled: true, nonce: `fnv1a64:${hash(parts.join(''))}` },
    files: map,
  };
}
