// Types of the `ahp-wasm/mcp-apps` entry (hand-written beside js/mcp-apps.js), as they sit in
// pkg/: './index.js' is the default entry (AHP 1.0), './v0.3/index.js' the AHP 0.3.0 entry. A
// client of either entry mounts Apps; the entry's code is the default entry's (its `McpChannel`
// and `AhpError`), over the client it is given.
import type { AhpClient, AhpError, McpChannel } from './index.js';
import type { AhpClient as AhpClient03, McpChannel as McpChannel03 } from './v0.3/index.js';

/** A client of either entry: `ahp-wasm` (AHP 1.0) or `ahp-wasm/v0.3`. */
export type McpAppClient = AhpClient | AhpClient03;
/** The `McpChannel` type of client `C`'s entry. */
export type McpChannelOf<C extends McpAppClient> = C extends AhpClient03 ? McpChannel03 : McpChannel;

/** Why `mountMcpApp` failed. */
export declare class McpAppError extends AhpError {
  constructor(message: string, options: { kind: McpAppError['kind']; cause?: unknown });
  readonly kind: 'invalid-input' | 'no-tool-call' | 'not-an-app' | 'resource' | 'sandbox' | 'aborted';
}

export interface MountMcpAppOptions<C extends McpAppClient = McpAppClient> {
  /** A client connected with `capabilities: { mcpApps: {} }` (the host serves channels only then). */
  client: C;
  /** The session URI. */
  session: string;
  /**
   * AHP 1.0: the URI of the chat whose turns hold the tool call (default: the session's
   * `defaultChat`). Ignored on AHP 0.3.0, where the turns are the session's.
   */
  chat?: string;
  /**
   * The App tool call: its `_meta.ui.resourceUri` names the View, its `contributor` the MCP
   * server. On 1.0 an input behind a content reference is read with `resourceRead`.
   */
  toolCallId: string;
  /**
   * The sandbox proxy page (default: `mcp-app-sandbox.html` next to this module). Serve it with
   * `Content-Security-Policy: sandbox allow-scripts; ...`, as ahp-host does.
   */
  sandboxUrl?: string | URL;
  /** Merged over the default `hostContext` (theme from `prefers-color-scheme`, locale, size, tool). */
  hostContext?: Record<string, unknown>;
  /** `ui/open-link`: without a handler the host declines (and does not advertise `openLinks`). */
  onOpenLink?: (url: string) => void | Promise<void>;
  /** `ui/message`: default, queue the text as the session's next user message. */
  onMessage?: (text: string, params: Record<string, unknown>) => void | Promise<void>;
  /** Aborting unmounts the App (or stops the mount). */
  signal?: AbortSignal;
  /** How long reading the resource and starting the View may take (default 30 000 ms). */
  timeoutMs?: number;
}

/** The parts of the bundled ext-apps `AppBridge` an app may use on a mounted App. */
export interface McpAppBridge {
  /** Sends `ui/notifications/host-context-changed` (e.g. a new theme). */
  sendHostContextChange(params: Record<string, unknown>): Promise<void> | void;
  /** What the View declared in `ui/initialize`. */
  getAppCapabilities(): Record<string, unknown> | undefined;
  getAppVersion(): { name: string; version: string } | undefined;
}

/** A mounted App; `channel` is typed as the `McpChannel` of the client's entry. */
export interface McpAppHandle<Channel = McpChannel | McpChannel03> {
  /** The outer (sandbox proxy) iframe. */
  readonly iframe: HTMLIFrameElement;
  /** The official ext-apps bridge speaking the View protocol to the App. */
  readonly bridge: McpAppBridge;
  /** The MCP server's channel the App's requests go over. */
  readonly channel: Channel;
  /** The UI resource (`ui://...`). */
  readonly resourceUri: string;
  /** Tears the View down and removes the iframe. */
  close(): Promise<void>;
}

/**
 * Mounts the MCP App of a tool call into `element`: reads its UI resource over the server's
 * `mcp://` channel, runs it in a sandboxed iframe (`sandbox="allow-scripts"`, no same-origin
 * access) and bridges the View protocol with the official `AppBridge`. The tool's input and
 * result are delivered as the call progresses. Resolves once the View is initialized.
 *
 * ```ts
 * import { AhpClient } from 'ahp-wasm';
 * import { mountMcpApp } from 'ahp-wasm/mcp-apps';
 * const client = await AhpClient.connect(url, { token, capabilities: { mcpApps: {} } });
 * const app = await mountMcpApp(document.getElementById('app')!, { client, session, toolCallId });
 * // later: await app.close();
 * ```
 */
export declare function mountMcpApp<C extends McpAppClient>(
  element: HTMLElement,
  options: MountMcpAppOptions<C>,
): Promise<McpAppHandle<McpChannelOf<C>>>;

/** The tool call `id` of a session state (active turn first, then completed turns, newest first). */
export declare function findToolCall(state: unknown, id: string): Record<string, unknown> | undefined;

/** The `ui://` resource a tool call renders (`_meta.ui.resourceUri`), if it is an App call. */
export declare function appResourceUri(toolCall: unknown): string | undefined;
