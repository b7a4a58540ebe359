/**
 * mcp-jupyter-labextension: the MCP sidebar and the kernel channel (issue 14), MCP Apps (issue 15),
 * OAuth sign-in (issue 13). Each feature is a plugin of its own; the channel service is the shared piece.
 */
import appsPlugin from './apps/plugin';
import corePlugins from './plugin';
import signinPlugin from './signin/plugin';

export * from './messages';
export * from './tokens';
export default [...corePlugins, appsPlugin, signinPlugin];
