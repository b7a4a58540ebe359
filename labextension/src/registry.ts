/**
 * Find servers' view model: what the sidebar shows for a registry search and its answer, and what
 * Connect writes (pure, unit-tested). The kernel searched the registry and wrote each server's
 * Connect cell (mcp_jupyter/lab/_registry.py); everything else here is server text from the
 * registry, cut to the lists' limits and shown as text.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ENGLISH } from './i18n';
import { IRegistryServer } from './messages';
import { IRegistrySearch } from './model';
import { clip, LIMITS } from './view';

/** How many servers a search asks for (the kernel's default; its maximum is 100). */
export const REGISTRY_LIMIT = 30;

/** One server found, as its row shows it. */
export interface IRegistryServerView {
  /** Its registry name (the row's `data-name`). */
  name: string;
  /** Its title, else the last part of its name (what `connect()` names the connection by default). */
  label: string;
  /** Its whole name, under a label that differs from it ('' otherwise). */
  detail: string;
  version: string;
  description: string;
  /** How it runs ("npm (npx, stdio)"). */
  runs: string;
  /** What connecting asks of the person ('' when nothing). */
  needs: string;
  /** The cell Connect writes. */
  code: string;
  /** Whether Connect may run that cell (the settings permitting); false: written only. */
  run: boolean;
  /** Connect's tooltip: what it writes and whether it runs. */
  connectTitle: string;
  /** Kept from an earlier search while the registry cannot be reached. */
  stale: boolean;
}

/** What Find servers shows below its box. */
export interface IRegistryView {
  /** A line saying what is shown ('' before the first search). */
  status: string;
  /** Why the registry could not be used ('' when it answered). */
  error: string;
  /** The servers shown are the last search's, kept while the registry cannot be reached. */
  stale: boolean;
  servers: IRegistryServerView[];
}

/** `host[:port]` of a registry URL (the whole text when it is not a URL). */
export function registryHost(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** What connecting `server` asks of the person: its secrets, then any other value. */
function needsText(server: IRegistryServer, trans: TranslationBundle): string {
  const secret = new Set(server.secrets);
  const secrets = server.needs.filter(name => secret.has(name));
  const values = server.needs.filter(name => !secret.has(name));
  const parts: string[] = [];
  if (secrets.length) {
    parts.push(
      trans._n(
        'needs the secret %2: you type it when the cell runs',
        'needs the secrets %2: you type them when the cell runs',
        secrets.length,
        secrets.join(', ')
      )
    );
  }
  if (values.length) {
    parts.push(
      trans._n(
        'needs %2: fill it in, then run the cell',
        'needs %2: fill them in, then run the cell',
        values.length,
        values.join(', ')
      )
    );
  }
  return clip(parts.join('; '), LIMITS.detail);
}

/** One server's row; `runs` is the "run the written cell" setting. */
export function registryServerView(
  server: IRegistryServer,
  runs: boolean,
  trans: TranslationBundle = ENGLISH
): IRegistryServerView {
  const code = clip(server.code, LIMITS.detail);
  const label = server.title || server.name.split('/').pop() || server.name;
  let connectTitle: string;
  if (!server.run) {
    connectTitle = trans.__(
      'Insert without running (it needs a value you give when you run it): %1',
      code
    );
  } else if (runs) {
    connectTitle = trans.__('Insert and run: %1', code);
  } else {
    connectTitle = trans.__('Insert: %1', code);
  }
  return {
    name: server.name,
    label: clip(label, LIMITS.label),
    detail: label !== server.name ? clip(server.name, LIMITS.detail) : '',
    version: clip(server.version, LIMITS.label),
    description: clip(server.description, LIMITS.description),
    runs: clip(server.runs, LIMITS.detail),
    needs: needsText(server, trans),
    code: server.code,
    run: server.run,
    connectTitle,
    stale: server.stale
  };
}

/** What Find servers shows for `search`; `runs` is the "run the written cell" setting. */
export function registryView(
  search: IRegistrySearch,
  runs: boolean,
  trans: TranslationBundle = ENGLISH
): IRegistryView {
  const results = search.results;
  const servers = (results?.servers ?? []).map(server =>
    registryServerView(server, runs, trans)
  );
  const error = clip(results?.error, LIMITS.description);
  let status = '';
  if (search.pending) {
    status = trans.__('Searching the registry for “%1”…', search.query);
  } else if (results && results.stale && servers.length) {
    status = trans.__(
      'Showing the last results (they may be out of date): the registry did not answer.'
    );
  } else if (results && !error) {
    const host = clip(registryHost(results.registry), LIMITS.label);
    if (!servers.length) {
      status = results.query
        ? trans.__('No server name at %1 contains “%2”.', host, results.query)
        : trans.__('%1 lists no servers.', host);
    } else if (servers.length >= REGISTRY_LIMIT) {
      status = trans.__(
        'The first %1 servers at %2: type more of the name to narrow them.',
        servers.length,
        host
      );
    } else {
      status = trans._n(
        '%1 server at %2',
        '%1 servers at %2',
        servers.length,
        host
      );
    }
  }
  return {
    status: clip(status, LIMITS.detail),
    error,
    stale: !!results?.stale,
    servers
  };
}
