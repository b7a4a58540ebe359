import { describe, expect, it } from 'vitest';

import {
  isKernelMessage,
  KernelMessage,
  parseInboxItem,
  parseKernelMessage
} from '../src/messages';
import { registryResults } from './kernel';

// What mcp_jupyter/lab/_snapshot.py sends (one connection, one configured server, one request of each kind).
const SNAPSHOT = {
  type: 'snapshot',
  connections: [
    {
      name: 'demo',
      transport: 'stdio',
      target: 'python -m mcp_jupyter.demo',
      server: { name: 'demo', version: '1.0' },
      protocol_version: '2025-11-25',
      alive: true,
      error: null,
      counts: { tools: 1, resources: 0, templates: 0, prompts: 0 },
      tools: [
        {
          name: 'add',
          title: null,
          description: 'Adds',
          has_app: false,
          visibility: ['app']
        }
      ],
      resources: [],
      templates: [],
      prompts: []
    }
  ],
  configured: [
    {
      name: 'cfg',
      source: '/x/mcp.json',
      transport: 'stdio',
      target: 'python',
      disabled: false
    }
  ],
  inbox: [
    {
      id: 'a',
      kind: 'elicitation',
      connection: 'demo',
      title: 'Name?',
      created: 1.5,
      payload: { message: 'Name?' }
    },
    {
      id: 'b',
      kind: 'sampling',
      connection: 'demo',
      title: 't',
      created: 2,
      payload: { state: 'review', draft: { text: 'hi', model: 'm' } }
    },
    {
      id: 'c',
      kind: 'roots',
      connection: 'demo',
      title: 'r',
      created: 3,
      payload: { roots: [{ uri: 'file:///x' }] }
    },
    {
      id: 'd',
      kind: 'telepathy',
      connection: 'demo',
      title: '?',
      created: 4,
      payload: {}
    }
  ],
  magics: true
};

