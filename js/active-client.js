// The active client role of a session (guide/customizations.md of AHP 0.3.0 and 1.0): claiming
// it with tools, client-published plugins and the systemMessageTransform opt-in, running the
// app's tool handlers for the calls this client owns, answering the host's
// `resourceRead`/`resourceList` for the published plugins' `virtual://` files, and the
// `systemMessageTransform` request.
//
// Everything goes through the public client API (dispatch, subscriptions, setRequestHandler,
// events): tool calls are state, so the owned calls are found in the mirrors as they change,
// and the results are actions. In 0.3.0 the calls live in the session's active turn; in 1.0 in
// the active turns of the session's chats (`ahp-chat:` channels, subscribed to here as the
// session state lists them). What differs between the two is in the adapters below (`V0_3`,
// `V1`), picked by the negotiated version. Hand-written; scripts/build-pkg.sh copies it into pkg/.
import { AhpError, InvalidInputError } from './error-classes.js';
import { PROTOCOL_VERSION } from './generated.js';
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

/** The owned tool calls of a state's active turn (a 0.3.0 session's, a 1.0 chat's): `{ turnId, call }`. */
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
 * What the role looks like in AHP 0.3.0: one active client per session (`activeClient`), tools
 * changed on their own, tool calls in the session's active turn.
 */
const V0_3 = {
  claim: (activeClient) => ({ type: 'session/activeClientChanged', activeClient }),
  release: () => ({ type: 'session/activeClientChanged', activeClient: null }),
  tools: (_activeClient, tools) => ({ type: 'session/activeClientToolsChanged', tools }),
  holds: (state, clientId) => state?.activeClient?.clientId === clientId,
  /** Whether to claim again after a reconnect: only if nobody holds the role. */
  vacant: (state) => state?.activeClient == null,
  plugin: (customization) => customization,
  /** The channels whose active turns hold the calls: the session itself. */
  callChannels: (session) => [session],
  toolAction: (name) => `session/${name}`,
};

/**
 * AHP 1.0: several active clients per session (`activeClients[]`, an upsert by `clientId` and a
 * removal), no tools-only action (the whole entry is set again), tool calls in the chats listed
 * by the session state (`chats[].resource`), and `chat/toolCall*` actions on those channels.
 */
const V1 = {
  claim: (activeClient) => ({ type: 'session/activeClientSet', activeClient }),
  release: (clientId) => ({ type: 'session/activeClientRemoved', clientId }),
  tools: (activeClient) => ({ type: 'session/activeClientSet', activeClient }),
  holds: (state, clientId) => (state?.activeClients ?? []).some((c) => c?.clientId === clientId),
  vacant: (state, clientId) => !V1.holds(state, clientId),
  /** 1.0's `ClientPluginCustomization` has no `enabled` (enablement is the host's, per scope). */
  plugin: ({ enabled: _enabled, ...customization }) => customization,
  callChannels: (_session, state) => (state?.chats ?? []).map((c) => c?.resource).filter((uri) => typeof uri === 'string'),
  toolAction: (name) => `chat/${name}`,
};

/** The adapter of the version `client` negotiated (before connecting: the module's version). */
function adapterOf(client) {
  const version = client.serverInfo?.protocolVersion ?? PROTOCOL_VERSION;
  return String(version).startsWith('0.3.') ? V0_3 : V1;
}

