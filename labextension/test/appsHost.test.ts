import { describe, expect, it } from 'vitest';

import { METHOD_NOT_FOUND, RpcError, INVALID_PARAMS } from '../src/apps/bridge';
import { ConsentQueue } from '../src/apps/consents';
import {
  AppHostProtocol,
  IHostProtocolOptions
} from '../src/apps/hostProtocol';
import { KernelRequests } from '../src/apps/kernelRequests';
import {
  APPS_PROTOCOL_VERSION,
  IOpenedApp,
  MAX_HEIGHT
} from '../src/apps/protocol';
import { hostStyles, look, StyleSource } from '../src/apps/theming';
import { McpChannels } from '../src/channel';
import { ENGLISH } from '../src/i18n';
import { IMcpChannel } from '../src/tokens';
import { kernelStub, page, settle } from './kernel';

const APP: IOpenedApp = {
  html: '<p>app</p>',
  csp: { connectDomains: ['https://api.example.com'] },
  permissions: null,
  prefersBorder: null,
  tool: { name: 'show' },
  input: { city: 'Oslo' },
  result: { content: [{ type: 'text', text: 'ok' }] }
};

/** A page whose computed style has two of JupyterLab's theme variables. */
const STYLE: StyleSource = {
  getPropertyValue: (name: string) =>
    ({ '--jp-layout-color0': ' #111 ', '--jp-ui-font-family': 'Inter' })[
      name
    ] ?? ''
};

/** The protocol with stand-ins for the frame, the kernel and the person, and what reached each. */
function setUp(answer = true) {
  const notified: [string, unknown][] = [];
  const kernel: [string, unknown][] = [];
  const asked: string[] = [];
  const opened: string[] = [];
  const heights: number[] = [];
  let closed = 0;
  const options: IHostProtocolOptions = {
    app: APP,
    appName: 'Viewer (pdf)',
    notify: (method, params) => void notified.push([method, params]),
    kernel: async (method, params) => {
      kernel.push([method, params]);
      return { from: 'kernel' };
    },
    ask: async question => {
      asked.push(`${question.kind}|${question.question}|${question.detail}`);
      return answer;
    },
    look: () => look('dark', STYLE),
    width: () => 640,
    resize: height => void heights.push(height),
    close: () => void closed++,
    openLink: url => void opened.push(url),
    version: 'lab-4.6',
    trans: ENGLISH
  };
  const protocol = new AppHostProtocol(options);
  return {
    protocol,
    notified,
    kernel,
    asked,
    opened,
    heights,
    closed: () => closed
  };
}

describe('theming', () => {
  it("gives the app JupyterLab's theme variables under the spec's names, set ones only", () => {
    expect(hostStyles(STYLE)).toEqual({
      '--color-background-primary': '#111',
      '--font-sans': 'Inter'
    });
    expect(look('light', STYLE).theme).toBe('light');
  });
});

describe('AppHostProtocol', () => {
  it('answers ui/initialize with its version, capabilities and the host context', async () => {
    const { protocol } = setUp();
    const result = (await protocol.handleRequest('ui/initialize', {
      protocolVersion: '1999-01-01'
    })) as Record<string, Record<string, unknown>>;
    expect(result.protocolVersion).toBe(APPS_PROTOCOL_VERSION);
    expect(result.hostInfo).toEqual({
      name: 'mcp-jupyter',
      version: 'lab-4.6'
    });
    expect(result.hostCapabilities.sandbox).toEqual({
      csp: APP.csp,
      permissions: undefined
    });
    expect(result.hostContext).toMatchObject({
      toolInfo: { tool: { name: 'show' } },
      theme: 'dark',
      styles: { variables: { '--color-background-primary': '#111' } },
      displayMode: 'inline',
      containerDimensions: { width: 640, maxHeight: MAX_HEIGHT },
      userAgent: 'mcp-jupyter/lab-4.6 JupyterLab',
      platform: 'web'
    });
  });

  it('sends the HTML once, then the tool input and result once the app is initialized', () => {
    const { protocol, notified } = setUp();
    protocol.handleNotification('ui/notifications/sandbox-proxy-ready', {});
    protocol.handleNotification('ui/notifications/sandbox-proxy-ready', {});
    expect(notified).toEqual([
      [
        'ui/notifications/sandbox-resource-ready',
        { html: APP.html, csp: APP.csp, permissions: undefined }
      ]
    ]);
    protocol.lookChanged(); // not initialized yet: nothing to tell
    expect(notified).toHaveLength(1);

    protocol.handleNotification('ui/notifications/initialized', {});
    protocol.handleNotification('ui/notifications/initialized', {});
    expect(protocol.initialized).toBe(true);
    expect(notified.slice(1)).toEqual([
      ['ui/notifications/tool-input', { arguments: APP.input }],
      ['ui/notifications/tool-result', APP.result]
    ]);

    protocol.lookChanged();
    expect(notified[3]).toEqual([
      'ui/notifications/host-context-changed',
      look('dark', STYLE)
    ]);
  });

  it('forwards server methods and log messages to the kernel, and refuses unknown methods', async () => {
    const { protocol, kernel } = setUp();
    expect(
      await protocol.handleRequest('tools/call', { name: 'x', arguments: {} })
    ).toEqual({ from: 'kernel' });
    protocol.handleNotification('notifications/message', { level: 'info' });
    expect(kernel).toEqual([
      ['tools/call', { name: 'x', arguments: {} }],
      ['notifications/message', { level: 'info' }]
    ]);
    const refused = protocol.handleRequest('sampling/createMessage', {});
    await expect(refused).rejects.toBeInstanceOf(RpcError);
    await expect(refused).rejects.toMatchObject({ code: METHOD_NOT_FOUND });
    expect(await protocol.handleRequest('ping', undefined)).toEqual({});
  });

  it('opens a link only after the person allows it, and only an http(s) one', async () => {
    const allowed = setUp(true);
    expect(
      await allowed.protocol.handleRequest('ui/open-link', {
        url: 'https://example.com/a'
      })
    ).toEqual({});
    expect(allowed.asked).toEqual([
      'open-link|Viewer (pdf): The app wants to open a link in a new tab:|https://example.com/a'
    ]);
    expect(allowed.opened).toEqual(['https://example.com/a']);
    await expect(
      allowed.protocol.handleRequest('ui/open-link', { url: 'javascript:1' })
    ).rejects.toMatchObject({ code: INVALID_PARAMS });

    const denied = setUp(false);
    expect(
      await denied.protocol.handleRequest('ui/open-link', {
        url: 'https://example.com/a'
      })
    ).toEqual({ isError: true });
    expect(denied.opened).toEqual([]);
  });

  it('sends a message to the kernel only after the person allows it', async () => {
    const content = [{ type: 'text', text: 'hi' }, { type: 'image' }];
    const denied = setUp(false);
    expect(
      await denied.protocol.handleRequest('ui/message', { content })
    ).toEqual({ isError: true });
    expect(denied.asked).toEqual([
      'message|Viewer (pdf): The app wants to send this message:|hi\n[image]'
    ]);
    expect(denied.kernel).toEqual([]);

    const allowed = setUp(true);
    await allowed.protocol.handleRequest('ui/message', { content });
    expect(allowed.kernel).toEqual([['ui/message', { role: 'user', content }]]);
  });

  it('resizes within bounds and closes when the app asks', () => {
    const { protocol, heights, closed } = setUp();
    protocol.handleNotification('ui/notifications/size-changed', {
      height: 10
    });
    protocol.handleNotification('ui/notifications/size-changed', {
      height: 'tall'
    });
    protocol.handleNotification('ui/notifications/size-changed', null);
    protocol.handleNotification('ui/notifications/size-changed', {
      height: 99999
    });
    expect(heights).toEqual([40, MAX_HEIGHT]);
    protocol.handleNotification('ui/notifications/request-teardown', {});
    expect(closed()).toBe(1);
  });
});

