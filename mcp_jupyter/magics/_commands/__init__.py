"""The ``%mcp`` subcommands, one file per command group; importing this package registers them all.

Each group module declares its subcommands with :func:`mcp_jupyter.magics._registry.subcommand`
(name, summary, arguments, runner, flags), and nothing else needs to know about them: the parser,
``%mcp --help``, ``%mcp CMD --help``, Tab completion, dispatch and the docs' ``%mcp`` reference are
derived from :data:`~mcp_jupyter.magics.REGISTRY`.

Adding a command group is one new file here plus one import line below; the import order is the
order of ``%mcp --help``. Every runner takes the parsed
:class:`~mcp_jupyter.magics.Command` and the IPython shell, and returns the object the
magic returns (and IPython displays), or ``None`` after printing/displaying something itself.
Nothing here touches the SDK: only ``mcp_jupyter``'s public names. docs/architecture.md ("Adding a
%mcp subcommand") walks through an example.
"""

# The import order is the order of %mcp --help, so the imports are not sorted.
# isort: off
from mcp_jupyter.magics._commands import connections  # noqa: F401 - importing a group registers it
from mcp_jupyter.magics._commands import registry  # noqa: F401
from mcp_jupyter.magics._commands import doctor  # noqa: F401
from mcp_jupyter.magics._commands import listings  # noqa: F401
from mcp_jupyter.magics._commands import calls  # noqa: F401
from mcp_jupyter.magics._commands import tasks  # noqa: F401
from mcp_jupyter.magics._commands import utilities  # noqa: F401
from mcp_jupyter.magics._commands import consent  # noqa: F401
from mcp_jupyter.magics._commands import testing  # noqa: F401
from mcp_jupyter.magics._commands import widgets  # noqa: F401
from mcp_jupyter.magics._commands import serving  # noqa: F401
# isort: on
