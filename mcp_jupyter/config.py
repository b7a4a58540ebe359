"""Old import path, kept for users: config files are read by :mod:`mcp_jupyter.client.config`."""

from .client.config import *  # noqa: F403
from .client.config import expand_env, load_config, parse_config, select  # noqa: F401
