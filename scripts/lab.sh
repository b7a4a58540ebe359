#!/usr/bin/env bash
# Start JupyterLab from the project's .venv on one notebook (default: the getting-started notebook).
#
# Binds 127.0.0.1 only. Without a display ($DISPLAY unset: ssh, containers, CI) no browser is opened and
# the exact URL of the notebook (with a fresh token) is printed to open by hand. LAB_PORT picks the port
# (default 8888, or a free one when 8888 is taken).
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python

notebook="${1:-notebooks/01-getting-started.ipynb}"
if [ ! -e "$notebook" ]; then
  echo "warning: $notebook does not exist yet; JupyterLab will open on the file browser." >&2
  notebook=""
fi

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

args=(--ip 127.0.0.1 --port "$port" --ServerApp.port_retries=0 "--IdentityProvider.token=$token")
if [ "$(id -u)" = 0 ]; then
  args+=(--allow-root)  # containers often run as root; JupyterLab refuses without this flag
fi
if [ -z "${DISPLAY:-}" ]; then
  args+=(--no-browser)
  echo
  echo "No display found. Open this URL in your browser (Ctrl+C here stops JupyterLab):"
  echo
  echo "    http://127.0.0.1:$port/lab/tree/${notebook}?token=$token"
  echo
fi

exec .venv/bin/jupyter lab "${args[@]}" ${notebook:+"$notebook"}
