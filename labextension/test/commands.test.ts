import { describe, expect, it } from 'vitest';

import {
  addCommands,
  CommandIDs,
  CommandRegistryLike,
  ICommandHost,
  PaletteLike,
  PALETTE_CATEGORY
} from '../src/commands';
import { ENGLISH } from '../src/i18n';
import { FrontendMessage, IConfiguredServer, ISnapshot } from '../src/messages';
import { IMcpChannel } from '../src/tokens';

type Options = Parameters<CommandRegistryLike['addCommand']>[1];

/** A registry that keeps what was registered (JupyterLab's needs a DOM; the browser test uses it). */
class Registry implements CommandRegistryLike {
  readonly commands = new Map<string, Options>();

  addCommand(
    id: string,
    options: Options
  ): ReturnType<CommandRegistryLike['addCommand']> {
    if (this.commands.has(id)) {
      throw new Error(`Command '${id}' already registered.`);
    }
    this.commands.set(id, options);
    return { isDisposed: false, dispose: () => this.commands.delete(id) };
  }

  label(id: string, args = {}): string {
    const label = this.commands.get(id)!.label;
    return typeof label === 'function' ? label(args) : String(label);
  }

  enabled(id: string, args = {}): boolean {
    const isEnabled = this.commands.get(id)!.isEnabled;
    return isEnabled ? isEnabled(args) : true;
  }

  execute(id: string, args = {}): unknown {
    return this.commands.get(id)!.execute(args);
  }
}

const SERVERS: IConfiguredServer[] = [
  {
    name: 'files',
    source: '/home/a/mcp.json',
    transport: 'stdio',
    target: 'npx files'
  },
  {
    name: 'weird name',
    source: '/home/a/other.json',
    transport: 'http',
    target: 'https://x'
  }
];

function setup(
  open = true,
  configured = SERVERS,
  pick: IConfiguredServer | null = null
) {
  const sent: FrontendMessage[] = [];
  const written: string[] = [];
  const warnings: string[] = [];
  const asked: IConfiguredServer[][] = [];
  let opened = 0;
  const snapshot: ISnapshot = {
    connections: [],
    configured,
    inbox: [],
    magics: true
  };
  const channel = {
    isOpen: open,
    snapshot: open ? snapshot : null,
    send: (msg: FrontendMessage) => (sent.push(msg), open)
  } as unknown as IMcpChannel;
  const host: ICommandHost = {
    openSidebar: () => void opened++,
    channel: () => channel,
    writeCode: async code => void written.push(code),
    askServer: async servers => (asked.push(servers), pick),
    warn: message => void warnings.push(message)
  };
  const registry = new Registry();
  const palette: { command: string; category: string }[] = [];
  const paletteLike: PaletteLike = {
    addItem: item => (
      palette.push({ command: item.command, category: item.category }),
      { isDisposed: false, dispose: () => undefined }
    )
  };
  addCommands(registry, host, ENGLISH, paletteLike);
  return {
    registry,
    palette,
    sent,
    written,
    warnings,
    asked,
    opened: () => opened
  };
}

describe('addCommands', () => {
  it('registers the three commands, each in the palette under MCP', () => {
    const { registry, palette } = setup();
    expect([...registry.commands.keys()]).toEqual([
      'mcp-jupyter:open-sidebar',
      'mcp-jupyter:refresh',
      'mcp-jupyter:connect-server'
    ]);
    expect(palette).toEqual(
      [...registry.commands.keys()].map(command => ({
        command,
        category: PALETTE_CATEGORY
      }))
    );
    expect(registry.label(CommandIDs.openSidebar)).toBe('Open sidebar');
    expect(registry.label(CommandIDs.connectServer)).toBe(
      'Connect a configured server…'
    );
    expect(registry.label(CommandIDs.connectServer, { name: 'files' })).toBe(
      'Connect files'
    );
  });

  it('opens the sidebar and refreshes over the channel', () => {
    const { registry, sent, opened } = setup();
    registry.execute(CommandIDs.openSidebar);
    expect(opened()).toBe(1);
    registry.execute(CommandIDs.refresh);
    expect(sent).toEqual([{ type: 'refresh' }]);
  });

  it('is disabled while the kernel has no open channel', () => {
    const { registry } = setup(false);
    expect(registry.enabled(CommandIDs.refresh)).toBe(false);
    expect(registry.enabled(CommandIDs.connectServer)).toBe(false);
    expect(registry.enabled(CommandIDs.openSidebar)).toBe(true);
  });

  it('connects a server named in its args, writing the same code as the sidebar', async () => {
    const { registry, written, asked } = setup();
    await registry.execute(CommandIDs.connectServer, { name: 'files' });
    await registry.execute(CommandIDs.connectServer, { name: 'weird name' });
    expect(written).toEqual([
      '%mcp connect --config /home/a/mcp.json files',
      'import mcp_jupyter as mj\nmj.connect_config("/home/a/other.json", names=["weird name"])'
    ]);
    expect(asked).toEqual([]);
  });

  it('asks which server without a name, and does nothing when the person cancels', async () => {
    const chosen = setup(true, SERVERS, SERVERS[0]);
    await chosen.registry.execute(CommandIDs.connectServer);
    expect(chosen.asked).toEqual([SERVERS]);
    expect(chosen.written).toEqual([
      '%mcp connect --config /home/a/mcp.json files'
    ]);
    const cancelled = setup(true, SERVERS, null);
    await cancelled.registry.execute(CommandIDs.connectServer, {});
    expect(cancelled.written).toEqual([]);
  });

  it('says why when the server is unknown or there is none', async () => {
    const unknown = setup();
    await unknown.registry.execute(CommandIDs.connectServer, { name: 'nope' });
    expect(unknown.written).toEqual([]);
    expect(unknown.warnings[0]).toContain('No configured server is named nope');
    const none = setup(true, []);
    await none.registry.execute(CommandIDs.connectServer);
    expect(none.asked).toEqual([]);
    expect(none.warnings[0]).toContain('found no configured servers');
  });
});
