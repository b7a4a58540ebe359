/**
 * OAuth sign-in (issue 13): a JupyterLab notification for each sign-in a kernel waits on.
 *
 * The kernel announces a sign-in on the MCP channel (`auth.signin`: id, server, host, url, deadline,
 * via, blocked) and its end (`auth.done`). When the cell blocks (a sync `mj.connect`), the card's
 * buttons cannot answer, so this plugin shows a notification instead. The notification shows the authorization server's host, a link to
 * the sign-in page, "Paste address..." and "Cancel". Its answers go back on the channel
 * (`auth.paste`, `auth.cancel`), which the kernel handles on a subshell: they work even while a sync
 * `mj.connect(...)` blocks the cell (the widget card's buttons would wait for the cell).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { InputDialog, Notification } from '@jupyterlab/apputils';

import { IMcpChannel, IMcpChannels } from '../tokens';

interface ISignInMessage {
  type: string;
  id: string;
  server?: string;
  host?: string;
  url?: string;
  via?: string;
  message?: string;
  outcome?: string;
  blocked?: boolean;
}

/** Notification ids by sign-in id, so `auth.done` can dismiss the right one. */
const shown = new Map<string, string>();

function openLink(url: string): void {
  // Only the authorization server's http(s) page is opened, never a script URL.
  if (/^https?:\/\//i.test(url)) {
    window.open(url, '_blank', 'noopener,noreferrer');
  }
}

async function askPaste(channel: IMcpChannel, msg: ISignInMessage): Promise<void> {
  const result = await InputDialog.getText({
    title: `Sign in to ${msg.server}: paste the address`,
    label: 'The address of the page you ended on after signing in',
    placeholder: 'http://…?code=…&state=…'
  });
  if (result.button.accept && result.value) {
    channel.send({ type: 'auth.paste', id: msg.id, url: result.value });
  }
}

function announce(channel: IMcpChannel, msg: ISignInMessage): void {
  const text = `Sign in to ${msg.server} at ${msg.host}`;
  const id = Notification.info(text, {
    autoClose: false,
    actions: [
      {
        label: 'Sign in',
        displayType: 'accent',
        callback: event => {
          event.preventDefault(); // keep the notification: the sign-in is still waiting
          openLink(msg.url ?? '');
        }
      },
      {
        label: 'Paste…',
        callback: event => {
          event.preventDefault();
          void askPaste(channel, msg);
        }
      },
      {
        label: 'Cancel',
        displayType: 'warn',
        callback: () => {
          channel.send({ type: 'auth.cancel', id: msg.id });
        }
      }
    ]
  });
  shown.set(msg.id, id);
}

function handle(channel: IMcpChannel, msg: ISignInMessage): void {
  if (!msg || typeof msg.type !== 'string' || !msg.type.startsWith('auth.')) {
    return;
  }
  if (msg.type === 'auth.signin') {
    if (msg.blocked) {
      announce(channel, msg); // else the card's own buttons work (the cell awaits)
    }
  } else if (msg.type === 'auth.done') {
    const id = shown.get(msg.id);
    if (id !== undefined) {
      Notification.dismiss(id);
      shown.delete(msg.id);
    }
  } else if (msg.type === 'auth.paste.error') {
    Notification.error(msg.message ?? 'That address is not this sign-in\'s redirect.', { autoClose: 8000 });
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'mcp-jupyter-labextension:signin',
  description: 'OAuth sign-in notifications whose Cancel and paste work while a cell blocks.',
  autoStart: true,
  requires: [IMcpChannels],
  activate: (_app: JupyterFrontEnd, channels: IMcpChannels) => {
    const attached = new WeakSet<IMcpChannel>();
    channels.channelStateChanged.connect((_sender, channel) => {
      if (attached.has(channel)) {
        return;
      }
      attached.add(channel);
      channel.messageReceived.connect((sender, msg) => handle(sender, msg as ISignInMessage));
    });
  }
};

export default plugin;
