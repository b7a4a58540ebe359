"""The parts a :class:`~mcp_jupyter.Connection` is built from, one per MCP feature.

Each part is a mixin over the connection's loop-side session (``self._session``); its public
``a*`` methods run on the runtime loop and their sync twins are derived by
:func:`~mcp_jupyter.client._runtime_methods.blocking`.
"""

from .prompts import PromptsFeature
from .resources import ResourcesFeature
from .skills import SkillsFeature
from .tools import ToolsFeature
from .utilities import UtilitiesFeature

__all__ = ["ToolsFeature", "ResourcesFeature", "PromptsFeature", "UtilitiesFeature", "SkillsFeature"]
