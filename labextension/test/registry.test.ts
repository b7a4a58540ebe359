import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { McpChannels } from '../src/channel';
import { FindServers } from '../src/components/FindServers';
import { isKernelMessage, parseKernelMessage } from '../src/messages';
import { IRegistrySearch, SidebarModel } from '../src/model';
import { registryHost, registryView, REGISTRY_LIMIT } from '../src/registry';
import { LIMITS } from '../src/view';
import { kernelStub, page, registryResults, settle, snapshot } from './kernel';

/** The search state after the kernel answered `data`. */
function answered(data: unknown, query = 'server'): IRegistrySearch {
  const msg = parseKernelMessage(data);
  if (!isKernelMessage(msg, 'registry.results')) {
    throw new Error('not registry.results');
  }
  return { query, pending: false, results: msg };
}

describe('registryView', () => {
  it('says nothing before the first search', () => {
    expect(
      registryView({ query: '', pending: false, results: null }, true)
    ).toEqual({ status: '', error: '', stale: false, servers: [] });
  });

  it('shows each server, what connecting needs, and whether Connect runs the cell', () => {
    const view = registryView(answered(registryResults('r')), true);
    expect(view.status).toBe('3 servers at 127.0.0.1:8790');
    expect(view.error).toBe('');
    const [everything, airtable, filesystem] = view.servers;
    expect(everything).toMatchObject({
      name: 'io.github.modelcontextprotocol/server-everything',
      label: 'server-everything',
      detail: 'io.github.modelcontextprotocol/server-everything',
      version: '2026.8.31',
      runs: 'npm (npx, stdio) · npm (npx, streamable-http)',
      needs: '',
      run: true
    });
    expect(everything.connectTitle).toBe(
      "Insert and run: import mcp_jupyter as mj\n\nmj.registry.get('io.github.modelcontextprotocol/server-everything').connect()"
    );
    expect(airtable.run).toBe(false);
    expect(airtable.needs).toBe(
      'needs the secret AIRTABLE_API_KEY: you type it when the cell runs'
    );
    expect(airtable.connectTitle).toMatch(/^Insert without running/);
    expect(filesystem.needs).toBe(
      'needs allowed_directory: fill it in, then run the cell'
    );
    expect(filesystem.code).toContain(
      "connect(arguments={'allowed_directory': '...'})"
    );
  });

  it('says Insert, not run, when the run setting is off', () => {
    const view = registryView(answered(registryResults('r')), false);
    expect(view.servers[0].connectTitle).toMatch(/^Insert: import/);
    expect(view.servers[1].connectTitle).toMatch(/^Insert without running/);
  });

  it('says when nothing matched, when the list is cut, and while a search is out', () => {
    const none = registryView(
      answered(registryResults('r', { query: 'zzz', servers: [] }), 'zzz'),
      true
    );
    expect(none.status).toBe(
      'No server name at 127.0.0.1:8790 contains “zzz”.'
    );
    const many = registryResults('r', {
      servers: Array.from({ length: REGISTRY_LIMIT }, (_, i) => ({
        name: `io.example/s${i}`,
        code: 'x'
      }))
    });
    expect(registryView(answered(many), true).status).toBe(
      'The first 30 servers at 127.0.0.1:8790: type more of the name to narrow them.'
    );
    const waiting = { ...answered(registryResults('r')), pending: true };
    expect(registryView(waiting, true).status).toBe(
      'Searching the registry for “server”…'
    );
    expect(registryView(waiting, true).servers).toHaveLength(3); // the last answer stays meanwhile
  });

  it('shows why the registry could not be used, and marks the last results stale', () => {
    const error =
      'could not use the MCP Registry at http://127.0.0.1:9 (connection refused): check the URL';
    const gone = registryView(
      answered(registryResults('r', { servers: [], stale: false, error })),
      true
    );
    expect(gone).toMatchObject({ error, status: '', stale: false });
    const staleServers = registryResults('r').servers.map(s => ({
      ...s,
      stale: true
    }));
    const stale = registryView(
      answered(
        registryResults('r', { servers: staleServers, stale: true, error })
      ),
      true
    );
    expect(stale.error).toBe(error);
    expect(stale.stale).toBe(true);
    expect(stale.status).toMatch(/^Showing the last results/);
    expect(stale.servers.every(s => s.stale)).toBe(true);
  });

  it("cuts a registry's huge texts", () => {
    const huge = 'x'.repeat(100_000);
    const view = registryView(
      answered(
        registryResults('r', {
          servers: [
            {
              name: huge,
              title: huge,
              description: huge,
              runs: huge,
              code: 'c'
            }
          ]
        })
      ),
      true
    );
    const [server] = view.servers;
    expect(server.label.length).toBeLessThan(LIMITS.label + 40);
    expect(
      registryView(
        answered(
          registryResults('r', {
            servers: [
              { name: 'a/b', title: 'B', code: 'c' },
              { name: 'plain', code: 'c' }
            ]
          })
        ),
        true
      ).servers.map(s => [s.label, s.detail])
    ).toEqual([
      ['B', 'a/b'],
      ['plain', '']
    ]);
    expect(server.detail.length).toBeLessThan(LIMITS.detail + 40);
    expect(server.description.length).toBeLessThan(LIMITS.description + 40);
    expect(server.runs.length).toBeLessThan(LIMITS.detail + 40);
  });

  it('names a registry by its host', () => {
    expect(registryHost('https://registry.modelcontextprotocol.io')).toBe(
      'registry.modelcontextprotocol.io'
    );
    expect(registryHost('not a url')).toBe('not a url');
  });
});

