// The `ahp-wasm/mcp-apps` entry: renders the MCP App of a tool call in the page.
//
// The View runs in a sandboxed iframe (`sandbox="allow-scripts"`, no `allow-same-origin`: an
// opaque origin with no access to the page) that loads the package's sandbox proxy
// (`mcp-app-sandbox.html`); the proxy puts the App's HTML in an inner sandboxed frame with the
// App's CSP and relays postMessage traffic (the MCP Apps "sandbox proxy"). The View protocol
// (`ui/*`) is the official `@modelcontextprotocol/ext-apps` AppBridge; this file only wires it
// to AHP: the UI resource is read over the server's `mcp://` channel (McpChannel), the View's
// `tools/call` / `resources/*` go over that channel, tool input and result come from the tool
// call in the session state (AHP 0.3.0) or its chat's state (AHP 1.0) as it progresses,
// `ui/message` becomes a queued user message, and `ui/open-link` goes to the app's handler.
//
// Hand-written; scripts/build-pkg.sh bundles it with ext-apps into pkg/mcp-apps.js (the main
// entry does not load it: apps that render no Apps pay nothing).
import './zod-jitless.js';
import { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
// The browser entry of the package: its API module is the same instance as the app's `ahp-wasm`
// import (the error classes exist as soon as it evaluates; loading the WebAssembly module is the
// app's `init()`: mounting an App needs a connected client, which needs it anyway). Kept external
// by the build under this name (`./api.js` would also match zod's own `./api.js` imports).
import { AhpError, McpChannel } from './web.js';

const UI_MIME = 'text/html;profile=mcp-app';
const HOST_INFO = { name: 'ahp-wasm', version: '0.1.0' };

/** The Error every failure of `mountMcpApp` throws: `kind` says which step failed. */
export class McpAppError extends AhpError {
  /**
   * @param {string} message
   * @param {{ kind: 'invalid-input' | 'no-tool-call' | 'not-an-app' | 'resource' | 'sandbox' | 'aborted', cause?: unknown }} options
   */
  constructor(message, options) {
    super(message, { kind: options.kind, cause: options.cause });
    this.name = 'McpAppError';
  }
}

/**
 * Finds tool call `id` in a session state: the active turn first, then completed turns from the
 * newest (where a finished call moves to).
 */
export function findToolCall(state, id) {
  const inTurn = (turn) => {
    for (const part of turn?.responseParts ?? []) {
      if (part?.kind === 'toolCall' && part.toolCall?.toolCallId === id) return part.toolCall;
    }
    return undefined;
  };
  const active = inTurn(state?.activeTurn);
  if (active) return active;
  const turns = state?.turns ?? [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const found = inTurn(turns[i]);
    if (found) return found;
  }
  return undefined;
}

/** The UI resource of a tool call (`_meta.ui.resourceUri`, or the older `_meta["ui/resourceUri"]`). */
export function appResourceUri(toolCall) {
  const meta = toolCall?._meta;
  const uri = meta?.ui?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** AHP tool result content back to MCP `CallToolResult.content`. */
function mcpContent(content) {
  const out = [];
  for (const c of content ?? []) {
    if (c?.type === 'text') out.push({ type: 'text', text: String(c.text ?? '') });
    else if (c?.type === 'embeddedResource') {
      const mime = String(c.contentType ?? '');
      if (mime.startsWith('image/')) out.push({ type: 'image', data: c.data, mimeType: mime });
      else if (mime.startsWith('audio/')) out.push({ type: 'audio', data: c.data, mimeType: mime });
      else out.push({ type: 'resource', resource: { uri: c.uri ?? 'data:', mimeType: mime, blob: c.data } });
    } else if (c?.type === 'resource') {
      out.push({ type: 'resource_link', uri: c.uri, name: c.uri, mimeType: c.contentType });
    }
  }
  return out;
}

/** The MCP `CallToolResult` of a completed AHP tool call. */
function callToolResult(toolCall) {
  const result = { content: mcpContent(toolCall.content), isError: toolCall.success === false };
  if (toolCall.structuredContent !== undefined) result.structuredContent = toolCall.structuredContent;
  if (toolCall.success === false && result.content.length === 0 && toolCall.error?.message) {
    result.content.push({ type: 'text', text: String(toolCall.error.message) });
  }
  return result;
}

/** The tool's arguments: `toolInput` is the raw JSON text of the input. */
/**
 * The tool call's input text: inline, or (AHP 1.0) behind a content reference, read with
 * `resourceRead` (undefined when it cannot be read: the View then gets no arguments).
 */
async function toolInputText(client, toolCall) {
  const input = toolCall.toolInput;
  if (typeof input === 'string') return input;
  if (typeof input?.uri !== 'string') return undefined;
  try {
    const read = await client.resourceRead({ uri: input.uri });
    if (read?.encoding === 'base64') {
      return new TextDecoder().decode(Uint8Array.from(atob(read.data), (ch) => ch.charCodeAt(0)));
    }
    return typeof read?.data === 'string' ? read.data : undefined;
  } catch {
    return undefined;
  }
}

function toolArguments(text) {
  if (typeof text !== 'string' || text === '') return {};
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The text of a `ui/message` (text blocks joined; other blocks are named). */
function messageText(content) {
  return (content ?? [])
    .map((b) => (b?.type === 'text' ? String(b.text ?? '') : `[${String(b?.type ?? 'content')}]`))
    .join('\n')
    .trim();
}

function defaultTheme() {
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/**
 * Mounts the MCP App of tool call `toolCallId` of `session` into `element` and keeps it in step
 * with the call. Resolves once the View is initialized (its iframe is in `element`).
 *
 * @param {HTMLElement} element where the iframe goes
 * @param {{
 *   client: import('./index.d.ts').AhpClient,
 *   session: string,
 *   chat?: string,
 *   toolCallId: string,
 *   sandboxUrl?: string | URL,
 *   hostContext?: object,
 *   onOpenLink?: (url: string) => void | Promise<void>,
 *   onMessage?: (text: string, params: object) => void | Promise<void>,
 *   signal?: AbortSignal,
 *   timeoutMs?: number,
 * }} options
 */
export async function mountMcpApp(element, options) {
  if (!element || typeof element.appendChild !== 'function') {
    throw new McpAppError('`element` must be a DOM element', { kind: 'invalid-input' });
  }
  const { client, session, toolCallId } = options ?? {};
  if (!client || typeof session !== 'string' || typeof toolCallId !== 'string') {
    throw new McpAppError('options need `client`, `session` and `toolCallId`', { kind: 'invalid-input' });
  }
  if (options.chat !== undefined && typeof options.chat !== 'string') {
    throw new McpAppError('`chat` must be a chat URI', { kind: 'invalid-input' });
  }
  const timeoutMs = options.timeoutMs ?? 30000;
  const subscribed = async (uri) => client.subscription(uri) ?? (await client.subscribe(uri));
  const subscription = await subscribed(session);
  // AHP 1.0 keeps turns on the session's chats: the call is on `chat` (default: the session's
  // default chat); 0.3.0 keeps them on the session.
  // The version the client's `initialize` chose (`serverInfo`; the state's shape otherwise:
  // only 1.0 sessions list chats).
  const version = client.serverInfo?.protocolVersion;
  const v1 = typeof version === 'string' ? !version.startsWith('0.') : Array.isArray(subscription.state?.chats);
  const chat = v1 ? (options.chat ?? subscription.state?.defaultChat) : undefined;
  if (v1 && typeof chat !== 'string') {
    throw new McpAppError('the session has no default chat: pass `chat`', { kind: 'invalid-input' });
  }
  const calls = v1 ? await subscribed(chat) : subscription;
  const toolCall = findToolCall(calls.state, toolCallId);
  if (!toolCall) {
    const where = v1 ? `chat \`${chat}\`` : 'session';
    throw new McpAppError(`the ${where} has no tool call \`${toolCallId}\``, { kind: 'no-tool-call' });
  }
  const resourceUri = appResourceUri(toolCall);
  const customizationId = toolCall.contributor?.kind === 'mcp' ? toolCall.contributor.customizationId : undefined;
  if (!resourceUri || !customizationId) {
    throw new McpAppError(`tool call \`${toolCallId}\` is not an MCP App call (no _meta.ui.resourceUri or no MCP contributor)`, {
      kind: 'not-an-app',
    });
  }

  const channel = await McpChannel.open(client, session, customizationId, { timeoutMs });
  const cleanups = [() => channel.close()];
  const cleanup = () => {
    for (const f of cleanups.splice(0).reverse()) {
      try {
        f();
      } catch {
        // Teardown goes on: one failing step must not keep the rest alive.
      }
    }
  };
  try {
    await channel.ready({ timeoutMs, signal: options.signal });
    const read = await channel.request('resources/read', { uri: resourceUri }, { signal: options.signal });
    const resource = (read?.contents ?? []).find((c) => c?.uri === resourceUri) ?? read?.contents?.[0];
    const html =
      typeof resource?.text === 'string'
        ? resource.text
        : typeof resource?.blob === 'string'
          ? new TextDecoder().decode(Uint8Array.from(atob(resource.blob), (ch) => ch.charCodeAt(0)))
          : undefined;
    if (html === undefined) {
      throw new McpAppError(`\`${resourceUri}\` has no HTML content`, { kind: 'resource' });
    }
    if (resource.mimeType !== undefined && resource.mimeType !== UI_MIME) {
      throw new McpAppError(`\`${resourceUri}\` is \`${resource.mimeType}\`, not \`${UI_MIME}\``, { kind: 'resource' });
    }
    const ui = resource._meta?.ui ?? {};

    const iframe = element.ownerDocument.createElement('iframe');
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.setAttribute('referrerpolicy', 'no-referrer');
    const features = buildAllowAttribute(ui.permissions);
    if (features) iframe.setAttribute('allow', features);
    iframe.setAttribute('title', `MCP App ${resourceUri}`);
    iframe.dataset.mcpApp = resourceUri;
    iframe.style.border = ui.prefersBorder === false ? '0' : '';
    iframe.style.width = '100%';
    iframe.style.height = '0px';
    iframe.src = String(options.sandboxUrl ?? new URL('./mcp-app-sandbox.html', import.meta.url));
    element.appendChild(iframe);
    cleanups.push(() => iframe.remove());

    const capabilities = channel.capabilities ?? {};
    const hostCapabilities = {
      ...(options.onOpenLink ? { openLinks: {} } : {}),
      message: { text: {} },
      sandbox: { csp: ui.csp, permissions: ui.permissions },
      ...(capabilities.serverTools ? { serverTools: capabilities.serverTools } : {}),
      ...(capabilities.serverResources ? { serverResources: capabilities.serverResources } : {}),
      ...(capabilities.logging ? { logging: capabilities.logging } : {}),
    };
    const serverTools = subscription.state?.serverTools ?? [];
    const tool = serverTools.find((t) => t?.name === toolCall.toolName);
    const hostContext = {
      theme: defaultTheme(),
      locale: globalThis.navigator?.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'web',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { width: element.clientWidth || 600, maxHeight: 800 },
      toolInfo: {
        id: toolCallId,
        tool: { name: tool?._meta?.mcpTool ?? toolCall.toolName, inputSchema: tool?.inputSchema ?? { type: 'object' } },
      },
      ...options.hostContext,
    };

    const bridge = new AppBridge(null, HOST_INFO, hostCapabilities, { hostContext });
    const viaChannel = (method) => (params) => channel.request(method, params ?? {});
    if (capabilities.serverTools) {
      bridge.oncalltool = viaChannel('tools/call');
    }
    if (capabilities.serverResources) {
      bridge.onreadresource = viaChannel('resources/read');
      bridge.onlistresources = viaChannel('resources/list');
      bridge.onlistresourcetemplates = viaChannel('resources/templates/list');
    }
    bridge.onmessage = async (params) => {
      const text = messageText(params?.content);
      if (text === '') return { isError: true };
      if (options.onMessage) await options.onMessage(text, params);
      else {
        const id = globalThis.crypto.randomUUID();
        client.dispatch(v1 ? chat : session, {
          type: v1 ? 'chat/pendingMessageSet' : 'session/pendingMessageSet',
          kind: 'queued',
          id,
          message: { text, origin: { kind: 'user' } },
        });
      }
      return {};
    };
    bridge.onopenlink = async ({ url }) => {
      if (!options.onOpenLink) return { isError: true };
      await options.onOpenLink(String(url));
      return {};
    };
    bridge.onsizechange = ({ height }) => {
      if (typeof height === 'number' && Number.isFinite(height)) iframe.style.height = `${Math.min(Math.max(height, 0), 4000)}px`;
    };
    bridge.onrequestteardown = () => handle.close();

    const sandboxReady = new Promise((resolve) => (bridge.onsandboxready = resolve));
    const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    cleanups.push(() => bridge.close());

    const timeout = (what) =>
      new Promise((_, reject) => {
        const timer = setTimeout(() => reject(new McpAppError(`the App's ${what} did not come within ${timeoutMs} ms`, { kind: 'sandbox' })), timeoutMs);
        cleanups.push(() => clearTimeout(timer));
      });
    await Promise.race([sandboxReady, timeout('sandbox proxy')]);
    await bridge.sendSandboxResourceReady({ html, sandbox: 'allow-scripts', csp: ui.csp, permissions: ui.permissions });
    await Promise.race([initialized, timeout('initialization')]);

    // Tool input and result follow the call in the session (0.3.0) or chat (1.0) state, each
    // sent once, the input first.
    let sentInput = false;
    let inputSent = Promise.resolve();
    let sentEnd = false;
    const sync = (state) => {
      const call = findToolCall(state, toolCallId);
      if (!call) return;
      if (!sentInput && call.toolInput !== undefined && call.status !== 'streaming') {
        sentInput = true;
        inputSent = toolInputText(client, call)
          .then((text) => bridge.sendToolInput({ arguments: toolArguments(text) }))
          .catch(() => {});
      }
      if (!sentEnd && call.status === 'completed') {
        sentEnd = true;
        const result = callToolResult(call);
        inputSent.then(() => bridge.sendToolResult(result)).catch(() => {});
      } else if (!sentEnd && call.status === 'cancelled') {
        sentEnd = true;
        const reason = String(call.reasonMessage ?? call.reason ?? 'cancelled');
        inputSent.then(() => bridge.sendToolCancelled({ reason })).catch(() => {});
      }
      if (sentEnd) removeChange();
    };
    const removeChange = calls.onChange(sync);
    cleanups.push(removeChange);
    sync(calls.state);

    let closed = false;
    const handle = {
      iframe,
      bridge,
      channel,
      resourceUri,
      /** Tears the View down (asks it first, briefly) and removes the iframe. */
      async close() {
        if (closed) return;
        closed = true;
        try {
          await Promise.race([bridge.teardownResource({}), new Promise((r) => setTimeout(r, 500))]);
        } catch {
          // The View may already be gone; the iframe is removed either way.
        }
        cleanup();
      },
    };
    options.signal?.addEventListener('abort', () => handle.close(), { once: true });
    return handle;
  } catch (e) {
    cleanup();
    if (e instanceof McpAppError) throw e;
    if (options.signal?.aborted) throw new McpAppError('mounting the App was aborted', { kind: 'aborted', cause: e });
    throw e;
  }
}
