/**
 * The core plugins: the `IMcpChannels` service and the "MCP" sidebar.
 */
import { ILabShell, ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, InputDialog, IThemeManager, Notification } from '@jupyterlab/apputils';
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
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
import { IConfiguredServer, IInboxItem, IPageInfo, ISnapshot, Theme } from './messages';
import { DEFAULT_SETTINGS, ISidebarSettings, readSettings } from './settings';
import { McpSidebar } from './sidebar';
import { IMcpChannel, IMcpChannels } from './tokens';
import { clip, inboxLabel, LIMITS, pendingCount } from './view';

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

function currentTheme(themes: IThemeManager | null): Theme {
  if (themes?.theme) {
    return themes.isLight(themes.theme) ? 'light' : 'dark';
  }
  return document.body.dataset.jpThemeLight === 'false' ? 'dark' : 'light';
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
      base_url: PageConfig.getBaseUrl(),
      theme: currentTheme(themes),
      server_extension: await probe()
    });
    const channels = new McpChannels(page);
    themes?.themeChanged.connect(() => void channels.pageChanged());
    // Every notebook kernel gets a channel at once: it watches the kernel's cells from the start and
    // asks whether mcp_jupyter was imported (channel.ts).
    const watch = (panel: NotebookPanel): void => {
      const attach = (): void => void channels.channelFor(panel.sessionContext.session?.kernel);
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
  description: 'The MCP sidebar: connections, configured servers and the consent inbox.',
  autoStart: true,
  requires: [IMcpChannels, INotebookTracker],
  optional: [ILabShell, ITranslator, ISettingRegistry, ICommandPalette, ILayoutRestorer],
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
    let channel: IMcpChannel | null = null;
    let settings: ISidebarSettings = { ...DEFAULT_SETTINGS };
    const panel = (): NotebookPanel | null => notebooks.currentWidget;
    const writeCode = async (code: string): Promise<void> => {
      const current = panel();
      if (current) {
        await writeCell(current, code, settings);
      }
    };
    const sidebar = new McpSidebar({
      channel: () => channel,
      notebookName: () => panel()?.context.path.split('/').pop() ?? '',
      writeCode,
      connect: server =>
        void app.commands.execute(CommandIDs.connectServer, { name: server.name, source: server.source }),
      refresh: () => void app.commands.execute(CommandIDs.refresh),
      settings: () => settings,
      trans
    });
    sidebar.id = SIDEBAR_ID;
    sidebar.title.icon = mcpIcon;
    sidebar.title.caption = 'MCP';
    // JupyterLab has a left area; Notebook 7 has left and right panels (hidden until opened).
    app.shell.add(sidebar, 'left', { rank: 650, type: 'MCP' });
    // Remembered in the layout: a reload (or a workspace) opens the sidebar again if it was open.
    restorer?.add(sidebar, SIDEBAR_ID);

    const openSidebar = (): void => app.shell.activateById(SIDEBAR_ID);
    addCommands(
      app.commands,
      {
        openSidebar,
        channel: () => channel,
        writeCode,
        askServer: servers => askServer(servers, trans),
        warn: message => void Notification.warning(message, { autoClose: 8000 })
      },
      trans,
      palette
    );

    const notices = new InboxNotices(openSidebar, trans);
    const refresh = (): void => {
      const snapshot = channel?.snapshot ?? null;
      const pending = pendingCount(snapshot);
      // a new object (Lumino re-renders on identity), keeping JupyterLab's own keys (data-id, ...)
      const { 'mcpj-pending': _, ...dataset } = sidebar.title.dataset;
      sidebar.title.dataset = pending ? { ...dataset, 'mcpj-pending': String(pending) } : dataset;
      sidebar.title.caption = pending ? trans.__('MCP: %1 waiting for you', pending) : 'MCP';
      notices.update(settings.inboxNotifications ? snapshot : null);
      sidebar.update();
      app.commands.notifyCommandChanged(CommandIDs.refresh);
      app.commands.notifyCommandChanged(CommandIDs.connectServer);
    };
    const onSnapshot = (): void => refresh();
    const follow = (): void => {
      const next = channels.channelFor(panel()?.sessionContext.session?.kernel);
      if (next !== channel) {
        channel?.snapshotChanged.disconnect(onSnapshot);
        channel = next;
        channel?.snapshotChanged.connect(onSnapshot);
      }
      refresh();
    };
    notebooks.currentChanged.connect((_, current) => {
      current?.sessionContext.kernelChanged.connect(follow);
      follow();
    });
    notebooks.widgetAdded.connect((_, added) => added.sessionContext.kernelChanged.connect(follow));
    channels.channelStateChanged.connect(follow);
    labShell?.currentChanged.connect(follow);
    follow();

    // The settings apply live: the next click, tooltip and notification follow them.
    if (settingRegistry) {
      settingRegistry
        .load(SIDEBAR_PLUGIN_ID)
        .then(loaded => {
          const apply = (): void => {
            settings = readSettings(loaded.composite);
            refresh();
          };
          loaded.changed.connect(apply);
          apply();
        })
        .catch(reason => console.warn('mcp_jupyter: could not load the MCP sidebar settings', reason));
    }
  }
};

/** Ask which configured server to connect (null: cancelled). */
async function askServer(servers: IConfiguredServer[], trans: TranslationBundle): Promise<IConfiguredServer | null> {
  // a name defined in two config files is told apart by its file
  const counts = new Map<string, number>();
  servers.forEach(s => counts.set(s.name, (counts.get(s.name) ?? 0) + 1));
  const labels = servers.map(s => ((counts.get(s.name) ?? 0) > 1 ? `${s.name} (${s.source})` : s.name));
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

/** One JupyterLab notification per waiting request, dismissed once it is answered. */
class InboxNotices {
  constructor(
    private readonly _open: () => void,
    private readonly _trans: TranslationBundle
  ) {}

  /** Show the new requests of `snapshot` and dismiss the answered ones (null: dismiss all). */
  update(snapshot: ISnapshot | null): void {
    const items = snapshot?.inbox ?? [];
    const ids = new Set(items.map(item => item.id));
    for (const [id, notice] of this._notices) {
      if (!ids.has(id)) {
        Notification.dismiss(notice);
        this._notices.delete(id);
      }
    }
    for (const item of items) {
      if (!this._notices.has(item.id) && !this._seen.has(item.id)) {
        this._seen.add(item.id);
        this._notices.set(item.id, this._notify(item));
      }
    }
  }

  private _notify(item: IInboxItem): string {
    const trans = this._trans;
    return Notification.info(`${inboxLabel(item, trans)}: ${clip(item.title || item.kind, LIMITS.label)}`, {
      autoClose: false,
      actions: [{ label: trans.__('Answer in the MCP sidebar'), callback: () => this._open() }]
    });
  }

  private _notices = new Map<string, string>();
  private _seen = new Set<string>();
}

/** Keys typed in our widgets (a dropdown, a button, a checkbox) stay in them: no cell is inserted,
 * deleted or changed by them (src/keys.ts). */
const keysPlugin: JupyterFrontEndPlugin<void> = {
  id: 'mcp-jupyter-labextension:keys',
  description: "Keeps keys typed in mcp_jupyter's widgets from becoming notebook shortcuts.",
  autoStart: true,
  activate: (): void => {
    installKeyGuard();
  }
};

export default [channelsPlugin, sidebarPlugin, keysPlugin];
