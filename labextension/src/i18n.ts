/**
 * Translations: every user-visible string goes through a `TranslationBundle` of the `mcp_jupyter`
 * domain. JupyterLab's `ITranslator` is an optional dependency of each plugin; without it (or
 * without a language pack for this domain) the English source strings are shown.
 */
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';

/** The gettext domain of this extension's strings. */
export const DOMAIN = 'mcp_jupyter';

/** The bundle of this extension's strings from `translator` (English without one). */
export function bundle(translator?: ITranslator | null): TranslationBundle {
  return (translator ?? nullTranslator).load(DOMAIN);
}

/** The English bundle: the default of pure functions that produce text. */
export const ENGLISH: TranslationBundle = bundle(null);
