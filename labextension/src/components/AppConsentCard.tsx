/**
 * The consent cards of an MCP App (above its frame): "open this link?", "send this message?".
 */
import React from 'react';

import { ChoiceButtons } from './ChoiceButtons';
import { useTrans } from './translation';

/** One question an app's request waits on. */
export interface IAppConsent {
  /** Unique among the app's cards (React's key). */
  id: number;
  /** `open-link` or `message`: the card's class `mcpj-app-consent-KIND`. */
  kind: string;
  /** The whole question, naming the app and its server. */
  question: string;
  /** What the app wants to open or send, shown as text. */
  detail: string;
  /** The allow button's text ("Open", "Send"). */
  allowLabel: string;
  /** Called once with the answer. */
  answer: (allowed: boolean) => void;
}

/** A card: the question, the detail, and allow / Deny. */
export function AppConsentCard(props: { consent: IAppConsent }): JSX.Element {
  const trans = useTrans();
  const { consent } = props;
  return (
    <div className={`mcpj-app-consent mcpj-app-consent-${consent.kind}`}>
      <div className="mcpj-app-consent-question">{consent.question}</div>
      <pre className="mcpj-app-consent-detail">{consent.detail}</pre>
      <ChoiceButtons
        className="mcpj-app-consent-buttons"
        choices={[
          {
            label: consent.allowLabel,
            className: 'jp-mod-styled jp-mod-accept mcpj-app-allow',
            onClick: () => consent.answer(true)
          },
          {
            label: trans.__('Deny'),
            className: 'jp-mod-styled jp-mod-reject mcpj-app-deny',
            onClick: () => consent.answer(false)
          }
        ]}
      />
    </div>
  );
}

/** The cards waiting, oldest first. */
export function AppConsents(props: {
  consents: readonly IAppConsent[];
}): JSX.Element {
  return (
    <>
      {props.consents.map(consent => (
        <AppConsentCard key={consent.id} consent={consent} />
      ))}
    </>
  );
}

/** What shows where the app would be: a status line, or a placeholder card saying why not. */
export type AppNoticeState =
  | { kind: 'status'; text: string }
  | { kind: 'placeholder'; reason: string; title: string; text: string }
  | null;

/** The status line or the placeholder card (nothing once the app is mounted). */
export function AppNotice(props: {
  notice: AppNoticeState;
}): JSX.Element | null {
  const { notice } = props;
  if (!notice) {
    return null;
  }
  if (notice.kind === 'status') {
    return <div className="mcpj-app-status">{notice.text}</div>;
  }
  return (
    <div className="mcpj-app-placeholder" data-reason={notice.reason}>
      <div className="mcpj-app-placeholder-title">{notice.title}</div>
      <div className="mcpj-app-placeholder-note">{notice.text}</div>
    </div>
  );
}
