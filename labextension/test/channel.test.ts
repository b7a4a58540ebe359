import { describe, expect, it } from 'vitest';

import { McpChannel } from '../src/channel';
import { KernelMessage } from '../src/messages';
import { IMcpChannel } from '../src/tokens';
import { kernelStub, page, settle } from './kernel';

const hello = async () => ({ type: 'hello', protocol: 1, page: await page() });

/** A channel on a kernel without mcp_jupyter whose answers wait for `state.answer` (its first question asked). */
async function heldChannel(): Promise<ReturnType<typeof kernelStub>> {
  const stub = kernelStub({ served: false, subshells: true, held: true });
  new McpChannel(stub.kernel as never, page, () => undefined);
  await settle();
  return stub;
}

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
    await settle();
    expect(comm.opened).toEqual([await hello()]);
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
    await settle();
    deliver({ type: 'app.event', whatever: 1 });
    deliver('not an object');
    deliver({ type: 'answer.error', id: 7, errors: [] });
    expect(received).toEqual([{ type: 'answer.error', id: '7', errors: [] }]);
    expect(channel.isOpen).toBe(true); // an unknown message still says the kernel has mcp_jupyter
  });

  it('asks the kernel first and opens nothing while mcp_jupyter is not imported', async () => {
    const { kernel, comm, state } = kernelStub({ served: false });
    new McpChannel(kernel as never, page, () => undefined);
    await settle();
    expect(state.asked).toEqual([
      { target: 'mcp_jupyter.channel', subshell: null }
    ]);
    expect(comm.opened).toEqual([]);
    expect(comm.isDisposed).toBe(true);
  });

  it('asks after each cell, and opens after the one that imported mcp_jupyter', async () => {
    const { kernel, comm, state, cell } = kernelStub({ served: false });
    new McpChannel(kernel as never, page, () => undefined);
    await settle();
    cell('c1', 'x = 1')(); // a cell that does not name the package: asked once it ended
    await settle();
    expect(state.asked.length).toBe(2);
    expect(comm.opened).toEqual([]);
    const ended = cell('c2', 'import helpers  # imports mcp_jupyter itself');
    state.served = true;
    ended();
    await settle();
    expect(comm.opened).toEqual([await hello()]);
  });

  it('asks on the subshell while a cell that names mcp_jupyter runs, and opens before the cell ends', async () => {
    const { kernel, comm, state, cell } = kernelStub({
      served: false,
      subshells: true
    });
    new McpChannel(kernel as never, page, () => undefined);
    await settle();
    const ended = cell(
      'c1',
      'import mcp_jupyter as mj\nconn = mj.connect("secure", URL, auth=mj.OAuth())'
    );
    await settle(300);
    expect(state.asked.length).toBeGreaterThan(2); // still asking, on the subshell, while the cell runs
    expect(state.asked.every(a => a.subshell === 'subshell-1')).toBe(true);
    state.served = true; // the cell's import ran
    await settle(300);
    expect(comm.opened).toEqual([await hello()]);
    ended();
  });

  it('asks once more when the importing cell ends while a "no" asked before its import is on its way', async () => {
    const { comm, state, cell } = await heldChannel();
    state.answer(false); // the question on creation: nothing imported
    await settle();
    const ended = cell('c1', 'import mcp_jupyter as mj');
    await settle();
    expect(state.waiting.length).toBe(1); // asked on the subshell while the cell runs
    ended(); // the import ran and the cell's reply arrived first...
    state.answer(false); // ...then the "no" the subshell gave before the import
    await settle();
    expect(state.waiting.length).toBe(1); // asked once more, the cell having ended
    state.answer(true);
    await settle();
    expect(comm.opened).toEqual([await hello()]);
  });

  it('asks once more when a cell starts and ends while the question on creation is on its way', async () => {
    const { comm, state, cell } = await heldChannel();
    expect(state.waiting.length).toBe(1); // the question on creation, asked before any cell ran
    const ended = cell('c1', 'import mcp_jupyter as mj');
    await settle();
    ended(); // the whole importing cell ran while the question was on its way...
    state.answer(false); // ...and the subshell had answered "no" before the import
    await settle();
    expect(state.waiting.length).toBe(1); // asked once more: a cell ended meanwhile
    state.answer(true);
    await settle();
    expect(comm.opened).toEqual([await hello()]);
  });

  it('stops asking after a "no" when no cell ended while it was on its way', async () => {
    const { comm, state } = await heldChannel();
    state.answer(false);
    await settle();
    expect(state.waiting.length).toBe(0);
    expect(comm.opened).toEqual([]);
  });

  it('asks again when the kernel is idle after a restart', async () => {
    const { kernel, comm, state } = kernelStub({ served: true });
    const channel = new McpChannel(kernel as never, page, () => undefined);
    await settle();
    comm.onMsg({
      content: {
        data: { type: 'snapshot', connections: [], configured: [], inbox: [] }
      }
    });
    expect(channel.isOpen).toBe(true);
    kernel.statusChanged.emit('restarting');
    expect(channel.isOpen).toBe(false);
    state.served = false; // a fresh kernel: mcp_jupyter is not imported yet
    const asked = state.asked.length;
    kernel.statusChanged.emit('idle');
    await settle();
    expect(state.asked.length).toBe(asked + 1);
    expect(channel.isOpen).toBe(false);
  });
});
