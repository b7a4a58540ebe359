/**
 * The extension's commands, in the command palette under "MCP":
 *
 * - `mcp-jupyter:open-sidebar`: show the MCP sidebar;
 * - `mcp-jupyter:refresh`: ask the active notebook's kernel for a fresh snapshot;
 * - `mcp-jupyter:connect-server` (args `name`, optional `source`): write `%mcp connect` for a server
 *   from a config file; without a name it asks which of the kernel's configured servers.
 *
 * Only types are imported from JupyterLab here, so the registration is unit-tested without a DOM.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { ICommandPalette } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';

import { connectCode } from './codegen';
import { IConfiguredServer } from './messages';
import { IMcpChannel } from './tokens';

/** The command ids. */
export namespace CommandIDs {
  export const openSidebar = 'mcp-jupyter:open-sidebar';
  export const refresh = 'mcp-jupyter:refresh';
  export const connectServer = 'mcp-jupyter:connect-server';
}

/** The command palette's category of these commands. */
export const PALETTE_CATEGORY = 'MCP';

/** What the commands act on. */
export interface ICommandHost {
  /** Show the sidebar. */
  openSidebar(): void;
  /** The active notebook kernel's channel (null: no notebook or no kernel). */
  channel(): IMcpChannel | null;
  /** Write a code cell into the active notebook, placed and run as the settings say. */
  writeCode(code: string): Promise<void>;
  /** Ask the person which server to connect (null: they cancelled). */
  askServer(servers: IConfiguredServer[]): Promise<IConfiguredServer | null>;
  /** Tell the person why a command did nothing (a notification). */
  warn(message: string): void;
}

/** The part of JupyterLab's command registry the commands use. */
export type CommandRegistryLike = Pick<
  JupyterFrontEnd['commands'],
  'addCommand'
>;
/** The part of the command palette the commands use. */
export type PaletteLike = Pick<ICommandPalette, 'addItem'>;

/** The arguments of `mcp-jupyter:connect-server`. */
export interface IConnectArgs {
  name?: string;
  source?: string;
}

/** The `describedBy` of a command that takes no arguments. */
const NO_ARGS = { args: { type: 'object', properties: {} } } as const;

function connectArgs(args: Readonly<Record<string, unknown>>): IConnectArgs {
  return {
    name: typeof args.name === 'string' && args.name ? args.name : undefined,
    source:
      typeof args.source === 'string' && args.source ? args.source : undefined
  };
}

/**
 * The server `args` name among `configured` (the first of that name, or the one from `source`);
 * with a name and a source it need not be listed (the kernel reads the file).
 */
export function findServer(
  configured: IConfiguredServer[],
  args: IConnectArgs
): IConfiguredServer | null {
  const found = configured.find(
    s => s.name === args.name && (!args.source || s.source === args.source)
  );
  if (found) {
    return found;
  }
  if (args.name && args.source) {
    return { name: args.name, source: args.source, transport: '', target: '' };
  }
  return null;
}

/** Register the commands (and their palette items when there is a palette). */
export function addCommands(
  registry: CommandRegistryLike,
  host: ICommandHost,
  trans: TranslationBundle,
  palette?: PaletteLike | null
): void {
  const isOpen = (): boolean => host.channel()?.isOpen ?? false;
  registry.addCommand(CommandIDs.openSidebar, {
    label: trans.__('Open sidebar'),
    caption: trans.__(
      "Show the MCP sidebar: the kernel's connections, configured servers and consent inbox"
    ),
    describedBy: NO_ARGS,
    execute: () => host.openSidebar()
  });
  registry.addCommand(CommandIDs.refresh, {
    label: trans.__('Refresh'),
    caption: trans.__(
      'Ask the kernel for a fresh snapshot of its MCP connections'
    ),
    describedBy: NO_ARGS,
    isEnabled: isOpen,
    execute: () => {
      host.channel()?.send({ type: 'refresh' });
    }
  });
  registry.addCommand(CommandIDs.connectServer, {
    label: args => {
      const { name } = connectArgs(args);
      return name
        ? trans.__('Connect %1', name)
        : trans.__('Connect a configured server…');
    },
    caption: trans.__(
      'Write and run %mcp connect for a server from mcp.json, Claude Desktop, Cursor or VS Code'
    ),
    describedBy: {
      args: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            description: trans.__('The server name in its config file')
          },
          source: {
            type: 'string',
            description: trans.__(
              'The config file (when several define the name)'
            )
          }
        }
      }
    },
    isEnabled: isOpen,
    execute: async args => {
      const wanted = connectArgs(args);
      const configured = host.channel()?.snapshot?.configured ?? [];
      let server: IConfiguredServer | null;
      if (wanted.name) {
        server = findServer(configured, wanted);
        if (!server) {
          host.warn(
            trans.__(
              'No configured server is named %1: the MCP sidebar lists the ones this kernel found.',
              wanted.name
            )
          );
          return;
        }
      } else if (configured.length === 0) {
        host.warn(
          trans.__(
            'This kernel found no configured servers: add one to an mcp.json next to the notebook.'
          )
        );
        return;
      } else {
        server = await host.askServer(configured);
      }
      if (server) {
        const magics = host.channel()?.snapshot?.magics;
        await host.writeCode(
          connectCode(server.name, server.source, { magics })
        );
      }
    }
  });
  if (palette) {
    for (const command of [
      CommandIDs.openSidebar,
      CommandIDs.refresh,
      CommandIDs.connectServer
    ]) {
      palette.addItem({ command, category: PALETTE_CATEGORY });
    }
  }
}
