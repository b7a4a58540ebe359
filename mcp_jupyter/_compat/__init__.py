"""The one seam to dependencies' private names: every use of one goes through this package.

One module per dependency (:mod:`.mcp_sdk`, :mod:`.ipykernel`, :mod:`.comm`, :mod:`.uvicorn`,
:mod:`.anyio`, :mod:`.cpython`). Each function says which private name it touches and why no public
API does the job; ``tests/test_compat.py`` has a test per name that fails with "<dependency> changed
X: update mcp_jupyter/_compat/<module>.py" when an upgrade renames or removes it, and pyproject.toml
pins each dependency to the versions those tests were run against. Base layer: these modules import
nothing of the package (docs/architecture.md, "The _compat seam").
"""
