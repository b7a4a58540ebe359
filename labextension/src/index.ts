/**
 * mcp-jupyter-labextension: the kernel channel and the MCP sidebar (plugin.ts), MCP Apps (apps/) and
 * the OAuth sign-in notifications (signin/). Each feature is a plugin of its own; the channel service
 * (`IMcpChannels`) is the shared piece, and with the channel's messages the public API.
 */
import appsPlugin from './apps/plugin';
import corePlugins from './plugin';
import signinPlugin from './signin/plugin';

export * from './messages';
export * from './tokens';
export default [...corePlugins, appsPlugin, signinPlugin];
