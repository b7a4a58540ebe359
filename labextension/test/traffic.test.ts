import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { McpChannel } from '../src/channel';
import { timelineCode } from '../src/codegen';
import { Connection } from '../src/components/Connection';
import {
  IConnectionInfo,
  ISnapshot,
  parseKernelMessage,
  parseSnapshot
} from '../src/messages';
import { IMcpChannel } from '../src/tokens';
import { connectionView, latencyText, trafficView } from '../src/view';
import { kernelStub, page, snapshot } from './kernel';

const demo: IConnectionInfo = {
  name: 'demo',
  transport: 'stdio',
  target: 'python -m mcp_jupyter.demo',
  server: { name: 'demo', version: '1' },
  protocol_version: '2025-11-25',
  alive: true,
  error: null,
  counts: { tools: 0, resources: 0, templates: 0, prompts: 0 },
  tools: [],
  resources: [],
  templates: [],
  prompts: [],
  traffic: { calls: 12, errors: 1, median_ms: 3.42 }
};

function render(info: IConnectionInfo, runs = true): string {
  const actions = { write: () => undefined, runs, code: { magics: true } };
  return renderToStaticMarkup(
    React.createElement(Connection, {
      view: connectionView(info),
      filtering: false,
      actions,
      channel: null
    })
  );
}

describe('traffic at a glance', () => {
  it("reads the snapshot's numbers and refuses what is not a count", () => {
    const parsed = parseSnapshot(snapshot([], [demo]));
    expect(parsed.connections[0].traffic).toEqual({
      calls: 12,
      errors: 1,
      median_ms: 3.42
    });
    const odd = (traffic: unknown) =>
      parseSnapshot(snapshot([], [{ ...demo, traffic }])).connections[0]
        .traffic;
    expect(odd(undefined)).toBeNull(); // an older kernel sends none
    expect(odd({ calls: '12', errors: 0 })).toBeNull();
    expect(odd({ calls: -1, errors: 0 })).toBeNull();
    expect(odd({ calls: 2, errors: 0, median_ms: 'fast' })).toEqual({
      calls: 2,
      errors: 0,
      median_ms: null
    });
  });

  it('prints calls, errors and the median latency', () => {
    const view = trafficView({ calls: 1, errors: 0, median_ms: null });
    expect([view.calls, view.errors, view.median]).toEqual([
      '1 call',
      '0 errors',
      ''
    ]);
    expect(latencyText(0.4234)).toBe('0.42 ms');
    expect(latencyText(3.42)).toBe('3.4 ms');
    expect(latencyText(27.6)).toBe('28 ms');
    expect(latencyText(1340)).toBe('1.3 s');
  });

  it('shows them under the connection, the errors framed only when there are some', () => {
    const html = render(demo);
    expect(html).toContain(
      'data-calls="12" data-errors="1" data-median-ms="3.42"'
    );
    expect(html).toContain('<span class="mcpj-traffic-calls">12 calls</span>');
    expect(html).toContain(
      '<span class="mcpj-tag mcpj-traffic-errors mcpj-traffic-failed">1 error</span>'
    );
    expect(html).toContain('median 3.4 ms');
    const clean = render({
      ...demo,
      traffic: { calls: 3, errors: 0, median_ms: 12 }
    });
    expect(clean).toContain(
      '<span class="mcpj-traffic-errors">0 errors</span>'
    );
    expect(render({ ...demo, traffic: null })).not.toContain(
      'mcpj-connection-traffic'
    );
  });

  it('offers Timeline, whose tooltip says whether the written cell runs', () => {
    expect(render(demo, true)).toContain(
      'title="Insert and run %mcp timeline">Timeline</button>'
    );
    expect(render(demo, false)).toContain(
      'title="Insert %mcp timeline">Timeline</button>'
    );
  });

  it('writes %mcp timeline NAME, or Python for a name the magic would split', () => {
    expect(timelineCode('demo')).toBe('%mcp timeline demo');
    expect(timelineCode('demo', { magics: false })).toBe(
      '%load_ext mcp_jupyter\n%mcp timeline demo'
    );
    expect(timelineCode('my server $x')).toBe(
      'import mcp_jupyter as mj\nmj.timeline(mj.get_connection("my server $x"))'
    );
  });

  it('merges a traffic message into the snapshot, between snapshots', async () => {
    const { kernel, deliver } = kernelStub();
    const channel = new McpChannel(kernel as never, page, () => undefined);
    const seen: (ISnapshot | null)[] = [];
    channel.snapshotChanged.connect(
      (_: IMcpChannel, s: ISnapshot | null) => void seen.push(s)
    );
    await new Promise(resolve => setTimeout(resolve, 0));
    const other = { ...demo, name: 'other', traffic: null };
    deliver(snapshot([], [demo, other]));
    deliver({
      type: 'traffic',
      connections: {
        demo: { calls: 40, errors: 2, median_ms: 1.5 },
        gone: { calls: 1, errors: 0, median_ms: 1 },
        other: 'not numbers'
      }
    });
    expect(seen).toHaveLength(2);
    const [a, b] = channel.snapshot!.connections;
    expect(a.traffic).toEqual({ calls: 40, errors: 2, median_ms: 1.5 });
    expect(b.traffic).toBeNull(); // not named with numbers: kept as it was
    expect(channel.snapshot!.connections.map(c => c.name)).toEqual([
      'demo',
      'other'
    ]);
    expect(seen[0]!.connections[0].traffic?.calls).toBe(12); // a new snapshot, the old one untouched
  });

  it('parses a traffic message before any snapshot without failing', () => {
    expect(parseKernelMessage({ type: 'traffic', connections: null })).toEqual({
      type: 'traffic',
      connections: {}
    });
  });
});
