/**
 * The app's frame: an `<iframe sandbox="allow-scripts">` pointed at the server extension's sandbox
 * route, whose `Content-Security-Policy: sandbox allow-scripts; ...` header gives it an opaque origin
 * and the app's CSP.
 */
import { ServerConnection } from '@jupyterlab/services';

import {
  allowAttribute,
  INITIAL_HEIGHT,
  IOpenedApp,
  sandboxUrl
} from './protocol';

/** A new frame for `app`, titled `title`; it loads once it is in the page. */
export function createAppFrame(
  app: IOpenedApp,
  title: string
): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.className = 'mcpj-app-frame';
  // Belt and braces with the route's CSP sandbox: scripts only (no same-origin, popups, forms,
  // top navigation, modals, downloads).
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = title;
  const allow = allowAttribute(app.permissions);
  if (allow) {
    frame.setAttribute('allow', allow);
  }
  frame.style.height = `${INITIAL_HEIGHT}px`;
  if (app.prefersBorder) {
    frame.classList.add('mcpj-app-bordered');
  }
  frame.src = sandboxUrl(ServerConnection.makeSettings().baseUrl, app.csp);
  return frame;
}