describe('parseKernelMessage', () => {
  it('reads a snapshot, keeping tool visibility and leaving out unknown inbox kinds', () => {
    const msg = parseKernelMessage(SNAPSHOT);
    expect(msg?.type).toBe('snapshot');
    if (!isKernelMessage(msg, 'snapshot')) {
      throw new Error('not a snapshot');
    }
    expect(msg.connections[0].tools[0].visibility).toEqual(['app']);
    expect(msg.configured.map(s => s.name)).toEqual(['cfg']);
    expect(msg.inbox.map(i => [i.id, i.kind])).toEqual([
      ['a', 'elicitation'],
      ['b', 'sampling'],
      ['c', 'roots']
    ]);
    expect(msg.magics).toBe(true);
    const sampling = msg.inbox[1];
    expect(sampling.kind === 'sampling' && sampling.payload.draft?.text).toBe(
      'hi'
    );
  });

  it('defaults a snapshot without lists (an older kernel) to empty ones', () => {
    expect(parseKernelMessage({ type: 'snapshot' })).toEqual({
      type: 'snapshot',
      connections: [],
      configured: [],
      inbox: [],
      magics: undefined
    });
    // entries that are not objects with a name are dropped, not rendered as "undefined"
    const odd = parseKernelMessage({
      type: 'snapshot',
      connections: [null, 3, { name: 'ok' }],
      configured: 'x'
    });
    expect(
      isKernelMessage(odd, 'snapshot') && odd.connections.map(c => c.name)
    ).toEqual(['ok']);
    expect(isKernelMessage(odd, 'snapshot') && odd.configured).toEqual([]);
  });

  it('reads the other kernel messages (inbox.py, channel.py, apps.py, signin.py)', () => {
    const cases: [unknown, KernelMessage][] = [
      [
        {
          type: 'answer.error',
          id: 'a',
          errors: [{ path: ['name'], message: 'required' }, 'junk']
        },
        {
          type: 'answer.error',
          id: 'a',
          errors: [{ path: ['name'], message: 'required' }]
        }
      ],
      [
        { type: 'error', message: 'this kernel speaks channel protocol 1' },
        { type: 'error', message: 'this kernel speaks channel protocol 1' }
      ],
      [
        {
          type: 'app.response',
          app_id: 'x',
          request_id: 'r-1',
          result: { content: [] }
        },
        {
          type: 'app.response',
          app_id: 'x',
          request_id: 'r-1',
          result: { content: [] }
        }
      ],
      [
        {
          type: 'app.response',
          app_id: 'x',
          request_id: 'r-2',
          error: { code: -32601, message: 'no' }
        },
        {
          type: 'app.response',
          app_id: 'x',
          request_id: 'r-2',
          error: { code: -32601, message: 'no' }
        }
      ],
      [
        {
          type: 'auth.signin',
          id: 's',
          server: 'secure',
          host: 'auth.example',
          url: 'https://auth.example/a',
          deadline: 9,
          via: 'route',
          blocked: true
        },
        {
          type: 'auth.signin',
          id: 's',
          server: 'secure',
          host: 'auth.example',
          url: 'https://auth.example/a',
          deadline: 9,
          via: 'route',
          blocked: true
        }
      ],
      [
        { type: 'auth.done', id: 's', outcome: 'signed-in' },
        { type: 'auth.done', id: 's', outcome: 'signed-in' }
      ],
      [
        { type: 'auth.paste.error', id: 's', message: 'wrong state' },
        { type: 'auth.paste.error', id: 's', message: 'wrong state' }
      ]
    ];
    for (const [data, expected] of cases) {
      expect(parseKernelMessage(data)).toEqual(expected);
    }
  });

  it('normalizes loose fields: ids to strings, a missing blocked to false, an odd outcome to stopped', () => {
    expect(
      parseKernelMessage({ type: 'auth.signin', id: 7, server: 'x' })
    ).toMatchObject({ id: '7', blocked: false, url: '' });
    expect(
      parseKernelMessage({ type: 'auth.done', id: 's', outcome: '???' })
    ).toMatchObject({ outcome: 'stopped' });
    expect(
      parseKernelMessage({
        type: 'app.response',
        app_id: 1,
        request_id: 2,
        error: { code: 'x' }
      })
    ).toEqual({
      type: 'app.response',
      app_id: '1',
      request_id: '2',
      error: { code: -32000, message: '' }
    });
  });

  it("reads Find servers' results (registry.py): every server with its Connect cell and whether to run it", () => {
    const parsed = parseKernelMessage(registryResults('r1'));
    expect(isKernelMessage(parsed, 'registry.results')).toBe(true);
    if (!isKernelMessage(parsed, 'registry.results')) {
      return;
    }
    expect(parsed).toMatchObject({
      id: 'r1',
      query: 'server',
      registry: 'http://127.0.0.1:8790',
      stale: false,
      error: null
    });
    expect(parsed.servers.map(s => [s.name, s.run, s.needs])).toEqual([
      ['io.github.modelcontextprotocol/server-everything', true, []],
      ['io.github.domdomegg/airtable-mcp-server', false, ['AIRTABLE_API_KEY']],
      [
        'io.github.modelcontextprotocol/server-filesystem',
        false,
        ['allowed_directory']
      ]
    ]);
    expect(parsed.servers[0]).toMatchObject({
      title: null, // '' from the kernel: no title
      version: '2026.8.31',
      runs: 'npm (npx, stdio) · npm (npx, streamable-http)',
      updated: '2026-08-31T12:00:00Z',
      secrets: [],
      stale: false
    });
  });

  it('keeps only registry servers with a name and a cell; a missing run means do not run', () => {
    const parsed = parseKernelMessage({
      type: 'registry.results',
      id: 4,
      servers: [
        { name: 'a/b', code: 'x' },
        { name: 'no/code' },
        { code: 'no name' },
        { name: '', code: 'x' },
        'junk',
        { name: 'c/d', code: 'y', run: 'yes', secrets: 'S', needs: [1] }
      ],
      stale: true,
      error: 'could not use the MCP Registry at http://127.0.0.1:1'
    });
    expect(parsed).toMatchObject({
      type: 'registry.results',
      id: '4',
      query: '',
      stale: true,
      error: 'could not use the MCP Registry at http://127.0.0.1:1'
    });
    const servers = isKernelMessage(parsed, 'registry.results')
      ? parsed.servers
      : [];
    expect(servers.map(s => [s.name, s.run, s.secrets, s.needs])).toEqual([
      ['a/b', false, [], []],
      ['c/d', false, [], ['1']]
    ]);
  });

  it('refuses what is not a known message', () => {
    for (const data of [
      null,
      'snapshot',
      [],
      {},
      { type: 3 },
      { type: 'hello' },
      { type: 'app.event' },
      { type: 'answer.error' },
      { type: 'app.response', app_id: 'x' },
      { type: 'auth.done' },
      { type: 'registry.results', servers: [] }
    ]) {
      expect(parseKernelMessage(data)).toBeNull();
    }
  });
});

describe('isKernelMessage', () => {
  it('narrows on the type', () => {
    const msg = parseKernelMessage({
      type: 'auth.done',
      id: 's',
      outcome: 'stopped'
    });
    expect(isKernelMessage(msg, 'auth.done')).toBe(true);
    expect(isKernelMessage(msg, 'auth.signin')).toBe(false);
    expect(isKernelMessage(null, 'snapshot')).toBe(false);
  });
});

describe('parseInboxItem', () => {
  it('gives every item a payload object and string texts', () => {
    expect(
      parseInboxItem({
        id: 1,
        kind: 'roots',
        connection: 'demo',
        created: '2026',
        payload: null
      })
    ).toEqual({
      id: '1',
      kind: 'roots',
      connection: 'demo',
      title: '',
      created: '2026',
      payload: {}
    });
    expect(parseInboxItem({ kind: 'roots' })).toBeNull();
  });
});
