/**
 * MCP Apps: renders `application/vnd.mcp-jupyter.app+json` outputs as live apps.
 *
 * A plain mime extension has no kernel, and an app needs its notebook's kernel (which holds the
 * MCP connection). So this is a normal plugin: for every notebook it adds a renderer factory to
 * that notebook's rendermime registry (which the widgets' Output areas share), bound to the
 * notebook's kernel through the `IMcpChannels` service. Untrusted outputs (a notebook opened from
 * disk) are not rendered live: JupyterLab falls back to the output's static `text/html` card.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IThemeManager } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { ITranslator } from '@jupyterlab/translation';

import { bundle } from '../i18n';
import { bodyTheme } from '../theme';
import { IMcpChannels } from '../tokens';
import { APP_OUTPUT_MIME, AppOutput, IAppHost } from './renderer';

/** Lower ranks win: before `text/html` (rank 50), like the widget renderer. */
const RANK = 0;

function bind(panel: NotebookPanel, host: Omit<IAppHost, 'kernel'>): void {
  const factory: IRenderMime.IRendererFactory = {
    safe: false,
    mimeTypes: [APP_OUTPUT_MIME],
    defaultRank: RANK,
    createRenderer: options =>
      new AppOutput(options, {
        ...host,
        kernel: () => panel.sessionContext.session?.kernel ?? null
      })
  };
  panel.content.rendermime.addFactory(factory, RANK);
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'mcp-jupyter-labextension:apps',
  description:
    'MCP Apps: interactive server UIs in sandboxed frames, bound to the notebook kernel.',
  autoStart: true,
  requires: [INotebookTracker, IMcpChannels],
  optional: [IThemeManager, ITranslator],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    channels: IMcpChannels,
    themes: IThemeManager | null,
    translator: ITranslator | null
  ) => {
    const host = {
      trans: bundle(translator),
      channels,
      theme: bodyTheme,
      themeChanged: themes?.themeChanged ?? null,
      version: app.version ? `lab-${app.version}` : 'unknown'
    };
    tracker.forEach(panel => bind(panel, host));
    tracker.widgetAdded.connect((_, panel) => bind(panel, host));
  }
};

export default plugin;
