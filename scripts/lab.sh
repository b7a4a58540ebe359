#!/usr/bin/env bash
# Start JupyterLab from the project's .venv on one notebook (default: the getting-started notebook).
#
# The repository root is JupyterLab's root (so every notebook and ../node_modules paths work); the notebook
# is given relative to it. Kernels come from .venv: its share/jupyter (where `make lab` installs the python3
# kernelspec) is searched first. The server's own settings dir .jupyter-lab/ (created here, git-ignored)
# turns off the "official Jupyter news?" popup and the update check without touching ~/.jupyter; your own
# settings still apply on top. Workspaces (open tabs, layout) are kept in .jupyter-lab/ too.
#
# Binds 127.0.0.1 only. Without a display ($DISPLAY unset: ssh, containers, CI) no browser is opened and
# the exact URL of the notebook (with a fresh token) is printed to open by hand. LAB_PORT picks the port
# (default 8888, or a free one when 8888 is taken).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="$root/.venv"
python="$venv/bin/python"

notebook="${1:-notebooks/01-getting-started.ipynb}"  # relative to the repository root, or absolute
if [ ! -e "$notebook" ]; then
  echo "warning: $notebook does not exist yet; JupyterLab will open on the file browser." >&2
  notebook=""
else
  notebook="$("$python" -c 'import os, sys; print(os.path.relpath(os.path.abspath(sys.argv[1])))' "$notebook")"
  case "$notebook" in
    ..|../*) echo "error: $1 is outside $root, JupyterLab's root." >&2; exit 2 ;;
  esac
fi

# Server-only lab settings: overrides.json sets defaults for this server (a user's explicit choice wins).
lab_dir="$root/.jupyter-lab"
mkdir -p "$lab_dir/settings" "$lab_dir/workspaces"
cat >"$lab_dir/settings/overrides.json" <<'JSON'
{
  "@jupyterlab/apputils-extension:notification": {
    "fetchNews": "false",
    "checkForUpdates": false
  }
}
JSON

# Choose port and token here (not in JupyterLab) so we can print a URL that opens the notebook itself.
port="$("$python" - "${LAB_PORT:-8888}" <<'PY'
import socket, sys
def free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return None
        return s.getsockname()[1]
print(free(int(sys.argv[1])) or free(0))
PY
)"
token="$("$python" -c 'import secrets; print(secrets.token_hex(24))')"

args=(
  --ip 127.0.0.1 --port "$port" --ServerApp.port_retries=0 "--IdentityProvider.token=$token"
  "--ServerApp.root_dir=$root"
  "--LabApp.app_settings_dir=$lab_dir/settings"
  "--LabApp.workspaces_dir=$lab_dir/workspaces"
  --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate
)
if [ "$(id -u)" = 0 ]; then
  args+=(--allow-root)  # containers often run as root; JupyterLab refuses without this flag
fi
if [ -z "${DISPLAY:-}" ]; then
  args+=(--no-browser)
  path="$("$python" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$notebook")"
  echo
  echo "No display found. Open this URL in your browser (Ctrl+C here stops JupyterLab):"
  echo
  echo "    http://127.0.0.1:$port/lab/tree/${path}?token=$token"
  echo
fi

# The venv's share/jupyter first on JUPYTER_PATH: its python3 kernelspec (an absolute path to
# .venv/bin/python) wins over any python3 kernel in the user's or the system's Jupyter dirs.
export JUPYTER_PATH="$venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
export PATH="$venv/bin:$PATH"  # as if the venv were activated: `!pip`, terminals and `python` use it
exec "$venv/bin/jupyter" lab "${args[@]}" ${notebook:+"$notebook"}
