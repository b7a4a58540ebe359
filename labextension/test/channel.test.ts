import { describe, expect, it } from 'vitest';

import { McpChannel } from '../src/channel';
import { KernelMessage } from '../src/messages';
import { IMcpChannel } from '../src/tokens';
import { kernelStub, page } from './kernel';

describe('McpChannel', () => {
  it('says it is open before it passes on its first message, so listeners added then get it', async () => {
    const { kernel, comm, deliver } = kernelStub();
    const received: KernelMessage[] = [];
    const channel = new McpChannel(kernel as never, page, (c: McpChannel) => {
      // what the sign-in plugin does when a channel opens
      if (c.isOpen) {
        c.messageReceived.connect(
          (_: IMcpChannel, msg: KernelMessage) => void received.push(msg)
        );
      }
    });
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(comm.opened).toEqual([
      { type: 'hello', protocol: 1, page: await page() }
    ]);
    // a sign-in that began before the hello is the first message, ahead of the snapshot
    deliver({
      type: 'auth.signin',
      id: 's',
      server: 'secure',
      host: 'h',
      url: 'https://h/a',
      blocked: true
    });
    deliver({ type: 'snapshot', connections: [], configured: [], inbox: [] });
    expect(received.map(m => m.type)).toEqual(['auth.signin', 'snapshot']);
    expect(channel.snapshot).toEqual({
      connections: [],
      configured: [],
      inbox: [],
      magics: undefined
    });
  });

  it('passes on only the messages it knows, parsed', async () => {
    const { kernel, deliver } = kernelStub();
    const received: KernelMessage[] = [];
    const channel = new McpChannel(kernel as never, page, () => undefined);
    channel.messageReceived.connect(
      (_: IMcpChannel, msg: KernelMessage) => void received.push(msg)
    );
    await new Promise(resolve => setTimeout(resolve, 0));
    deliver({ type: 'app.event', whatever: 1 });
    deliver('not an object');
    deliver({ type: 'answer.error', id: 7, errors: [] });
    expect(received).toEqual([{ type: 'answer.error', id: '7', errors: [] }]);
    expect(channel.isOpen).toBe(true); // an unknown message still says the kernel has mcp_jupyter
  });
});
