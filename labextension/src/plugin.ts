/**
 * The core plugins: the `IMcpChannels` service, the "MCP" sidebar (its model, widget, notifications,
 * settings and commands wired to JupyterLab) and the key guard of our widgets.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  InputDialog,
  IThemeManager,
  Notification
} from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, TranslationBundle } from '@jupyterlab/translation';
import { LabIcon } from '@jupyterlab/ui-components';

import { writeCell } from './cells';
import { McpChannels } from './channel';
import { addCommands, CommandIDs } from './commands';
import { bundle } from './i18n';
import { installKeyGuard } from './keys';
import { IConfiguredServer, IPageInfo } from './messages';
import { SidebarModel } from './model';
import { InboxNotices } from './notices';
import { IWriteOptions, readSettings } from './settings';
import { McpSidebar } from './sidebar';
import { currentTheme } from './theme';
import { IMcpChannels } from './tokens';

const SIDEBAR_ID = 'mcp-jupyter-sidebar';
/** The sidebar plugin's id: its settings are schema/sidebar.json. */
const SIDEBAR_PLUGIN_ID = 'mcp-jupyter-labextension:sidebar';

/** A plug with "MCP"-ish prongs; `fill` follows the theme through jp-icon classes. */
export const mcpIcon = new LabIcon({
  name: 'mcp-jupyter:mcp',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">' +
    '<g class="jp-icon3" fill="#616161"><path d="M7 2h2v5H7zm8 0h2v5h-2zM5 8h14v3a7 7 0 0 1-6 6.93V22h-2v-4.07' +
    'A7 7 0 0 1 5 11z"/></g></svg>'
});

/** Whether `GET {base}mcp-jupyter/ping` answers 200 (the server extension is enabled); asked once. */
function serverExtensionProbe(): () => Promise<boolean> {
  let answer: Promise<boolean> | null = null;
  return () => {
    if (!answer) {
      const settings = ServerConnection.makeSettings();
      const url = URLExt.join(settings.baseUrl, 'mcp-jupyter', 'ping');
      answer = ServerConnection.makeRequest(url, {}, settings)
        .then(response => response.ok)
        .catch(() => false);
    }
    return answer;
  };
}

/** The `IMcpChannels` service. */
const channelsPlugin: JupyterFrontEndPlugin<IMcpChannels> = {
  id: 'mcp-jupyter-labextension:channels',
  description: 'One MCP channel (a comm over a kernel subshell) per kernel.',
  autoStart: true,
  provides: IMcpChannels,
  optional: [IThemeManager, INotebookTracker],
  activate: (
    _app: JupyterFrontEnd,
    themes: IThemeManager | null,
    notebooks: INotebookTracker | null
  ): IMcpChannels => {
    const probe = serverExtensionProbe();
    const page = async (): Promise<IPageInfo> => ({
      origin: window.location.origin,
      base_url: ServerConnection.makeSettings().baseUrl,
      theme: currentTheme(themes),
      server_extension: await probe()
    });
    const channels = new McpChannels(page);
    themes?.themeChanged.connect(() => void channels.pageChanged());
    // Every notebook kernel gets a channel at once: it watches the kernel's cells from the start and
    // asks whether mcp_jupyter was imported (channel.ts).
    const watch = (panel: NotebookPanel): void => {
      const attach = (): void =>
        void channels.channelFor(panel.sessionContext.session?.kernel);
      panel.sessionContext.kernelChanged.connect(attach);
      attach();
    };
    notebooks?.widgetAdded.connect((_, panel) => watch(panel));
    notebooks?.forEach(watch);
    return channels;
  }
};

