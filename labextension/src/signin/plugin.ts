/**
 * OAuth sign-in: a JupyterLab notification for each sign-in a kernel waits on.
 *
 * The kernel announces a sign-in on the MCP channel (`auth.signin`: id, server, host, url, deadline,
 * via, blocked) and its end (`auth.done`). When the cell blocks (a sync `mj.connect`), the card's
 * buttons cannot answer, so this plugin shows a notification instead: the authorization server's
 * host, "Sign in" (opens the sign-in page), "Paste…" and "Cancel". Its answers go back on the channel
 * (`auth.paste`, `auth.cancel`), which the kernel handles on a subshell: they work even while a sync
 * `mj.connect(...)` blocks the cell (the widget card's buttons would wait for the cell).
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { InputDialog, Notification } from '@jupyterlab/apputils';
import { ITranslator, TranslationBundle } from '@jupyterlab/translation';

import { bundle } from '../i18n';
import { ISignInMessage, KernelMessage } from '../messages';
import { IMcpChannel, IMcpChannels } from '../tokens';

/** Notification ids by sign-in id, so `auth.done` can dismiss the right one. */
const shown = new Map<string, string>();

function openLink(url: string): void {
  // Only the authorization server's http(s) page is opened, never a script URL.
  if (/^https?:\/\//i.test(url)) {
    window.open(url, '_blank', 'noopener,noreferrer');
  }
}

async function askPaste(
  channel: IMcpChannel,
  msg: ISignInMessage,
  trans: TranslationBundle
): Promise<void> {
  const result = await InputDialog.getText({
    title: trans.__('Sign in to %1: paste the address', msg.server),
    label: trans.__('The address of the page you ended on after signing in'),
    // the shape of an address, not words to translate
    // eslint-disable-next-line jupyter/no-untranslated-string
    placeholder: 'http://…?code=…&state=…',
    okLabel: trans.__('OK'),
    cancelLabel: trans.__('Cancel')
  });
  if (result.button.accept && result.value) {
    channel.send({ type: 'auth.paste', id: msg.id, url: result.value });
  }
}

function announce(
  channel: IMcpChannel,
  msg: ISignInMessage,
  trans: TranslationBundle
): void {
  const id = Notification.info(
    trans.__('Sign in to %1 at %2', msg.server, msg.host),
    {
      autoClose: false,
      actions: [
        {
          label: trans.__('Sign in'),
          displayType: 'accent',
          callback: event => {
            event.preventDefault(); // keep the notification: the sign-in is still waiting
            openLink(msg.url);
          }
        },
        {
          label: trans.__('Paste…'),
          callback: event => {
            event.preventDefault();
            void askPaste(channel, msg, trans);
          }
        },
        {
          label: trans.__('Cancel'),
          displayType: 'warn',
          callback: () => {
            channel.send({ type: 'auth.cancel', id: msg.id });
          }
        }
      ]
    }
  );
  shown.set(msg.id, id);
}

function handle(
  channel: IMcpChannel,
  msg: KernelMessage,
  trans: TranslationBundle
): void {
  switch (msg.type) {
    case 'auth.signin':
      if (msg.blocked) {
        announce(channel, msg, trans); // else the card's own buttons work (the cell awaits)
      }
      break;
    case 'auth.done': {
      const id = shown.get(msg.id);
      if (id !== undefined) {
        Notification.dismiss(id);
        shown.delete(msg.id);
      }
      break;
    }
    case 'auth.paste.error':
      Notification.error(
        msg.message || trans.__("That address is not this sign-in's redirect."),
        {
          autoClose: 8000
        }
      );
      break;
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'mcp-jupyter-labextension:signin',
  description:
    'OAuth sign-in notifications whose Cancel and paste work while a cell blocks.',
  autoStart: true,
  requires: [IMcpChannels],
  optional: [ITranslator],
  activate: (
    _app: JupyterFrontEnd,
    channels: IMcpChannels,
    translator: ITranslator | null
  ) => {
    const trans = bundle(translator);
    const attached = new WeakSet<IMcpChannel>();
    channels.channelStateChanged.connect((_sender, channel) => {
      if (attached.has(channel)) {
        return;
      }
      attached.add(channel);
      channel.messageReceived.connect((sender, msg) =>
        handle(sender, msg, trans)
      );
    });
  }
};

export default plugin;
