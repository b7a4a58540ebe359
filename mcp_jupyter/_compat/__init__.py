"""The one place where mcp_jupyter uses private names of its dependencies (each module says why)."""