/** A 1.0 tool call's input given as a `ContentRef`, read with `resourceRead`, as text. */
async function inputText(client, toolInput) {
  if (typeof toolInput?.uri !== 'string') throw new Error('the input is neither text nor a content reference');
  const read = await client.resourceRead({ uri: toolInput.uri, encoding: 'utf-8' });
  if (read?.encoding === 'base64') {
    const bytes = Uint8Array.from(atob(read.data), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  }
  return String(read?.data ?? '');
}

/**
 * The active-client role of one session, held by one `AhpClient` (see `AhpClient.setActiveClient`).
 */
export class ActiveClientHandle {
  /** @private */
  constructor(client, subscription, options, previous) {
    this.client = client;
    this.session = subscription.uri;
    this._sub = subscription;
    this._options = options;
    this._v = adapterOf(client);
    this._tools = toolMap(options.tools);
    this._plugins = options.plugins ?? [];
    // The channels whose active turns hold this client's calls: uri -> { sub, off, ours, turn,
    // seen } (`ours`: subscribed here, so unsubscribed on release; `seen`: the keys of the calls
    // of `turn` already handled). Keys are `channel turnId toolCallId` (ids are per turn).
    this._channels = new Map();
    this._subscribing = new Set(); // chat uris being subscribed to
    this._running = new Map(); // key -> AbortController
    this._released = false;
    // A handle replacing this client's earlier one takes over its channels (and which calls it
    // already started: those finish there, not twice).
    for (const [uri, entry] of previous?._detach() ?? []) this._watch(uri, entry.sub, entry.ours, entry);
    this._offChange = subscription.onChange((state) => this._follow(state));
    this._offEvent = client.onEvent((event) => {
      // After a reconnect the host may have cleared the role (the connection dropped): claim it
      // again, unless (0.3.0) another client has taken it meanwhile.
      if (event.type === 'connected' && !this._released) queueMicrotask(() => this._reclaim());
    });
  }

  /** The `SessionActiveClient` this handle publishes. */
  get activeClient() {
    const o = this._options;
    const value = { clientId: this.client.clientId, tools: [...this._tools.values()].map((t) => t.def) };
    if (o.displayName !== undefined) value.displayName = String(o.displayName);
    if (this._plugins.length > 0) value.customizations = this._plugins.map((p) => this._v.plugin(p.customization));
    if (o.systemMessageTransform?.sections?.length) {
      value.systemMessageTransform = { sections: o.systemMessageTransform.sections.map(String) };
    }
    return value;
  }

  /** Whether the session's state names this client as an active one. */
  get isActive() {
    return this._v.holds(this._sub.state, this.client.clientId);
  }

  /** @private Claims the role (0.3.0 `session/activeClientChanged`, 1.0 `session/activeClientSet`). */
  _claim() {
    this._sub.dispatch(this._v.claim(this.activeClient));
    this._follow(this._sub.state);
  }

  _reclaim() {
    if (this._released) return;
    if (this._v.vacant(this._sub.state, this.client.clientId)) this._claim();
  }

  /** Replaces the tool list (0.3.0 `session/activeClientToolsChanged`, 1.0 the entry set again); running calls go on. */
  updateTools(tools) {
    this._check();
    const next = toolMap(tools);
    this._tools = next;
    this._sub.dispatch(this._v.tools(this.activeClient, [...next.values()].map((t) => t.def)));
  }

  /** Replaces the published plugins (re-claims the role with the new list). */
  updatePlugins(plugins) {
    this._check();
    this._plugins = plugins ?? [];
    this._claim();
  }

  /**
   * Gives the role up (0.3.0 `activeClient: null`, 1.0 `session/activeClientRemoved`, if this
   * client holds it), aborts running calls and ends the chat subscriptions made for it.
   */
  release() {
    if (this._released) return;
    this._stop();
    sessions.get(this.client)?.delete(this.session);
    try {
      if (this.isActive) this._sub.dispatch(this._v.release(this.client.clientId));
    } catch {
      // The client closed or the subscription ended: nothing to give back.
    }
  }

  /** @private Replaced by a newer handle: stops following, hands over the channels. */
  _detach() {
    this._released = true;
    this._offChange();
    this._offEvent();
    for (const entry of this._channels.values()) entry.off();
    const channels = this._channels;
    this._channels = new Map();
    return channels;
  }

  /** @private Released: stops following the session. */
  _stop() {
    this._released = true;
    this._offChange();
    this._offEvent();
    for (const controller of this._running.values()) controller.abort(new AhpError('the active client was released', { kind: 'aborted' }));
    this._running.clear();
    for (const uri of [...this._channels.keys()]) this._drop(uri);
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

  /**
   * Follows the session state: the channels holding calls (0.3.0 the session, 1.0 its chats,
   * subscribed to as they appear and left as they go), then the session's own calls (0.3.0).
   */
  _follow(state) {
    if (this._released) return;
    const wanted = new Set(this._v.callChannels(this.session, state));
    for (const uri of [...this._channels.keys()]) {
      const entry = this._channels.get(uri);
      if (!wanted.has(uri) || (uri !== this.session && !entry.sub.active)) this._drop(uri);
    }
    for (const uri of wanted) {
      if (this._channels.has(uri) || this._subscribing.has(uri)) continue;
      if (uri === this.session) this._watch(uri, this._sub, false);
      else this._subscribeChat(uri);
    }
    if (this._channels.has(this.session)) this._scan(this.session, state);
  }

  /** Subscribes to a chat of the session (or takes the app's subscription to it). */
  async _subscribeChat(uri) {
    const existing = this.client.subscription(uri);
    if (existing && existing.active !== false) return this._watch(uri, existing, false);
    this._subscribing.add(uri);
    let sub;
    try {
      sub = await this.client.subscribe(uri);
    } catch {
      return; // the chat went away meanwhile, or the connection: the next session change retries
    } finally {
      this._subscribing.delete(uri);
    }
    const stillWanted = this._v.callChannels(this.session, this._sub.state).includes(uri);
    if (this._released || !stillWanted) {
      sub.unsubscribe();
      return;
    }
    this._watch(uri, sub, true);
  }

  _watch(uri, sub, ours, from) {
    const session = uri === this.session;
    const entry = { sub: session ? this._sub : sub, ours, turn: from?.turn, seen: from?.seen ?? new Set(), off: () => {} };
    this._channels.set(uri, entry);
    if (!session) {
      entry.off = sub.onChange((state) => this._scan(uri, state));
      this._scan(uri, sub.state);
    }
  }

  /** Stops watching a channel: its running calls are aborted, a subscription made here ended. */
  _drop(uri) {
    const entry = this._channels.get(uri);
    if (!entry) return;
    this._channels.delete(uri);
    entry.off();
    this._abortWhere((key) => key.startsWith(`${uri} `), 'the chat is gone');
    if (entry.ours && entry.sub.active !== false) {
      try {
        entry.sub.unsubscribe();
      } catch {
        // already ended
      }
    }
  }

  _abortWhere(pred, why) {
    for (const [key, controller] of this._running) {
      if (!pred(key)) continue;
      controller.abort(new AhpError(why, { kind: 'aborted' }));
      this._running.delete(key);
    }
  }

  /** Starts owned calls of `channel` that reached `running`, aborts those that left it. */
  _scan(channel, state) {
    const entry = this._channels.get(channel);
    if (this._released || !entry) return;
    const live = new Set();
    const turnId = state?.activeTurn?.id;
    if (turnId !== entry.turn) {
      entry.turn = turnId;
      entry.seen.clear();
    }
    for (const { call } of ownedCalls(state, this.client.clientId)) {
      if (call.status !== 'running') continue;
      const key = `${channel} ${turnId} ${call.toolCallId}`;
      live.add(key);
      if (entry.seen.has(key)) continue;
      entry.seen.add(key);
      this._start(entry.sub, turnId, call, key);
    }
    this._abortWhere((key) => key.startsWith(`${channel} `) && !live.has(key), 'the tool call was cancelled');
  }

  async _start(sub, turnId, call, key) {
    const entry = this._tools.get(call.toolName);
    const action = this._v.toolAction;
    const dispatch = (a) => {
      try {
        sub.dispatch({ ...a, turnId, toolCallId: call.toolCallId });
        return true;
      } catch {
        return false; // the subscription or client is gone
      }
    };
    if (!entry) {
      // A call for a tool this client does not have (a stale registration): deny it (spec MUST).
      dispatch({ type: action('toolCallConfirmed'), approved: false, reason: 'denied' });
      return;
    }
    const { tool } = entry;
    const controller = new AbortController();
    this._running.set(key, controller);
    const finish = (result) => {
      if (this._running.get(key) !== controller) return; // cancelled or released meanwhile
      this._running.delete(key);
      dispatch({ type: action('toolCallComplete'), result });
    };
    // Inline input is parsed at once; a 1.0 reference is read first.
    let text = call.toolInput ?? '';
    if (typeof text === 'object') {
      try {
        text = await inputText(this.client, text);
      } catch (e) {
        return finish(failureResult(tool.name, `the input could not be read: ${e?.message ?? e}`, 'InvalidInput'));
      }
    }
    let input;
    try {
      input = text === '' ? {} : JSON.parse(text);
    } catch (e) {
      return finish(failureResult(tool.name, `the input is not JSON: ${e.message}`, 'InvalidInput'));
    }
    const problems = schemaErrors(entry.def.inputSchema, input);
    if (problems.length > 0) {
      return finish(failureResult(tool.name, `the input does not match the tool's schema: ${problems.join('; ')}`, 'InvalidInput'));
    }
    const where = { toolCallId: call.toolCallId, session: this.session };
    if (sub.uri !== this.session) where.chat = sub.uri;
    const context = {
      signal: controller.signal,
      turnId,
      ...where,
      update: (content) => {
        if (this._running.get(key) === controller) {
          dispatch({ type: action('toolCallContentChanged'), content: contentOf(content) });
        }
      },
    };
    try {
      const confirm = tool.confirm ?? this._options.confirm;
      if (confirm && !(await confirm({ tool: tool.name, input, ...where }))) {
        if (this._running.get(key) === controller && this._running.delete(key)) {
          dispatch({ type: action('toolCallConfirmed'), approved: false, reason: 'denied' });
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
  install(client);
  const handle = new ActiveClientHandle(client, subscription, options, previous);
  map.set(session, handle);
  handle._claim();
  return handle;
}

/**
 * Gives up `client`'s active-client role of `session` (see index.d.ts `releaseActiveClient`):
 * through its handle when it has one, else by dispatching the release (0.3.0 `activeClient:
 * null`, 1.0 `session/activeClientRemoved`) when the session state names this client. Returns
 * whether there was a role to give up.
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
  const v = adapterOf(client);
  if (!sub || !v.holds(sub.state, client.clientId)) return false;
  sub.dispatch(v.release(client.clientId));
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
