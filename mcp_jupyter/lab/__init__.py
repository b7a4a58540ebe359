"""The kernel side of the JupyterLab extension (docs/architecture.md, "The JupyterLab channel").

Nothing here is for users to import: the package root installs the ``mcp_jupyter.channel`` comm
target when it is imported in an ipykernel, and the MCP sidebar does the rest (docs/sidebar.md).
Its modules (the channel, the sidebar's snapshots, the consent inbox answered while a cell blocks,
sign-ins, MCP Apps' requests, task cancels) are internal; nothing here is imported otherwise.
"""

__all__: list[str] = []  # nothing to import: the package root installs the channel in a kernel