describe('KernelRequests', () => {
  async function openChannel() {
    const stub = kernelStub();
    const channel = new McpChannels(page).channelFor(
      stub.kernel as never
    ) as IMcpChannel;
    await settle();
    stub.deliver({
      type: 'snapshot',
      connections: [],
      configured: [],
      inbox: []
    });
    return { ...stub, channel };
  }

  it("sends app.request and settles with the kernel's app.response for this app", async () => {
    const { channel, comm, deliver } = await openChannel();
    const requests = new KernelRequests(channel, 'app-1', 'not connected');
    const result = requests.request('tools/call', { name: 'x' });
    const failure = requests.request('resources/read', { uri: 'u' });
    const [first, second] = comm.sent as { request_id: string }[];
    expect(comm.sent[0]).toMatchObject({
      type: 'app.request',
      app_id: 'app-1',
      method: 'tools/call',
      params: { name: 'x' }
    });
    expect(first.request_id).not.toBe(second.request_id);
    // another app's answer with the same request id is not ours
    deliver({
      type: 'app.response',
      app_id: 'app-2',
      request_id: first.request_id,
      result: 'theirs'
    });
    deliver({
      type: 'app.response',
      app_id: 'app-1',
      request_id: first.request_id,
      result: { content: [] }
    });
    deliver({
      type: 'app.response',
      app_id: 'app-1',
      request_id: second.request_id,
      error: { code: -32602, message: 'no such resource' }
    });
    expect(await result).toEqual({ content: [] });
    await expect(failure).rejects.toMatchObject({
      code: -32602,
      message: 'no such resource'
    });
    requests.dispose();
  });

  it('fails what still waits when the app closes, and what the channel cannot send', async () => {
    const { channel, kernel } = await openChannel();
    const requests = new KernelRequests(channel, 'app-1', 'not connected');
    const waiting = requests.request('tools/call', {});
    requests.dispose();
    await expect(waiting).rejects.toThrow('the app was closed');
    await expect(requests.request('tools/call', {})).rejects.toThrow(
      'not connected'
    );

    const again = new KernelRequests(channel, 'app-1', 'not connected');
    kernel.statusChanged.emit('restarting'); // the comm is dropped
    await expect(again.request('tools/call', {})).rejects.toThrow(
      'not connected'
    );
    again.dispose();
  });
});

describe('ConsentQueue', () => {
  const question = {
    kind: 'open-link',
    question: 'Open?',
    detail: 'https://a',
    allowLabel: 'Open'
  };

  it('shows each question until it is answered, oldest first', async () => {
    const queue = new ConsentQueue();
    const seen: number[] = [];
    queue.changed.connect((_, consents) => void seen.push(consents.length));
    const first = queue.ask(question);
    const second = queue.ask({ ...question, kind: 'message' });
    expect(queue.consents.map(c => c.kind)).toEqual(['open-link', 'message']);
    queue.consents[1].answer(true);
    queue.consents[0].answer(false);
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    expect(seen).toEqual([1, 2, 1, 0]);
  });

  it('denies every waiting question when the app goes away', async () => {
    const queue = new ConsentQueue();
    const asked = [queue.ask(question), queue.ask(question)];
    queue.denyAll();
    expect(await Promise.all(asked)).toEqual([false, false]);
    expect(queue.consents).toEqual([]);
  });
});
