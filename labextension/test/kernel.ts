/**
 * A stand-in for a kernel connection and its comm, with only the members the channel uses: unit tests
 * have no Jupyter server. Messages the kernel would send are `deliver`ed; what the frontend sent is
 * in `comm.opened` (the hello) and `comm.sent`; `state.served` is whether the kernel has imported
 * mcp_jupyter (what comm_info answers), `state.asked` each time the channel asked. Also what a kernel sends, for the tests to deliver.
 */
import { Signal } from '@lumino/signaling';

export function kernelStub(
  options: { served?: boolean; subshells?: boolean; held?: boolean } = {}
) {
  const comm = {
    isDisposed: false,
    commsOverSubshells: options.subshells ? 'perCommTarget' : 'disabled',
    subshellStarted: Promise.resolve(),
    subshellId: options.subshells ? 'subshell-1' : null,
    opened: [] as unknown[],
    sent: [] as unknown[],
    onMsg: (_msg: unknown) => undefined as unknown,
    onClose: () => undefined as unknown,
    open(data: unknown) {
      this.opened.push(data);
    },
    send(data: unknown) {
      this.sent.push(data);
    },
    dispose() {
      this.isDisposed = true;
    }
  };
  // `served`: whether mcp_jupyter is imported in the kernel; `asked`: each comm_info question
  // `held`: comm_info questions wait in `waiting` until `answer(served)` replies to the oldest, as a
  // kernel busy elsewhere would (its answer then says what was true when it was asked)
  const state = {
    served: options.served ?? true,
    asked: [] as { target: unknown; subshell: unknown }[],
    waiting: [] as ((served: boolean) => void)[],
    answer(served: boolean) {
      this.waiting.shift()?.(served);
    }
  };
  const reply = (served: boolean) => ({
    content: {
      status: 'ok',
      comms: served ? { listening: { target_name: 'mcp_jupyter.channel' } } : {}
    }
  });
  const kernel = {
    isDisposed: false,
    supportsSubshells: !!options.subshells,
    clientId: 'client',
    username: 'user',
    info: Promise.resolve({}),
    statusChanged: new Signal<unknown, string>({}),
    anyMessage: new Signal<unknown, { msg: unknown; direction: string }>({}),
    disposed: new Signal<unknown, void>({}),
    createComm: () => {
      comm.isDisposed = false;
      return comm;
    },
    // comm_info: the kernel lists a comm under the channel's target once mcp_jupyter is imported
    sendShellMessage: (msg: {
      header: { msg_type: string; subshell_id: unknown };
      content: { target_name: unknown };
    }) => {
      state.asked.push({
        target: msg.content.target_name,
        subshell: msg.header.subshell_id
      });
      if (options.held) {
        return {
          done: new Promise(resolve =>
            state.waiting.push(served => resolve(reply(served)))
          )
        };
      }
      return { done: Promise.resolve(reply(state.served)) };
    }
  };
  /** Send a cell's execute_request; returns what delivers its execute_reply (the cell ends). */
  const cell = (id: string, code: string) => {
    kernel.anyMessage.emit({
      msg: {
        header: { msg_id: id, msg_type: 'execute_request' },
        content: { code }
      },
      direction: 'send'
    });
    return () =>
      kernel.anyMessage.emit({
        msg: {
          header: { msg_id: `${id}-reply`, msg_type: 'execute_reply' },
          parent_header: { msg_id: id },
          content: {}
        },
        direction: 'recv'
      });
  };
  return {
    kernel,
    comm,
    state,
    cell,
    deliver: (data: unknown) => comm.onMsg({ content: { data } })
  };
}

/** The page info a hello carries. */
export const page = async () => ({
  origin: 'http://x',
  base_url: '/',
  theme: 'light' as const,
  server_extension: true
});

/** A waiting elicitation as the kernel lists it in a snapshot's inbox. */
export const ELICITATION = {
  id: 'e1',
  kind: 'elicitation',
  connection: 'demo',
  title: 'Your name?',
  created: 1,
  payload: {
    message: 'Your name?',
    requested_schema: { properties: { name: { type: 'string' } } }
  }
};

/** A `snapshot` message with these inbox items and connections. */
export function snapshot(inbox: unknown[] = [], connections: unknown[] = []) {
  return { type: 'snapshot', connections, configured: [], inbox };
}

/** Let the channel's awaits (kernel info, comm_info, page info) run, and `ms` more. */
export function settle(ms = 0): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** What mcp_jupyter/lab/_registry.py answers a search (the demo registry's entries: one that runs as
 * it is, one that needs a secret, one that needs an argument). */
export function registryResults(
  id: string,
  extra: Record<string, unknown> = {}
) {
  const code = (name: string, given = '') =>
    `import mcp_jupyter as mj\n\nmj.registry.get('${name}').connect(${given})`;
  return {
    type: 'registry.results',
    id,
    query: 'server',
    registry: 'http://127.0.0.1:8790',
    servers: [
      {
        name: 'io.github.modelcontextprotocol/server-everything',
        title: '',
        description:
          'MCP server that exercises all the features of the MCP protocol',
        version: '2026.8.31',
        runs: 'npm (npx, stdio) · npm (npx, streamable-http)',
        repository: 'https://github.com/modelcontextprotocol/servers',
        updated: '2026-08-31T12:00:00Z',
        secrets: [],
        needs: [],
        code: code('io.github.modelcontextprotocol/server-everything'),
        run: true,
        stale: false
      },
      {
        name: 'io.github.domdomegg/airtable-mcp-server',
        title: '',
        description:
          'Read and write access to Airtable database schemas, tables, and records.',
        version: '1.7.3',
        runs: 'npm (npx, stdio) · oci (docker, stdio) · mcpb (stdio)',
        repository: 'https://github.com/domdomegg/airtable-mcp-server.git',
        updated: '2025-09-09T16:00:00Z',
        secrets: ['AIRTABLE_API_KEY'],
        needs: ['AIRTABLE_API_KEY'],
        code: code('io.github.domdomegg/airtable-mcp-server'),
        run: false,
        stale: false
      },
      {
        name: 'io.github.modelcontextprotocol/server-filesystem',
        title: '',
        description: 'MCP server for filesystem access',
        version: '2026.8.31',
        runs: 'npm (npx, stdio)',
        repository: 'https://github.com/modelcontextprotocol/servers',
        updated: '2026-08-31T12:00:00Z',
        secrets: [],
        needs: ['allowed_directory'],
        code: code(
          'io.github.modelcontextprotocol/server-filesystem',
          "arguments={'allowed_directory': '...'}"
        ),
        run: false,
        stale: false
      }
    ],
    stale: false,
    error: null,
    ...extra
  };
}
