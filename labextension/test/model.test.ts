import { describe, expect, it } from 'vitest';

import { McpChannels } from '../src/channel';
import { SidebarChange, SidebarModel } from '../src/model';
import { DEFAULT_SETTINGS } from '../src/settings';
import {
  ELICITATION,
  kernelStub,
  page,
  registryResults,
  settle,
  snapshot
} from './kernel';

/** A model on the real channel service, a kernel stand-in per notebook, and the changes it emitted. */
function setUp() {
  const channels = new McpChannels(page);
  const model = new SidebarModel(channels);
  const changes: SidebarChange[] = [];
  model.changed.connect((_, change) => void changes.push(change));
  return { channels, model, changes };
}

describe('SidebarModel', () => {
  it("follows the active notebook's kernel: its channel opens, then its snapshots arrive", async () => {
    const { model, changes } = setUp();
    const { kernel, deliver } = kernelStub();
    expect(model.channel).toBeNull();

    model.follow(kernel as never, 'demo.ipynb');
    await settle(); // the channel sends its hello
    expect(changes).toEqual(['notebook', 'channel']);
    expect(model.notebook).toBe('demo.ipynb');
    expect(model.channel?.kernel).toBe(kernel);
    expect(model.isOpen).toBe(false); // the kernel has not answered: no mcp_jupyter yet
    expect(model.snapshot).toBeNull();

    changes.length = 0;
    deliver(snapshot([ELICITATION]));
    expect(changes).toEqual(['channel', 'snapshot']);
    expect(model.isOpen).toBe(true);
    expect(model.inbox.map(item => item.id)).toEqual(['e1']);
  });

  it('emits nothing when the same notebook and kernel are followed again', async () => {
    const { model, changes } = setUp();
    const { kernel } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    changes.length = 0;
    model.follow(kernel as never, 'a.ipynb');
    expect(changes).toEqual([]);
    model.follow(kernel as never, 'renamed.ipynb');
    expect(changes).toEqual(['notebook']);
  });

  it("moves to another notebook's kernel and no longer hears the first one", async () => {
    const { model, changes } = setUp();
    const first = kernelStub();
    const second = kernelStub();
    model.follow(first.kernel as never, 'a.ipynb');
    await settle();
    first.deliver(snapshot([ELICITATION]));
    model.follow(second.kernel as never, 'b.ipynb');
    await settle();
    expect(model.snapshot).toBeNull(); // b's kernel has sent nothing yet
    expect(model.inbox).toEqual([]);

    changes.length = 0;
    first.deliver(snapshot());
    expect(changes).toEqual([]);
    second.deliver(snapshot());
    expect(changes).toEqual(['channel', 'snapshot']);

    changes.length = 0;
    model.follow(null, '');
    expect(model.channel).toBeNull();
    expect(model.isOpen).toBe(false);
    expect(changes).toEqual(['notebook', 'channel']);
  });

  it('forgets the snapshot when the kernel restarts', async () => {
    const { model, changes } = setUp();
    const { kernel, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    deliver(snapshot([ELICITATION]));
    changes.length = 0;
    kernel.statusChanged.emit('restarting');
    expect(model.snapshot).toBeNull();
    expect(model.isOpen).toBe(false);
    expect(changes).toEqual(['snapshot', 'channel']);
  });

  it('sends an answer, shows it as sent, and lets the person answer again when the kernel refuses it', async () => {
    const { model, changes } = setUp();
    const { kernel, comm, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    deliver(snapshot([ELICITATION]));
    const [item] = model.inbox;
    expect(model.answerState(item)).toEqual({ sent: '', refused: null });

    changes.length = 0;
    expect(model.answer(item, 'accept', { name: 'Ada' })).toBe(true);
    expect(comm.sent).toEqual([
      { type: 'answer', id: 'e1', action: 'accept', content: { name: 'Ada' } }
    ]);
    expect(model.answerState(item)).toEqual({ sent: 'accept', refused: null });
    expect(changes).toEqual(['answers']);

    deliver({
      type: 'answer.error',
      id: 'e1',
      errors: [{ path: ['name'], message: 'too short' }, { message: 'and' }]
    });
    expect(model.answerState(item)).toEqual({
      sent: '',
      refused: ['name: too short', 'and']
    });
    expect(changes).toEqual(['answers', 'answers']);

    // a refusal of a request that no longer waits changes nothing
    deliver({ type: 'answer.error', id: 'gone', errors: [] });
    expect(changes).toEqual(['answers', 'answers']);

    model.answer(item, 'decline');
    expect(comm.sent[1]).toEqual({
      type: 'answer',
      id: 'e1',
      action: 'decline'
    });
    expect(model.answerState(item)).toEqual({ sent: 'decline', refused: null });
  });

  it('sends nothing without an open channel', () => {
    const { model, changes } = setUp();
    const item = { ...ELICITATION, kind: 'elicitation' as const };
    expect(model.answer(item, 'accept')).toBe(false);
    expect(model.answerState(item).sent).toBe('');
    expect(changes).toEqual([]);
  });

  it('shows a sampling request that comes back for review as not answered yet', async () => {
    const { model } = setUp();
    const { kernel, deliver } = kernelStub();
    const sampling = (state: string) => ({
      id: 's1',
      kind: 'sampling',
      connection: 'demo',
      title: 'Summarise',
      created: 1,
      payload: { state, messages: [] }
    });
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    deliver(snapshot([sampling('waiting')]));
    model.answer(model.inbox[0], 'accept');
    expect(model.answerState(model.inbox[0]).sent).toBe('accept');
    deliver(snapshot([sampling('generating')]));
    expect(model.answerState(model.inbox[0]).sent).toBe('');
    deliver(snapshot([sampling('review')]));
    expect(model.answerState(model.inbox[0]).sent).toBe('');
  });

  it('takes settings and a filter, and says so only when they change', () => {
    const { model, changes } = setUp();
    expect(model.settings).toEqual(DEFAULT_SETTINGS);
    model.setSettings({ ...DEFAULT_SETTINGS });
    expect(changes).toEqual([]);
    model.setSettings({ ...DEFAULT_SETTINGS, runCells: false });
    expect(model.settings.runCells).toBe(false);
    model.setFilter('echo');
    model.setFilter('echo');
    expect(model.filter).toBe('echo');
    expect(changes).toEqual(['settings', 'filter']);
  });

  it("searches the registry through the kernel and shows the kernel's answer to the last search only", async () => {
    const { model, changes } = setUp();
    const { kernel, comm, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    expect(model.searchRegistry('time')).toBe(false); // the kernel has not answered: no open channel yet
    deliver(snapshot());
    changes.length = 0;

    expect(model.searchRegistry('time', 30)).toBe(true);
    expect(model.searchRegistry('server')).toBe(true); // typed more before the first answer
    expect(comm.sent).toEqual([
      { type: 'registry.search', id: 'registry-2', query: 'time', limit: 30 },
      { type: 'registry.search', id: 'registry-3', query: 'server' }
    ]);
    expect(model.registry).toEqual({
      query: 'server',
      pending: true,
      results: null
    });
    expect(changes).toEqual(['registry', 'registry']);

    deliver(registryResults('registry-2', { query: 'time' })); // too late: another search is out
    expect(model.registry.pending).toBe(true);
    expect(model.registry.results).toBeNull();
    expect(changes).toEqual(['registry', 'registry']);

    deliver(registryResults('registry-3'));
    expect(model.registry.pending).toBe(false);
    expect(model.registry.query).toBe('server');
    expect(model.registry.results?.servers).toHaveLength(3);
    expect(changes).toEqual(['registry', 'registry', 'registry']);

    // the next search keeps showing these until its answer comes
    model.searchRegistry('nothing');
    expect(model.registry.results?.servers).toHaveLength(3);
    deliver(
      registryResults('registry-4', {
        query: 'nothing',
        servers: [],
        error: 'could not use the MCP Registry at http://127.0.0.1:1',
        stale: false
      })
    );
    expect(model.registry.results?.error).toContain('could not use');
    expect(model.registry.results?.servers).toEqual([]);
  });

  it("forgets the registry's answers when the kernel restarts or another notebook is followed", async () => {
    const { model, changes } = setUp();
    const first = kernelStub();
    model.follow(first.kernel as never, 'a.ipynb');
    await settle();
    first.deliver(snapshot());
    model.searchRegistry('server');
    first.deliver(registryResults('registry-1'));
    expect(model.registry.results).not.toBeNull();

    changes.length = 0;
    first.kernel.statusChanged.emit('restarting');
    expect(model.registry).toEqual({
      query: '',
      pending: false,
      results: null
    });
    expect(changes).toContain('registry');

    first.deliver(snapshot()); // the restarted kernel imports mcp_jupyter again
    model.searchRegistry('time');
    const second = kernelStub();
    model.follow(second.kernel as never, 'b.ipynb');
    expect(model.registry.pending).toBe(false); // b's kernel was never asked
    first.deliver(registryResults('registry-2')); // a's answer does not show in b's sidebar
    expect(model.registry.results).toBeNull();
  });

  it('stops listening once disposed', async () => {
    const { model, changes } = setUp();
    const { kernel, deliver } = kernelStub();
    model.follow(kernel as never, 'a.ipynb');
    await settle();
    model.dispose();
    changes.length = 0;
    deliver(snapshot());
    expect(changes).toEqual([]);
    expect(model.isDisposed).toBe(true);
  });
});