describe('FindServers', () => {
  const render = (model: SidebarModel, runs = true): string =>
    renderToStaticMarkup(
      React.createElement(FindServers, {
        model,
        actions: { write: () => undefined, runs, code: { magics: true } }
      })
    );

  it("renders the box, the kernel's results as text, and Connect on each", async () => {
    const model = new SidebarModel(new McpChannels(page));
    const { kernel, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    deliver(snapshot());
    const before = render(model);
    expect(before).toContain('placeholder="Search the MCP Registry by name"');
    expect(before).not.toContain('mcpj-registry-server');

    model.searchRegistry('server');
    expect(render(model)).toContain('aria-busy="true"');
    const hostile = {
      name: 'io.evil/x',
      description: '<img src=x onerror=alert(1)>',
      code: 'x',
      run: true
    };
    deliver(
      registryResults('registry-1', {
        servers: [...registryResults('r').servers, hostile]
      })
    );
    const html = render(model);
    expect(html).toContain('4 servers at 127.0.0.1:8790');
    expect(html).toContain(
      'data-name="io.github.domdomegg/airtable-mcp-server" data-run="false"'
    );
    expect(html).toContain(
      'data-name="io.github.modelcontextprotocol/server-everything" data-run="true"'
    );
    expect(html).toContain(
      'needs the secret AIRTABLE_API_KEY: you type it when the cell runs'
    );
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html.match(/mcpj-registry-connect/g)).toHaveLength(4);
  });

  it('shows the error in the box and tags stale servers', async () => {
    const model = new SidebarModel(new McpChannels(page));
    const { kernel, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    deliver(snapshot());
    model.searchRegistry('server');
    deliver(
      registryResults('registry-1', {
        stale: true,
        error: 'could not use the MCP Registry at http://127.0.0.1:9',
        servers: [{ ...registryResults('r').servers[0], stale: true }]
      })
    );
    const html = render(model);
    expect(html).toContain(
      'role="alert">could not use the MCP Registry at http://127.0.0.1:9</div>'
    );
    expect(html).toContain('data-stale="true"');
    expect(html).toContain('mcpj-tag mcpj-stale');
  });
});
