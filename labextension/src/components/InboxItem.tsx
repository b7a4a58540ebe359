/**
 * One waiting consent request in the sidebar's inbox; its answer goes to the kernel through the
 * sidebar's model, which also knows whether it was sent or refused.
 */
import React from 'react';

import { AnswerAction, IInboxItem } from '../messages';
import { SidebarModel } from '../model';
import { clip, inboxLabel, LIMITS } from '../view';
import { ElicitationForm } from './ElicitationForm';
import { RootsRequest } from './RootsRequest';
import { SamplingReview } from './SamplingReview';
import { useTrans } from './translation';

/** The request's title, its form or review, and what happened to the answer. */
export function InboxItem(props: {
  item: IInboxItem;
  model: SidebarModel;
}): JSX.Element {
  const trans = useTrans();
  const { item, model } = props;
  // the kernel checks an answer as the in-cell card does; a refusal enables the form again
  const { sent, refused: reasons } = model.answerState(item);
  const refused = reasons ? reasons.join('; ') || trans.__('refused') : '';
  const answer = (
    action: AnswerAction,
    content?: Record<string, unknown>
  ): void => void model.answer(item, action, content);
  const message =
    item.kind === 'elicitation' ? item.payload?.message : undefined;
  const sentLabel = {
    accept: trans.__('accept'),
    decline: trans.__('decline'),
    cancel: trans.__('cancel')
  };
  return (
    <div
      className={`mcpj-inbox-item mcpj-inbox-kind-${item.kind}`}
      data-id={item.id}
    >
      <div className="mcpj-inbox-title">{inboxLabel(item, trans)}</div>
      {item.title && item.title !== message && (
        <div className="mcpj-inbox-subtitle">
          {clip(item.title, LIMITS.description)}
        </div>
      )}
      {item.kind === 'elicitation' && (
        <ElicitationForm item={item} answer={answer} disabled={!!sent} />
      )}
      {item.kind === 'sampling' && (
        <SamplingReview item={item} answer={answer} disabled={!!sent} />
      )}
      {item.kind === 'roots' && (
        <RootsRequest item={item} answer={answer} disabled={!!sent} />
      )}
      {refused && (
        <div className="mcpj-error mcpj-inbox-refused">
          {trans.__('The kernel refused the answer: %1', refused)}
        </div>
      )}
      {sent && (
        <div className="mcpj-detail mcpj-inbox-sent">
          {trans.__('Sent: %1', sentLabel[sent])}
        </div>
      )}
    </div>
  );
}
