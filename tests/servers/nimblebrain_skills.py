"""Skills served by an implementation mcp_jupyter did not write: nimblebrain-bundle-sdk's skills extension
(SEP-2640) on the SDK's own ``MCPServer``, serving the skill folders given as arguments over stdio.

Runs in .venv-skills (tests/servers/requirements-skills.txt: that package pins ``mcp<2.3``), made by
``make test``; tests/test_published_servers.py connects to it.
"""

import sys

from mcp.server.mcpserver import MCPServer
from nimblebrain_bundle_sdk import MCPServerSkillsExtension

if __name__ == "__main__":
    MCPServer("nimblebrain-skills", extensions=[MCPServerSkillsExtension(sys.argv[1:])]).run("stdio")
