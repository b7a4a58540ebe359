#!/usr/bin/env bash
# Start JupyterLab from the project's .venv on one notebook (default: the getting-started notebook).
#
# Binds 127.0.0.1 only. Without a display ($DISPLAY unset: ssh, containers, CI) no browser is opened and
# JupyterLab prints the URL (with its token) to open by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

notebook="${1:-notebooks/01-getting-started.ipynb}"
args=(--ip 127.0.0.1)
if [ -z "${DISPLAY:-}" ]; then
  args+=(--no-browser)
  echo "No display found: open the http://127.0.0.1:... URL printed below in your browser."
fi
if [ "$(id -u)" = 0 ]; then
  args+=(--allow-root)  # containers often run as root; JupyterLab refuses without this flag
fi
if [ ! -e "$notebook" ]; then
  echo "warning: $notebook does not exist yet; JupyterLab will open on the file browser." >&2
  notebook=""
fi

exec .venv/bin/jupyter lab "${args[@]}" ${notebook:+"$notebook"}
