"""The kernel side of the JupyterLab extension (docs/architecture.md, "The JupyterLab channel").

- :mod:`.channel`  the ``mcp_jupyter.channel`` comm: ``is_live``, ``page``, ``send``, ``on``, ``changed``
- :mod:`.snapshot` what the MCP sidebar shows: connections, configured servers, the consent inbox
- :mod:`.inbox`    consent answered from the sidebar, also while a cell blocks the main thread

The package root installs the channel when it is imported in an ipykernel; nothing here is
imported otherwise.
"""