/** The "MCP" sidebar of the active notebook's kernel, its badge, notifications, settings and commands. */
const sidebarPlugin: JupyterFrontEndPlugin<void> = {
  id: SIDEBAR_PLUGIN_ID,
  description:
    'The MCP sidebar: connections, configured servers and the consent inbox.',
  autoStart: true,
  requires: [IMcpChannels, INotebookTracker],
  optional: [
    ILabShell,
    ITranslator,
    ISettingRegistry,
    ICommandPalette,
    ILayoutRestorer
  ],
  activate: (
    app: JupyterFrontEnd,
    channels: IMcpChannels,
    notebooks: INotebookTracker,
    labShell: ILabShell | null,
    translator: ITranslator | null,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null
  ): void => {
    const trans = bundle(translator);
    const model = new SidebarModel(channels);
    const writeCode = async (
      code: string,
      options?: IWriteOptions
    ): Promise<void> => {
      const current = notebooks.currentWidget;
      if (current) {
        await writeCell(current, code, model.settings, options);
      }
    };
    const sidebar = new McpSidebar(
      model,
      {
        writeCode,
        connect: server =>
          void app.commands.execute(CommandIDs.connectServer, {
            name: server.name,
            source: server.source
          }),
        refresh: () => void app.commands.execute(CommandIDs.refresh)
      },
      trans
    );
    sidebar.id = SIDEBAR_ID;
    sidebar.title.icon = mcpIcon;
    // JupyterLab has a left area; Notebook 7 has left and right panels (hidden until opened).
    app.shell.add(sidebar, 'left', { rank: 650, type: 'MCP' });
    // Remembered in the layout: a reload (or a workspace) opens the sidebar again if it was open.
    restorer?.add(sidebar, SIDEBAR_ID);

    const openSidebar = (): void => app.shell.activateById(SIDEBAR_ID);
    addCommands(
      app.commands,
      {
        openSidebar,
        channel: () => model.channel,
        writeCode,
        askServer: servers => askServer(servers, trans),
        warn: message => void Notification.warning(message, { autoClose: 8000 })
      },
      trans,
      palette
    );
    model.changed.connect((_, change) => {
      if (change === 'channel' || change === 'snapshot') {
        app.commands.notifyCommandChanged(CommandIDs.refresh);
        app.commands.notifyCommandChanged(CommandIDs.connectServer);
      }
    });
    new InboxNotices(model, openSidebar, trans);

    followActiveNotebook(model, notebooks, labShell);
    // The settings apply live: the next click, tooltip and notification follow them.
    settingRegistry
      ?.load(SIDEBAR_PLUGIN_ID)
      .then(loaded => {
        const apply = (): void =>
          model.setSettings(readSettings(loaded.composite));
        loaded.changed.connect(apply);
        apply();
      })
      .catch(reason =>
        console.warn(
          'mcp_jupyter: could not load the MCP sidebar settings',
          reason
        )
      );
  }
};

/** Keep `model` on the active notebook: its name and its kernel, through switches and restarts. */
function followActiveNotebook(
  model: SidebarModel,
  notebooks: INotebookTracker,
  labShell: ILabShell | null
): void {
  const follow = (): void => {
    const panel = notebooks.currentWidget;
    model.follow(
      panel?.sessionContext.session?.kernel,
      panel?.context.path.split('/').pop() ?? ''
    );
  };
  const watch = (panel: NotebookPanel): void => {
    panel.sessionContext.kernelChanged.connect(follow);
    panel.context.pathChanged.connect(follow);
  };
  notebooks.currentChanged.connect((_, current) => {
    if (current) {
      watch(current);
    }
    follow();
  });
  notebooks.widgetAdded.connect((_, added) => watch(added));
  labShell?.currentChanged.connect(follow);
  follow();
}

/** Ask which configured server to connect (null: cancelled). */
async function askServer(
  servers: IConfiguredServer[],
  trans: TranslationBundle
): Promise<IConfiguredServer | null> {
  // a name defined in two config files is told apart by its file
  const counts = new Map<string, number>();
  servers.forEach(s => counts.set(s.name, (counts.get(s.name) ?? 0) + 1));
  const labels = servers.map(s =>
    (counts.get(s.name) ?? 0) > 1 ? `${s.name} (${s.source})` : s.name
  );
  const result = await InputDialog.getItem({
    title: trans.__('Connect a configured server'),
    label: trans.__('Server'),
    items: labels,
    okLabel: trans.__('Connect'),
    cancelLabel: trans.__('Cancel')
  });
  if (!result.button.accept || result.value === null) {
    return null;
  }
  return servers[labels.indexOf(result.value)] ?? null;
}

/** Keys typed in our widgets (a dropdown, a button, a checkbox) stay in them: no cell is inserted,
 * deleted or changed by them (keys.ts). */
const keysPlugin: JupyterFrontEndPlugin<void> = {
  id: 'mcp-jupyter-labextension:keys',
  description:
    "Keeps keys typed in mcp_jupyter's widgets from becoming notebook shortcuts.",
  autoStart: true,
  activate: (): void => {
    installKeyGuard();
  }
};

export default [channelsPlugin, sidebarPlugin, keysPlugin];
